"""Writes to the store, with the rules and effects of the τ-bench retail domain.

Each write locks the order (or customer) row, checks the status rule again under the lock, and
changes items, payments, balances and status in one transaction. A write that already happened
fails its status check the second time, so a retried task cannot write twice.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from conversations.models import Customer
from stores.builtin.models import (
    Address,
    Order,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    PaymentTransaction,
    StoreProfile,
    TransactionKind,
    Variant,
)
from stores.records import CANCEL_REASONS, StoreError, WriteResult, address_clean


def _order_for_update(customer: Customer, order_id: str) -> Order:
    order = Order.objects.select_for_update().filter(external_id=order_id, customer=customer).first()
    if order is None:
        # The same answer for "does not exist" and "belongs to someone else": no enumeration.
        raise StoreError("order_not_found", f"No order {order_id} was found for this customer.")
    return order


def _payment_method(customer: Customer, payment_method_id: str) -> PaymentMethod:
    method = PaymentMethod.objects.select_for_update().filter(external_id=payment_method_id, customer=customer).first()
    if method is None:
        raise StoreError("payment_method_not_found", f"Payment method {payment_method_id} is not on this account.")
    return method


def _require_status(order: Order, *allowed: str) -> None:
    if order.status not in allowed:
        raise StoreError(
            "wrong_status",
            f"Order {order.external_id} is {order.status}; this needs it to be {' or '.join(allowed)}.",
        )


def _next_position(order: Order) -> int:
    current = order.transactions.aggregate(top=Max("position"))["top"]
    return 0 if current is None else current + 1


def _record(order: Order, kind: str, amount: Decimal, method: PaymentMethod) -> None:
    PaymentTransaction.objects.create(
        order=order, kind=kind, amount=amount, payment_method=method, position=_next_position(order)
    )


def _adjust_gift_card(method: PaymentMethod, delta: Decimal) -> None:
    if method.kind != PaymentKind.GIFT_CARD:
        return
    balance = (method.balance or Decimal("0")) + delta
    if balance < 0:
        raise StoreError("insufficient_balance", f"Gift card {method.external_id} does not cover {-delta}.")
    PaymentMethod.objects.filter(pk=method.pk).update(balance=balance)
    method.balance = balance


def _items_to_change(order: Order, item_ids: list[str]) -> list[OrderItem]:
    """The order's items for `item_ids` (a repeated id means that many items)."""
    if not item_ids:
        raise StoreError("no_items", "Name at least one item of the order.")
    available = list(order.items.select_related("variant", "product").order_by("position", "id"))
    chosen: list[OrderItem] = []
    for item_id, count in Counter(item_ids).items():
        matching = [item for item in available if item.variant.external_id == item_id]
        if len(matching) < count:
            raise StoreError("item_not_in_order", f"Item {item_id} is not in order {order.external_id}.")
        chosen.extend(matching[:count])
    return chosen


def _replacements(items: list[OrderItem], new_item_ids: list[str]) -> list[Variant]:
    if len(new_item_ids) != len(items):
        raise StoreError("item_count_mismatch", "Give one new item for every item that changes.")
    variants = {
        v.external_id: v for v in Variant.objects.filter(external_id__in=new_item_ids).select_related("product")
    }
    chosen = []
    for item, new_id in zip(items, new_item_ids, strict=True):
        variant = variants.get(new_id)
        if variant is None:
            raise StoreError("variant_not_found", f"There is no item {new_id}.")
        if variant.product_id != item.product_id:
            raise StoreError(
                "different_product", f"Item {new_id} is not a {item.product.name}: only options can change."
            )
        if not variant.available or (variant.stock is not None and variant.stock <= 0):
            raise StoreError("variant_unavailable", f"Item {new_id} is not available.")
        chosen.append(variant)
    return chosen


def order_cancel(*, customer: Customer, order_id: str, reason: str) -> WriteResult:
    """Cancel a pending order; every payment is refunded, a gift card at once."""
    if reason not in CANCEL_REASONS:
        raise StoreError("bad_reason", f"The reason must be one of: {', '.join(CANCEL_REASONS)}.")
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.PENDING)
        for payment in list(order.transactions.select_related("payment_method").order_by("position", "id")):
            if payment.kind != TransactionKind.PAYMENT:
                continue
            method = PaymentMethod.objects.select_for_update().get(pk=payment.payment_method_id)
            _record(order, TransactionKind.REFUND, payment.amount, method)
            _adjust_gift_card(method, payment.amount)
        Order.objects.filter(pk=order.pk).update(
            status=OrderStatus.CANCELLED, action_details={**order.action_details, "cancel_reason": reason}
        )
    return WriteResult(order_id, OrderStatus.CANCELLED, {"reason": reason})


def order_modify_address(*, customer: Customer, order_id: str, address: dict[str, str]) -> WriteResult:
    new = address_clean(address)
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.PENDING)
        Order.objects.filter(pk=order.pk).update(address=new)
    return WriteResult(order_id, OrderStatus.PENDING, {"address": new})


