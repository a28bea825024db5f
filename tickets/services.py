"""The one home of ticket state changes: every change writes a TicketEvent."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from conversations.models import Conversation, Customer
from conversations.services import ConversationStateError
from tickets.models import EscalationCard, Ticket, TicketEvent, TicketEventKind, TicketKind, TicketPriority
from tickets.selectors import console_allowed, ticket_json
from tickets.states import TicketStatus, transition_allowed
from webhooks.models import WebhookEventType
from webhooks.services import webhook_event_emit

# Time to first response by priority; a complaint or callback starts at high priority.
SLA_BY_PRIORITY = {
    TicketPriority.URGENT: timedelta(hours=1),
    TicketPriority.HIGH: timedelta(hours=4),
    TicketPriority.NORMAL: timedelta(hours=24),
    TicketPriority.LOW: timedelta(hours=72),
}


class TicketTransitionError(Exception):
    """The move is not in ALLOWED_TRANSITIONS."""

    def __init__(self, from_: str, to: str) -> None:
        super().__init__(f"a ticket cannot go from {from_} to {to}")
        self.from_ = from_
        self.to = to


def ticket_create(
    *,
    kind: TicketKind | str,
    subject: str,
    customer: Customer | None = None,
    conversation: Conversation | None = None,
    conversation_id: int | None = None,
    order_ref: str = "",
    payload: dict[str, Any] | None = None,
    priority: TicketPriority | str = TicketPriority.NORMAL,
    actor: AbstractBaseUser | None = None,
    source_key: str | None = None,
) -> Ticket:
    """Open a ticket. With `source_key`, a second call with the same key returns the first ticket."""
    now = timezone.now()
    if source_key is not None:
        existing = Ticket.objects.filter(source_key=source_key).first()
        if existing is not None:
            return existing
    with transaction.atomic():
        ticket = Ticket.objects.create(
            source_key=source_key,
            kind=kind,
            subject=subject[:200],
            customer=customer,
            conversation_id=conversation.pk if conversation is not None else conversation_id,
            order_ref=order_ref,
            payload=payload or {},
            priority=priority,
            sla_due_at=now + SLA_BY_PRIORITY[TicketPriority(priority)],
        )
        TicketEvent.objects.create(
            ticket=ticket,
            kind=TicketEventKind.CREATED,
            to_status=ticket.status,
            actor=actor,  # type: ignore[misc]
        )
        webhook_event_emit(WebhookEventType.TICKET_CREATED, {"ticket": ticket_json(ticket)})
    return ticket


def ticket_transition(
    *,
    ticket_id: int,
    from_: TicketStatus | str,
    to: TicketStatus | str,
    actor: AbstractBaseUser | None = None,
    note: str = "",
) -> bool:
    """Move a ticket from `from_` to `to`; False if it was no longer in `from_` (lost a race).

    Raises TicketTransitionError for a move the table forbids. Compare-and-set: two concurrent
    calls with the same `from_` produce one change and one TicketEvent.
    """
    if not transition_allowed(from_, to):
        raise TicketTransitionError(str(from_), str(to))
    now = timezone.now()
    changes: dict[str, Any] = {"status": to, "updated_at": now}
    if to == TicketStatus.RESOLVED:
        changes["resolved_at"] = now
    elif to in (TicketStatus.IN_PROGRESS, TicketStatus.OPEN):
        changes["resolved_at"] = None
    with transaction.atomic():
        num_updated = Ticket.objects.filter(id=ticket_id, status=from_).update(**changes)
        if num_updated != 1:
            return False
        TicketEvent.objects.create(
            ticket_id=ticket_id,
            kind=TicketEventKind.STATUS_CHANGED,
            from_status=str(from_),
            to_status=str(to),
            actor=actor,  # type: ignore[misc]
            note=note,
        )
        _ticket_updated(ticket_id, status=[str(from_), str(to)])
    return True


def _ticket_updated(ticket_id: int, **changes: Any) -> None:
    """ticket.updated with the ticket as it is now and what changed ({field: [before, after]})."""
    ticket = Ticket.objects.select_related("customer", "assignee").get(pk=ticket_id)
    webhook_event_emit(WebhookEventType.TICKET_UPDATED, {"ticket": ticket_json(ticket), "changes": changes})


def escalation_card_create(
    *,
    conversation: Conversation,
    reason: str,
    summary: str,
    intents: list[dict[str, Any]],
    emotion_trajectory: list[float],
    slots: dict[str, Any],
    order_ids: list[str],
    last_messages: list[dict[str, Any]],
    suggested_reply: str,
    ticket: Ticket | None = None,
) -> EscalationCard:
    card = EscalationCard.objects.create(
        conversation=conversation,
        ticket=ticket,
        reason=reason,
        summary=summary,
        intents=intents,
        emotion_trajectory=emotion_trajectory,
        slots=slots,
        order_ids=order_ids,
        last_messages=last_messages,
        suggested_reply=suggested_reply,
    )
    webhook_event_emit(
        WebhookEventType.CONVERSATION_ESCALATED,
        {
            "conversation_id": conversation.pk,
            "card_id": card.pk,
            "reason": reason,
            "summary": summary,
            "ticket_id": ticket.pk if ticket else None,
        },
    )
    return card


def escalation_take_over(*, conversation_id: int, staff: AbstractBaseUser) -> Conversation:
    """Take the chat over from the console and mark its open escalation cards accepted by this person."""
    from conversations.services import conversation_take_over

    with transaction.atomic():
        conversation = conversation_take_over(conversation_id=conversation_id, staff=staff)
        EscalationCard.objects.filter(conversation_id=conversation_id, accepted_by__isnull=True).update(
            accepted_by=staff, accepted_at=timezone.now()
        )
    return conversation


def escalation_transfer(*, conversation_id: int, staff: AbstractBaseUser, to_id: int) -> Conversation:
    """Give the chat to a colleague who may use the console; its open escalation cards are theirs."""
    from conversations.services import conversation_transfer

    colleague = User.objects.filter(pk=to_id, is_active=True).first()
    if colleague is None or not console_allowed(colleague):
        raise ConversationStateError(_("Choose a colleague who can take chats."))
    with transaction.atomic():
        conversation = conversation_transfer(conversation_id=conversation_id, staff=staff, to=colleague)
        EscalationCard.objects.filter(conversation_id=conversation_id, accepted_by__isnull=True).update(
            accepted_by=colleague, accepted_at=timezone.now()
        )
    return conversation


def ticket_assign(*, ticket_id: int, assignee: AbstractBaseUser | None, note: str = "") -> Ticket:
    """Give the ticket to a staff member (None: unassign), with an ASSIGNED event."""
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update(of=("self",)).select_related("assignee").get(pk=ticket_id)
        if ticket.assignee_id == (assignee.pk if assignee else None):
            return ticket
        before = ticket.assignee.get_username() if ticket.assignee else None
        Ticket.objects.filter(pk=ticket.pk).update(assignee=assignee, updated_at=timezone.now())
        TicketEvent.objects.create(
            ticket=ticket,
            kind=TicketEventKind.ASSIGNED,
            note=note or (f"assigned to {assignee.get_username()}" if assignee else "unassigned"),
        )
        ticket.assignee = assignee  # type: ignore[assignment]
        _ticket_updated(ticket.pk, assignee=[before, assignee.get_username() if assignee else None])
    return ticket
