"""The τ-bench retail store format: import (an upsert by id) and export.

The format is one JSON object with any of `products`, `users` and `orders`, each an object keyed by
id. A record in the file is the whole truth about that record: importing it resets the record
(a product's variants, a user's default address and payment methods, an order's items,
fulfilments and payment history) and leaves every record the file does not hold alone. Records
already equal to the file are not touched, so importing the same file twice changes nothing.

`users[].orders` is not imported: it is derived from the orders' `user_id`, and export rebuilds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.db.models import Prefetch

from conversations.models import Customer
from conversations.services import customer_upsert
from stores.builtin.models import (
    Address,
    Fulfillment,
    Order,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    PaymentTransaction,
    Product,
    TransactionKind,
    Variant,
)
from stores.builtin.services import store_profile_set
from stores.versions import store_version_bump

ORDER_ACTION_KEYS = (
    "cancel_reason",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
    "return_items",
    "return_payment_method_id",
)
ADDRESS_KEYS = ("address1", "address2", "city", "country", "state", "zip")
TAUBENCH_CURRENCY = "USD"


class StoreImportError(Exception):
    """The file is not valid τ-bench retail data; the message names the record."""


@dataclass
class ImportSummary:
    created: dict[str, int] = field(default_factory=lambda: {"products": 0, "users": 0, "orders": 0})
    updated: dict[str, int] = field(default_factory=lambda: {"products": 0, "users": 0, "orders": 0})
    unchanged: dict[str, int] = field(default_factory=lambda: {"products": 0, "users": 0, "orders": 0})

    def lines(self) -> list[str]:
        return [
            f"{kind}: {self.created[kind]} created, {self.updated[kind]} updated, {self.unchanged[kind]} unchanged"
            for kind in ("products", "users", "orders")
        ]


# --- validation ------------------------------------------------------------------------------


def _require(record: Any, keys: Iterable[str], where: str) -> Mapping[str, Any]:
    if not isinstance(record, Mapping):
        raise StoreImportError(f"{where}: expected an object, got {type(record).__name__}")
    missing = [key for key in keys if key not in record]
    if missing:
        raise StoreImportError(f"{where}: missing field {', '.join(repr(k) for k in missing)}")
    return record


def _money(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise StoreImportError(f"{where}: expected a number, got {value!r}")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise StoreImportError(f"{where}: expected a number, got {value!r}") from None
    if not amount.is_finite() or amount < 0:
        raise StoreImportError(f"{where}: must be a non-negative amount, got {value!r}")
    return amount.quantize(Decimal("0.01"))


def _text(value: Any, where: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise StoreImportError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise StoreImportError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise StoreImportError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _section(data: Mapping[str, Any], name: str, id_key: str) -> dict[str, Mapping[str, Any]]:
    records = _object(data.get(name, {}), name)
    for key, record in records.items():
        _require(record, [id_key], f'{name}["{key}"]')
        if record[id_key] != key:
            raise StoreImportError(f'{name}["{key}"]: {id_key} is {record[id_key]!r}, not the key it is filed under')
    return dict(records)


def _validate_address(value: Any, where: str) -> dict[str, str]:
    address = _require(value, ADDRESS_KEYS, where)
    return {
        key: _text(address[key], f"{where}.{key}", allow_empty=key == "address2" or key == "state")
        for key in ADDRESS_KEYS
    }


def _validate_product(key: str, record: Mapping[str, Any]) -> None:
    where = f'products["{key}"]'
    _require(record, ["product_id", "name", "variants"], where)
    _text(record["name"], f"{where}.name")
    variants = _object(record["variants"], f"{where}.variants")
    for item_id, variant in variants.items():
        vwhere = f'{where}.variants["{item_id}"]'
        _require(variant, ["item_id", "options", "available", "price"], vwhere)
        if variant["item_id"] != item_id:
            raise StoreImportError(f"{vwhere}: item_id is {variant['item_id']!r}, not the key it is filed under")
        _object(variant["options"], f"{vwhere}.options")
        if not isinstance(variant["available"], bool):
            raise StoreImportError(f"{vwhere}.available: expected true or false, got {variant['available']!r}")
        _money(variant["price"], f"{vwhere}.price")


def _validate_user(key: str, record: Mapping[str, Any]) -> None:
    where = f'users["{key}"]'
    _require(record, ["user_id", "name", "address", "email", "payment_methods"], where)
    name = _require(record["name"], ["first_name", "last_name"], f"{where}.name")
    _text(name["first_name"], f"{where}.name.first_name")
    _text(name["last_name"], f"{where}.name.last_name", allow_empty=True)
    _validate_address(record["address"], f"{where}.address")
    _text(record["email"], f"{where}.email")
    for method_id, method in _object(record["payment_methods"], f"{where}.payment_methods").items():
        mwhere = f'{where}.payment_methods["{method_id}"]'
        _require(method, ["id", "source"], mwhere)
        if method["id"] != method_id:
            raise StoreImportError(f"{mwhere}: id is {method['id']!r}, not the key it is filed under")
        if method["source"] not in PaymentKind.values:
            raise StoreImportError(f"{mwhere}.source: unknown payment method {method['source']!r}")
        if method["source"] == PaymentKind.GIFT_CARD:
            _require(method, ["balance"], mwhere)
            _money(method["balance"], f"{mwhere}.balance")
        if method["source"] == PaymentKind.CREDIT_CARD:
            _require(method, ["brand", "last_four"], mwhere)


def _validate_order(key: str, record: Mapping[str, Any]) -> None:
    where = f'orders["{key}"]'
    _require(record, ["order_id", "user_id", "address", "items", "status", "fulfillments", "payment_history"], where)
    if record["status"] not in OrderStatus.values:
        raise StoreImportError(f"{where}.status: unknown status {record['status']!r}")
    _validate_address(record["address"], f"{where}.address")
    for i, item in enumerate(_list(record["items"], f"{where}.items")):
        iwhere = f"{where}.items[{i}]"
        _require(item, ["name", "product_id", "item_id", "price", "options"], iwhere)
        _money(item["price"], f"{iwhere}.price")
        _object(item["options"], f"{iwhere}.options")
    for i, fulfillment in enumerate(_list(record["fulfillments"], f"{where}.fulfillments")):
        fwhere = f"{where}.fulfillments[{i}]"
        _require(fulfillment, ["tracking_id", "item_ids"], fwhere)
        _list(fulfillment["tracking_id"], f"{fwhere}.tracking_id")
        _list(fulfillment["item_ids"], f"{fwhere}.item_ids")
    for i, payment in enumerate(_list(record["payment_history"], f"{where}.payment_history")):
        pwhere = f"{where}.payment_history[{i}]"
        _require(payment, ["transaction_type", "amount", "payment_method_id"], pwhere)
        if payment["transaction_type"] not in TransactionKind.values:
            raise StoreImportError(f"{pwhere}.transaction_type: unknown type {payment['transaction_type']!r}")
        _money(payment["amount"], f"{pwhere}.amount")


# --- export (also the canonical form an import compares against) -------------------------------


def _number(amount: Decimal) -> float | int:
    return float(amount)


def product_to_taubench(product: Product) -> dict[str, Any]:
    return {
        "name": product.name,
        "product_id": product.external_id,
        "variants": {
            v.external_id: {
                "item_id": v.external_id,
                "options": v.options,
                "available": v.available,
                "price": _number(v.price),
            }
            for v in product.variants.all()
        },
    }


def _payment_method_to_taubench(method: PaymentMethod) -> dict[str, Any]:
    record: dict[str, Any] = {"source": method.kind, "id": method.external_id}
    if method.kind == PaymentKind.CREDIT_CARD:
        record.update(brand=method.brand, last_four=method.last_four)
    if method.kind == PaymentKind.GIFT_CARD:
        record["balance"] = _number(method.balance or Decimal("0"))
    return record


def user_to_taubench(customer: Customer, order_ids: list[str]) -> dict[str, Any]:
    default = next((a for a in customer.addresses.all() if a.is_default), None)
    return {
        "user_id": customer.external_id,
        "name": {"first_name": customer.first_name, "last_name": customer.last_name},
        "address": default.as_dict() if default else dict.fromkeys(ADDRESS_KEYS, ""),
        "email": customer.email,
        "payment_methods": {m.external_id: _payment_method_to_taubench(m) for m in customer.payment_methods.all()},
        "orders": order_ids,
    }


def order_to_taubench(order: Order) -> dict[str, Any]:
    record: dict[str, Any] = {
        "order_id": order.external_id,
        "user_id": order.customer.external_id,
        "address": order.address,
        "items": [
            {
                "name": item.name,
                "product_id": item.product.external_id,
                "item_id": item.variant.external_id,
                "price": _number(item.price),
                "options": item.options,
            }
            for item in order.items.all()
        ],
        "status": order.status,
        "fulfillments": [{"tracking_id": f.tracking_ids, "item_ids": f.item_ids} for f in order.fulfillments.all()],
        "payment_history": [
            {
                "transaction_type": t.kind,
                "amount": _number(t.amount),
                "payment_method_id": t.payment_method.external_id,
            }
            for t in order.transactions.all()
        ],
    }
    record.update({key: order.action_details[key] for key in ORDER_ACTION_KEYS if key in order.action_details})
    return record


def _orders_prefetched() -> Any:
    return Order.objects.select_related("customer").prefetch_related(
        Prefetch("items", queryset=OrderItem.objects.select_related("variant", "product")),
        "fulfillments",
        Prefetch("transactions", queryset=PaymentTransaction.objects.select_related("payment_method")),
    )


def store_export_taubench() -> dict[str, Any]:
    """The whole store in the τ-bench retail format."""
    products = Product.objects.prefetch_related("variants").order_by("external_id")
    orders = list(_orders_prefetched().order_by("id"))
    order_ids_by_user: dict[str, list[str]] = {}
    for order in orders:
        order_ids_by_user.setdefault(order.customer.external_id, []).append(order.external_id)
    customers = (
        Customer.objects.filter(external_id__in=order_ids_by_user.keys() | _customers_with_wallet())
        .prefetch_related("addresses", "payment_methods")
        .order_by("external_id")
    )
    return {
        "products": {p.external_id: product_to_taubench(p) for p in products},
        "users": {c.external_id: user_to_taubench(c, order_ids_by_user.get(c.external_id, [])) for c in customers},
        "orders": {o.external_id: order_to_taubench(o) for o in orders},
    }


def _customers_with_wallet() -> set[str]:
    return set(PaymentMethod.objects.values_list("customer__external_id", flat=True).distinct())


# --- import ----------------------------------------------------------------------------------


def _comparable_user(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "orders"}


@dataclass
class _References:
    """Ids the orders may point at: the file's own records first, then what the store holds."""

    variants: dict[str, Variant]
    customers: dict[str, Customer]
    payment_methods: dict[str, PaymentMethod]