def order_modify_payment(*, customer: Customer, order_id: str, payment_method_id: str) -> WriteResult:
    """Pay a pending order with another method: the new one pays, the old one is refunded."""
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.PENDING)
        payments = list(order.transactions.order_by("position", "id"))
        if len(payments) != 1 or payments[0].kind != TransactionKind.PAYMENT:
            raise StoreError("payment_history", "A pending order must have exactly one payment to change.")
        old_method = PaymentMethod.objects.select_for_update().get(pk=payments[0].payment_method_id)
        new_method = _payment_method(customer, payment_method_id)
        if new_method.pk == old_method.pk:
            raise StoreError("same_payment_method", "That is already the order's payment method.")
        amount = payments[0].amount
        _adjust_gift_card(new_method, -amount)
        _record(order, TransactionKind.PAYMENT, amount, new_method)
        _record(order, TransactionKind.REFUND, amount, old_method)
        _adjust_gift_card(old_method, amount)
    return WriteResult(order_id, OrderStatus.PENDING, {"payment_method_id": payment_method_id, "amount": str(amount)})


def order_modify_items(
    *, customer: Customer, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> WriteResult:
    """Swap items of a pending order for other options of the same products (once per order)."""
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.PENDING)
        items = _items_to_change(order, item_ids)
        variants = _replacements(items, new_item_ids)
        difference = sum((v.price for v in variants), Decimal("0")) - sum((i.price for i in items), Decimal("0"))
        method = _payment_method(customer, payment_method_id)
        _adjust_gift_card(method, -difference)
        kind = TransactionKind.PAYMENT if difference > 0 else TransactionKind.REFUND
        _record(order, kind, abs(difference), method)
        for item, variant in zip(items, variants, strict=True):
            OrderItem.objects.filter(pk=item.pk).update(variant=variant, options=variant.options, price=variant.price)
        Order.objects.filter(pk=order.pk).update(status=OrderStatus.PENDING_ITEM_MODIFIED)
    return WriteResult(order_id, OrderStatus.PENDING_ITEM_MODIFIED, {"price_difference": str(difference)})


def order_return(*, customer: Customer, order_id: str, item_ids: list[str], payment_method_id: str) -> WriteResult:
    """Request a return of delivered items; the refund goes to the original method or a gift card."""
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.DELIVERED)
        method = _payment_method(customer, payment_method_id)
        original = order.transactions.order_by("position", "id").values_list("payment_method_id", flat=True).first()
        if method.pk != original and method.kind != PaymentKind.GIFT_CARD:
            raise StoreError("refund_method", "A refund goes to the original payment method or a gift card.")
        _items_to_change(order, item_ids)
        details = {"return_items": sorted(item_ids), "return_payment_method_id": payment_method_id}
        Order.objects.filter(pk=order.pk).update(
            status=OrderStatus.RETURN_REQUESTED, action_details={**order.action_details, **details}
        )
    return WriteResult(order_id, OrderStatus.RETURN_REQUESTED, details)


def order_exchange(
    *, customer: Customer, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> WriteResult:
    """Request an exchange of delivered items for other options of the same products."""
    with transaction.atomic():
        order = _order_for_update(customer, order_id)
        _require_status(order, OrderStatus.DELIVERED)
        items = _items_to_change(order, item_ids)
        variants = _replacements(items, new_item_ids)
        difference = sum((v.price for v in variants), Decimal("0")) - sum((i.price for i in items), Decimal("0"))
        method = _payment_method(customer, payment_method_id)
        if method.kind == PaymentKind.GIFT_CARD and (method.balance or 0) < difference:
            raise StoreError("insufficient_balance", f"Gift card {method.external_id} does not cover {difference}.")
        details = {
            "exchange_items": sorted(item_ids),
            "exchange_new_items": sorted(new_item_ids),
            "exchange_payment_method_id": payment_method_id,
            "exchange_price_difference": float(difference),
        }
        Order.objects.filter(pk=order.pk).update(
            status=OrderStatus.EXCHANGE_REQUESTED, action_details={**order.action_details, **details}
        )
    return WriteResult(order_id, OrderStatus.EXCHANGE_REQUESTED, details)


def customer_modify_default_address(*, customer: Customer, address: dict[str, str]) -> dict[str, str]:
    new = address_clean(address)
    with transaction.atomic():
        Customer.objects.select_for_update().get(pk=customer.pk)
        Address.objects.filter(customer=customer, is_default=True).delete()
        Address.objects.create(customer=customer, is_default=True, **new)
    return new


def store_profile_set(*, currency: str, name: str | None = None) -> StoreProfile:
    """Set the store's currency (and name); the one row is created on first use."""
    defaults: dict[str, Any] = {"currency": currency.upper()}
    if name:
        defaults["name"] = name
    profile, _ = StoreProfile.objects.update_or_create(pk=1, defaults=defaults)
    return profile


def order_state_put(*, order_id: str, status: str = "", delivered_days_ago: int | None = None) -> None:
    """Put an order in a state (a conversation test's starting point; the test's transaction is rolled back).
    Raises StoreError("order_not_found") for an id the store does not have."""
    order = Order.objects.select_for_update().filter(external_id=order_id).first()
    if order is None:
        raise StoreError("order_not_found", f"The store has no order {order_id}.")
    if status:
        order.status = status
    if delivered_days_ago is not None:
        order.delivered_at = timezone.now() - timedelta(days=delivered_days_ago)
    order.save(update_fields=["status", "delivered_at", "updated_at"])
