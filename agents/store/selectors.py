from django.db.models import Prefetch, QuerySet

from agents.store.models import Product, SubsidyRule, Variant


def product_list_for_storefront() -> QuerySet[Product]:
    return Product.objects.prefetch_related(
        Prefetch("variants", queryset=Variant.objects.order_by("price", "external_id"))
    ).order_by("category", "name")


def subsidy_rules_active() -> QuerySet[SubsidyRule]:
    return SubsidyRule.objects.filter(active=True)
