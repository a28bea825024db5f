"""POST /api/v1/store/events: a signed word from the store that its data changed drops the reads cached of it."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from agents.tools import ToolContext, tool_call
from conversations.models import Customer
from stores.builtin.models import Order
from webhooks.services import webhook_signature

pytestmark = [pytest.mark.django_db]
SECRET = "store-events-secret"


@pytest.fixture
def li(settings: Any) -> ToolContext:
    settings.STORE_WEBHOOK_SECRET = SECRET
    call_command("seed_demo", verbosity=0)
    return ToolContext(conversation_id=None, customer=Customer.objects.get(external_id="demo_li_wei"))


def _post(client: Client, event: dict[str, Any], *, secret: str = SECRET) -> Any:
    body = json.dumps(event).encode()
    return client.post(
        "/api/v1/store/events",
        body,
        content_type="application/json",
        headers={"X-Store-Signature": webhook_signature(secret, int(time.time()), body)},
    )


def test_an_order_changed_at_the_store_is_read_afresh_after_its_event(client: Client, li: ToolContext) -> None:
    assert tool_call("get_order_info", li, {"order_id": "#D1001"})["status"] == "pending"
    Order.objects.filter(external_id="#D1001").update(status="processed")  # changed at the store, not by us
    assert tool_call("get_order_info", li, {"order_id": "#D1001"})["status"] == "pending"  # the cached read

    response = _post(client, {"type": "order.updated", "customer_id": "demo_li_wei", "order_id": "#D1001"})

    assert response.status_code == 202 and response.json() == {"accepted": True}
    assert tool_call("get_order_info", li, {"order_id": "#D1001"})["status"] == "processed"


def test_an_event_with_a_wrong_signature_changes_nothing(client: Client, li: ToolContext) -> None:
    tool_call("get_order_info", li, {"order_id": "#D1001"})
    Order.objects.filter(external_id="#D1001").update(status="processed")

    response = _post(client, {"type": "order.updated", "customer_id": "demo_li_wei"}, secret="not-the-secret")

    assert response.status_code == 401 and response.json()["error"]["code"] == "bad_signature"
    assert tool_call("get_order_info", li, {"order_id": "#D1001"})["status"] == "pending"


@pytest.mark.parametrize("event", [{"type": "order.deleted"}, {"customer_id": "demo_li_wei"}, ["order.updated"]])
def test_an_event_out_of_shape_is_a_400_in_the_error_shape(client: Client, li: ToolContext, event: Any) -> None:
    response = _post(client, event)  # type: ignore[arg-type]

    assert response.status_code == 400 and response.json()["error"]["code"]


def test_no_secret_configured_refuses_every_event(client: Client, li: ToolContext, settings: Any) -> None:
    settings.STORE_WEBHOOK_SECRET = ""

    assert _post(client, {"type": "catalogue.updated"}).status_code == 401


def test_health_names_the_store_backend_and_a_store_that_does_not_answer(client: Client, settings: Any) -> None:
    assert client.get("/healthz").json()["store"] == {"backend": "builtin", "ok": True}

    settings.STORE_BACKEND, settings.STORE_API_URL, settings.STORE_API_TOKEN = "http", "http://127.0.0.1:9", "t"
    body = client.get("/healthz").json()

    assert body["store"]["backend"] == "http" and body["store"]["ok"] is False and body["store"]["error"]
    assert "store" in body["degraded"] and "store" not in body["down"]
