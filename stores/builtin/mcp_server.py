"""The store as an MCP server over the built-in tables: the reference for `STORE_BACKEND=mcp`.

`manage.py store_mcp_server --port N` serves it over streamable HTTP (a bearer token on every request) and
`--stdio` over standard input and output, for a store that runs it as a local command. Its tools are the store
API's calls (docs/store-api.md) with the same JSON: reads answer the record, or `{"error": {"code", "message"}}`
for what is not there; writes take an `idempotency_key` and are done once per key. The server keeps customers
apart as the API does (every order tool is scoped by `customer_id`); which customer that is, is the client's to
say, and ours says only the verified one (stores/mcp.py).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections
from mcp.server.mcpserver import MCPServer

from stores import wire
from stores.builtin.backend import BuiltinStore
from stores.builtin.server import CATALOGUE_PAGE_SIZE, MAX_PAGE_SIZE, ApiError, write_once
from stores.records import ItemsSwap

_store = BuiltinStore()
JSON = dict[str, Any]


def _answer(read: Callable[[], Any]) -> JSON:
    """Run one tool against the tables on this thread's own connection, closed again after."""
    close_old_connections()
    try:
        return dict(read())
    except ApiError as exc:
        return {"error": {"code": exc.code, "message": exc.message}}
    finally:
        close_old_connections()


def _found(record: Any, what: str, as_json: Callable[[Any], JSON]) -> JSON:
    if record is None:
        return {"error": {"code": f"{what}_not_found", "message": f"No such {what}."}}
    return as_json(record)


def _write(
    name: str, arguments: JSON, do: Callable[[str], Any], as_json: Callable[[Any], JSON] = wire.write_json
) -> JSON:
    """A write tool's answer: done once per idempotency key (the same call again answers as the first time)."""
    key = str(arguments.pop("idempotency_key"))
    request = json.dumps([name, arguments], sort_keys=True, ensure_ascii=False).encode()
    return _answer(lambda: write_once(key, request, lambda: as_json(do(key)))[1])


