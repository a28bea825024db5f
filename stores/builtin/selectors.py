from django.db.models import Prefetch, QuerySet

from stores.builtin.models import Order, Product, StoreProfile, SubsidyRule, Variant


def product_list_for_storefront() -> QuerySet[Product]:
    return Product.objects.prefetch_related(
        Prefetch("variants", queryset=Variant.objects.order_by("price", "external_id"))
    ).order_by("category", "name")


def subsidy_rules_active() -> QuerySet[SubsidyRule]:
    return SubsidyRule.objects.filter(active=True)


def store_currency() -> str:
    """The store's currency (StoreProfile), CNY for a store that never set one."""
    return StoreProfile.objects.filter(pk=1).values_list("currency", flat=True).first() or "CNY"


def order_status_of(order_id: str) -> str | None:
    """The status the store's tables hold for an order id, whoever owns it (None: no such order)."""
    return Order.objects.filter(external_id=order_id).values_list("status", flat=True).first()