def store_import_taubench(*, data: Any) -> ImportSummary:
    """Upsert the products, users and orders of `data` in one transaction.

    1. Validate every record (shape, types, statuses) before touching the database.
    2. Compare each record with the store's current state; skip the equal ones.
    3. Write products, then users, then orders, resolving references to the file or the store.
    Any error raises StoreImportError naming the record, and nothing is written.
    """
    if not isinstance(data, Mapping):
        raise StoreImportError(f"expected a JSON object with products, users and orders, got {type(data).__name__}")
    unknown = set(data) - {"products", "users", "orders"}
    if unknown:
        raise StoreImportError(f"unknown top-level section(s): {', '.join(sorted(unknown))}")
    products = _section(data, "products", "product_id")
    users = _section(data, "users", "user_id")
    orders = _section(data, "orders", "order_id")
    for key, record in products.items():
        _validate_product(key, record)
    for key, record in users.items():
        _validate_user(key, record)
    for key, record in orders.items():
        _validate_order(key, record)

    summary = ImportSummary()
    with transaction.atomic():
        store_profile_set(currency=TAUBENCH_CURRENCY)
        _import_products(products, summary)
        _import_users(users, summary)
        _import_orders(orders, summary)
        transaction.on_commit(store_version_bump)  # bulk writes send no signals (stores.builtin.signals)
    return summary


