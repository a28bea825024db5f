"""The store API (docs/store-api.md) served over the built-in tables: the reference implementation.

`manage.py store_server --port N` runs it in a process of its own, so `STORE_BACKEND=http` is exercised by a real
server over a real socket. It is a plain WSGI application with no middleware of the site's: a bearer token,
JSON in and out, the error shape `{"error": {"code", "message"}}`, idempotency keys on writes (the first answer
is kept for a day and given again; the same key with another body is refused), cursor pagination of orders and
of the catalogue.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.core.handlers.wsgi import WSGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, JsonResponse
from django.urls import Resolver404, path, resolve

from stores import wire
from stores.builtin.backend import BuiltinStore
from stores.records import ItemsSwap, StoreError

IDEMPOTENCY_TTL_S = 24 * 60 * 60
PAGE_SIZE = 20
CATALOGUE_PAGE_SIZE = 100
MAX_PAGE_SIZE = 100
_store = BuiltinStore()


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        raise ApiError(400, "bad_json", "The body is not JSON.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_json", "The body must be a JSON object.")
    return body


def _field(body: dict[str, Any], name: str, kind: type) -> Any:
    value: Any = body.get(name)
    strings = not isinstance(value, list) or all(isinstance(v, str) for v in value)
    if not isinstance(value, kind) or not strings:
        raise ApiError(422, "bad_request", f"{name!r} must be a {kind.__name__}.")
    return value


def _swap(body: dict[str, Any]) -> ItemsSwap:
    return ItemsSwap(
        item_ids=_field(body, "item_ids", list),
        new_item_ids=_field(body, "new_item_ids", list),
        payment_method_id=_field(body, "payment_method_id", str),
    )


def _found(value: Any, what: str) -> Any:
    if value is None:
        raise ApiError(404, f"{what}_not_found", f"No such {what}.")
    return value


# --- reads -----------------------------------------------------------------------------------------


def customers(request: HttpRequest) -> JsonResponse:
    email, zip_code = request.GET.get("email", ""), request.GET.get("zip", "")
    if bool(email) == bool(zip_code):
        raise ApiError(422, "bad_request", "Give exactly one of 'email' and 'zip'.")
    found = _store.customers_by_email(email) if email else _store.customers_by_zip(zip_code)
    return JsonResponse({"customers": [wire.customer_json(c) for c in found]})


def customer(request: HttpRequest, customer_id: str) -> JsonResponse:
    return JsonResponse(wire.customer_json(_found(_store.customer(customer_id), "customer")))


def _page(request: HttpRequest, *, default: int) -> tuple[int, int]:
    """(start, size) of a page: the cursor is where the last page ended."""
    try:
        size = min(int(request.GET.get("limit", default)), MAX_PAGE_SIZE)
        start = int(request.GET.get("cursor") or 0)
    except ValueError:
        raise ApiError(422, "bad_request", "'limit' and 'cursor' are whole numbers.") from None
    if size < 1 or start < 0:
        raise ApiError(422, "bad_request", "'limit' is at least 1 and 'cursor' at least 0.")
    return start, size


def orders(request: HttpRequest, customer_id: str) -> JsonResponse:
    start, size = _page(request, default=PAGE_SIZE)
    listed = _store.orders(customer_id, statuses=request.GET.getlist("status"), limit=start + size + 1)
    page = listed[start : start + size]
    more = len(listed) > start + size
    return JsonResponse({"orders": [wire.order_json(o) for o in page], "next": str(start + size) if more else None})


def order(request: HttpRequest, customer_id: str, order_id: str) -> JsonResponse:
    return JsonResponse(wire.order_json(_found(_store.order(customer_id, order_id), "order")))


def shipment(request: HttpRequest, customer_id: str, tracking_number: str) -> JsonResponse:
    return JsonResponse(wire.order_json(_found(_store.order_by_tracking(customer_id, tracking_number), "shipment")))


def order_owner(request: HttpRequest, order_id: str) -> JsonResponse:
    return JsonResponse(wire.customer_json(_found(_store.order_owner(order_id), "order")))


def variants(request: HttpRequest) -> JsonResponse:
    product_ids, item_ids = request.GET.getlist("product_id"), request.GET.getlist("item_id")
    if bool(product_ids) == bool(item_ids):
        raise ApiError(422, "bad_request", "Give 'product_id' or 'item_id' (repeated), not both.")
    found = _store.product_variants(product_ids) if product_ids else _store.variants(item_ids)
    return JsonResponse({"variants": [wire.variant_json(v) for v in found]})


def catalogue(request: HttpRequest) -> JsonResponse:
    start, size = _page(request, default=CATALOGUE_PAGE_SIZE)
    return JsonResponse(wire.catalogue_page_json(_store.catalogue(), start=start, size=size))


# --- writes ----------------------------------------------------------------------------------------

_ORDER_WRITES: dict[str, Callable[[str, str, dict[str, Any], str], Any]] = {
    "cancel": lambda c, o, b, k: _store.order_cancel(c, o, reason=_field(b, "reason", str), key=k),
    "address": lambda c, o, b, k: _store.order_modify_address(c, o, address=_field(b, "address", dict), key=k),
    "payment": lambda c, o, b, k: _store.order_modify_payment(
        c, o, payment_method_id=_field(b, "payment_method_id", str), key=k
    ),
    "items": lambda c, o, b, k: _store.order_modify_items(c, o, swap=_swap(b), key=k),
    "return": lambda c, o, b, k: _store.order_return(
        c, o, item_ids=_field(b, "item_ids", list), payment_method_id=_field(b, "payment_method_id", str), key=k
    ),
    "exchange": lambda c, o, b, k: _store.order_exchange(c, o, swap=_swap(b), key=k),
}


def write_once(key: str, request: bytes, write: Callable[[], dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """(status, JSON) of a write done once per idempotency key: a repeat gets the first answer, the key reused
    for another request is refused. Shared by the store API and the store's MCP server."""
    if not 8 <= len(key) <= 200:
        raise ApiError(422, "idempotency_key_required", "A write needs an idempotency key of 8-200 characters.")
    digest = hashlib.sha256(request).hexdigest()
    kept_key, lock_key = f"store_api:idempotency:{key}", f"store_api:idempotency:lock:{key}"
    kept = cache.get(kept_key)
    if kept is None and not cache.add(lock_key, 1, timeout=60):
        raise ApiError(409, "write_in_progress", "A write with this idempotency key is still running.")
    try:
        if kept is None:
            try:
                kept = {"digest": digest, "status": 200, "body": write()}
            except StoreError as exc:
                status = 404 if exc.code.endswith("_not_found") else 422
                kept = {"digest": digest, "status": status, "body": {"error": {"code": exc.code, "message": str(exc)}}}
            cache.set(kept_key, kept, timeout=IDEMPOTENCY_TTL_S)
    finally:
        cache.delete(lock_key)
    if kept["digest"] != digest:
        raise ApiError(422, "idempotency_key_reused", "This idempotency key was used for another request.")
    return kept["status"], kept["body"]