def store_mcp_server() -> MCPServer:
    server: MCPServer = MCPServer(
        name="store",
        instructions="A store's customers, orders and catalogue. Every order tool is scoped to one customer.",
    )

    @server.tool(description="One customer's account: contact details, default address, payment methods.")
    def get_customer(customer_id: str) -> JSON:
        return _answer(lambda: _found(_store.customer(customer_id), "customer", wire.customer_json))

    @server.tool(description="Accounts with this email (any case), or whose default address has this zip.")
    def find_customers(email: str = "", zip: str = "") -> JSON:  # noqa: A002 - the field's name in the API
        def found() -> JSON:
            if bool(email) == bool(zip):
                raise ApiError(422, "bad_request", "Give exactly one of 'email' and 'zip'.")
            listed = _store.customers_by_email(email) if email else _store.customers_by_zip(zip)
            return {"customers": [wire.customer_json(c) for c in listed]}

        return _answer(found)

    @server.tool(description="The customer's orders, newest first, of these statuses (all when none).")
    def list_orders(customer_id: str, statuses: list[str] | None = None, limit: int = 20) -> JSON:
        def found() -> JSON:
            listed = _store.orders(customer_id, statuses=statuses or (), limit=max(1, min(limit, 100)))
            return {"orders": [wire.order_json(o) for o in listed]}

        return _answer(found)

    @server.tool(description="One of the customer's orders; order_not_found for another customer's.")
    def get_order(customer_id: str, order_id: str) -> JSON:
        return _answer(lambda: _found(_store.order(customer_id, order_id), "order", wire.order_json))

    @server.tool(description="The customer's order a tracking number belongs to.")
    def find_shipment(customer_id: str, tracking_number: str) -> JSON:
        return _answer(
            lambda: _found(_store.order_by_tracking(customer_id, tracking_number), "shipment", wire.order_json)
        )

    @server.tool(description="Whose order this is, to check a proof of identity (never shown to anyone).")
    def order_owner(order_id: str) -> JSON:
        return _answer(lambda: _found(_store.order_owner(order_id), "order", wire.customer_json))

    @server.tool(description="Variants (price, stock, options) of these products, or these variants by id.")
    def get_variants(product_ids: list[str] | None = None, item_ids: list[str] | None = None) -> JSON:
        def found() -> JSON:
            if bool(product_ids) == bool(item_ids):
                raise ApiError(422, "bad_request", "Give product_ids or item_ids, not both.")
            listed = _store.product_variants(product_ids or []) if product_ids else _store.variants(item_ids or [])
            return {"variants": [wire.variant_json(v) for v in listed]}

        return _answer(found)

    @server.tool(
        description="A page of the catalogue (currency, subsidies, products with variants); 'next' is the cursor."
    )
    def get_catalogue(cursor: str = "", limit: int = CATALOGUE_PAGE_SIZE) -> JSON:
        def page() -> JSON:
            if (cursor and not cursor.isdigit()) or not 1 <= limit <= MAX_PAGE_SIZE:
                raise ApiError(422, "bad_request", f"The cursor is a 'next' of a page; limit is 1 to {MAX_PAGE_SIZE}.")
            return wire.catalogue_page_json(_store.catalogue(), start=int(cursor or 0), size=limit)

        return _answer(page)

    @server.tool(description="Cancel a pending order ('no longer needed' or 'ordered by mistake').")
    def cancel_order(customer_id: str, order_id: str, reason: str, idempotency_key: str) -> JSON:
        return _write(
            "cancel_order",
            dict(locals()),
            lambda key: _store.order_cancel(customer_id, order_id, reason=reason, key=key),
        )

    @server.tool(description="Change a pending order's shipping address.")
    def change_order_address(customer_id: str, order_id: str, address: dict[str, str], idempotency_key: str) -> JSON:
        return _write(
            "change_order_address",
            dict(locals()),
            lambda key: _store.order_modify_address(customer_id, order_id, address=address, key=key),
        )

    @server.tool(description="Pay a pending order with another of the customer's payment methods.")
    def change_order_payment(customer_id: str, order_id: str, payment_method_id: str, idempotency_key: str) -> JSON:
        return _write(
            "change_order_payment",
            dict(locals()),
            lambda key: _store.order_modify_payment(
                customer_id, order_id, payment_method_id=payment_method_id, key=key
            ),
        )

    @server.tool(description="Change items of a pending order to other options of the same products (once).")
    def change_order_items(
        customer_id: str,
        order_id: str,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
        idempotency_key: str,
    ) -> JSON:
        return _write(
            "change_order_items",
            dict(locals()),
            lambda key: _store.order_modify_items(
                customer_id, order_id, swap=ItemsSwap(item_ids, new_item_ids, payment_method_id), key=key
            ),
        )

    @server.tool(description="Request the return of delivered items; the refund's payment method.")
    def return_order_items(
        customer_id: str, order_id: str, item_ids: list[str], payment_method_id: str, idempotency_key: str
    ) -> JSON:
        return _write(
            "return_order_items",
            dict(locals()),
            lambda key: _store.order_return(
                customer_id, order_id, item_ids=item_ids, payment_method_id=payment_method_id, key=key
            ),
        )

    @server.tool(description="Request an exchange of delivered items for other options of the same products.")
    def exchange_order_items(
        customer_id: str,
        order_id: str,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
        idempotency_key: str,
    ) -> JSON:
        return _write(
            "exchange_order_items",
            dict(locals()),
            lambda key: _store.order_exchange(
                customer_id, order_id, swap=ItemsSwap(item_ids, new_item_ids, payment_method_id), key=key
            ),
        )

    @server.tool(description="Set the customer's default shipping address.")
    def set_default_address(customer_id: str, address: dict[str, str], idempotency_key: str) -> JSON:
        return _write(
            "set_default_address",
            dict(locals()),
            lambda key: _store.default_address_set(customer_id, address=address, key=key),
            lambda address_set: {"address": address_set},
        )

    return server


def store_mcp_app(token: str, host: str) -> Any:
    """The server over streamable HTTP (at /mcp) as an ASGI application that answers only to `token`."""
    app = store_mcp_server().streamable_http_app(host=host)
    expected = f"Bearer {token}".encode()
    refused = json.dumps({"error": {"code": "unauthorized", "message": "A valid bearer token is needed."}}).encode()

    async def bearer_only(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not hmac.compare_digest(
            dict(scope["headers"]).get(b"authorization", b""), expected
        ):
            await send(
                {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": refused})
            return
        await app(scope, receive, send)

    return bearer_only