def _import_products(products: dict[str, Mapping[str, Any]], summary: ImportSummary) -> None:
    existing = {p.external_id: p for p in Product.objects.filter(external_id__in=products).prefetch_related("variants")}
    for key, record in products.items():
        product = existing.get(key)
        if product is not None and product_to_taubench(product) == record:
            summary.unchanged["products"] += 1
            continue
        if product is None:
            product = Product.objects.create(external_id=key, name=record["name"], currency=TAUBENCH_CURRENCY)
            summary.created["products"] += 1
        else:
            Product.objects.filter(pk=product.pk).update(name=record["name"])
            summary.updated["products"] += 1
        _reset_variants(product, record["variants"], where=f'products["{key}"]')


def _reset_variants(product: Product, variants: Mapping[str, Mapping[str, Any]], *, where: str) -> None:
    stale = Variant.objects.filter(product=product).exclude(external_id__in=variants)
    in_use = stale.filter(order_items__isnull=False).values_list("external_id", flat=True).first()
    if in_use:
        raise StoreImportError(
            f"{where}: variant {in_use!r} is missing from the file but orders in the store refer to it"
        )
    stale.delete()
    moved = Variant.objects.filter(external_id__in=variants).exclude(product=product).first()
    if moved is not None:
        raise StoreImportError(
            f'{where}.variants["{moved.external_id}"]: item id already belongs to product {moved.product.external_id!r}'
        )
    for item_id, variant in variants.items():
        Variant.objects.update_or_create(
            external_id=item_id,
            defaults={
                "product": product,
                "options": dict(variant["options"]),
                "price": _money(variant["price"], item_id),
                "available": variant["available"],
            },
        )


