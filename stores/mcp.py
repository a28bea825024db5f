"""`STORE_BACKEND=mcp`: the store's own MCP server, through the official MCP SDK.

The server is STORE_MCP_URL over streamable HTTP (bearer STORE_MCP_TOKEN), or STORE_MCP_COMMAND started as a
local process that talks MCP over its standard input and output. Its tools are the store API's calls with the
same JSON (docs/store-api.md; the reference server is `manage.py store_mcp_server`).

Seed 004's rules, here on our side of the wire:
- a whitelist: the engine calls only the tools named in READS and WRITES, never one the server merely offers;
- an interceptor: every call that takes a customer gets the verified customer's id put in by this client, over
  whatever its arguments said, so even a manipulated caller can only ever ask about that customer;
- the answers are checked again by the engine (an order is used only when it is the verified customer's).

One session is kept open per process, on a thread of its own, and opened again after a failure. A call that
fails in transport or times out raises `StoreUnavailable` and counts towards the breaker (stores/breaker.py);
writes are never sent twice by this client.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shlex
import threading
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict
from typing import Any

import httpx2
from django.conf import settings
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from stores import wire
from stores.breaker import breaker_failed, breaker_open, breaker_succeeded
from stores.records import (
    ItemsSwap,
    Order,
    StoreCatalogue,
    StoreCustomer,
    StoreError,
    StoreUnavailable,
    Variant,
    WriteResult,
)

JSON = dict[str, Any]
# The tools the engine may call, and whether each takes the verified customer (injected, never the caller's).
READS = {
    "get_customer": True,
    "find_customers": False,
    "list_orders": True,
    "get_order": True,
    "find_shipment": True,
    "order_owner": False,
    "get_variants": False,
    "get_catalogue": False,
}
WRITES = {
    "cancel_order": True,
    "change_order_address": True,
    "change_order_payment": True,
    "change_order_items": True,
    "return_order_items": True,
    "exchange_order_items": True,
    "set_default_address": True,
}


class _Session:
    """One MCP session on a thread and event loop of its own; calls are queued to the one task that owns it."""

    def __init__(self, connect: Any, timeout_s: float) -> None:
        self._connect, self._timeout_s = connect, timeout_s
        self._loop = asyncio.new_event_loop()
        self._requests: asyncio.Queue[tuple[str, JSON, concurrent.futures.Future[Any]]] | None = None
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True, name="store-mcp").start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._requests = asyncio.Queue()
        ready.set()
        self._loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        assert self._requests is not None
        stack: AsyncExitStack | None = None
        client: Client | None = None
        while True:
            tool, arguments, answer = await self._requests.get()
            try:
                if client is None:
                    stack = AsyncExitStack()
                    client = await stack.enter_async_context(
                        Client(self._connect(), read_timeout_seconds=self._timeout_s)
                    )
                answer.set_result(await client.call_tool(tool, arguments))
            except Exception as exc:  # noqa: BLE001 - whatever broke the session: the caller is told, we reconnect
                answer.set_exception(exc)
                if stack is not None:
                    try:
                        await stack.aclose()
                    except Exception:  # noqa: BLE001, S110 - a session already broken may fail to close
                        pass
                stack, client = None, None

    def call(self, tool: str, arguments: JSON) -> Any:
        answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
        assert self._requests is not None
        self._loop.call_soon_threadsafe(self._requests.put_nowait, (tool, arguments, answer))
        return answer.result(timeout=self._timeout_s * 2 + 5)


class McpStore:
    name = "mcp"

    def __init__(self, url: str = "", token: str = "", command: str = "", timeout_s: float = 0) -> None:
        self.url = url or settings.STORE_MCP_URL
        self.token = token or settings.STORE_MCP_TOKEN
        self.command = command if (command or url) else settings.STORE_MCP_COMMAND
        self.timeout_s = timeout_s or settings.STORE_API_TIMEOUT_S
        self._session: _Session | None = None

    def _connect(self) -> Any:
        if self.command:
            argv = shlex.split(self.command)
            # The store's command is the operator's own: it runs with our environment (its database, say).
            return StdioServerParameters(
                command=argv[0], args=argv[1:], cwd=str(settings.BASE_DIR), env=dict(os.environ)
            )
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=self.timeout_s)
        return streamable_http_client(self.url, http_client=client)

    def call(self, tool: str, arguments: JSON, *, customer_id: str | None = None) -> JSON:
        """The JSON a whitelisted tool answers. `customer_id`, for a tool that takes one, replaces any in
        `arguments`."""
        takes_customer = {**READS, **WRITES}.get(tool)
        if takes_customer is None:
            raise StoreError("tool_not_allowed", f"The store's tool {tool!r} is not one the assistant may call.")
        if takes_customer:
            if not customer_id:
                raise StoreError("customer_required", f"{tool} is only called for the verified customer.")
            arguments = {**arguments, "customer_id": customer_id}
        if breaker_open(self.name):
            raise StoreUnavailable("The store failed several times in a row: it is left alone for a while.")
        if self._session is None:
            self._session = _Session(self._connect, self.timeout_s)
        try:
            result = self._session.call(tool, arguments)
        except Exception as exc:  # noqa: BLE001 - transport, protocol or timeout: the store did not answer
            breaker_failed(self.name)
            raise StoreUnavailable(f"The store's MCP server did not answer {tool}: {type(exc).__name__}.") from None
        breaker_succeeded(self.name)
        return self._json(tool, result)

    @staticmethod
    def _json(tool: str, result: Any) -> JSON:
        data = result.structured_content
        if not isinstance(data, dict):
            text = "".join(getattr(block, "text", "") for block in result.content)
            try:
                data = json.loads(text)
            except ValueError:
                data = None
        if result.is_error or not isinstance(data, dict):
            raise StoreUnavailable(f"The store's MCP server answered {tool} out of contract.")
        return data

    def _read(self, tool: str, arguments: JSON, *, customer_id: str | None = None) -> JSON | None:
        """A read's JSON, None when the store says it is not there."""
        try:
            return self._answer(self.call(tool, arguments, customer_id=customer_id))
        except StoreError as exc:
            if exc.code.endswith("_not_found"):
                return None
            raise

    def _write(self, tool: str, customer_id: str, arguments: JSON, key: str) -> JSON:
        return self._answer(self.call(tool, {**arguments, "idempotency_key": key}, customer_id=customer_id))

    @staticmethod
    def _answer(data: JSON) -> JSON:
        """The tool's JSON; the error it answers with, raised with its code."""
        error = data.get("error")
        if isinstance(error, dict):
            raise StoreError(str(error.get("code") or "store_refused"), str(error.get("message") or ""))
        return data

    # --- reads ------------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        report = {"server": self.command or self.url, "breaker_open": breaker_open(self.name)}
        try:
            self._read("get_variants", {"item_ids": ["health check"]})
        except StoreError as exc:
            return {"ok": False, **report, "error": str(exc)}
        return {"ok": True, **report}

    def customer(self, customer_id: str) -> StoreCustomer | None:
        data = self._read("get_customer", {}, customer_id=customer_id)
        return None if data is None else wire.customer_from_json(data)

    def customers_by_email(self, email: str) -> list[StoreCustomer]:
        data = self._read("find_customers", {"email": email}) or {}
        return [wire.customer_from_json(c) for c in data.get("customers", [])][:2]

    def customers_by_zip(self, zip_code: str) -> list[StoreCustomer]:
        data = self._read("find_customers", {"zip": zip_code}) or {}
        return [wire.customer_from_json(c) for c in data.get("customers", [])][:50]

    def order_owner(self, order_id: str) -> StoreCustomer | None:
        data = self._read("order_owner", {"order_id": order_id})
        return None if data is None else wire.customer_from_json(data)

    def order(self, customer_id: str, order_id: str) -> Order | None:
        data = self._read("get_order", {"order_id": order_id}, customer_id=customer_id)
        return None if data is None else wire.order_from_json(data)

    def orders(self, customer_id: str, *, statuses: Sequence[str] = (), limit: int = 20) -> list[Order]:
        data = self._read("list_orders", {"statuses": list(statuses), "limit": limit}, customer_id=customer_id) or {}
        return [wire.order_from_json(o) for o in data.get("orders", [])][:limit]

    def order_by_tracking(self, customer_id: str, tracking_number: str) -> Order | None:
        data = self._read("find_shipment", {"tracking_number": tracking_number}, customer_id=customer_id)
        return None if data is None else wire.order_from_json(data)

    def catalogue(self) -> StoreCatalogue:
        return wire.catalogue_read(lambda cursor: self._read("get_catalogue", {"cursor": cursor}))

    def product_variants(self, product_ids: Sequence[str]) -> list[Variant]:
        data = self._read("get_variants", {"product_ids": list(product_ids)}) if product_ids else None
        return [wire.variant_from_json(v) for v in (data or {}).get("variants", [])]

    def variants(self, item_ids: Sequence[str]) -> list[Variant]:
        data = self._read("get_variants", {"item_ids": list(item_ids)}) if item_ids else None
        return [wire.variant_from_json(v) for v in (data or {}).get("variants", [])]

    # --- writes -----------------------------------------------------------------------------------

    def order_cancel(self, customer_id: str, order_id: str, *, reason: str, key: str) -> WriteResult:
        data = self._write("cancel_order", customer_id, {"order_id": order_id, "reason": reason}, key)
        return wire.write_from_json(data)

    def order_modify_address(
        self, customer_id: str, order_id: str, *, address: dict[str, Any], key: str
    ) -> WriteResult:
        data = self._write("change_order_address", customer_id, {"order_id": order_id, "address": address}, key)
        return wire.write_from_json(data)

    def order_modify_payment(self, customer_id: str, order_id: str, *, payment_method_id: str, key: str) -> WriteResult:
        arguments = {"order_id": order_id, "payment_method_id": payment_method_id}
        return wire.write_from_json(self._write("change_order_payment", customer_id, arguments, key))

    def order_modify_items(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        arguments = {"order_id": order_id, **asdict(swap)}
        return wire.write_from_json(self._write("change_order_items", customer_id, arguments, key))

    def order_return(
        self, customer_id: str, order_id: str, *, item_ids: list[str], payment_method_id: str, key: str
    ) -> WriteResult:
        arguments = {"order_id": order_id, "item_ids": item_ids, "payment_method_id": payment_method_id}
        return wire.write_from_json(self._write("return_order_items", customer_id, arguments, key))

    def order_exchange(self, customer_id: str, order_id: str, *, swap: ItemsSwap, key: str) -> WriteResult:
        arguments = {"order_id": order_id, **asdict(swap)}
        return wire.write_from_json(self._write("exchange_order_items", customer_id, arguments, key))

    def default_address_set(self, customer_id: str, *, address: dict[str, Any], key: str) -> dict[str, str]:
        data = self._write("set_default_address", customer_id, {"address": address}, key)
        address_set = data.get("address")
        if not isinstance(address_set, dict):
            raise StoreUnavailable("The store's answer to a default address change has no address.")
        return {str(k): str(v) for k, v in address_set.items()}
