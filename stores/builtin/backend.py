"""The built-in store as a backend: its tables read into `stores.records`, its writes through `services`.

Writes need no idempotency store of their own: each write checks the order's status under a row lock, so a
repeated write is refused by the same rule the second time (`wrong_status`) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db.models import QuerySet

from conversations.models import Customer
from stores.builtin import models, services
from stores.builtin.selectors import store_currency, subsidy_rules_active
from stores.records import (
    ItemsSwap,
    Order,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Shipment,
    StoreCatalogue,
    StoreCustomer,
    StoreError,
    TrackingEvent,
    Variant,
    WriteResult,
)

T = TypeVar("T")


def _orders() -> QuerySet[models.Order]:
    return models.Order.objects.select_related("customer").prefetch_related(
        "items__variant", "items__product", "fulfillments__events", "transactions__payment_method"
    )


def _shipment(fulfillment: models.Fulfillment) -> Shipment:
    events = sorted(fulfillment.events.all(), key=lambda e: e.occurred_at, reverse=True)
    return Shipment(
        tracking_ids=tuple(fulfillment.tracking_ids),
        item_ids=tuple(fulfillment.item_ids),
        carrier=fulfillment.carrier,
        estimated_arrival=fulfillment.estimated_arrival,
        events=tuple(
            TrackingEvent(
                at=e.occurred_at,
                status=e.status,
                location=e.location,
                location_zh=e.location_zh,
                description=e.description,
                description_zh=e.description_zh,
            )
            for e in events
        ),
    )


def order_record(order: models.Order) -> Order:
    """One order of the tables as the record every backend returns."""
    return Order(
        order_id=order.external_id,
        customer_id=order.customer.external_id,
        status=order.status,
        currency=order.currency,
        items=tuple(
            OrderLine(
                item_id=i.variant.external_id,
                product_id=i.product.external_id,
                name=i.name,
                name_zh=i.product.name_zh,
                options=i.options,
                price=i.price,
                aliases=tuple(i.product.aliases),
            )
            for i in order.items.all()
        ),
        address=order.address,
        placed_at=order.placed_at,
        delivered_at=order.delivered_at,
        shipments=tuple(_shipment(f) for f in order.fulfillments.all()),
        payments=tuple(
            Payment(kind=t.kind, amount=t.amount, payment_method_id=t.payment_method.external_id)
            for t in order.transactions.all()
        ),
        details=order.action_details,
    )


def _payment_method(method: models.PaymentMethod) -> PaymentMethod:
    return PaymentMethod(
        payment_method_id=method.external_id,
        kind=method.kind,
        brand=method.brand,
        last_four=method.last_four,
        balance=method.balance,
    )


def _variant(variant: models.Variant, product: models.Product | None = None) -> Variant:
    product = product or variant.product
    return Variant(
        item_id=variant.external_id,
        product_id=product.external_id,
        product_name=product.name,
        options=variant.options,
        price=variant.price,
        stock=variant.stock,
        available=variant.available,
    )


def _product(product: models.Product) -> Product:
    variants = sorted(product.variants.all(), key=lambda v: (v.price, v.external_id))
    return Product(
        product_id=product.external_id,
        name=product.name,
        name_zh=product.name_zh,
        aliases=tuple(product.aliases),
        category=product.category,
        tags=tuple(product.tags),
        specs=product.specs,
        variants=tuple(_variant(v, product) for v in variants),
    )


def _customers() -> QuerySet[Customer]:
    return Customer.objects.prefetch_related("addresses", "payment_methods")


def _customer_record(customer: Customer) -> StoreCustomer:
    default = next((a for a in customer.addresses.all() if a.is_default), None)
    return StoreCustomer(
        customer_id=customer.external_id,
        name=customer.name,
        first_name=customer.first_name,
        last_name=customer.last_name,
        email=customer.email,
        phone=customer.phone,
        default_address=None if default is None else default.as_dict(),
        payment_methods=tuple(
            _payment_method(m) for m in sorted(customer.payment_methods.all(), key=lambda m: m.external_id)
        ),
    )


class BuiltinStore:
    name = "builtin"

    @staticmethod
    def _customer(customer_id: str) -> Customer:
        customer = Customer.objects.filter(external_id=customer_id).first()
        if customer is None:
            raise StoreError("customer_not_found", f"No customer {customer_id} in the store.")
        return customer

    def _write(self, customer_id: str, write: Callable[..., T], **arguments: Any) -> T:
        return write(customer=self._customer(customer_id), **arguments)

    def health(self) -> dict[str, Any]:
        return {"ok": True}  # the tables are Postgres's: checked as such

    def customer(self, customer_id: str) -> StoreCustomer | None:
        customer = _customers().filter(external_id=customer_id).first()
        return None if customer is None else _customer_record(customer)

    def customers_by_email(self, email: str) -> list[StoreCustomer]:
        return [_customer_record(c) for c in _customers().filter(email__iexact=email.strip())[:2]]

    def customers_by_zip(self, zip_code: str) -> list[StoreCustomer]:
        owners = _customers().filter(addresses__is_default=True, addresses__zip=zip_code.strip()).distinct()
        return [_customer_record(c) for c in owners.order_by("external_id")[:50]]

    def order_owner(self, order_id: str) -> StoreCustomer | None:
        order = models.Order.objects.filter(external_id=order_id).only("customer_id").first()
        owner = _customers().filter(pk=order.customer_id).first() if order else None
        return None if owner is None else _customer_record(owner)

    def order(self, customer_id: str, order_id: str) -> Order | None:
        order = _orders().filter(external_id=order_id, customer__external_id=customer_id).first()
        return None if order is None else order_record(order)

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        listed = _orders().filter(customer__external_id=customer_id)
        if statuses:
            listed = listed.filter(status__in=statuses)
        return [order_record(o) for o in listed.order_by("-placed_at", "id")[:limit]]

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None:
        order = _orders().filter(
            fulfillments__tracking_ids__contains=[tracking_number], customer__external_id=customer_id
        )
        found = order.first()
        return None if found is None else order_record(found)

    def catalogue(self) -> StoreCatalogue:
        return StoreCatalogue(
            currency=store_currency(),
            products=tuple(_product(p) for p in models.Product.objects.prefetch_related("variants").order_by("name")),
            subsidies=tuple(rule.as_record() for rule in subsidy_rules_active()),
        )

    def product_variants(self, product_ids: Sequence[str]) -> list[Variant]:
        listed = models.Variant.objects.filter(product__external_id__in=product_ids).select_related("product")
        return [_variant(v) for v in listed]

    def variants(self, item_ids: Sequence[str]) -> list[Variant]:
        listed = models.Variant.objects.filter(external_id__in=item_ids).select_related("product")
        return [_variant(v) for v in listed]

    def order_cancel(self, customer_id: str, order_id: str, *, reason: str, key: str) -> WriteResult:
        return self._write(customer_id, services.order_cancel, order_id=order_id, reason=reason)

    def order_modify_address(
        self, customer_id: str, order_id: str, *, address: dict[str, Any], key: str
    ) -> WriteResult:
        return self._write(customer_id, services.order_modify_address, order_id=order_id, address=address)

    def order_modify_payment(self, customer_id: str, order_id: str, *, payment_method_id: str, key: str) -> WriteResult:
        return self._write(
            customer_id, services.order_modify_payment, order_id=order_id, payment_method_id=payment_method_id
        )

    def order_modify_items(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        return self._write(
            customer_id,
            services.order_modify_items,
            order_id=order_id,
            item_ids=swap.item_ids,
            new_item_ids=swap.new_item_ids,
            payment_method_id=swap.payment_method_id,
        )

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult:
        return self._write(
            customer_id,
            services.order_return,
            order_id=order_id,
            item_ids=item_ids,
            payment_method_id=payment_method_id,
        )

    def order_exchange(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        return self._write(
            customer_id,
            services.order_exchange,
            order_id=order_id,
            item_ids=swap.item_ids,
            new_item_ids=swap.new_item_ids,
            payment_method_id=swap.payment_method_id,
        )

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]:
        return self._write(customer_id, services.customer_modify_default_address, address=address)