def _import_users(users: dict[str, Mapping[str, Any]], summary: ImportSummary) -> None:
    existing = {
        c.external_id: c
        for c in Customer.objects.filter(external_id__in=users).prefetch_related("addresses", "payment_methods")
    }
    for key, record in users.items():
        customer = existing.get(key)
        if customer is not None and _comparable_user(user_to_taubench(customer, [])) == _comparable_user(record):
            summary.unchanged["users"] += 1
            continue
        name = record["name"]
        fields = {
            "first_name": name["first_name"],
            "last_name": name["last_name"],
            "name": f"{name['first_name']} {name['last_name']}".strip(),
            "email": record["email"],
        }
        (summary.created if customer is None else summary.updated)["users"] += 1
        customer = customer_upsert(external_id=key, **fields)
        Address.objects.filter(customer=customer).delete()
        Address.objects.create(customer=customer, is_default=True, **record["address"])
        _reset_payment_methods(customer, record["payment_methods"], where=f'users["{key}"]')


def _reset_payment_methods(customer: Customer, methods: Mapping[str, Mapping[str, Any]], *, where: str) -> None:
    stale = PaymentMethod.objects.filter(customer=customer).exclude(external_id__in=methods)
    in_use = stale.filter(transactions__isnull=False).values_list("external_id", flat=True).first()
    if in_use:
        raise StoreImportError(f"{where}: payment method {in_use!r} is missing from the file but orders refer to it")
    stale.delete()
    taken = PaymentMethod.objects.filter(external_id__in=methods).exclude(customer=customer).first()
    if taken is not None:
        raise StoreImportError(
            f'{where}.payment_methods["{taken.external_id}"]: belongs to another user ({taken.customer.external_id})'
        )
    for method_id, method in methods.items():
        kind = method["source"]
        PaymentMethod.objects.update_or_create(
            external_id=method_id,
            defaults={
                "customer": customer,
                "kind": kind,
                "brand": method.get("brand", "") if kind == PaymentKind.CREDIT_CARD else "",
                "last_four": method.get("last_four", "") if kind == PaymentKind.CREDIT_CARD else "",
                "balance": _money(method["balance"], method_id) if kind == PaymentKind.GIFT_CARD else None,
            },
        )


