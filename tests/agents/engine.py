"""Run turns in the test process, step by step, exactly as the worker would (no queue)."""

from __future__ import annotations

from agents.models import Subtask, TurnRun
from agents.pipeline import turn_advance
from agents.services import customer_message_handle
from agents.states import SubtaskStatus
from agents.subtasks import subtask_execute
from conversations.models import Conversation


def run_turn(conversation: Conversation, text: str, *, client_id: str = "") -> TurnRun:
    """Handle a customer message and drive its turn to the end: route, subtasks, reply."""
    turn = customer_message_handle(conversation_id=conversation.pk, text=text, client_id=client_id)
    turn_advance(turn.pk)
    for subtask_id in Subtask.objects.filter(turn=turn, status=SubtaskStatus.PENDING).values_list("pk", flat=True):
        subtask_execute(subtask_id=subtask_id)
    turn_advance(turn.pk)
    conversation.refresh_from_db()
    return TurnRun.objects.get(pk=turn.pk)
