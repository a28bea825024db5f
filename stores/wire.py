"""The store API's JSON (docs/store-api.md): records to JSON and back, for the client and the reference server.

Money travels as a decimal string ("12.50") so that no amount is rounded on the way, times as ISO 8601. A record
read from JSON is checked as it is built: a missing field, or one of the wrong type, raises `StoreUnavailable`
with what was wrong, since a store answering out of contract is as unusable as one not answering.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from stores.records import (
    Order,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Shipment,
    StoreCatalogue,
    StoreCustomer,
    StoreUnavailable,
    Subsidy,
    TrackingEvent,
    Variant,
    WriteResult,
)

JSON = dict[str, Any]


def _iso(value: date | datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def customer_json(customer: StoreCustomer) -> JSON:
    return {
        "customer_id": customer.customer_id,
        "name": customer.name,
        "first_name": customer.first_name,
        "last_name": customer.last_name,
        "email": customer.email,
        "phone": customer.phone,
        "default_address": customer.default_address,
        "payment_methods": [
            {
                "payment_method_id": m.payment_method_id,
                "kind": m.kind,
                "brand": m.brand,
                "last_four": m.last_four,
                "balance": _money(m.balance),
            }
            for m in customer.payment_methods
        ],
    }


def order_json(order: Order) -> JSON:
    return {
        "order_id": order.order_id,
        "customer_id": order.customer_id,
        "status": order.status,
        "currency": order.currency,
        "placed_at": _iso(order.placed_at),
        "delivered_at": _iso(order.delivered_at),
        "address": order.address,
        "items": [
            {
                "item_id": line.item_id,
                "product_id": line.product_id,
                "name": line.name,
                "name_zh": line.name_zh,
                "aliases": list(line.aliases),
                "options": line.options,
                "price": _money(line.price),
            }
            for line in order.items
        ],
        "shipments": [
            {
                "tracking_ids": list(s.tracking_ids),
                "item_ids": list(s.item_ids),
                "carrier": s.carrier,
                "estimated_arrival": _iso(s.estimated_arrival),
                "events": [
                    {
                        "at": _iso(e.at),
                        "status": e.status,
                        "location": e.location,
                        "location_zh": e.location_zh,
                        "description": e.description,
                        "description_zh": e.description_zh,
                    }
                    for e in s.events
                ],
            }
            for s in order.shipments
        ],
        "payments": [
            {"kind": p.kind, "amount": _money(p.amount), "payment_method_id": p.payment_method_id}
            for p in order.payments
        ],
        "details": order.details,
    }


def variant_json(variant: Variant) -> JSON:
    return {
        "item_id": variant.item_id,
        "product_id": variant.product_id,
        "product_name": variant.product_name,
        "options": variant.options,
        "price": _money(variant.price),
        "stock": variant.stock,
        "available": variant.available,
    }


def catalogue_page_json(catalogue: StoreCatalogue, *, start: int, size: int) -> JSON:
    """One page of the catalogue: its currency and subsidies (on every page) and `size` products from `start`."""
    products = catalogue.products[start : start + size]
    more = len(catalogue.products) > start + size
    return {
        "currency": catalogue.currency,
        "subsidies": [
            {
                "name": s.name,
                "name_zh": s.name_zh,
                "category": s.category,
                "rate": str(s.rate),
                "max_amount": _money(s.max_amount),
                "max_price": _money(s.max_price),
            }
            for s in catalogue.subsidies
        ],
        "products": [
            {
                "product_id": p.product_id,
                "name": p.name,
                "name_zh": p.name_zh,
                "aliases": list(p.aliases),
                "category": p.category,
                "tags": list(p.tags),
                "specs": p.specs,
                "variants": [variant_json(v) for v in p.variants],
            }
            for p in products
        ],
        "next": str(start + size) if more else None,
    }


def write_json(result: WriteResult) -> JSON:
    return {"order_id": result.order_id, "status": result.status, "details": result.details}


# --- from JSON -------------------------------------------------------------------------------------


class _Reader:
    """Fields of one JSON object, each checked for its type; `where` names the object in an error."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise StoreUnavailable(f"The store sent {where} that is not a JSON object.")
        self.data, self.where = data, where

    def _typed(self, name: str, kind: type, empty: Any) -> Any:
        value = self.data.get(name)
        if value is None:
            return empty
        if not isinstance(value, kind):
            raise StoreUnavailable(f"The store sent {self.where} whose {name!r} is not a {kind.__name__}.")
        return value

    def text(self, name: str) -> str:
        return str(self._typed(name, str, ""))

    def required(self, name: str) -> str:
        value = self.data.get(name)
        if not isinstance(value, str) or not value:
            raise StoreUnavailable(f"The store sent {self.where} without {name!r}.")
        return value

    def obj(self, name: str) -> dict[str, Any]:
        return dict(self._typed(name, dict, {}))

    def items(self, name: str) -> list[Any]:
        return list(self._typed(name, list, []))

    def money(self, name: str, *, optional: bool = False) -> Decimal | None:
        value = self.data.get(name)
        if value is None and optional:
            return None
        try:
            return Decimal(str(value))
        except (InvalidOperation, ValueError):
            raise StoreUnavailable(f"The store sent {self.where} whose {name!r} is not an amount.") from None

    def time(self, name: str) -> datetime | None:
        value = self.data.get(name)
        try:
            return None if value in (None, "") else datetime.fromisoformat(str(value))
        except ValueError:
            raise StoreUnavailable(f"The store sent {self.where} whose {name!r} is not a time.") from None

    def day(self, name: str) -> date | None:
        value = self.data.get(name)
        try:
            return None if value in (None, "") else date.fromisoformat(str(value)[:10])
        except ValueError:
            raise StoreUnavailable(f"The store sent {self.where} whose {name!r} is not a date.") from None


