"""At "Shall I cancel this order?", the words of cancelling say yes: giving up is only giving up the cancellation.

A shopper asked to confirm a cancellation who answers "取消吧" or "cancel it" wants the order cancelled; read as
dropping the request, the bot used to answer "Cancelled." and leave the order as it was.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from agents.reading.confirmation import gives_up
from conversations.models import Conversation, Customer, WorkflowKind, WorkflowState
from conversations.services import conversation_start
from stores.builtin.models import Order
from tests.agents.engine import run_turn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def li() -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_li"), language="zh")
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    chat.refresh_from_db()
    return chat


def _awaiting(turn: object) -> str | None:
    awaiting = turn.reply.get("awaiting")  # type: ignore[attr-defined]
    return awaiting["slot"] if awaiting else None


@pytest.mark.parametrize("answer", ["取消吧", "请取消", "取消", "cancel it", "cancel", "just cancel it please"])
def test_the_words_of_cancelling_confirm_a_cancellation(li: Conversation, answer: str) -> None:
    proposal = run_turn(li, "我要取消订单 #D1001，不需要了")
    assert _awaiting(proposal) == "confirm"

    run_turn(li, answer)

    assert Order.objects.get(external_id="#D1001").status == "cancelled"


@pytest.mark.parametrize("answer", ["算了，不取消了", "don't cancel it", "never mind, keep the order", "先不取消"])
def test_keeping_the_order_at_a_cancellation_changes_nothing_and_says_so(li: Conversation, answer: str) -> None:
    run_turn(li, "我要取消订单 #D1001，不需要了")

    turn = run_turn(li, answer)

    assert Order.objects.get(external_id="#D1001").status == "pending"
    assert not WorkflowState.objects.filter(conversation=li, status="active").exists()
    assert "已取消" not in turn.reply["text"] and "Cancelled" not in turn.reply["text"]


@pytest.mark.parametrize("answer", ["never mind the reason, just cancel it", "原因就不说了，直接取消吧"])
def test_cancelling_without_a_reason_is_no_giving_up(li: Conversation, answer: str) -> None:
    asked = run_turn(li, "我要取消订单 #D1001")
    assert _awaiting(asked) == "reason"

    turn = run_turn(li, answer)

    assert WorkflowState.objects.filter(conversation=li, status="active").exists() or (
        Order.objects.get(external_id="#D1001").status == "cancelled"
    ), turn.reply["text"]


def test_the_word_offered_for_stopping_stops_a_cancellation_too(li: Conversation) -> None:
    run_turn(li, "我要取消订单 #D1001")
    stuck = run_turn(li, "嗯……")
    for text in ("啊这", "呃"):
        if "停止办理" not in stuck.reply["text"]:
            stuck = run_turn(li, text)

    stopped = run_turn(li, "停止办理")

    assert stuck.reply["awaiting"]["slot"] == "reason"
    assert "没有做任何更改" in stopped.reply["text"]
    assert Order.objects.get(external_id="#D1001").status == "pending"


@pytest.mark.parametrize("kind", [kind.value for kind in WorkflowKind])
def test_the_words_offered_for_stopping_stop_every_kind_of_request(kind: str) -> None:
    assert gives_up("stop", kind) and gives_up("停止办理", kind)
