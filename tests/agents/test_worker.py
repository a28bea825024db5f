"""End to end through a real Celery worker: the message goes in, the reply comes out on the channel layer."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import pytest
from django.db import transaction

from agents.models import Subtask, TurnRun
from agents.services import customer_message_handle
from agents.states import TERMINAL, TurnStatus
from agents.tasks import subtask_execute_task
from conversations.models import Conversation, Customer
from conversations.realtime import conversation_group
from conversations.services import conversation_start
from tests.agents.engine import turn_fanned_out_by_hand

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]


def _wait(turn_id: int, *, timeout: float = 30) -> TurnRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        turn = TurnRun.objects.get(pk=turn_id)
        if turn.status in TERMINAL:
            return turn
        time.sleep(0.05)
    raise AssertionError(f"turn {turn_id} did not finish: {TurnRun.objects.get(pk=turn_id).status}")


@pytest.fixture
def chat() -> Conversation:
    customer = Customer.objects.create(external_id="worker_ada", name="Ada", locale="en")
    return conversation_start(customer=customer)


def test_a_message_is_answered_by_the_worker_with_exactly_one_reply_done(chat: Conversation, listen: Any) -> None:
    events = listen(conversation_group(chat.pk))

    turn = customer_message_handle(conversation_id=chat.pk, text="Hello!")
    done = _wait(turn.pk)

    assert done.status == TurnStatus.DONE
    received = events.events(timeout=1.5)
    types = [e["type"] for e in received]
    assert types.count("reply.done") == 1
    assert types.index("message.created") < types.index("reply.done")
    reply = next(e for e in received if e["type"] == "reply.done")
    assert reply["text"] == done.reply["text"] and reply["message_id"] == done.reply_message_id


def test_chinese_message_is_answered_in_chinese_by_the_worker(chat: Conversation) -> None:
    turn = customer_message_handle(conversation_id=chat.pk, text="你好，在吗")

    assert "您好" in _wait(turn.pk).reply["text"]


def _fan_out_by_hand(chat: Conversation, specialists: list[str], **task_options: Any) -> TurnRun:
    """A turn with the given subtasks, queued the way the agent node queues them (`task_options`: Celery's,
    for each task)."""
    with transaction.atomic():
        turn, subtasks = turn_fanned_out_by_hand(chat, specialists)
        for subtask in subtasks:
            transaction.on_commit(partial(subtask_execute_task.apply_async, (subtask.pk,), **task_options))
    return turn


def test_subtasks_run_in_parallel_and_the_last_one_advances_the_turn(chat: Conversation) -> None:
    turn = _fan_out_by_hand(chat, ["slow_io", "slow_io", "slow_io"])

    done = _wait(turn.pk)

    assert done.status == TurnStatus.DONE
    spans = [
        (s.finished_at.timestamp() - (s.latency_ms or 0) / 1000, s.finished_at.timestamp())
        for s in Subtask.objects.filter(turn=turn)
    ]
    # all three were running at the same moment: no task waited for another
    assert max(start for start, _ in spans) < min(end for _, end in spans)
    assert done.reply["text"].count("answer to q") == 3


def test_a_failing_subtask_is_recorded_and_the_others_answer(chat: Conversation) -> None:
    turn = _fan_out_by_hand(chat, ["slow_io", "broken"])

    done = _wait(turn.pk)

    statuses = dict(Subtask.objects.filter(turn=turn).values_list("specialist", "status"))
    assert statuses == {"slow_io": "done", "broken": "failed"}
    assert "answer to q0" in done.reply["text"]
    chat.refresh_from_db()
    assert chat.failed_attempts == 1  # the failure leaves the turn unresolved


def _subtasks(turn: TurnRun) -> dict[str, tuple[str, str]]:
    return {s.specialist: (s.status, s.error) for s in Subtask.objects.filter(turn=turn)}


def test_a_specialist_whose_remote_api_times_out_is_asked_again_and_answers(chat: Conversation) -> None:
    turn = _fan_out_by_hand(chat, ["slow_io", "flaky"])

    done = _wait(turn.pk)

    assert _subtasks(turn)["flaky"] == ("done", "")
    assert "answer to q1 at attempt 3" in done.reply["text"] and "answer to q0" in done.reply["text"]


def test_a_remote_api_that_stays_down_fails_the_subtask_after_three_retries_and_the_others_answer(
    chat: Conversation,
) -> None:
    turn = _fan_out_by_hand(chat, ["slow_io", "down"])

    done = _wait(turn.pk)

    assert _subtasks(turn)["down"] == ("failed", "the carrier's API timed out (attempt 4)")
    assert done.status == TurnStatus.DONE and "answer to q0" in done.reply["text"]


def test_a_refusal_fails_the_subtask_at_once(chat: Conversation) -> None:
    turn = _fan_out_by_hand(chat, ["refusing", "slow_io"])

    done = _wait(turn.pk)

    assert _subtasks(turn)["refusing"] == ("failed", "the carrier refused the request (attempt 1)")
    assert done.status == TurnStatus.DONE and "answer to q1" in done.reply["text"]


def test_a_specialist_past_its_time_limit_is_recorded_as_timed_out_and_the_others_answer(chat: Conversation) -> None:
    turn = _fan_out_by_hand(chat, ["hanging", "slow_io"], soft_time_limit=1)

    done = _wait(turn.pk)

    status, error = _subtasks(turn)["hanging"]
    assert status == "timed_out" and error.startswith("no answer within")
    assert done.status == TurnStatus.DONE and "answer to q1" in done.reply["text"]
