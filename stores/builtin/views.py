from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from conversations.models import Customer
from conversations.widget import identity_token_issue
from stores.builtin.models import Product
from stores.builtin.selectors import product_list_for_storefront, store_currency, subsidy_rules_active
from stores.labels import category_said
from stores.money import money

# Only the demo's own shoppers, and only in demo mode, can be "signed in" by ?customer=: the page
# signs the identity on the server, as a real store would for its logged-in user, and must never do
# that for a real customer.
DEMO_CUSTOMER_PREFIX = "demo_"


@dataclass(frozen=True)
class ProductCard:
    product: Product
    category: str
    name: str
    description: str
    price_from: str  # money() as the chat says it, "" without a price
    subsidy: str  # the same figure the chat gives (SubsidyRule.amount_for), "" without one
    in_stock: bool


@require_GET
def storefront(request: HttpRequest) -> HttpResponse:
    """The demo store page the chat widget lives on; ?lang=zh|en picks the language."""
    lang = request.GET.get("lang") or ("zh" if request.LANGUAGE_CODE.startswith("zh") else "en")
    zh = lang == "zh"
    rules = {rule.category: rule for rule in subsidy_rules_active()}
    currency = store_currency()
    cards = []
    for product in product_list_for_storefront():
        variants = list(product.variants.all())
        price_from = min((v.price for v in variants), default=None)
        rule = rules.get(product.category)
        subsidy = rule.amount_for(price_from) if rule and price_from is not None else Decimal("0")
        cards.append(
            ProductCard(
                product=product,
                category=category_said(product.category, lang),
                name=(product.name_zh or product.name) if zh else product.name,
                description=(product.description_zh or product.description) if zh else product.description,
                price_from=money(price_from, currency) if price_from is not None else "",
                subsidy=money(subsidy, currency) if subsidy else "",
                in_stock=any(v.available and (v.stock is None or v.stock > 0) for v in variants),
            )
        )
    widget = _widget_attributes(request, "zh" if zh else "en")
    response = render(request, "store/index.html", {"cards": cards, "zh": zh, "lang": lang, "widget": widget})
    if "identity_token" in widget:
        # The page then carries a shopper's signed identity: a shared cache (a CDN, a proxy) must not keep
        # it to hand to the next visitor, nor the browser keep it on disk.
        patch_cache_control(response, private=True, no_store=True)
    return response


def _widget_attributes(request: HttpRequest, lang: str) -> dict[str, Any]:
    """The chat widget's tag: the site key, the page's language and, in demo mode with
    ?customer=<demo id>, a signed identity so the demo can show a verified customer."""
    widget: dict[str, Any] = {"site_key": settings.WIDGET_SITE_KEY, "locale": lang}
    external_id = (request.GET.get("customer") or "").strip()
    if settings.DEMO_MODE and external_id.startswith(DEMO_CUSTOMER_PREFIX):
        customer = Customer.objects.filter(external_id=external_id).first()
        if customer is not None:
            widget["identity_token"] = identity_token_issue(
                customer.external_id, name=customer.name, email=customer.email
            )
    return widget
