"""A turn that hit a bug ends in an apology, never in silence."""

from __future__ import annotations

from django.db import transaction

from agents import dialog
from agents.models import TurnRun
from agents.nodes.say import apology, reply_deltas, reply_done
from agents.services import turn_transition
from agents.states import TurnStatus
from conversations.realtime import send_conversation_event_on_commit, send_conversation_events_now
from conversations.services import bot_message_create


def fail(turn: TurnRun, exc: Exception) -> None:
    """End the turn with an apology (flagged for staff) whatever step it was in."""
    status = TurnRun.objects.values_list("status", flat=True).get(pk=turn.pk)
    if status not in (TurnStatus.RECEIVED, TurnStatus.RECOGNIZED, TurnStatus.FANNED_OUT, TurnStatus.MERGING):
        return
    reply = dialog.Reply(text=apology(turn.language))
    with transaction.atomic():
        message = bot_message_create(
            conversation_id=turn.conversation_id, text=reply.text, metadata={"turn_id": turn.pk, "error": True}
        )
        if message is not None:
            send_conversation_events_now(turn.conversation_id, reply_deltas(turn, reply))
        if turn_transition(
            turn_id=turn.pk,
            from_=status,
            to=TurnStatus.FAILED,
            reason=type(exc).__name__,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            reply=reply.as_json(),
            reply_message=message,
        ):
            send_conversation_event_on_commit(
                turn.conversation_id, reply_done(turn.pk, message.pk if message else None, reply)
            )
        else:
            transaction.set_rollback(True)
