"""A conversation's messages are answered one at a time, in order, by the real worker (4 processes)."""

from __future__ import annotations

import time

import pytest

from agents.models import TurnEvent, TurnRun
from agents.services import customer_message_handle
from agents.states import TERMINAL, TurnStatus
from conversations.services import conversation_start, customer_upsert

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker", "exemplars")]

MESSAGES = {
    "en": ["Hi!", "What is your return policy?", "thanks", "Do you ship to Canada?", "ok", "How long is the warranty?"],
    "zh": ["你好", "退货政策是什么？", "谢谢", "发票怎么开？", "好的", "保修多久？"],
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_messages_sent_at_once_are_answered_in_order_one_after_another(language: str) -> None:
    customer = customer_upsert(external_id=f"burst-{language}", locale=language)
    conversation = conversation_start(customer=customer, channel="api", language=language)

    turns = [customer_message_handle(conversation_id=conversation.pk, text=text) for text in MESSAGES[language]]
    deadline = time.monotonic() + 120
    while TurnRun.objects.filter(pk__in=[t.pk for t in turns]).exclude(status__in=TERMINAL).exists():
        assert time.monotonic() < deadline, "the burst was not answered"
        time.sleep(0.2)

    finished = list(TurnRun.objects.filter(pk__in=[t.pk for t in turns]).order_by("pk"))
    replies = [turn.reply_message_id for turn in finished if turn.reply_message_id]
    assert all(turn.status == TurnStatus.DONE for turn in finished) and len(replies) == len(finished)
    assert replies == sorted(replies) and len(set(replies)) == len(replies)  # stored in message order
    for before, after in zip(finished, finished[1:], strict=False):
        started = TurnEvent.objects.filter(turn=after, from_status=TurnStatus.RECEIVED).get().created_at
        assert before.finished_at and started >= before.finished_at  # began once the one before had ended


@pytest.mark.parametrize("language", ["en", "zh"])
def test_thirty_posts_at_once_to_one_chat_get_their_replies_stored_in_message_order(language: str) -> None:
    """Thirty threads post to the API together (each its own connection): whatever order the
    messages land in, each reply follows its own message and comes before the next one's."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import Client

    from conversations.api_keys import api_key_create
    from conversations.models import Message, Sender

    _, key = api_key_create(name="order")
    conversation = conversation_start(customer=customer_upsert(external_id=f"thirty-{language}"), channel="api")
    texts = [f"{MESSAGES[language][i % len(MESSAGES[language])]} ({i})" for i in range(30)]

    def post(text: str) -> int:
        try:
            response = Client().post(
                f"/api/v1/conversations/{conversation.pk}/messages",
                {"text": text},
                content_type="application/json",
                headers={"Authorization": f"Bearer {key}"},
            )
            return response.status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=30) as pool:
        statuses = list(pool.map(post, texts))
    assert all(status in {200, 202} for status in statuses), statuses
    deadline = time.monotonic() + 240
    while TurnRun.objects.filter(conversation=conversation).exclude(status__in=TERMINAL).exists():
        assert time.monotonic() < deadline, "the thirty were not answered"
        time.sleep(0.5)

    turns = list(TurnRun.objects.filter(conversation=conversation).order_by("message_id"))
    replies = [turn.reply_message_id or 0 for turn in turns]
    assert len(turns) == 30 and all(replies)
    assert replies == sorted(replies)  # stored in the order the messages were
    assert all(turn.message_id < reply for turn, reply in zip(turns, replies, strict=True))
    assert Message.objects.filter(conversation=conversation, sender=Sender.BOT).count() == 30


# 3.5 s: longer than the cache's socket timeout (2 s), which once cut the wait short and made the API answer 202.
@pytest.mark.parametrize("ends_after_s", [1.0, 3.5])
def test_a_request_waiting_for_a_reply_is_woken_by_the_turns_end_without_polling(ends_after_s: float) -> None:
    import threading

    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from agents.services import turn_transition
    from agents.turn_wait import turn_wait
    from conversations.services import message_create

    conversation = conversation_start(customer=customer_upsert(external_id="waiter"), channel="api")
    turn = TurnRun.objects.create(
        conversation=conversation, message=message_create(conversation=conversation, sender="customer", text="hi")
    )
    turn_id = turn.pk

    def end_the_turn_in_a_while() -> None:
        time.sleep(ends_after_s)  # the waiter is blocked by then
        with transaction.atomic():
            turn_transition(turn_id=turn_id, from_=TurnStatus.RECEIVED, to=TurnStatus.SKIPPED, reason="test")

    ender = threading.Thread(target=end_the_turn_in_a_while)
    ender.start()
    started = time.monotonic()
    with CaptureQueriesContext(connection) as queries:
        finished = turn_wait(turn=turn, timeout=30)
    waited = time.monotonic() - started
    ender.join()

    assert finished is not None and finished.status == TurnStatus.SKIPPED
    assert ends_after_s <= waited < ends_after_s + 5  # woken at the end, not timed out nor given up early
    reads = [q for q in queries if "agents_turnrun" in q["sql"]]
    assert len(reads) == 1  # the turn read after the wait: nothing before it nor in between


def test_a_turn_that_ended_before_the_wait_is_answered_at_once() -> None:
    """The caller's row still says the turn runs; its end left a mark in Redis, which the wait finds first."""
    from django.db import transaction

    from agents.services import turn_transition
    from agents.turn_wait import turn_wait
    from conversations.services import message_create

    conversation = conversation_start(customer=customer_upsert(external_id="late-waiter"), channel="api")
    turn = TurnRun.objects.create(
        conversation=conversation, message=message_create(conversation=conversation, sender="customer", text="hi")
    )
    with transaction.atomic():
        turn_transition(turn_id=turn.pk, from_=TurnStatus.RECEIVED, to=TurnStatus.SKIPPED, reason="test")
    started = time.monotonic()
    finished = turn_wait(turn=turn, timeout=30)

    assert turn.status == TurnStatus.RECEIVED  # the row in hand
    assert finished is not None and finished.status == TurnStatus.SKIPPED
    assert time.monotonic() - started < 1
