"""One reading of each message (agents.reading.message): made by the intent node, kept on the turn, and what the
route node and the workflow runner act on."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from agents.models import Subtask, TurnRun
from agents.nodes.recognize import step_recognize
from agents.pipeline import turn_advance
from agents.reading.asks import Asks
from agents.reading.confirmation import Answer
from agents.reading.message import Reading, message_read, text_read
from agents.services import customer_message_handle
from agents.states import SubtaskStatus
from agents.subtasks import subtask_execute
from conversations.models import Conversation, Customer, WorkflowState
from conversations.services import conversation_start
from stores.builtin.models import Order
from tests.agents.engine import run_turn


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        ("I don't mind, go ahead. Also, what's your returns policy?", ["what's your returns policy?"]),
        ("好的，不用急。另外你们的退货政策是什么？", ["你们的退货政策是什么？"]),
    ],
)
def test_the_message_and_each_part_are_read_once_and_kept(message: str, parts: list[str]) -> None:
    reading = message_read(message, parts)

    assert list(reading.texts) == [message, *parts]
    assert reading.of(parts[0]).asks == Asks.POLICY
    assert reading.of(parts[0]) is reading.texts[parts[0]]  # asked again, not read again


def test_a_stored_reading_comes_back_as_it_was_and_one_of_another_message_is_not_used() -> None:
    reading = message_read("yes please, cancel it", ["cancel it"], request="cancel_order")
    back = Reading.from_json(reading.as_json(), "yes please, cancel it")

    assert back.texts == reading.texts and back.request == "cancel_order"
    assert back.of("取消吧").answer == Answer.YES  # a text read later is read within the same request
    assert back.whole.answer == Answer.YES and back.whole.yes_no is True
    assert Reading.from_json(reading.as_json(), "another message").texts == {}
    assert Reading.from_json({"message": "x", "texts": [{"text": "x", "answer": "maybe"}]}, "x").texts == {}


def test_a_text_outside_the_message_is_read_when_asked_for() -> None:
    reading = message_read("算了，不办了")

    assert reading.whole.gives_up
    assert "买错了" not in reading.texts
    assert reading.of("买错了").reason == "ordered by mistake"
    assert reading.of("买错了") == text_read("买错了")


@pytest.fixture
def li(db: None) -> Conversation:
    """李伟, verified in this chat, with the demo store's pending order #D1001."""
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_reading"), language="zh")
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    chat.refresh_from_db()
    return chat


@pytest.mark.django_db
@pytest.mark.usefixtures("exemplars", "parked_queue")
def test_the_intent_node_keeps_the_reading_on_the_turn(li: Conversation) -> None:
    turn = customer_message_handle(conversation_id=li.pk, text="算了，不办了谢谢")
    step_recognize(TurnRun.objects.select_related("message", "conversation").get(pk=turn.pk))

    stored = TurnRun.objects.get(pk=turn.pk).reading
    reading = Reading.from_json(stored, "算了，不办了谢谢")
    assert stored["message"] == "算了，不办了谢谢"
    assert reading.whole == text_read("算了，不办了谢谢") and reading.whole.gives_up


def _turn_read_as(chat: Conversation, text: str, answer: Answer) -> TurnRun:
    """A turn whose message the intent node has read, with the stored reading of its words set to `answer`."""
    turn = customer_message_handle(conversation_id=chat.pk, text=text)
    step_recognize(TurnRun.objects.select_related("message", "conversation").get(pk=turn.pk))
    stored = TurnRun.objects.get(pk=turn.pk).reading
    for row in stored["texts"]:
        row["answer"] = answer.value
    TurnRun.objects.filter(pk=turn.pk).update(reading=stored)
    turn_advance(turn.pk)
    for subtask_id in Subtask.objects.filter(turn=turn, status=SubtaskStatus.PENDING).values_list("pk", flat=True):
        subtask_execute(subtask_id=subtask_id)
    turn_advance(turn.pk)
    return TurnRun.objects.get(pk=turn.pk)


@pytest.mark.django_db
@pytest.mark.usefixtures("exemplars", "parked_queue")
@pytest.mark.parametrize(("text", "answer", "cancelled"), [("嗯", Answer.YES, True), ("ok", Answer.OTHER, False)])
def test_the_runner_acts_on_the_turns_reading_not_on_a_second_one(
    li: Conversation, text: str, answer: Answer, cancelled: bool
) -> None:
    confirm = run_turn(li, "帮我取消订单 #D1001，买错了")
    assert confirm.reply["awaiting"]["slot"] == "confirm"

    _turn_read_as(li, text, answer)

    assert (Order.objects.get(external_id="#D1001").status == "cancelled") is cancelled
    assert WorkflowState.objects.filter(conversation=li, status="active", step="confirm").exists() is not cancelled
