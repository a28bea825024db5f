"""STORE_BACKEND=mcp against `manage.py store_mcp_server` in another process (streamable HTTP, and stdio), through
the official MCP SDK: the same answers as the tables, writes done once, and seed 004's interceptor."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from django.core.management import call_command

from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from stores.builtin.backend import BuiltinStore
from stores.builtin.models import Order as OrderRow
from stores.builtin.models import PaymentTransaction
from stores.mcp import McpStore
from stores.records import StoreError, StoreUnavailable
from tests.agents.engine import run_turn
from tests.conftest import _free_port, database_url_for_tests
from tests.stores.conftest import STORE_TOKEN, McpServer

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_store() -> None:
    call_command("seed_demo", verbosity=0)


def test_the_mcp_server_answers_what_the_tables_hold(demo_store: None, store_mcp_server: McpServer) -> None:
    tables, mcp = BuiltinStore(), store_mcp_server.client()

    assert mcp.customer("demo_li_wei") == tables.customer("demo_li_wei") is not None
    assert mcp.customers_by_email("li.wei@example.com") == tables.customers_by_email("li.wei@example.com") != []
    assert mcp.customers_by_zip("94105") == tables.customers_by_zip("94105") != []
    assert mcp.orders("demo_li_wei") == tables.orders("demo_li_wei") != []
    assert mcp.orders("demo_li_wei", statuses=["pending"]) == tables.orders("demo_li_wei", statuses=["pending"])
    assert mcp.order("demo_li_wei", "#D1002") == tables.order("demo_li_wei", "#D1002") is not None
    assert mcp.order_by_tracking("demo_li_wei", "SF1234567890") == tables.order_by_tracking(
        "demo_li_wei", "SF1234567890"
    )
    assert mcp.order_owner("#D2001") == tables.order_owner("#D2001") is not None
    assert mcp.variants(["V-X9-BLK-256"]) == tables.variants(["V-X9-BLK-256"]) != []


def test_the_verified_customer_is_put_into_every_call_over_what_it_said(
    demo_store: None, store_mcp_server: McpServer
) -> None:
    mcp = store_mcp_server.client()

    # Li is verified; the call names Emma and her order: the interceptor asks as Li, and Li has no such order.
    asked = mcp.call("get_order", {"customer_id": "demo_emma_wilson", "order_id": "#D2001"}, customer_id="demo_li_wei")

    assert asked["error"]["code"] == "order_not_found"
    with pytest.raises(StoreError) as unnamed:
        mcp.call("get_order", {"customer_id": "demo_emma_wilson", "order_id": "#D2001"})
    assert unnamed.value.code == "customer_required"
    with pytest.raises(StoreError) as outside:
        mcp.call("delete_customer", {"customer_id": "demo_li_wei"}, customer_id="demo_li_wei")
    assert outside.value.code == "tool_not_allowed"


def test_a_write_is_done_once_per_idempotency_key(demo_store: None, store_mcp_server: McpServer) -> None:
    mcp = store_mcp_server.client()
    refunds = PaymentTransaction.objects.filter(order__external_id="#D1001", kind="refund")
    before = refunds.count()

    first = mcp.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="mcp-cancel-once")
    again = mcp.order_cancel("demo_li_wei", "#D1001", reason="no longer needed", key="mcp-cancel-once")

    assert first == again and first.status == "cancelled"
    assert refunds.count() == before + 1
    with pytest.raises(StoreError) as refused:
        mcp.order_return("demo_li_wei", "#D1002", item_ids=["x"], payment_method_id="y", key="mcp-return-processed")
    assert refused.value.code == "wrong_status"
    assert OrderRow.objects.get(external_id="#D1002").status == "processed"


def test_a_store_mcp_server_that_is_down_is_unavailable(store_mcp_server: McpServer) -> None:
    with pytest.raises(StoreUnavailable):
        McpStore(url=store_mcp_server.url, token="not-the-token", timeout_s=2).customer("demo_li_wei")
    with pytest.raises(StoreUnavailable):
        McpStore(url=f"http://127.0.0.1:{_free_port()}/mcp", token=STORE_TOKEN, timeout_s=1).customer("demo_li_wei")


def test_a_local_command_over_stdio_answers_too(demo_store: None, monkeypatch: Any) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url_for_tests())
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "cs_project.settings.test")
    local = McpStore(command=f"{sys.executable} manage.py store_mcp_server --stdio", timeout_s=30)

    assert local.order("demo_li_wei", "#D1001") == BuiltinStore().order("demo_li_wei", "#D1001") is not None


def _chat(language: str) -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_li"), language=language)
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    chat.refresh_from_db()
    return chat


@pytest.mark.usefixtures("exemplars", "parked_queue")
@pytest.mark.parametrize(
    ("language", "request_", "yes", "done"),
    [
        ("zh", "我要取消订单 #D1001，不需要了", "好的", "取消订单 #D1001"),
        ("en", "Please cancel order #D1001, I no longer need it", "yes", "cancelled"),
    ],
)
def test_a_cancellation_in_a_chat_is_written_through_the_stores_mcp_server(
    mcp_store: McpServer, language: str, request_: str, yes: str, done: str
) -> None:
    chat = _chat(language)

    assert run_turn(chat, request_).reply["awaiting"]["slot"] == "confirm"
    reply = run_turn(chat, yes).reply["text"]

    assert OrderRow.objects.get(external_id="#D1001").status == "cancelled"
    assert done in reply
