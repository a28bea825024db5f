"""A change to the store's data made outside the tools (the admin, a script, another system writing through
the ORM) expires the tools' cached reads once it is committed, so the assistant never quotes an order, an
address or a price as it was before. Bulk writes send no signals: an import expires the cache itself."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from stores.builtin.models import (
    Address,
    Fulfillment,
    Order,
    OrderItem,
    PaymentMethod,
    PaymentTransaction,
    Product,
    StoreProfile,
    SubsidyRule,
    TrackingEvent,
    Variant,
)
from stores.versions import store_version_bump


def _customer_id(instance: Any) -> int | None:
    """The customer whose data the row is part of; None for the catalogue, which everyone reads."""
    if isinstance(instance, (Order, Address, PaymentMethod)):
        return instance.customer_id
    if isinstance(instance, (OrderItem, Fulfillment, PaymentTransaction)):
        return Order.objects.filter(pk=instance.order_id).values_list("customer_id", flat=True).first()
    if isinstance(instance, TrackingEvent):
        return (
            Fulfillment.objects.filter(pk=instance.fulfillment_id).values_list("order__customer_id", flat=True).first()
        )
    return None


def _changed(sender: type, instance: Any, **kwargs: Any) -> None:
    customer_id = _customer_id(instance)
    if customer_id is None and sender not in (Product, Variant, SubsidyRule, StoreProfile):
        return  # a customer's row that no longer leads to them (deleted with its order): nothing cached is theirs
    transaction.on_commit(lambda: store_version_bump(customer_id))


def connect() -> None:
    models = (Address, Fulfillment, Order, OrderItem, PaymentMethod, PaymentTransaction, Product, SubsidyRule)
    for model in (*models, StoreProfile, TrackingEvent, Variant):
        post_save.connect(_changed, sender=model, dispatch_uid=f"tool-cache-{model.__name__}-save")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"tool-cache-{model.__name__}-delete")
