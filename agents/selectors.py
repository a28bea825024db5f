"""Read-side helpers of the engine: turn results and conversations as the public API shows them."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from django.utils import timezone

from agents.models import TurnRun
from agents.states import TERMINAL, TurnStatus

POLL_S = 0.02


# An earlier turn unfinished for longer than this was abandoned (the sweep gives up on it after an hour
# too); the turns after it go on without it.
EARLIER_TURN_PATIENCE = timedelta(minutes=10)


def turn_earlier_unfinished(turn: TurnRun) -> bool:
    """Whether an earlier message of the same conversation is still being answered.

    A conversation's turns run one at a time, in message order: each reads and moves the state the
    one before left (a workflow, its slots), and its reply is stored after the earlier reply."""
    return (
        TurnRun.objects.filter(conversation_id=turn.conversation_id, pk__lt=turn.pk)
        .exclude(status__in=TERMINAL)
        .filter(created_at__gt=timezone.now() - EARLIER_TURN_PATIENCE)
        .exists()
    )


def turn_next_waiting(turn_id: int) -> int | None:
    """The conversation's next turn still waiting to start after this one, if any."""
    conversation_id = TurnRun.objects.filter(pk=turn_id).values_list("conversation_id", flat=True).first()
    return (
        TurnRun.objects.filter(conversation_id=conversation_id, pk__gt=turn_id, status=TurnStatus.RECEIVED)
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )


def turn_wait(*, turn_id: int, timeout: float) -> TurnRun | None:
    """The turn once it has finished, or None if it is still running after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        turn = TurnRun.objects.select_related("conversation").get(pk=turn_id)
        if turn.status in TERMINAL:
            return turn
        if time.monotonic() >= deadline:
            return None
        time.sleep(POLL_S)


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
