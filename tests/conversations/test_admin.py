"""The admin shows conversations, transcripts and audit rows read-only; state changes only through actions that
call the same services as the console (checked, recorded, announced)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from agents.models import TurnEvent, TurnRun
from conversations.models import (
    Conversation,
    ConversationStatus,
    Customer,
    Message,
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.services import (
    conversation_start,
    conversation_take_over,
    customer_upsert,
    message_create,
    workflow_open,
)
from tickets.models import TicketEvent
from tickets.services import ticket_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(client: Client) -> User:
    user = User.objects.create_superuser("root", "root@example.com", "pw", first_name="Rui")
    client.force_login(user)
    return user


@pytest.fixture
def chat_en() -> Conversation:
    return conversation_start(customer=customer_upsert(external_id="admin-en", locale="en"), language="en")


@pytest.fixture
def chat_zh() -> Conversation:
    return conversation_start(customer=customer_upsert(external_id="admin-zh", locale="zh"), language="zh")


def _act(client: Client, model: str, action: str, *pks: int) -> Any:
    return client.post(
        reverse(f"admin:conversations_{model}_changelist"),
        {"action": action, "_selected_action": list(pks)},
        follow=True,
    )


def test_a_conversation_cannot_be_edited_or_deleted_in_the_admin(
    client: Client, root: User, chat_en: Conversation
) -> None:
    change = reverse("admin:conversations_conversation_change", args=[chat_en.pk])

    page = client.get(change)
    edit = client.post(change, {"status": ConversationStatus.HUMAN, "customer": chat_en.customer_id})
    delete = client.post(reverse("admin:conversations_conversation_delete", args=[chat_en.pk]), {"post": "yes"})

    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert edit.status_code == 403 and delete.status_code == 403
    assert Conversation.objects.get(pk=chat_en.pk).status == ConversationStatus.BOT


def test_transcripts_and_audit_rows_are_records_no_one_edits(client: Client, root: User, chat_en: Conversation) -> None:
    message = message_create(conversation=chat_en, sender="customer", text="where is my parcel")
    turn = TurnRun.objects.create(conversation=chat_en, message=message)
    TurnEvent.objects.create(turn=turn, from_status="received", to_status="recognized")
    ticket_event = TicketEvent.objects.filter(ticket=ticket_create(kind="return", subject="Return")).first()
    assert ticket_event is not None

    for name, pk in [
        ("conversations_message", message.pk),
        ("agents_turnrun", turn.pk),
        ("tickets_ticketevent", ticket_event.pk),
    ]:
        assert client.post(reverse(f"admin:{name}_change", args=[pk]), {"text": "rewritten"}).status_code == 403
        assert client.post(reverse(f"admin:{name}_delete", args=[pk]), {"post": "yes"}).status_code == 403
        assert client.get(reverse(f"admin:{name}_add")).status_code == 403
    assert Message.objects.get(pk=message.pk).text == "where is my parcel"


def test_take_over_and_hand_back_are_actions_that_tell_the_customer_in_their_language(
    client: Client, root: User, chat_en: Conversation, chat_zh: Conversation
) -> None:
    _act(client, "conversation", "take_over", chat_en.pk, chat_zh.pk)

    for chat in (chat_en, chat_zh):
        chat.refresh_from_db()
        assert chat.status == ConversationStatus.HUMAN and chat.assigned_staff_id == root.pk
    lines = dict(Message.objects.filter(sender="system").values_list("conversation_id", "text"))
    assert "Rui joined the conversation" in lines[chat_en.pk] and "客服 Rui 已加入对话" in lines[chat_zh.pk]

    _act(client, "conversation", "hand_back", chat_en.pk)
    chat_en.refresh_from_db()
    assert chat_en.status == ConversationStatus.BOT and chat_en.assigned_staff is None


def test_closing_a_colleagues_chat_is_refused_with_a_reason_and_changes_nothing(
    client: Client, root: User, chat_en: Conversation, chat_zh: Conversation
) -> None:
    colleague = User.objects.create_user("mei", password="pw", is_staff=True, first_name="Mei")
    conversation_take_over(conversation_id=chat_en.pk, staff=colleague)

    page = _act(client, "conversation", "close", chat_en.pk, chat_zh.pk)

    assert "Mei has already taken this conversation over" in page.content.decode()
    assert Conversation.objects.get(pk=chat_en.pk).status == ConversationStatus.HUMAN
    closed = Conversation.objects.get(pk=chat_zh.pk)
    assert closed.status == ConversationStatus.CLOSED and closed.resolution == "other"


def test_a_workflow_is_cancelled_by_its_action_and_a_finished_one_stays_as_it_was(
    client: Client, root: User, chat_en: Conversation
) -> None:
    from django.utils import timezone

    active = workflow_open(
        conversation_id=chat_en.pk, kind=WorkflowKind.RETURN, expires_at=timezone.now(), step="reason"
    )
    done = workflow_open(
        conversation_id=chat_en.pk,
        kind=WorkflowKind.CANCEL_ORDER,
        expires_at=timezone.now(),
        status=WorkflowStatus.COMPLETED,
    )

    _act(client, "workflowstate", "cancel", active.pk, done.pk)

    assert WorkflowState.objects.get(pk=active.pk).status == WorkflowStatus.CANCELLED
    assert WorkflowState.objects.get(pk=done.pk).status == WorkflowStatus.COMPLETED


def test_staff_put_a_customers_contact_details_right_but_not_who_they_are(client: Client, root: User) -> None:
    customer = customer_upsert(external_id="shop-42", locale="zh", name="王芳", email="old@example.com", verified=True)
    change = reverse("admin:conversations_customer_change", args=[customer.pk])

    client.post(
        change,
        {
            "external_id": "someone-else",
            "name": "王芳",
            "first_name": "",
            "last_name": "",
            "email": "fang@example.com",
            "phone": "",
            "locale": "zh",
        },
    )

    customer.refresh_from_db()
    assert customer.email == "fang@example.com" and customer.external_id == "shop-42" and customer.verified


def test_the_one_customer_upsert_keeps_what_an_identity_does_not_name() -> None:
    first = customer_upsert(external_id="u-1", locale="zh", name="李雷", email="li@example.com")
    again = customer_upsert(external_id="u-1", locale="en", name="", email="lei@example.com", verified=True)

    assert again.pk == first.pk and Customer.objects.count() == 1
    assert (again.name, again.email, again.locale, again.verified) == ("李雷", "lei@example.com", "zh", True)
