"""The one interface the engine's store tools call: `store_backend()` returns the configured implementation.

`STORE_BACKEND` chooses it: `builtin` (the project's own tables: the demo, τ-bench imports, small stores) or
`http` (the store's own system through the store API, docs/store-api.md), `mcp` (the store's MCP server) or
`shopify` (a Shopify store's Admin GraphQL API). Every
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

from stores.records import ItemsSwap, Order, StoreCatalogue, StoreCustomer, Variant, WriteResult

BACKENDS = {
    "builtin": "stores.builtin.backend.BuiltinStore",
    "http": "stores.http.HttpStore",
    "mcp": "stores.mcp.McpStore",
    "shopify": "stores.shopify.ShopifyStore",
}


class StoreBackend(Protocol):
    name: str

    def health(self) -> dict[str, Any]:
        """{"ok": bool, …}: whether the store answers now (one quick try, nothing counted against it)."""
        ...

    def customer(self, customer_id: str) -> StoreCustomer | None: ...

    def customers_by_email(self, email: str) -> list[StoreCustomer]:
        """The accounts with this email, any case (two at most: a proof must name exactly one)."""
        ...

    def customers_by_zip(self, zip_code: str) -> list[StoreCustomer]:
        """The accounts whose default address has this zip (fifty at most)."""
        ...

    def order_owner(self, order_id: str) -> StoreCustomer | None:
        """Whose order this is: for a proof by order id and phone digits, never shown to the customer."""
        ...

    def order(self, customer_id: str, order_id: str) -> Order | None: ...

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        """Newest first; orders placed at the same moment (or with no date) in the order the store created them."""
        ...

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None: ...

    def catalogue(self) -> StoreCatalogue:
        """What the store sells: its currency, every product with its variants, the subsidies in force. Read at
        most once a minute per process (stores.catalogue), and again after the store says it changed."""
        ...

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

    def order_modify_items(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult: ...

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult: ...

    def order_exchange(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult: ...

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]: ...


_instances: dict[tuple[str, ...], StoreBackend] = {}


def store_backend() -> StoreBackend:
    """The backend `STORE_BACKEND` names: one instance (and pool of connections) per process and settings."""
    name = settings.STORE_BACKEND
    configured = (
        name,
        settings.STORE_API_URL,
        settings.STORE_API_TOKEN,
        str(settings.STORE_API_TIMEOUT_S),
        settings.STORE_MCP_URL,
        settings.STORE_MCP_TOKEN,
        settings.STORE_MCP_COMMAND,
        settings.SHOPIFY_SHOP,
        settings.SHOPIFY_ACCESS_TOKEN,
        settings.SHOPIFY_ADMIN_URL,
    )
    if configured not in _instances:
        if name not in BACKENDS:
            raise ValueError(f"STORE_BACKEND={name!r}: choose one of {', '.join(sorted(BACKENDS))}.")
        _instances[configured] = import_string(BACKENDS[name])()
    return _instances[configured]
