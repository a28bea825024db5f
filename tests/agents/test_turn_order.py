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
    replies = [turn.reply_message_id for turn in finished]
    assert all(turn.status == TurnStatus.DONE for turn in finished)
    assert replies == sorted(replies) and len(set(replies)) == len(replies)  # stored in message order
    for before, after in zip(finished, finished[1:], strict=False):
        started = TurnEvent.objects.filter(turn=after, from_status=TurnStatus.RECEIVED).get().created_at
        assert started >= before.finished_at  # began once the one before had ended
