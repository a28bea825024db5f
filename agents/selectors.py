"""Read-side helpers of the engine: turn results and conversations as the public API shows them."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import Exists, OuterRef, Subquery
from django.db.models.functions import Now

from agents.models import TurnRun
from agents.states import TERMINAL, TurnStatus
from conversations.models import WorkflowKind, WorkflowState, WorkflowStatus
from conversations.prepared import PreparedRead

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# An earlier turn unfinished for longer than this was abandoned (the sweep gives up on it after an hour
# too); the turns after it go on without it.
EARLIER_TURN_PATIENCE = timedelta(minutes=10)


class _TurnContext(TypedDict):
    earlier_unfinished: bool
    previous_route: str | None
    workflow_open: bool


def turn_to_advance(turn_id: int) -> WithAnnotations[TurnRun, _TurnContext]:
    """The turn with all a step reads (message, conversation, customer), `earlier_unfinished`: whether an
    earlier message of the same conversation is still being answered, `previous_route`: how the
    conversation's turn before it was routed (a clarifying question is answered by this one), and
    `workflow_open`: whether a workflow is active (none can start but by this conversation's turns, which
    run one at a time, so without one the recognize step need not look). One query.

    A conversation's turns run one at a time, in message order: each reads and moves the state the
    one before left (a workflow, its slots), and its reply is stored after the earlier reply."""
    return _TURN_TO_ADVANCE.one(turn_id=turn_id)  # type: ignore[return-value]


# Compiled once (every turn reads it, and compiling it cost more than running it); the patience is counted
# from the database's clock.
_TURN_TO_ADVANCE = PreparedRead(
    lambda turn_id: (
        TurnRun.objects.select_related("message", "conversation__customer")
        .filter(pk=turn_id)
        .annotate(
            earlier_unfinished=Exists(
                TurnRun.objects.filter(conversation_id=OuterRef("conversation_id"), pk__lt=OuterRef("pk"))
                .exclude(status__in=TERMINAL)
                .filter(created_at__gt=Now() - EARLIER_TURN_PATIENCE)
            ),
            previous_route=Subquery(
                TurnRun.objects.filter(conversation_id=OuterRef("conversation_id"), pk__lt=OuterRef("pk"))
                .order_by("-pk")
                .values("route")[:1]
            ),
            workflow_open=Exists(
                WorkflowState.objects.filter(
                    conversation_id=OuterRef("conversation_id"), status=WorkflowStatus.ACTIVE
                ).exclude(kind=WorkflowKind.CALLBACK)
            ),
        )
    )
)


def turn_next_waiting(turn_id: int) -> int | None:
    """The conversation's next turn still waiting to start after this one, if any."""
    found = _NEXT_WAITING.rows(turn_id=turn_id)
    return found[0][0] if found else None


_NEXT_WAITING = PreparedRead(
    lambda turn_id: (
        TurnRun.objects.filter(
            conversation_id=Subquery(TurnRun.objects.filter(pk=turn_id).values("conversation_id")),
            pk__gt=turn_id,
            status=TurnStatus.RECEIVED,
        )
        .order_by("pk")
        .values_list("pk")[:1]
    )
)


def turn_json(turn: TurnRun) -> dict[str, Any]:
    """The body of POST …/messages and GET …/turns/{id} (ARCHITECTURE §9)."""
    reply = turn.reply or {}
    card = turn.conversation.escalation_cards.order_by("-id").first() if turn.status == "escalated" else None
    return {
        "turn_id": turn.pk,
        "reply": {
            "text": reply.get("text", ""),
            "sources": reply.get("sources", []),
            "awaiting": reply.get("awaiting"),
            "quick_replies": reply.get("quick_replies", []),
        },
        "status": turn.conversation.status,
        "turn_status": turn.status,
        "intents": [{"name": i["name"], "confidence": i["confidence"]} for i in turn.intents],
        "escalation": {"reason": card.reason, "card_id": card.pk} if card else None,
    }
