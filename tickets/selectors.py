"""What the live console shows: the queue of chats waiting for a person, and one chat in full."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import Prefetch, Q, QuerySet

from conversations.models import Conversation, ConversationStatus, Message
from conversations.realtime import staff_display_name
from tickets.cards import CardView, card_view
from tickets.models import CannedResponse, EscalationCard

STAFF_PERMISSION = "conversations.take_over_conversation"


def console_allowed(user: User | AnonymousUser) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(STAFF_PERMISSION))


def _with_latest_card(conversations: QuerySet[Conversation]) -> QuerySet[Conversation]:
    return conversations.select_related("customer", "assigned_staff").prefetch_related(
        Prefetch("escalation_cards", queryset=EscalationCard.objects.order_by("-created_at"), to_attr="cards")
    )


def _latest_card(conversation: Conversation) -> CardView | None:
    cards = conversation.cards  # type: ignore[attr-defined]
    return card_view(cards[0]) if cards else None


@dataclass(frozen=True)
class Waiting:
    conversation: Conversation
    card: CardView | None


@dataclass(frozen=True)
class ConsoleQueue:
    waiting: list[Waiting]  # escalated, nobody took them yet: oldest first
    mine: list[Conversation]
    others: list[Conversation]  # owned by colleagues


def console_queue(*, staff: AbstractBaseUser) -> ConsoleQueue:
    live = _with_latest_card(
        Conversation.objects.filter(Q(status=ConversationStatus.WAITING_HUMAN) | Q(status=ConversationStatus.HUMAN))
    ).order_by("updated_at")
    rows = list(live)
    return ConsoleQueue(
        waiting=[Waiting(c, _latest_card(c)) for c in rows if c.status == ConversationStatus.WAITING_HUMAN],
        mine=[c for c in rows if c.status == ConversationStatus.HUMAN and c.assigned_staff_id == staff.pk],
        others=[c for c in rows if c.status == ConversationStatus.HUMAN and c.assigned_staff_id != staff.pk],
    )


@dataclass(frozen=True)
class ConsoleChat:
    conversation: Conversation
    card: CardView | None
    messages: list[Message]
    canned: list[tuple[str, str]]  # (title, text with the staff member's name filled in)
    owner_name: str | None


def console_chat(*, conversation_id: int, staff: AbstractBaseUser) -> ConsoleChat | None:
    conversation = _with_latest_card(Conversation.objects.filter(pk=conversation_id)).first()
    if conversation is None:
        return None
    messages = list(conversation.messages.select_related("author").order_by("created_at", "pk"))
    name = staff_display_name(staff)
    canned = [
        (response.title, response.text.replace("{agent}", name))
        for response in CannedResponse.objects.filter(active=True, language=conversation.language)
    ]
    owner = staff_display_name(conversation.assigned_staff) if conversation.assigned_staff else None
    return ConsoleChat(
        conversation=conversation,
        card=_latest_card(conversation),
        messages=messages,
        canned=canned,
        owner_name=owner,
    )


def ticket_json(ticket: Any) -> dict[str, Any]:
    """A ticket as the API shows it."""
    return {
        "id": ticket.pk,
        "reference": ticket.reference,
        "kind": ticket.kind,
        "status": ticket.status,
        "priority": ticket.priority,
        "subject": ticket.subject,
        "customer": ticket.customer.external_id if ticket.customer_id else None,
        "conversation_id": ticket.conversation_id,
        "order_ref": ticket.order_ref or None,
        "payload": ticket.payload,
        "assignee": ticket.assignee.get_username() if ticket.assignee_id else None,
        "sla_due_at": ticket.sla_due_at.isoformat() if ticket.sla_due_at else None,
        "created_at": ticket.created_at.isoformat(),
        "updated_at": ticket.updated_at.isoformat(),
        "resolved_at": ticket.resolved_at.isoformat() if ticket.resolved_at else None,
    }
