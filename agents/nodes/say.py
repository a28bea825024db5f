"""How a turn's reply reaches the customer: stored with the turn's transition, streamed, announced."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from django.db import transaction

from agents import dialog
from agents.grounding import ungrounded
from agents.models import TurnRun
from agents.safety import BLOCK, safety_check
from agents.services import turn_move
from agents.states import TurnStatus
from agents.verification import verified_customer_now
from conversations.language import say
from conversations.realtime import (
    send_conversation_event_now,
    send_conversation_event_on_commit,
    send_conversation_events_on_commit,
)
from conversations.selectors import conversation_is_human
from conversations.services import bot_message_writes, message_announce
from conversations.writes import written

TAKEOVER_CHECK_S = 0.25
# Where a streamed sentence ends: a full stop, ! or ? before a space (not the point of "3.5"), or a Chinese one.
SENTENCE_END = re.compile(r"[.!?](?=\s)\s*|[。！？\n]\s*")


def reply_send(
    turn: TurnRun,
    reply: dialog.Reply,
    *,
    from_: str,
    to: str,
    reason: str,
    conversation_changes: dict[str, Any] | None = None,
    announce: bool = True,
    **fields: Any,
) -> str | None:
    """The one way a bot reply is said (inside atomic()): write the message under the conversation's lock,
    stream it, move the turn to `to` with it and announce it once committed.

    Returns the status the turn moved to: `to`, or SKIPPED when a human has the chat (nothing is said); None
    when another run of this step moved the turn first (what this one wrote is rolled back).
    `conversation_changes` are written to the conversation with the message. `announce=False` leaves the
    reply.done to the caller (reply_announce), whose own events of the turn must reach the customer first."""
    message, message_writes = bot_message_writes(
        conversation_id=turn.conversation_id,
        text=reply.text,
        sources=reply.sources,
        metadata={"turn_id": turn.pk, "awaiting": reply.awaiting, "quick_replies": reply.quick_replies},
        conversation_changes=conversation_changes,
    )
    # The message, the conversation's changes and the turn's move: one statement, the move only if the
    # message was written.
    moved = turn_move(
        turn,
        from_=from_,
        to=to,
        reason=reason,
        reply=reply.as_json(),
        reply_message_id=written("message"),
        along=message_writes,
        only_if="message",
        **fields,
    )
    if message.pk is None:
        skipped = turn_move(turn, from_=from_, to=TurnStatus.SKIPPED, reason="a human took over")
        return TurnStatus.SKIPPED if skipped else None
    if not moved:
        transaction.set_rollback(True)  # lost the race: the message above must not stay
        return None
    turn.reply_message = message
    # Its pieces go out with the message and its end, in one publish once committed: a reply made whole
    # gains nothing from reaching the customer a few milliseconds before its commit.
    send_conversation_events_on_commit(turn.conversation_id, reply_deltas(turn, reply))
    message_announce(message)
    if announce:
        reply_announce(turn, reply)
    return to


def reply_announce(turn: TurnRun, reply: dialog.Reply) -> None:
    """The turn's reply.done, sent once its transaction commits."""
    send_conversation_event_on_commit(turn.conversation_id, reply_done(turn.pk, turn.reply_message_id, reply))


def send_reply(
    turn: TurnRun, reply: dialog.Reply, *, from_: str, route: str, failed_attempts: int, **fields: Any
) -> bool:
    """Answer and end the turn (inside atomic()); False if another run of this step ended it first."""
    changes = {"failed_attempts": failed_attempts}
    moved = reply_send(
        turn, reply, from_=from_, to=TurnStatus.DONE, reason=route, conversation_changes=changes, route=route, **fields
    )
    return moved is not None


def delta_sender(turn: TurnRun, *, evidence: str, internal_notes: list[str]) -> Callable[[str], None]:
    """Send the LLM's reply.delta events a sentence at a time, each once the safety gate passed it (masked
    where it must be) and its figures are the `evidence`'s, while no human has the chat: the takeover is read
    before the first send and then at most every TAKEOVER_CHECK_S. After a takeover, a blocked sentence or one
    with a figure of its own nothing more is sent (the reply itself is then not stored: reply_send, or the
    gate's escalation, or revised). The whole reply, gated again, comes with reply.done and replaces what was
    streamed."""
    checked_at = -TAKEOVER_CHECK_S
    silent = False
    pending = ""

    def send(delta: str) -> None:
        nonlocal checked_at, silent, pending
        pending += delta
        ends = [m.end() for m in SENTENCE_END.finditer(pending)]
        if silent or not ends:
            return
        ready, pending = pending[: ends[-1]], pending[ends[-1] :]
        verdict = safety_check(
            ready,
            language=turn.language,
            customer=lambda: verified_customer_now(turn.conversation_id),
            internal_notes=internal_notes,
            customer_text=turn.message.text,
            disclaimers=False,
        )
        now = time.monotonic()
        if now - checked_at >= TAKEOVER_CHECK_S:
            checked_at = now
            silent = conversation_is_human(turn.conversation_id)
        silent = silent or verdict.decision == BLOCK or bool(ungrounded(ready, evidence))
        if not silent:
            send_conversation_event_now(
                turn.conversation_id, {"type": "reply.delta", "turn_id": turn.pk, "delta": verdict.text}
            )

    return send


def reply_deltas(turn: TurnRun, reply: dialog.Reply) -> list[dict[str, Any]]:
    """The reply.delta events of a reply the LLM did not stream (none for one it did). Sent once the bot
    message is written under the conversation lock, so nothing streams into a chat a human has taken."""
    if reply.streamed:
        return []
    return [{"type": "reply.delta", "turn_id": turn.pk, "delta": piece} for piece in dialog.reply_pieces(reply.text)]


def reply_done(turn_id: int, message_id: int | None, reply: dialog.Reply) -> dict[str, Any]:
    return {"type": "reply.done", "turn_id": turn_id, "message_id": message_id, **reply.as_json()}


def apology(language: str) -> str:
    return say(
        language,
        'Sorry, something went wrong on our side and I couldn\'t handle that. Please try again, or say "human" '
        "to reach a person.",
    )
