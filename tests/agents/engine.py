"""Run turns in the test process, step by step, exactly as the worker would (no queue); or lay a turn out
fanned out by hand, for tests that queue its subtasks themselves; and read an event stream."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agents.models import Subtask, TurnRun
from agents.pipeline import turn_run_here
from agents.services import customer_message_handle
from agents.states import TurnStatus
from conversations.models import Conversation, Message


def run_turn(conversation: Conversation, text: str, *, client_id: str = "") -> TurnRun:
    """Handle a customer message and drive its turn to the end: route, subtasks, reply."""
    turn = customer_message_handle(conversation_id=conversation.pk, text=text, client_id=client_id)
    turn_run_here(turn.pk)
    conversation.refresh_from_db()
    return TurnRun.objects.get(pk=turn.pk)


def turn_fanned_out_by_hand(chat: Conversation, specialists: list[str]) -> tuple[TurnRun, list[Subtask]]:
    """A turn waiting for subtasks of these specialists, as the agent node leaves it (inside atomic(): the
    caller queues the subtasks on commit)."""
    message = Message.objects.create(conversation=chat, sender="customer", text="several questions")
    turn = TurnRun.objects.create(
        conversation=chat,
        message=message,
        status=TurnStatus.FANNED_OUT,
        intents=[{"name": "faq", "confidence": 0.9, "text": "several questions"}],
    )
    subtasks = Subtask.objects.bulk_create(
        Subtask(turn=turn, position=i, specialist=name, intent="faq", text=f"q{i}")
        for i, name in enumerate(specialists)
    )
    return turn, subtasks


def sse_events(lines: Iterable[bytes]) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of a text/event-stream body, read as its lines arrive."""
    events: list[tuple[str, dict[str, Any]]] = []
    name = ""
    for raw in lines:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append((name, json.loads(line.removeprefix("data: "))))
    return events
