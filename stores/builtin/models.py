"""The store the tools read and write: catalogue, customers' addresses and wallets, orders.

External ids (`product_id`, `item_id`, `#W…` order ids, payment method ids) are the store's own
identifiers and are unique, so an import is an upsert by id and an export round-trips.
"""

from __future__ import annotations

from decimal import Decimal

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

from conversations.models import Customer
from stores import records
from stores.records import OrderStatus, PaymentKind, TransactionKind


def _money(**kwargs: object) -> models.DecimalField:
    return models.DecimalField(max_digits=12, decimal_places=2, **kwargs)  # type: ignore[arg-type]


class StoreProfile(models.Model):
    """The store itself (one row): the currency its prices are in and shown in."""

    name = models.CharField(max_length=200, default="Our store")
    currency = models.CharField(
        max_length=3, default="CNY", help_text="ISO 4217 code of the store's prices, e.g. CNY, USD, EUR."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pk=1), name="store_profile_single_row"),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="store_profile_currency_iso"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.currency})"


class Address(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="addresses")
    address1 = models.CharField(max_length=200)
    address2 = models.CharField(max_length=200, blank=True)
    city = models.CharField(max_length=100)
    state = models.CharField(max_length=100, blank=True)
    country = models.CharField(max_length=100)
    zip = models.CharField(max_length=20)
    is_default = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "addresses"
        constraints = [
            models.UniqueConstraint(
                fields=["customer"], condition=Q(is_default=True), name="address_one_default_per_customer"
            ),
        ]

    def __str__(self) -> str:
        return ", ".join(p for p in (self.address1, self.address2, self.city, self.state, self.zip, self.country) if p)

    def as_dict(self) -> dict[str, str]:
        return {
            "address1": self.address1,
            "address2": self.address2,
            "city": self.city,
            "country": self.country,
            "state": self.state,
            "zip": self.zip,
        }


class PaymentMethod(models.Model):
    external_id = models.CharField(max_length=64, unique=True)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="payment_methods")
    kind = models.CharField(max_length=16, choices=PaymentKind.choices)
    brand = models.CharField(max_length=32, blank=True)
    last_four = models.CharField(max_length=4, blank=True)
    balance = _money(null=True, blank=True)

    class Meta:
        ordering = ["external_id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=PaymentKind.values), name="payment_method_kind_valid"),
            models.CheckConstraint(condition=Q(balance__isnull=True) | Q(balance__gte=0), name="payment_balance_gte_0"),
            # Only a gift card has a balance, and it always has one.
            models.CheckConstraint(
                condition=Q(kind=PaymentKind.GIFT_CARD, balance__isnull=False)
                | (~Q(kind=PaymentKind.GIFT_CARD) & Q(balance__isnull=True)),
                name="payment_balance_iff_gift_card",
            ),
        ]

    def __str__(self) -> str:
        as_told = records.PaymentMethod(self.external_id, self.kind, self.brand, self.last_four, self.balance)
        return as_told.label


class Product(models.Model):
    external_id = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    name_zh = models.CharField(max_length=200, blank=True)
    category = models.CharField(max_length=64, blank=True, db_index=True)
    # Other names customers use: "X9" for "Find X9".
    aliases = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    tags = ArrayField(models.CharField(max_length=50), default=list, blank=True)
    description = models.TextField(blank=True)
    description_zh = models.TextField(blank=True)
    specs = models.JSONField(default=dict, blank=True)
    currency = models.CharField(max_length=3, default="CNY")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Variant(models.Model):
    """One buyable item of a product: a combination of options with its own price and stock."""

    external_id = models.CharField(max_length=64, unique=True)
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="variants")
    options = models.JSONField(default=dict, blank=True)
    price = _money()
    # None: stock is not tracked (the τ-bench catalogue only says whether an item is available).
    stock = models.IntegerField(null=True, blank=True)
    available = models.BooleanField(default=True)

    class Meta:
        ordering = ["product__name", "external_id"]
        constraints = [
            models.CheckConstraint(condition=Q(price__gte=0), name="variant_price_gte_0"),
            models.CheckConstraint(condition=Q(stock__isnull=True) | Q(stock__gte=0), name="variant_stock_gte_0"),
        ]

    def __str__(self) -> str:
        options = ", ".join(f"{k} {v}" for k, v in self.options.items())
        return f"{self.product.name} ({options})" if options else self.product.name


