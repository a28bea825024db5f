"""`STORE_BACKEND=http`: the store's own system, spoken to over the store API (docs/store-api.md).

What a real system needs of its client:
- every call has a timeout (STORE_API_TIMEOUT_S); a read that fails in transport or with a 5xx is tried again
  twice, after 0.2 s and 0.6 s, but not one that timed out (a slow store would keep the shopper waiting again);
- a write is sent once, with an idempotency key: a store that already did it answers as it did the first time.
  A write whose answer is lost is reported as not done ("I can't reach the order system"), never as done;
- a circuit breaker shared by every process (stores/breaker.py);
- an answer out of contract (not JSON, a field missing) counts as the store being unavailable.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any
from urllib.parse import quote, urlencode

import urllib3
from django.conf import settings

from stores import wire
from stores.breaker import breaker_failed, breaker_open, breaker_succeeded
from stores.records import (
    ItemsSwap,
    Order,
    StoreCatalogue,
    StoreCustomer,
    StoreError,
    StoreTimedOut,
    StoreUnavailable,
    Variant,
    WriteResult,
)

READ_BACKOFF_S = (0.2, 0.6)
_TRANSIENT = {429, 500, 502, 503, 504}


def _segment(value: str) -> str:
    return quote(value, safe="")


class HttpStore:
    name = "http"

    def __init__(self, base_url: str = "", token: str = "", timeout_s: float = 0) -> None:
        self.base_url = (base_url or settings.STORE_API_URL).rstrip("/")
        self.token = token or settings.STORE_API_TOKEN
        timeout = timeout_s or settings.STORE_API_TIMEOUT_S
        self.pool = urllib3.PoolManager(
            maxsize=4, retries=False, timeout=urllib3.Timeout(connect=min(timeout, 2.0), read=timeout)
        )

    # --- transport ---------------------------------------------------------------------------------

    def _send(self, method: str, path: str, body: dict[str, Any] | None, key: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        try:
            response = self.pool.request(
                method,
                self.base_url + path,
                body=None if body is None else json.dumps(body, ensure_ascii=False).encode(),
                headers=headers,
            )
        except urllib3.exceptions.ReadTimeoutError:
            raise StoreTimedOut(f"The store did not answer {method} {path} in time.") from None
        except urllib3.exceptions.HTTPError as exc:
            raise StoreUnavailable(f"The store did not answer {method} {path}: {type(exc).__name__}.") from None
        if response.status in _TRANSIENT:
            raise StoreUnavailable(f"The store answered {method} {path} with {response.status}.")
        try:
            return response.status, json.loads(response.data or b"null")
        except ValueError:
            raise StoreUnavailable(f"The store answered {method} {path} with something that is not JSON.") from None

    def _call(self, method: str, path: str, *, body: dict[str, Any] | None = None, key: str = "") -> tuple[int, Any]:
        """(status, JSON) of one call; reads are tried again after a transport failure, writes never."""
        if breaker_open(self.name):
            raise StoreUnavailable("The store failed several times in a row: it is left alone for a while.")
        attempts = 1 + (len(READ_BACKOFF_S) if method == "GET" else 0)
        for attempt in range(attempts):
            try:
                answer = self._send(method, path, body, key)
            except StoreUnavailable as exc:
                if attempt + 1 < attempts and not isinstance(exc, StoreTimedOut):
                    time.sleep(READ_BACKOFF_S[attempt])
                    continue
                breaker_failed(self.name)
                raise
            breaker_succeeded(self.name)
            return answer
        raise AssertionError("unreachable")  # the loop returns or raises

    @staticmethod
    def _refused(status: int, data: Any) -> StoreError:
        error = data.get("error") if isinstance(data, dict) else None
        if status in (401, 403) or not isinstance(error, dict):
            return StoreUnavailable(f"The store refused the call ({status}).")
        return StoreError(str(error.get("code") or "store_refused"), str(error.get("message") or ""))

    def _get(self, path: str) -> Any | None:
        """The JSON of a read, None when the store says the record is not there (404). A 404 for the path itself
        (`not_found`: a wrong STORE_API_URL, a store that lacks the call) is the store being unusable."""
        status, data = self._call("GET", path)
        error = data.get("error") if isinstance(data, dict) else None
        if status == 404 and not (isinstance(error, dict) and error.get("code") == "not_found"):
            return None
        if status == 404:
            raise StoreUnavailable(f"The store has no call {path.split('?')[0]}: is STORE_API_URL right?")
        if status != 200:
            raise self._refused(status, data)
        return data

    def _write(self, path: str, body: dict[str, Any], key: str, method: str = "POST") -> Any:
        status, data = self._call(method, path, body=body, key=key)
        if status not in (200, 201):
            raise self._refused(status, data)
        return data

    def health(self) -> dict[str, Any]:
        report: dict[str, Any] = {"url": self.base_url, "breaker_open": breaker_open(self.name)}
        try:
            status, _ = self._send("GET", "/customers/%20health%20check", None, "")
        except StoreUnavailable as exc:
            return {"ok": False, **report, "error": str(exc)}
        if status not in (200, 404):
            return {"ok": False, **report, "error": f"the store answered {status}"}
        return {"ok": True, **report}

    # --- reads ------------------------------------------------------------------------------------

    def customer(self, customer_id: str) -> StoreCustomer | None:
        data = self._get(f"/customers/{_segment(customer_id)}")
        return None if data is None else wire.customer_from_json(data)

    def _customers(self, **query: str) -> list[StoreCustomer]:
        data = self._get(f"/customers?{urlencode(query)}") or {}
        return [wire.customer_from_json(c) for c in data.get("customers", [])]

    def customers_by_email(self, email: str) -> list[StoreCustomer]:
        return self._customers(email=email)[:2]

    def customers_by_zip(self, zip_code: str) -> list[StoreCustomer]:
        return self._customers(zip=zip_code)[:50]

    def order_owner(self, order_id: str) -> StoreCustomer | None:
        data = self._get(f"/orders/{_segment(order_id)}/owner")
        return None if data is None else wire.customer_from_json(data)

    def order(self, customer_id: str, order_id: str) -> Order | None:
        data = self._get(f"/customers/{_segment(customer_id)}/orders/{_segment(order_id)}")
        return None if data is None else wire.order_from_json(data)

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        """Every page up to `limit` orders."""
        found: list[Order] = []
        cursor = ""
        while len(found) < limit:
            query = [("status", s) for s in statuses] + [("limit", str(limit - len(found)))]
            query += [("cursor", cursor)] if cursor else []
            data = self._get(f"/customers/{_segment(customer_id)}/orders?{urlencode(query)}") or {}
            found += [wire.order_from_json(o) for o in data.get("orders", [])]
            cursor = str(data.get("next") or "")
            if not cursor:
                break
        return found[:limit]

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None:
        data = self._get(f"/customers/{_segment(customer_id)}/shipments/{_segment(tracking_number)}")
        return None if data is None else wire.order_from_json(data)

    def catalogue(self) -> StoreCatalogue:
        return wire.catalogue_read(
            lambda cursor: self._get("/catalogue" + (f"?{urlencode({'cursor': cursor})}" if cursor else ""))
        )

    def _variants(self, name: str, values: Sequence[str]) -> list[Variant]:
        if not values:
            return []
        data = self._get(f"/variants?{urlencode([(name, v) for v in values])}") or {}
        return [wire.variant_from_json(v) for v in data.get("variants", [])]

    def product_variants(self, product_ids: Sequence[str]) -> list[Variant]:
        return self._variants("product_id", product_ids)

    def variants(self, item_ids: Sequence[str]) -> list[Variant]:
        return self._variants("item_id", item_ids)

    # --- writes -----------------------------------------------------------------------------------

    def _order_write(self, customer_id: str, order_id: str, action: str, body: dict[str, Any], key: str) -> WriteResult:
        path = f"/customers/{_segment(customer_id)}/orders/{_segment(order_id)}/{action}"
        return wire.write_from_json(self._write(path, body, key))

    def order_cancel(self, customer_id: str, order_id: str, *, reason: str, key: str) -> WriteResult:
        return self._order_write(customer_id, order_id, "cancel", {"reason": reason}, key)

    def order_modify_address(
        self, customer_id: str, order_id: str, *, address: dict[str, Any], key: str
    ) -> WriteResult:
        return self._order_write(customer_id, order_id, "address", {"address": address}, key)

    def order_modify_payment(self, customer_id: str, order_id: str, *, payment_method_id: str, key: str) -> WriteResult:
        return self._order_write(customer_id, order_id, "payment", {"payment_method_id": payment_method_id}, key)

    def order_modify_items(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        return self._order_write(customer_id, order_id, "items", asdict(swap), key)

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult:
        body = {"item_ids": item_ids, "payment_method_id": payment_method_id}
        return self._order_write(customer_id, order_id, "return", body, key)

    def order_exchange(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        return self._order_write(customer_id, order_id, "exchange", asdict(swap), key)

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]:
        data = self._write(f"/customers/{_segment(customer_id)}/default-address", {"address": address}, key, "PUT")
        address_set = data.get("address") if isinstance(data, dict) else None
        if not isinstance(address_set, dict):
            raise StoreUnavailable("The store's answer to a default address change has no address.")
        return {str(k): str(v) for k, v in address_set.items()}
