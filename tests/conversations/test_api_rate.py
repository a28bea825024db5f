"""API limits: per key (its own rate or the default) and per shopper (shared with the widget); 429 with
Retry-After and the error shape, and nothing written by a refused call."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client

from agents.services import customer_message_handle
from conversations.api_keys import api_key_create
from conversations.models import ApiKey, Message
from conversations.widget import RateLimited, widget_message_receive, widget_session_open, widget_token_read

pytestmark = pytest.mark.django_db


def get(client: Client, key: str) -> Any:
    return client.get("/api/v1/kb/search?q=warranty", HTTP_AUTHORIZATION=f"Bearer {key}")


def test_a_key_over_its_own_rate_gets_429_with_retry_after(client: Client) -> None:
    record, key = api_key_create(name="small")
    ApiKey.objects.filter(pk=record.pk).update(rate_per_minute=3)
    _, other = api_key_create(name="other")

    statuses = [get(client, key).status_code for _ in range(4)]
    refused = get(client, key)

    assert statuses == [200, 200, 200, 429]
    assert refused.json()["error"]["code"] == "throttled" and refused.json()["error"]["message"]
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert get(client, other).status_code == 200  # each key has its own budget


def test_the_default_rate_applies_to_keys_without_their_own(client: Client, settings: Any) -> None:
    settings.API_REQUESTS_PER_MINUTE = 2
    _, key = api_key_create(name="default")

    assert [get(client, key).status_code for _ in range(3)] == [200, 200, 429]


def test_a_shoppers_messages_are_limited_across_the_api_and_the_widget(client: Client, settings: Any) -> None:
    settings.CUSTOMER_MESSAGES_PER_MINUTE = 2
    settings.API_REPLY_TIMEOUT_S = 0.01  # no worker here: the reply is not awaited
    session = widget_session_open(locale="en")
    _, key = api_key_create(name="shop")
    path = f"/api/v1/conversations/{session.conversation.pk}/messages"

    def post(text: str) -> Any:
        return client.post(
            path, json.dumps({"text": text}), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {key}"
        )

    ticket = widget_token_read(session.token)
    assert ticket
    first = post("hello")
    widget_message_receive(ticket, text="from the widget", client_id="w1", handle=customer_message_handle)
    refused = post("third")

    assert first.status_code == 202
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled" and refused["Retry-After"]
    with pytest.raises(RateLimited):
        widget_message_receive(ticket, text="fourth", client_id="w2", handle=customer_message_handle)
    assert list(Message.objects.order_by("pk").values_list("text", flat=True)) == ["hello", "from the widget"]


def test_the_window_slides_so_no_minute_boundary_hands_out_a_fresh_budget() -> None:
    """A fixed minute let 105 messages through from second :52 (two windows back to back); here any
    stretch of the window's length holds at most the limit, and a refusal says when the oldest leaves."""
    from conversations.rate import rate_allow

    window = 1.5
    started = time.monotonic()
    allowed = [rate_allow("slide-test", 3, window_s=window).allowed for _ in range(3)]
    refusals = []
    while time.monotonic() - started < window - 0.3:  # whatever clock boundary falls in here
        refusals.append(rate_allow("slide-test", 3, window_s=window))
        time.sleep(0.1)
    time.sleep(max(0.0, window + 0.1 - (time.monotonic() - started)))
    after = rate_allow("slide-test", 3, window_s=window)

    assert allowed == [True, True, True]
    assert refusals and not any(decision.allowed for decision in refusals)
    assert all(decision.retry_after_s in (1, 2) for decision in refusals)
    assert after.allowed


def test_the_count_goes_on_when_redis_has_forgotten_the_script() -> None:
    """The script is sent by its SHA1; a restarted or flushed Redis knows none, and the script is loaded again."""
    from django_redis import get_redis_connection

    from conversations.rate import rate_allow

    assert rate_allow("flush-test", 2).allowed
    get_redis_connection("default").script_flush()
    assert rate_allow("flush-test", 2).allowed
    assert not rate_allow("flush-test", 2).allowed