def _once(request: HttpRequest, write: Callable[[dict[str, Any], str], dict[str, Any]]) -> JsonResponse:
    key = request.headers.get("Idempotency-Key", "")
    body = _body(request)
    status, answer = write_once(key, request.body or b"", lambda: write(body, key))
    return JsonResponse(answer, status=status)


def order_write(request: HttpRequest, customer_id: str, order_id: str, action: str) -> JsonResponse:
    if action not in _ORDER_WRITES:
        raise ApiError(404, "not_found", f"No order action {action!r}.")
    return _once(request, lambda body, key: wire.write_json(_ORDER_WRITES[action](customer_id, order_id, body, key)))


def default_address(request: HttpRequest, customer_id: str) -> JsonResponse:
    return _once(
        request,
        lambda body, key: {
            "address": _store.default_address_set(customer_id, address=_field(body, "address", dict), key=key)
        },
    )


urlpatterns = [
    path("customers", customers),
    path("customers/<str:customer_id>", customer),
    path("customers/<str:customer_id>/orders", orders),
    path("customers/<str:customer_id>/orders/<str:order_id>", order),
    path("customers/<str:customer_id>/orders/<str:order_id>/<str:action>", order_write),
    path("customers/<str:customer_id>/shipments/<str:tracking_number>", shipment),
    path("customers/<str:customer_id>/default-address", default_address),
    path("orders/<str:order_id>/owner", order_owner),
    path("variants", variants),
    path("catalogue", catalogue),
]
_METHODS = {order_write: "POST", default_address: "PUT"}


def _respond(request: HttpRequest, token: str) -> JsonResponse:
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return _error(401, "unauthorized", "A valid bearer token is needed.")
    try:
        match = resolve(request.path_info, urlconf=__name__)
    except Resolver404:
        return _error(404, "not_found", f"No such path: {request.path_info}")
    allowed = _METHODS.get(match.func, "GET")  # type: ignore[call-overload]
    if request.method != allowed:
        return _error(405, "method_not_allowed", f"Use {allowed} here.")
    try:
        return match.func(request, *match.args, **match.kwargs)  # type: ignore[no-any-return]
    except ApiError as exc:
        return _error(exc.status, exc.code, exc.message)


def store_api_application(token: str) -> Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """The WSGI application of the store API, answering only to `token`."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        close_old_connections()
        try:
            response = _respond(WSGIRequest(environ), token)
        finally:
            close_old_connections()
        start_response(f"{response.status_code} {response.reason_phrase}", list(response.items()))
        return [response.content]

    return application
