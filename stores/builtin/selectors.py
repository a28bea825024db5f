from django.db.models import Count, Prefetch, QuerySet

from stores.builtin.models import Order, Product, StoreProfile, SubsidyRule, Variant


def product_list_for_storefront() -> QuerySet[Product]:
    return Product.objects.prefetch_related(
        Prefetch("variants", queryset=Variant.objects.order_by("price", "external_id"))
    ).order_by("category", "name")


def subsidy_rules_active() -> QuerySet[SubsidyRule]:
    return SubsidyRule.objects.filter(active=True)


def product_resolve(name: str) -> Product | None:
    """The product called `name` (its name, Chinese name or an alias, any case and spacing)."""
    wanted = "".join(name.lower().split())
    if not wanted:
        return None
    for product in Product.objects.prefetch_related("variants"):
        names = [product.name, product.name_zh, *product.aliases]
        if any("".join(n.lower().split()) == wanted for n in names if n):
            return product
    return None


def store_currency() -> str:
    """The store's currency (StoreProfile), CNY for a store that never set one."""
    return StoreProfile.objects.filter(pk=1).values_list("currency", flat=True).first() or "CNY"


def product_examples(limit: int = 3) -> list[str]:
    """A few of the store's product names to suggest, those with the most versions first."""
    products = Product.objects.annotate(versions=Count("variants")).order_by("-versions", "name")
    return list(products.values_list("name", flat=True)[:limit])


def products_to_compare() -> tuple[str, str] | None:
    """Two of the store's products of one category to suggest comparing (most versions first), or None."""
    seen: dict[str, str] = {}
    products = Product.objects.annotate(versions=Count("variants")).order_by("-versions", "name")
    for category, name in products.values_list("category", "name"):
        if category in seen:
            return seen[category], name
        seen[category] = name
    return None


def customer_orders(customer_id: int, *, limit: int = 10) -> list[Order]:
    """A customer's latest orders with their items and shipments (carrier, tracking), for staff."""
    return list(
        Order.objects.filter(customer_id=customer_id)
        .prefetch_related("items", "fulfillments")
        .order_by("-placed_at", "-pk")[:limit]
    )
