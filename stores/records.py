"""What every store backend answers with: plain, typed, frozen records.

The engine (tools, workflows, replies) reads only these, so a store running on its own platform (`http`, `mcp`,
`shopify`) and the built-in tables look the same to it. Ids are the store's own: a customer's id is
`conversations.Customer.external_id`, an item's id is its variant's id, an order's id is what the store shows
its customers (`#W1234567`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")
CANCEL_REASONS = ("no longer needed", "ordered by mistake")


class PaymentKind(models.TextChoices):
    CREDIT_CARD = "credit_card", "Credit card"
    PAYPAL = "paypal", "PayPal"
    GIFT_CARD = "gift_card", "Gift card"


class OrderStatus(models.TextChoices):
    PENDING = "pending", _("Pending")  # placed, not yet processed: may be cancelled or modified
    PROCESSED = "processed", _("Processed")  # packed and shipped
    DELIVERED = "delivered", _("Delivered")  # may be returned or exchanged
    CANCELLED = "cancelled", _("Cancelled")
    RETURN_REQUESTED = "return requested", _("Return requested")
    EXCHANGE_REQUESTED = "exchange requested", _("Exchange requested")
    PENDING_ITEM_MODIFIED = "pending (item modified)", _("Pending (items modified)")


class TransactionKind(models.TextChoices):
    PAYMENT = "payment", "Payment"
    REFUND = "refund", "Refund"


class StoreError(Exception):
    """A request the store's rules refuse; `code` is stable (shown to tests and the LLM), the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class StoreUnavailable(StoreError):
    """The store's system did not answer (down, too slow, refusing): nothing was changed that we know of."""

    def __init__(self, message: str) -> None:
        super().__init__("store_unavailable", message)


@dataclass(frozen=True)
class OrderLine:
    item_id: str
    product_id: str
    name: str
    name_zh: str
    options: dict[str, Any]
    price: Decimal
    aliases: tuple[str, ...] = ()  # the product's other names, as its catalogue has them


@dataclass(frozen=True)
class TrackingEvent:
    at: datetime
    status: str
    location: str = ""
    location_zh: str = ""
    description: str = ""
    description_zh: str = ""


@dataclass(frozen=True)
class Shipment:
    tracking_ids: tuple[str, ...]
    item_ids: tuple[str, ...]
    carrier: str
    estimated_arrival: date | None = None
    events: tuple[TrackingEvent, ...] = ()  # newest first


@dataclass(frozen=True)
class Payment:
    kind: str  # "payment" or "refund"
    amount: Decimal
    payment_method_id: str


@dataclass(frozen=True)
class Order:
    order_id: str
    customer_id: str
    status: str
    currency: str
    items: tuple[OrderLine, ...]
    address: dict[str, str]
    placed_at: datetime | None = None
    delivered_at: datetime | None = None
    shipments: tuple[Shipment, ...] = ()
    payments: tuple[Payment, ...] = ()  # oldest first: the first is how the order was paid
    details: dict[str, Any] = field(default_factory=dict)  # what requested actions left on it (cancel reason, …)

    @property
    def total(self) -> Decimal:
        return sum((line.price for line in self.items), Decimal("0"))


@dataclass(frozen=True)
class PaymentMethod:
    payment_method_id: str
    kind: str  # "credit_card", "paypal", "gift_card"
    brand: str = ""
    last_four: str = ""
    balance: Decimal | None = None  # a gift card's, None for the others

    @property
    def label(self) -> str:
        """How the method is named to the customer."""
        if self.kind == PaymentKind.CREDIT_CARD:
            return f"{self.brand or 'card'} ending {self.last_four}"
        if self.kind == PaymentKind.GIFT_CARD:
            return f"gift card {self.payment_method_id} (balance {self.balance})"
        return f"PayPal {self.payment_method_id}"


@dataclass(frozen=True)
class Variant:
    """One buyable version of a product: its options, price and stock (None: not counted)."""

    item_id: str
    product_id: str
    product_name: str
    options: dict[str, Any]
    price: Decimal
    stock: int | None = None
    available: bool = True

    @property
    def in_stock(self) -> bool:
        return self.available and (self.stock is None or self.stock > 0)


@dataclass(frozen=True)
class StoreCustomer:
    customer_id: str
    name: str = ""
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    phone: str = ""
    default_address: dict[str, str] | None = None
    payment_methods: tuple[PaymentMethod, ...] = ()


@dataclass(frozen=True)
class ItemsSwap:
    """Items of an order for other versions of the same products: `new_item_ids[i]` replaces `item_ids[i]`
    (a repeated id is that many units), and the payment method that pays or receives the difference."""

    item_ids: list[str]
    new_item_ids: list[str]
    payment_method_id: str


@dataclass(frozen=True)
class WriteResult:
    """What a write did, as the store reports it after the write."""

    order_id: str
    status: str
    details: dict[str, Any]


def address_clean(address: dict[str, Any]) -> dict[str, str]:
    """An address with exactly the store's fields; one without street, city, country or zip is refused."""
    new = {name: str(address.get(name, "")) for name in ADDRESS_FIELDS}
    for name in ("address1", "city", "country", "zip"):
        if not new[name].strip():
            raise StoreError("bad_address", f"The address needs {name}.")
    return new
