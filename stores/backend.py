"""The one interface the engine's store tools call: `store_backend()` returns the configured implementation.

`STORE_BACKEND` chooses it: `builtin` (the project's own tables: the demo, τ-bench imports, small stores). Every
implementation answers with the records of `stores.records` and raises `StoreError` (refused by the store's
rules) or `StoreUnavailable` (the store did not answer).

Reads are scoped to one customer by the store's own customer id, and the engine checks every answer again
(an order is used only when its `customer_id` is the verified customer's): a backend is trusted to do the
writes, not to keep customers apart. Writes carry an idempotency key, so a write retried after a lost answer is
done once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from stores.records import Order, StoreCustomer, Variant, WriteResult

BACKENDS = {"builtin": "stores.builtin.backend.BuiltinStore"}


class StoreBackend(Protocol):
    name: str

    def customer(self, customer_id: str) -> StoreCustomer | None: ...

    def order(self, customer_id: str, order_id: str) -> Order | None: ...

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        """Newest first; orders placed at the same moment (or with no date) in the order the store created them."""
        ...

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None: ...

    def product_variants(self, product_ids: Sequence[str]) -> list[Variant]:
        """Every variant of these products, in stock or not."""
        ...

    def variants(self, item_ids: Sequence[str]) -> list[Variant]: ...

    def order_cancel(self, customer_id: str, order_id: str, *, reason: str, key: str) -> WriteResult: ...

    def order_modify_address(
        self, customer_id: str, order_id: str, *, address: dict[str, Any], key: str
    ) -> WriteResult: ...

    def order_modify_payment(
        self, customer_id: str, order_id: str, *, payment_method_id: str, key: str
    ) -> WriteResult: ...

    def order_modify_items(
        self,
        customer_id: str,
        order_id: str,
        *,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
        key: str,
    ) -> WriteResult: ...

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult: ...

    def order_exchange(
        self,
        customer_id: str,
        order_id: str,
        *,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
        key: str,
    ) -> WriteResult: ...

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]: ...


_instances: dict[str, StoreBackend] = {}


def store_backend() -> StoreBackend:
    """The backend `STORE_BACKEND` names (one instance per process and setting)."""
    name = settings.STORE_BACKEND
    if name not in _instances:
        if name not in BACKENDS:
            raise ValueError(f"STORE_BACKEND={name!r}: choose one of {', '.join(sorted(BACKENDS))}.")
        _instances[name] = import_string(BACKENDS[name])()
    return _instances[name]
