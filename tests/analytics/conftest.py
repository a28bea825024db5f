"""Conversations played through the engine, the console and the widget's services, for the analytics."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from agents.models import Subtask, TurnRun
from conversations.models import Conversation, Customer, IntentRecord
from conversations.services import (
    conversation_end_by_customer,
    conversation_rate,
    conversation_resolve,
    conversation_start,
    conversation_take_over,
    conversations_close_idle,
    staff_message_send,
)
from tests.agents.engine import run_turn


def chat_started(name: str, language: str) -> Conversation:
    return conversation_start(customer=Customer.objects.create(external_id=name, locale=language), language=language)


@pytest.fixture
def played(staff_bob: User) -> dict[str, Conversation]:
    """Four chats of today and one of forty days ago:
    - ended by the customer after an answer, rated 5 (en);
    - answered, then quiet: the assistant closes it (zh);
    - a person asked for, taken over, answered and closed by staff, rated 2 (en);
    - the same question twice, the second from the caches, still open (zh);
    - an old chat, out of the period."""
    call_command("seed_demo", verbosity=0)
    ended, quiet, escalated, twice, old = (
        chat_started("a-ended", "en"),
        chat_started("b-quiet", "zh"),
        chat_started("c-staff", "en"),
        chat_started("d-twice", "zh"),
        chat_started("e-old", "en"),
    )
    run_turn(ended, "What is your return policy?")
    conversation_end_by_customer(conversation_id=ended.pk)
    conversation_rate(conversation_id=ended.pk, score=5, comment="quick, thanks")

    run_turn(quiet, "发票怎么开？")
    assert conversations_close_idle(idle_for=timedelta(0)) == 1  # the only chat the assistant answered last

    run_turn(escalated, "I want to talk to a real person")
    conversation_take_over(conversation_id=escalated.pk, staff=staff_bob)
    staff_message_send(conversation_id=escalated.pk, staff=staff_bob, text="Hi, Bob here. How can I help?")
    conversation_resolve(conversation_id=escalated.pk, reason="answered", staff=staff_bob)
    conversation_rate(conversation_id=escalated.pk, score=2)

    run_turn(twice, "耳机保修多久？")
    run_turn(twice, "耳机保修多久？")

    run_turn(old, "Do you ship to Canada?")
    Conversation.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    for model in (TurnRun, IntentRecord):
        model.objects.filter(conversation=old).update(created_at=timezone.now() - timedelta(days=40))
    Subtask.objects.filter(turn__conversation=old).update(created_at=timezone.now() - timedelta(days=40))
    return {"ended": ended, "quiet": quiet, "escalated": escalated, "twice": twice, "old": old}
