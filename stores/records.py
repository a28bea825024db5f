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


class StoreTimedOut(StoreUnavailable):
    """The store took longer than the call's timeout. A read is not asked again: a store that slow would only keep
    the shopper waiting as long again."""


class StoreWriteUnconfirmed(StoreUnavailable):
    """A write got no answer: it may not have reached the store, or been done with its answer lost. Sent again
    with the same idempotency key, it is done once either way."""


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
class Product:
    """A product of the catalogue with every variant, in stock or not (cheapest first)."""

    product_id: str
    name: str
    name_zh: str = ""
    aliases: tuple[str, ...] = ()  # other names customers use: "X9" for "Find X9"
    category: str = ""
    tags: tuple[str, ...] = ()
    specs: dict[str, Any] = field(default_factory=dict)
    variants: tuple[Variant, ...] = ()

    def called(self, name: str) -> bool:
        """Whether `name` is this product's name, Chinese name or an alias, in any case and spacing."""
        wanted = "".join(name.lower().split())
        return bool(wanted) and any(
            "".join(n.lower().split()) == wanted for n in (self.name, self.name_zh, *self.aliases) if n
        )


@dataclass(frozen=True)
class Subsidy:
    """A trade-in subsidy (国补) in force: a share of the price, capped, for one category's products."""

    name: str
    category: str
    rate: Decimal
    max_amount: Decimal
    name_zh: str = ""
    max_price: Decimal | None = None  # items priced above it are not eligible

    def amount_for(self, price: Decimal) -> Decimal:
        """The subsidy on one item at `price` (0 when the price is above the eligible maximum)."""
        if self.max_price is not None and price > self.max_price:
            return Decimal("0.00")
        return min((price * self.rate).quantize(Decimal("0.01")), self.max_amount)


@dataclass(frozen=True)
class StoreCatalogue:
    """What the store sells, as one snapshot: the currency of its prices, its products and the subsidies in
    force. The catalogue tools, entity extraction and the replies' product suggestions all read it."""

    currency: str
    products: tuple[Product, ...] = ()
    subsidies: tuple[Subsidy, ...] = ()

    def product(self, name: str) -> Product | None:
        """The product called `name` (its name, Chinese name or an alias, any case and spacing)."""
        return next((p for p in self.products if p.called(name)), None)

    def subsidy(self, category: str) -> Subsidy | None:
        return next((s for s in self.subsidies if s.category == category), None)

    def _most_versions_first(self) -> list[Product]:
        return sorted(self.products, key=lambda p: (-len(p.variants), p.name))

    def examples(self, limit: int = 3) -> list[str]:
        """A few product names to suggest, those with the most versions first."""
        return [p.name for p in self._most_versions_first()[:limit]]

    def pair_to_compare(self) -> tuple[str, str] | None:
        """Two products of one category to suggest comparing (most versions first), or None."""
        seen: dict[str, str] = {}
        for product in self._most_versions_first():
            if product.category in seen:
                return seen[product.category], product.name
            seen[product.category] = product.name
        return None


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
