"""Chats whose orders live in the store's own system (STORE_BACKEND=http, the store server in another process):
the same conversations as on the built-in tables, and a polite "can't reach the order system" when it is down."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from conversations.language import say
from conversations.models import Conversation, Customer, WorkflowState
from conversations.services import conversation_start
from stores.builtin.models import Order
from tests.agents.engine import run_turn
from tests.conftest import _free_port
from tests.stores.conftest import StoreServer

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("exemplars", "parked_queue"),
]


def _chat(customer_id: str, language: str) -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id=f"guest_{customer_id}"), language=language)
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id=customer_id))
    chat.refresh_from_db()
    return chat


def _store_down(settings: Any) -> None:
    settings.STORE_API_URL = f"http://127.0.0.1:{_free_port()}"
    settings.STORE_API_TIMEOUT_S = 1


@pytest.mark.parametrize(
    ("customer_id", "language", "request_", "yes"),
    [
        ("demo_li_wei", "zh", "我要取消订单 #D1001，不需要了", "好的"),
        ("demo_li_wei", "en", "Please cancel order #D1001, I no longer need it", "yes"),
    ],
)
def test_a_cancellation_is_written_in_the_stores_own_system(
    http_store: StoreServer, customer_id: str, language: str, request_: str, yes: str
) -> None:
    chat = _chat(customer_id, language)

    proposal = run_turn(chat, request_)
    assert proposal.reply["awaiting"]["slot"] == "confirm"
    assert Order.objects.get(external_id="#D1001").status == "pending"
    done = run_turn(chat, yes)

    assert Order.objects.get(external_id="#D1001").status == "cancelled"  # written by the store server
    assert ("取消订单 #D1001" if language == "zh" else "cancelled") in done.reply["text"]


@pytest.mark.parametrize(
    ("language", "question"), [("zh", "我的订单 #D2002 到哪了？"), ("en", "Where is my order #D2002?")]
)
def test_a_parcel_is_tracked_through_the_store_api(http_store: StoreServer, language: str, question: str) -> None:
    chat = _chat("demo_emma_wilson", language)

    turn = run_turn(chat, question)

    assert "1Z999AA10123456785" in turn.reply["text"] or "UPS" in turn.reply["text"]


@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "我的订单 #D1002 到哪了？", "连不上订单系统"),
        ("en", "Where is my order #D1002?", "can't reach the order system"),
    ],
)
def test_a_store_that_is_down_is_said_plainly_and_a_person_offered(
    http_store: StoreServer, settings: Any, language: str, question: str, said: str
) -> None:
    chat = _chat("demo_li_wei", language)
    _store_down(settings)

    turn = run_turn(chat, question)

    assert said in turn.reply["text"]
    assert say(language, "Talk to a person") in turn.reply["quick_replies"]


@pytest.mark.parametrize(
    ("language", "request_", "yes", "said"),
    [
        ("zh", "我要取消订单 #D1001，不需要了", "好的", "连不上订单系统"),
        ("en", "Please cancel order #D1001, I no longer need it", "yes", "can't reach the order system"),
    ],
)
def test_a_write_the_store_could_not_take_is_not_reported_done_and_can_be_tried_again(
    http_store: StoreServer, settings: Any, language: str, request_: str, yes: str, said: str
) -> None:
    chat = _chat("demo_li_wei", language)
    run_turn(chat, request_)
    url = settings.STORE_API_URL

    _store_down(settings)
    refused = run_turn(chat, yes)

    assert said in refused.reply["text"]
    assert Order.objects.get(external_id="#D1001").status == "pending"
    assert WorkflowState.objects.get(conversation=chat, status="active").step == "confirm"

    settings.STORE_API_URL, settings.STORE_API_TIMEOUT_S = url, 5
    run_turn(chat, yes)
    assert Order.objects.get(external_id="#D1001").status == "cancelled"


@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "我的订单 #D1002 到哪了？我的邮箱是 li.wei@example.com", "连不上订单系统"),
        ("en", "Where is my order #D1002? My email is li.wei@example.com", "can't reach the order system"),
    ],
)
def test_an_identity_the_store_cannot_check_now_is_said_plainly(
    http_store: StoreServer, settings: Any, language: str, question: str, said: str
) -> None:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_unverified"), language=language)
    _store_down(settings)

    turn = run_turn(chat, question)

    assert said in turn.reply["text"]
