"""Catalogue tools: public, no customer needed."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from agents.tools.base import ToolContext, ToolError, tool
from stores.catalogue import store_catalogue
from stores.records import Product, StoreCatalogue, Variant

PRODUCT = {
    "type": "string",
    "minLength": 1,
    "maxLength": 100,
    "description": "Product name or model, as the customer said it",
}


def _product(catalogue: StoreCatalogue, name: str) -> Product:
    product = catalogue.product(name)
    if product is None:
        raise ToolError("product_not_found", f"No product called {name!r} is sold here.")
    return product


def _money(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _variant_json(variant: Variant) -> dict[str, Any]:
    return {
        "item_id": variant.item_id,
        "options": variant.options,
        "price": float(variant.price),
        "available": variant.in_stock,
        "stock": variant.stock,
    }


def _summary(product: Product, currency: str) -> dict[str, Any]:
    prices = [v.price for v in product.variants]
    return {
        "product_id": product.product_id,
        "name": product.name,
        "name_zh": product.name_zh,
        "category": product.category,
        "tags": list(product.tags),
        "currency": currency,
        "price_from": _money(min(prices, default=None)),
        "price_to": _money(max(prices, default=None)),
        "in_stock": any(v.in_stock for v in product.variants),
    }


@tool(
    name="product_search",
    description="Search the catalogue by words, category, price range and tags.",
    parameters={
        "properties": {
            "query": {"type": "string", "maxLength": 200},
            "category": {"type": "string", "maxLength": 64},
            "price_min": {"type": "number", "minimum": 0},
            "price_max": {"type": "number", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 50}, "maxItems": 10},
        }
    },
    kind="read",
    private=False,
)
def product_search(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    catalogue = store_catalogue()
    words = (args.get("query") or "").lower().split()
    category = (args.get("category") or "").lower()
    tags = set(args.get("tags") or ())
    found = []
    for product in sorted(catalogue.products, key=lambda p: p.name):
        names = f"{product.name} {product.name_zh} {' '.join(product.aliases)}".lower()
        if (category and product.category.lower() != category) or (tags and not tags & set(product.tags)):
            continue
        if not all(w in names for w in words):
            continue
        summary = _summary(product, catalogue.currency)
        if args.get("price_min") is not None and (summary["price_to"] or 0) < args["price_min"]:
            continue
        if args.get("price_max") is not None and (summary["price_from"] or 0) > args["price_max"]:
            continue
        found.append(summary)
    return {"products": found[:20], "count": len(found)}


@tool(
    name="get_inventory_info",
    description="Stock of a product, per variant, optionally only one colour or storage size.",
    parameters={
        "properties": {
            "product": PRODUCT,
            "color": {"type": "string", "maxLength": 50},
            "storage": {"type": "string", "maxLength": 30},
        },
        "required": ["product"],
    },
    kind="read",
    private=False,
)
def get_inventory_info(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    catalogue = store_catalogue()
    product = _product(catalogue, args["product"])
    variants = list(product.variants)
    for option in ("color", "storage"):
        wanted = (args.get(option) or "").lower().replace(" ", "")
        if wanted:
            variants = [
                v
                for v in variants
                if any(
                    wanted in str(value).lower().replace(" ", "")
                    for key, value in v.options.items()
                    if key.startswith(option)
                )
            ]
    if not variants:
        raise ToolError("variant_not_found", f"{product.name} has no variant with those options.")
    return {"product": _summary(product, catalogue.currency), "variants": [_variant_json(v) for v in variants]}


@tool(
    name="get_price_info",
    description="Price of a product; with apply_subsidy, the national subsidy and the price after it.",
    parameters={"properties": {"product": PRODUCT, "apply_subsidy": {"type": "boolean"}}, "required": ["product"]},
    kind="read",
    private=False,
)
def get_price_info(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    catalogue = store_catalogue()
    product = _product(catalogue, args["product"])
    rule = catalogue.subsidy(product.category)
    variants = []
    for variant in product.variants:
        subsidy = rule.amount_for(variant.price) if rule and args.get("apply_subsidy", True) else Decimal("0")
        variants.append(
            {
                **_variant_json(variant),
                "subsidy": float(subsidy),
                "final_price": float(variant.price - subsidy),
            }
        )
    if not variants:
        raise ToolError("variant_not_found", f"{product.name} has no price yet.")
    return {
        "product": _summary(product, catalogue.currency),
        "subsidy_rule": (
            {"name": rule.name, "name_zh": rule.name_zh, "rate": float(rule.rate), "max_amount": float(rule.max_amount)}
            if rule
            else None
        ),
        "variants": variants,
    }


@tool(
    name="product_compare",
    description="Compare two to five products: price, stock and specifications side by side.",
    parameters={
        "properties": {"products": {"type": "array", "items": PRODUCT, "minItems": 2, "maxItems": 5}},
        "required": ["products"],
    },
    kind="read",
    private=False,
)
def product_compare(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    catalogue = store_catalogue()
    products = [_product(catalogue, name) for name in dict.fromkeys(args["products"])]
    if len(products) < 2:
        raise ToolError("bad_arguments", "Name two different products to compare.")
    specs = sorted({key for p in products for key in p.specs if not key.endswith("_zh")})
    return {
        "products": [{**_summary(p, catalogue.currency), "specs": p.specs} for p in products],
        "spec_keys": specs,
    }


@tool(
    name="product_recommend",
    description="Recommend up to three in-stock products for a budget, a category and wished-for tags.",
    parameters={
        "properties": {
            "budget_max": {"type": "number", "minimum": 0},
            "category": {"type": "string", "maxLength": 64},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 50}, "maxItems": 10},
        }
    },
    kind="read",
    private=False,
)
def product_recommend(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    catalogue = store_catalogue()
    candidates = []
    for product in catalogue.products:
        if args.get("category") and product.category.lower() != args["category"].lower():
            continue
        summary = _summary(product, catalogue.currency)
        if not summary["in_stock"] or summary["price_from"] is None:
            continue
        if args.get("budget_max") is not None and summary["price_from"] > args["budget_max"]:
            continue
        matched = len(set(args.get("tags") or []) & set(product.tags))
        candidates.append((-matched, -summary["price_from"], summary))
    # Most matching tags first, then the best (dearest) product the budget allows.
    candidates.sort(key=lambda row: (row[0], row[1]))
    return {"recommendations": [row[2] for row in candidates[:3]]}
