"""Read-side helpers of the engine: turn results and conversations as the public API shows them."""

from __future__ import annotations

import time
from typing import Any

from agents.models import TurnRun
from agents.states import TERMINAL

POLL_S = 0.02


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
