from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from conversations.models import Conversation, Customer, IntentRecord, Message, WorkflowState
from tests.constraints import assert_rejected
from tests.factories import ConversationFactory, CustomerFactory

pytestmark = pytest.mark.django_db


def test_customer_external_id_is_unique_and_not_empty() -> None:
    CustomerFactory.create(external_id="ada")

    assert_rejected(lambda: Customer.objects.create(external_id="ada"), "external_id")
    assert_rejected(lambda: Customer.objects.create(external_id=""), "customer_external_id_not_empty")


def test_customer_locale_must_be_zh_or_en() -> None:
    assert_rejected(lambda: CustomerFactory.create(locale="fr"), "customer_locale_valid")


def test_conversation_rejects_unknown_status_and_negative_counters() -> None:
    customer = CustomerFactory.create()

    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, status="snoozed"), "conversation_status_valid"
    )
    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, failed_attempts=-1), "conversation_failed_attempts_gte_0"
    )
    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, turn_count=-3), "conversation_turn_count_gte_0"
    )
    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, resolution="bored"), "conversation_resolution_valid"
    )


def test_conversation_channel_and_language_must_be_known() -> None:
    customer = CustomerFactory.create()

    assert_rejected(lambda: Conversation.objects.create(customer=customer, channel="fax"), "conversation_channel_valid")
    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, language="de"), "conversation_language_valid"
    )


def test_human_owned_conversation_needs_staff_and_closed_one_a_close_time() -> None:
    customer = CustomerFactory.create()
    staff = User.objects.create_user("bob", is_staff=True)

    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, status="human"), "conversation_human_has_staff"
    )
    assert_rejected(
        lambda: Conversation.objects.create(customer=customer, status="closed"), "conversation_closed_has_closed_at"
    )
    assert Conversation.objects.create(customer=customer, status="human", assigned_staff=staff).pk


def test_message_sender_must_be_known_and_agent_messages_need_an_author() -> None:
    conversation = ConversationFactory.create()

    assert_rejected(
        lambda: Message.objects.create(conversation=conversation, sender="robot", text="hi"), "message_sender_valid"
    )
    assert_rejected(
        lambda: Message.objects.create(conversation=conversation, sender="agent", text="hi"), "message_agent_has_author"
    )


def test_message_client_id_is_unique_per_conversation_only_when_set() -> None:
    conversation = ConversationFactory.create()
    Message.objects.create(conversation=conversation, sender="customer", text="hi", client_id="c-1")
    Message.objects.create(conversation=conversation, sender="customer", text="one")
    Message.objects.create(conversation=conversation, sender="customer", text="two")
    Message.objects.create(conversation=ConversationFactory.create(), sender="customer", text="hi", client_id="c-1")

    assert_rejected(
        lambda: Message.objects.create(conversation=conversation, sender="customer", text="hi", client_id="c-1"),
        "message_client_id_unique_per_conversation",
    )


def test_intent_record_confidence_and_emotion_are_within_0_and_1() -> None:
    conversation = ConversationFactory.create()

    assert_rejected(
        lambda: IntentRecord.objects.create(conversation=conversation, name="faq", confidence=1.2, level="rule"),
        "intent_confidence_in_0_1",
    )
    assert_rejected(
        lambda: IntentRecord.objects.create(
            conversation=conversation, name="faq", confidence=0.9, level="rule", emotion_score=-0.1
        ),
        "intent_emotion_in_0_1",
    )
    assert_rejected(
        lambda: IntentRecord.objects.create(conversation=conversation, name="faq", confidence=0.9, level="guess"),
        "intent_level_valid",
    )


def test_only_one_active_workflow_per_conversation() -> None:
    conversation = ConversationFactory.create()
    expires = timezone.now() + timedelta(minutes=10)
    WorkflowState.objects.create(conversation=conversation, kind="return", expires_at=expires)
    WorkflowState.objects.create(conversation=conversation, kind="invoice", expires_at=expires, status="cancelled")

    assert_rejected(
        lambda: WorkflowState.objects.create(conversation=conversation, kind="repair", expires_at=expires),
        "workflow_one_active_per_conversation",
    )
    assert_rejected(
        lambda: WorkflowState.objects.create(
            conversation=conversation, kind="teleport", expires_at=expires, status="completed"
        ),
        "workflow_kind_valid",
    )
    assert_rejected(
        lambda: WorkflowState.objects.create(
            conversation=conversation, kind="repair", expires_at=expires, status="paused"
        ),
        "workflow_status_valid",
    )


def test_who_closed_a_chat_is_known_and_a_closing_is_rated_once_from_1_to_5() -> None:
    from conversations.models import Rating

    conversation = ConversationFactory.create()
    closed_at = timezone.now()

    assert_rejected(
        lambda: Conversation.objects.filter(pk=conversation.pk).update(closed_by="robot"),
        "conversation_closed_by_valid",
    )
    assert_rejected(
        lambda: Rating.objects.create(conversation=conversation, closed_at=closed_at, score=6), "rating_score_1_to_5"
    )
    assert_rejected(
        lambda: Rating.objects.create(conversation=conversation, closed_at=closed_at, score=0), "rating_score_1_to_5"
    )
    Rating.objects.create(conversation=conversation, closed_at=closed_at, score=5)
    assert_rejected(
        lambda: Rating.objects.create(conversation=conversation, closed_at=closed_at, score=4),
        "rating_once_per_closing",
    )
    Rating.objects.create(conversation=conversation, closed_at=closed_at + timedelta(days=1), score=4)  # closed again