def _load_references(orders: dict[str, Mapping[str, Any]]) -> _References:
    variant_ids = {item["item_id"] for record in orders.values() for item in record["items"]}
    user_ids = {record["user_id"] for record in orders.values()}
    method_ids = {p["payment_method_id"] for record in orders.values() for p in record["payment_history"]}
    return _References(
        variants={
            v.external_id: v for v in Variant.objects.filter(external_id__in=variant_ids).select_related("product")
        },
        customers={c.external_id: c for c in Customer.objects.filter(external_id__in=user_ids)},
        payment_methods={
            m.external_id: m
            for m in PaymentMethod.objects.filter(external_id__in=method_ids).select_related("customer")
        },
    )


def _import_orders(orders: dict[str, Mapping[str, Any]], summary: ImportSummary) -> None:
    refs = _load_references(orders)
    existing = {o.external_id: o for o in _orders_prefetched().filter(external_id__in=orders)}
    items: list[OrderItem] = []
    fulfillments: list[Fulfillment] = []
    transactions: list[PaymentTransaction] = []
    for key, record in orders.items():
        where = f'orders["{key}"]'
        order = existing.get(key)
        if order is not None and order_to_taubench(order) == record:
            summary.unchanged["orders"] += 1
            continue
        customer = refs.customers.get(record["user_id"])
        if customer is None:
            raise StoreImportError(
                f"{where}.user_id: unknown user {record['user_id']!r} (not in the file nor the store)"
            )
        fields = {
            "customer": customer,
            "status": record["status"],
            "address": dict(record["address"]),
            "action_details": {k: record[k] for k in ORDER_ACTION_KEYS if k in record},
        }
        if order is None:
            order = Order.objects.create(external_id=key, currency=TAUBENCH_CURRENCY, **fields)
            summary.created["orders"] += 1
        else:
            Order.objects.filter(pk=order.pk).update(**fields)
            order.items.all().delete()
            order.fulfillments.all().delete()
            order.transactions.all().delete()
            summary.updated["orders"] += 1
        for position, item in enumerate(record["items"]):
            variant = refs.variants.get(item["item_id"])
            if variant is None:
                raise StoreImportError(
                    f"{where}.items[{position}].item_id: unknown item {item['item_id']!r} "
                    "(not in the file nor the store)"
                )
            if variant.product.external_id != item["product_id"]:
                raise StoreImportError(
                    f"{where}.items[{position}]: item {item['item_id']!r} belongs to product "
                    f"{variant.product.external_id!r}, not {item['product_id']!r}"
                )
            items.append(
                OrderItem(
                    order=order,
                    variant=variant,
                    product=variant.product,
                    name=item["name"],
                    options=dict(item["options"]),
                    price=_money(item["price"], where),
                    position=position,
                )
            )
        for position, fulfillment in enumerate(record["fulfillments"]):
            fulfillments.append(
                Fulfillment(
                    order=order,
                    tracking_ids=[str(t) for t in fulfillment["tracking_id"]],
                    item_ids=[str(i) for i in fulfillment["item_ids"]],
                    position=position,
                )
            )
        for position, payment in enumerate(record["payment_history"]):
            method = refs.payment_methods.get(payment["payment_method_id"])
            if method is None or method.customer_id != customer.pk:
                owner = f"belongs to {method.customer.external_id}" if method else "is not in the file nor the store"
                raise StoreImportError(
                    f"{where}.payment_history[{position}].payment_method_id: "
                    f"{payment['payment_method_id']!r} {owner}, not to {record['user_id']}"
                )
            transactions.append(
                PaymentTransaction(
                    order=order,
                    kind=payment["transaction_type"],
                    amount=_money(payment["amount"], where),
                    payment_method=method,
                    position=position,
                )
            )
    OrderItem.objects.bulk_create(items)
    Fulfillment.objects.bulk_create(fulfillments)
    PaymentTransaction.objects.bulk_create(transactions)