class Order(models.Model):
    external_id = models.CharField(max_length=64, unique=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(max_length=32, choices=OrderStatus.choices, default=OrderStatus.PENDING)
    # The shipping address as it was when ordered, not a reference to an address that may change.
    address = models.JSONField(default=dict)
    currency = models.CharField(max_length=3, default="CNY")
    placed_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # What actions left behind, in the store format's own keys: cancel_reason, return_items,
    # return_payment_method_id, exchange_items, exchange_new_items, exchange_payment_method_id,
    # exchange_price_difference.
    action_details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-placed_at", "external_id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=OrderStatus.values), name="order_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.status})"

    @property
    def total(self) -> Decimal:
        return sum((item.price for item in self.items.all()), Decimal("0"))


class OrderItem(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="items")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="order_items")
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="order_items")
    # Name, options and price as sold; the catalogue may change later.
    name = models.CharField(max_length=200)
    options = models.JSONField(default=dict, blank=True)
    price = _money()
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "position", "id"]
        constraints = [models.CheckConstraint(condition=Q(price__gte=0), name="order_item_price_gte_0")]

    def __str__(self) -> str:
        return f"{self.name} ({self.variant.external_id})"


class Fulfillment(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="fulfillments")
    tracking_ids = ArrayField(models.CharField(max_length=64), default=list)
    # The variant ids this shipment carries, as in the store format.
    item_ids = ArrayField(models.CharField(max_length=64), default=list)
    carrier = models.CharField(max_length=64, blank=True)
    shipped_at = models.DateTimeField(null=True, blank=True)
    estimated_arrival = models.DateField(null=True, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "position", "id"]
        indexes = [GinIndex(fields=["tracking_ids"], name="fulfillment_tracking_ids_gin")]

    def __str__(self) -> str:
        return f"{self.order.external_id}: {', '.join(self.tracking_ids) or 'no tracking'}"


class TrackingEvent(models.Model):
    fulfillment = models.ForeignKey(Fulfillment, on_delete=models.CASCADE, related_name="events")
    occurred_at = models.DateTimeField()
    status = models.CharField(max_length=64)
    location = models.CharField(max_length=200, blank=True)
    location_zh = models.CharField(max_length=200, blank=True)
    description = models.CharField(max_length=300, blank=True)
    description_zh = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["fulfillment", "occurred_at"]

    def __str__(self) -> str:
        return f"{self.occurred_at:%Y-%m-%d %H:%M} {self.status} {self.location}"


class PaymentTransaction(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="transactions")
    kind = models.CharField(max_length=16, choices=TransactionKind.choices)
    amount = _money()
    payment_method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="transactions")
    position = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["order", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=TransactionKind.values), name="transaction_kind_valid"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="transaction_amount_gte_0"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount} via {self.payment_method.external_id}"


class SubsidyRule(models.Model):
    """The national trade-in subsidy (国补): a share of the price, capped, for eligible products."""

    name = models.CharField(max_length=100, unique=True)
    name_zh = models.CharField(max_length=100, blank=True)
    category = models.CharField(max_length=64, help_text="Product category the rule applies to.")
    rate = models.DecimalField(max_digits=4, decimal_places=3, help_text="Share of the price, e.g. 0.150.")
    max_amount = _money(help_text="Cap per item.")
    max_price = _money(null=True, blank=True, help_text="Items priced above this are not eligible.")
    active = models.BooleanField(default=True)
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(rate__gt=0) & Q(rate__lte=1), name="subsidy_rate_in_0_1"),
            models.CheckConstraint(condition=Q(max_amount__gte=0), name="subsidy_max_amount_gte_0"),
            models.CheckConstraint(
                condition=Q(max_price__isnull=True) | Q(max_price__gte=0), name="subsidy_max_price_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(starts_on__isnull=True) | Q(ends_on__isnull=True) | Q(ends_on__gte=models.F("starts_on")),
                name="subsidy_period_ordered",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def as_record(self) -> records.Subsidy:
        return records.Subsidy(
            name=self.name,
            name_zh=self.name_zh,
            category=self.category,
            rate=self.rate,
            max_amount=self.max_amount,
            max_price=self.max_price,
        )

    def amount_for(self, price: Decimal) -> Decimal:
        """The subsidy on one item at `price` (0 when the price is above the eligible maximum)."""
        return self.as_record().amount_for(price)
