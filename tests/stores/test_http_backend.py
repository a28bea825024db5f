"""STORE_BACKEND=http against `manage.py store_server` in another process, over a real socket.

The reference server is the built-in store behind the store API, so each answer can be held against what the
tables say (the built-in backend read in this process).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from django.core.cache import cache
from django.core.management import call_command

from agents.tools import ToolContext, ToolError, tool_call
from conversations.models import Customer
from stores.breaker import BREAKER_FAILURES
from stores.builtin.backend import BuiltinStore
from stores.builtin.models import Order as OrderRow
from stores.builtin.models import PaymentTransaction
from stores.http import HttpStore
from stores.records import StoreError, StoreTimedOut, StoreUnavailable
from tests.conftest import BASE_DIR, _free_port
from tests.stores.conftest import STORE_TOKEN, StoreServer

pytestmark = [pytest.mark.django_db(transaction=True)]
OPENAPI = json.loads((Path(BASE_DIR) / "docs" / "store-api.openapi.json").read_text(encoding="utf-8"))


@pytest.fixture
def demo_store() -> None:
    call_command("seed_demo", verbosity=0)


def test_the_store_api_answers_what_the_tables_hold(demo_store: None, store_server: StoreServer) -> None:
    tables, api = BuiltinStore(), store_server.client()

    assert api.customer("demo_li_wei") == tables.customer("demo_li_wei") is not None
    assert api.customers_by_email("LI.WEI@example.com") == tables.customers_by_email("li.wei@example.com") != []
    assert api.customers_by_zip("94105") == tables.customers_by_zip("94105") != []
    assert api.orders("demo_li_wei") == tables.orders("demo_li_wei") != []
    assert api.orders("demo_li_wei", statuses=["delivered"]) == tables.orders("demo_li_wei", statuses=["delivered"])
    assert api.order("demo_li_wei", "#D1002") == tables.order("demo_li_wei", "#D1002") is not None
    assert api.order_by_tracking("demo_li_wei", "SF1234567890") == tables.order_by_tracking(
        "demo_li_wei", "SF1234567890"
    )
    assert api.order_owner("#D2001") == tables.order_owner("#D2001") is not None
    products = sorted({line.product_id for o in tables.orders("demo_li_wei") for line in o.items})
    assert api.product_variants(products) == tables.product_variants(products) != []
    assert api.variants(["V-X9-BLK-256"]) == tables.variants(["V-X9-BLK-256"]) != []


def test_another_customers_order_is_not_found_through_the_api(demo_store: None, store_server: StoreServer) -> None:
    api = store_server.client()

    assert api.order("demo_li_wei", "#D2001") is None  # Emma's
    assert api.order_by_tracking("demo_li_wei", "1Z999AA10123456785") is None
    with pytest.raises(StoreError) as refused:
        api.order_cancel("demo_li_wei", "#D2004", reason="no longer needed", key="another-customers-order")
    assert refused.value.code == "order_not_found"


def _get(server: StoreServer, path: str) -> Any:
    request = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {STORE_TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_orders_come_in_pages_that_add_up_to_the_list(demo_store: None, store_server: StoreServer) -> None:
    pages, cursor = [], ""
    while True:
        page = _get(store_server, f"/customers/demo_li_wei/orders?limit=1{'&cursor=' + cursor if cursor else ''}")
        pages.append(page)
        cursor = page["next"] or ""
        if not cursor:
            break

    assert [len(p["orders"]) for p in pages] == [1, 1, 1, 1]
    assert [o["order_id"] for p in pages for o in p["orders"]] == [
        o.order_id for o in BuiltinStore().orders("demo_li_wei")
    ]


def test_the_reference_server_answers_as_the_openapi_file_says(demo_store: None, store_server: StoreServer) -> None:
    schemas = OPENAPI["components"]["schemas"]

    def check(value: Any, name: str) -> None:
        jsonschema.validate(value, {"$ref": f"#/components/schemas/{name}", "components": {"schemas": schemas}})

    for order in _get(store_server, "/customers/demo_li_wei/orders")["orders"]:
        check(order, "Order")
    check(_get(store_server, "/customers/demo_zhang_min"), "Customer")
    for variant in _get(store_server, "/variants?item_id=V-X9-BLK-256")["variants"]:
        check(variant, "Variant")
    check(_get(store_server, "/catalogue?limit=2"), "CataloguePage")
    result = store_server.client().order_cancel("demo_li_wei", "#D1001", reason="ordered by mistake", key="k-openapi")
    check({"order_id": result.order_id, "status": result.status, "details": result.details}, "WriteResult")
    assert set(OPENAPI["paths"]) >= {"/customers", "/catalogue", "/customers/{customer_id}/orders/{order_id}/cancel"}


def test_a_write_is_done_once_per_idempotency_key(demo_store: None, store_server: StoreServer) -> None:
    api = store_server.client()
    refunds_before = PaymentTransaction.objects.filter(order__external_id="#D1001", kind="refund").count()

    first = api.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="cancel-D1001-once")
    again = api.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="cancel-D1001-once")

    assert first == again
    assert first.status == "cancelled"
    assert OrderRow.objects.get(external_id="#D1001").status == "cancelled"
    assert PaymentTransaction.objects.filter(order__external_id="#D1001", kind="refund").count() == refunds_before + 1
    with pytest.raises(StoreError) as reused:
        api.order_cancel("demo_li_wei", "#D1001", reason="ordered by mistake", key="cancel-D1001-once")
    assert reused.value.code == "idempotency_key_reused"
    with pytest.raises(StoreError) as repeated:  # a new request for a write already done: the store's rule
        api.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="cancel-D1001-twice")
    assert repeated.value.code == "wrong_status"


def test_a_refused_write_keeps_the_stores_code_and_changes_nothing(demo_store: None, store_server: StoreServer) -> None:
    api = store_server.client()

    with pytest.raises(StoreError) as refused:
        api.order_return("demo_li_wei", "#D1001", item_ids=["V-X9-BLK-256"], payment_method_id="x", key="k-return")

    assert refused.value.code == "wrong_status" and not isinstance(refused.value, StoreUnavailable)
    assert OrderRow.objects.get(external_id="#D1001").status == "pending"


def test_a_wrong_token_or_a_store_that_is_down_is_unavailable(store_server: StoreServer) -> None:
    with pytest.raises(StoreUnavailable):
        HttpStore(base_url=store_server.url, token="not-the-token").customer("demo_li_wei")
    down = HttpStore(base_url=f"http://127.0.0.1:{_free_port()}", token=STORE_TOKEN, timeout_s=1)
    with pytest.raises(StoreUnavailable):
        down.customer("demo_li_wei")


def test_a_read_that_timed_out_is_not_asked_again() -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # takes the call and never answers
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(silent.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    slow = HttpStore(base_url=f"http://127.0.0.1:{silent.getsockname()[1]}", token=STORE_TOKEN, timeout_s=1)
    with pytest.raises(StoreTimedOut):
        slow.customer("demo_li_wei")
    assert len(accepted) == 1
    silent.close()

    refused = HttpStore(base_url=f"http://127.0.0.1:{_free_port()}", token=STORE_TOKEN, timeout_s=1)
    with pytest.raises(StoreUnavailable) as down:
        refused.customer("demo_li_wei")
    assert not isinstance(down.value, StoreTimedOut)


def test_the_breaker_opens_after_failures_in_a_row_fails_fast_and_closes_when_a_probe_finds_the_store_back(
    demo_store: None, store_server: StoreServer
) -> None:
    down = HttpStore(base_url=f"http://127.0.0.1:{_free_port()}", token=STORE_TOKEN, timeout_s=1)
    for _ in range(BREAKER_FAILURES):
        with pytest.raises(StoreUnavailable):
            down.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="k-breaker")  # writes: 1 try
    with pytest.raises(StoreUnavailable):
        down.customer("demo_li_wei")  # while open, one call goes through: to a store still down

    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="left alone"):
        store_server.client().customer("demo_li_wei")  # every client: the breaker is shared
    assert time.monotonic() - started < 0.5

    cache.delete("store:http:breaker:probe")  # BREAKER_PROBE_S later
    assert store_server.client().customer("demo_li_wei") is not None  # the next probe finds the store back
    assert store_server.client().customer("demo_li_wei") is not None  # and the breaker is closed for everyone


class _LyingStore(BaseHTTPRequestHandler):
    """A store that answers every order read with Emma's order, whoever is asked about."""

    order: dict[str, Any] = {}

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        listing = self.path.split("?")[0].endswith("/orders")
        body = json.dumps({"orders": [self.order], "next": None} if listing else self.order).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass  # keep the test output quiet


@pytest.fixture
def lying_store(demo_store: None, store_server: StoreServer, settings: Any) -> Iterator[None]:
    _LyingStore.order = _get(store_server, "/customers/demo_emma_wilson/orders/%23D2001")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LyingStore)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.STORE_BACKEND = "http"
    settings.STORE_API_URL = f"http://127.0.0.1:{server.server_address[1]}"
    settings.STORE_API_TOKEN = STORE_TOKEN
    yield
    server.shutdown()


def test_an_order_the_store_gives_for_another_customer_is_never_shown(lying_store: None) -> None:
    li = ToolContext(conversation_id=None, customer=Customer.objects.get(external_id="demo_li_wei"))

    with pytest.raises(ToolError) as missing:
        tool_call("get_order_info", li, {"order_id": "#D2001"})

    assert missing.value.code == "order_not_found"
    assert tool_call("list_orders", li)["orders"] == []


def test_a_store_url_that_names_no_store_api_is_unavailable_not_an_empty_account(store_server: StoreServer) -> None:
    wrong = HttpStore(base_url=f"{store_server.url}/v2", token=STORE_TOKEN)

    with pytest.raises(StoreUnavailable, match="STORE_API_URL"):
        wrong.order("demo_li_wei", "#D1001")
