"""The escalate node: a person takes over (an escalation card, a callback ticket when nobody is online),
and the callback contact collected while the customer waits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction

from agents import dialog
from agents.escalation import escalated_event, escalation_card_data
from agents.models import RouteDecision, TurnRun
from agents.nodes.say import reply_announce, reply_send, send_reply
from agents.pii import mask_pii
from agents.services import turn_move
from agents.specialists.emotion import soothing_line
from agents.specialists.human import callback_confirmed_line, handoff_line, nobody_online_line
from agents.states import TurnStatus
from conversations.models import (
    Conversation,
    ConversationStatus,
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.realtime import send_staff_event_on_commit
from conversations.services import (
    conversation_lock,
    conversation_wait_for_human,
    workflow_open,
    workflow_save,
    workflows_end,
)
from tickets.models import EscalationReason, Ticket, TicketKind, TicketPriority
from tickets.presence import staff_online_count
from tickets.services import escalation_card_create, ticket_create

# A contact request stays open for a day: the customer may come back to the tab much later.
CALLBACK_TIMEOUT = timedelta(days=1)


def escalate(turn: TurnRun, *, from_: str, reason: str, **fields: Any) -> bool:
    with transaction.atomic():
        conversation = conversation_lock(turn.conversation_id)
        return escalate_locked(turn, conversation, from_=from_, reason=reason, **fields)


def escalate_locked(turn: TurnRun, conversation: Conversation, *, from_: str, reason: str, **fields: Any) -> bool:
    """Card, queue, customer-facing line, and a callback when nobody is online (inside atomic()); `fields` are
    written to the turn with its move."""
    if conversation.status == ConversationStatus.HUMAN:
        return turn_move(turn, from_=from_, to=TurnStatus.SKIPPED, reason="a human owns the chat")
    language = turn.language
    lines = [soothing_line(language, turn.emotion_score or 0.5)] if reason == EscalationReason.EMOTION else []
    awaiting = None
    callback_ticket = None
    staff_online = staff_online_count() > 0
    if staff_online:
        lines.append(handoff_line(language))
    else:
        customer = conversation.customer
        contact = customer.email or customer.phone
        if contact:
            callback_ticket = _callback_ticket(conversation, contact=contact, source_key=f"turn:{turn.pk}:callback")
            lines.append(callback_confirmed_line(language, mask_pii(contact), callback_ticket.reference))
        else:
            lines.append(nobody_online_line(language))
            awaiting = {"slot": "contact", "prompt": lines[-1], "choices": []}
    data = escalation_card_data(turn=turn, conversation=conversation, customer=conversation.customer, reason=reason)
    reply = dialog.Reply(text="\n\n".join(lines), awaiting=awaiting)
    moved = reply_send(
        turn,
        reply,
        from_=from_,
        to=TurnStatus.ESCALATED,
        reason=reason,
        route=RouteDecision.ESCALATE,
        escalation_reason=reason,
        announce=False,  # the status change reaches the customer before the reply is done
        **fields,
    )
    if moved != TurnStatus.ESCALATED:
        return moved is not None
    card = escalation_card_create(conversation=conversation, ticket=callback_ticket, **data)
    conversation_wait_for_human(conversation=conversation, staff_online=staff_online)
    if awaiting is not None:
        workflows_end(conversation_id=conversation.pk, status=WorkflowStatus.ACTIVE, to=WorkflowStatus.CANCELLED)
        workflow_open(
            conversation_id=conversation.pk,
            kind=WorkflowKind.CALLBACK,
            step="contact",
            slots={"card_id": card.pk},
            expires_at=turn.created_at + CALLBACK_TIMEOUT,
        )
    send_staff_event_on_commit(escalated_event(card))
    reply_announce(turn, reply)
    return True


def _callback_ticket(conversation: Conversation, *, contact: str, source_key: str) -> Ticket:
    return ticket_create(
        kind=TicketKind.CALLBACK,
        subject=f"Call back {conversation.customer.display_name}",
        customer=conversation.customer,
        conversation=conversation,
        payload={"contact": contact},
        priority=TicketPriority.HIGH,
        source_key=source_key,
    )


def callback_collect(turn: TurnRun) -> bool:
    """Waiting for a human with nobody online: take the email or phone the customer leaves."""
    entities = turn.entities
    contact = entities.get("email") or entities.get("phone")
    language = turn.language
    with transaction.atomic():
        conversation = conversation_lock(turn.conversation_id)
        workflow = WorkflowState.objects.filter(
            conversation_id=conversation.pk, kind=WorkflowKind.CALLBACK, status=WorkflowStatus.ACTIVE
        ).first()
        if workflow is None:
            return turn_move(turn, from_=TurnStatus.RECOGNIZED, to=TurnStatus.SKIPPED, reason="waiting for a human")
        if not contact:
            prompt = nobody_online_line(language)
            reply = dialog.Reply(text=prompt, awaiting={"slot": "contact", "prompt": prompt, "choices": []})
        else:
            ticket = _callback_ticket(conversation, contact=contact, source_key=f"workflow:{workflow.pk}:callback")
            workflow_save(
                workflow.pk,
                status=WorkflowStatus.COMPLETED,
                slots={**workflow.slots, "contact": contact, "ticket_id": ticket.pk},
            )
            reply = dialog.Reply(text=callback_confirmed_line(language, mask_pii(contact), ticket.reference))
        return send_reply(
            turn,
            reply,
            from_=TurnStatus.RECOGNIZED,
            route=RouteDecision.CALLBACK,
            failed_attempts=conversation.failed_attempts,
        )