def _address(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise StoreUnavailable(f"The store sent {where} whose address is not an object.")
    return {str(k): str(v) for k, v in value.items()}


def customer_from_json(data: Any) -> StoreCustomer:
    r = _Reader(data, "a customer")
    default = r.data.get("default_address")
    methods = []
    for item in r.items("payment_methods"):
        m = _Reader(item, "a payment method")
        methods.append(
            PaymentMethod(
                payment_method_id=m.required("payment_method_id"),
                kind=m.required("kind"),
                brand=m.text("brand"),
                last_four=m.text("last_four"),
                balance=m.money("balance", optional=True),
            )
        )
    return StoreCustomer(
        customer_id=r.required("customer_id"),
        name=r.text("name"),
        first_name=r.text("first_name"),
        last_name=r.text("last_name"),
        email=r.text("email"),
        phone=r.text("phone"),
        default_address=None if default is None else _address(default, "a customer"),
        payment_methods=tuple(methods),
    )


def _line(data: Any) -> OrderLine:
    r = _Reader(data, "an order item")
    return OrderLine(
        item_id=r.required("item_id"),
        product_id=r.required("product_id"),
        name=r.required("name"),
        name_zh=r.text("name_zh"),
        options=r.obj("options"),
        price=r.money("price") or Decimal("0"),
        aliases=tuple(str(a) for a in r.items("aliases")),
    )


def _shipment(data: Any) -> Shipment:
    r = _Reader(data, "a shipment")
    events = []
    for item in r.items("events"):
        e = _Reader(item, "a tracking event")
        at = e.time("at")
        if at is None:
            raise StoreUnavailable("The store sent a tracking event without 'at'.")
        events.append(
            TrackingEvent(
                at=at,
                status=e.required("status"),
                location=e.text("location"),
                location_zh=e.text("location_zh"),
                description=e.text("description"),
                description_zh=e.text("description_zh"),
            )
        )
    return Shipment(
        tracking_ids=tuple(str(t) for t in r.items("tracking_ids")),
        item_ids=tuple(str(i) for i in r.items("item_ids")),
        carrier=r.text("carrier"),
        estimated_arrival=r.day("estimated_arrival"),
        events=tuple(events),
    )


def order_from_json(data: Any) -> Order:
    r = _Reader(data, "an order")
    payments = []
    for item in r.items("payments"):
        p = _Reader(item, "a payment")
        payments.append(
            Payment(
                kind=p.required("kind"),
                amount=p.money("amount") or Decimal("0"),
                payment_method_id=p.required("payment_method_id"),
            )
        )
    return Order(
        order_id=r.required("order_id"),
        customer_id=r.required("customer_id"),
        status=r.required("status"),
        currency=r.text("currency"),
        items=tuple(_line(item) for item in r.items("items")),
        address=_address(r.data.get("address") or {}, "an order"),
        placed_at=r.time("placed_at"),
        delivered_at=r.time("delivered_at"),
        shipments=tuple(_shipment(item) for item in r.items("shipments")),
        payments=tuple(payments),
        details=r.obj("details"),
    )


def variant_from_json(data: Any) -> Variant:
    r = _Reader(data, "a variant")
    stock = r.data.get("stock")
    if stock is not None and (not isinstance(stock, int) or isinstance(stock, bool)):
        raise StoreUnavailable("The store sent a variant whose 'stock' is not a whole number.")
    return Variant(
        item_id=r.required("item_id"),
        product_id=r.required("product_id"),
        product_name=r.text("product_name"),
        options=r.obj("options"),
        price=r.money("price") or Decimal("0"),
        stock=stock,
        available=bool(r.data.get("available", True)),
    )


def _texts(r: _Reader, name: str) -> tuple[str, ...]:
    values = r.items(name)
    if not all(isinstance(v, str) for v in values):
        raise StoreUnavailable(f"The store sent {r.where} whose {name!r} are not all text.")
    return tuple(values)


def _product(data: Any) -> Product:
    r = _Reader(data, "a product")
    return Product(
        product_id=r.required("product_id"),
        name=r.required("name"),
        name_zh=r.text("name_zh"),
        aliases=_texts(r, "aliases"),
        category=r.text("category"),
        tags=_texts(r, "tags"),
        specs=r.obj("specs"),
        variants=tuple(sorted(map(variant_from_json, r.items("variants")), key=lambda v: (v.price, v.item_id))),
    )


def _subsidy(data: Any) -> Subsidy:
    r = _Reader(data, "a subsidy")
    return Subsidy(
        name=r.required("name"),
        name_zh=r.text("name_zh"),
        category=r.text("category"),
        rate=r.money("rate") or Decimal("0"),
        max_amount=r.money("max_amount") or Decimal("0"),
        max_price=r.money("max_price", optional=True),
    )


MAX_CATALOGUE_PAGES = 50  # 5,000 products at the reference page size: a bigger catalogue is read in part


def catalogue_read(page: Callable[[str], Any]) -> StoreCatalogue:
    """The catalogue from its pages, `page(cursor)` reading each (the first with an empty cursor); the currency
    and subsidies are the first page's."""
    pages: list[Any] = []
    cursor = ""
    while len(pages) < MAX_CATALOGUE_PAGES:
        pages.append(page(cursor))
        cursor = str(pages[-1].get("next") or "") if isinstance(pages[-1], dict) else ""
        if not cursor:
            break
    first = _Reader(pages[0], "a catalogue page")
    products = [_product(p) for page in pages for p in _Reader(page, "a catalogue page").items("products")]
    return StoreCatalogue(
        currency=first.required("currency"),
        products=tuple(sorted(products, key=lambda p: p.name)),
        subsidies=tuple(_subsidy(s) for s in first.items("subsidies")),
    )


def write_from_json(data: Any) -> WriteResult:
    r = _Reader(data, "a write's result")
    return WriteResult(order_id=r.required("order_id"), status=r.required("status"), details=r.obj("details"))
