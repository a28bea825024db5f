"""POST …/messages?stream=1: one turn's real-time events (ARCHITECTURE §8) as server-sent events.

The stream opens with `accepted` {turn_id} (for polling GET …/turns/{id} should the connection
drop), carries the conversation's events while the turn runs (other turns' deltas left out), and
ends with `turn`, the body the plain POST returns. A turn still running at the timeout ends it
with `pending` {turn_id} instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async

from agents.models import TurnRun
from agents.selectors import turn_json
from agents.states import TERMINAL
from conversations.realtime import ConversationListener

IDLE_CHECK_S = 1.0  # without events for this long, the turn's row is read: it may have ended unheard
KEEP_ALIVE_S = 10.0  # a comment line, so proxies do not close a quiet stream


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _turn(turn_id: int) -> TurnRun:
    return TurnRun.objects.select_related("conversation").get(pk=turn_id)


def _finished(turn_id: int) -> TurnRun | None:
    turn = _turn(turn_id)
    return turn if turn.status in TERMINAL else None


def _ending(turn: TurnRun) -> list[tuple[str, dict[str, Any]]]:
    """A finished turn's reply.done (rebuilt from its row as the pipeline sent it) and `turn`."""
    events = []
    if turn.reply_message_id:
        done = {"type": "reply.done", "turn_id": turn.pk, "message_id": turn.reply_message_id, **turn.reply}
        events.append(("reply.done", done))
    return [*events, ("turn", turn_json(turn))]


async def turn_events(
    listener: ConversationListener,
    *,
    turn_id: int,
    ended: bool,
    timeout: float,
    absolute: Callable[[dict[str, Any]], dict[str, Any]] = lambda payload: payload,
) -> AsyncIterator[bytes]:
    """The stream of a turn whose conversation `listener` joined before the message was handled;
    `ended`: the turn was over when the POST returned (a retry, or a chat a human owns). `absolute` gives an
    event its citations' full links."""
    try:
        yield sse("accepted", {"turn_id": turn_id})
        deadline = time.monotonic() + timeout
        quiet_since = time.monotonic()
        while (left := deadline - time.monotonic()) > 0:
            event = None if ended else await listener.next(timeout=min(IDLE_CHECK_S, left))
            if event is None:
                # The turn may have ended unheard: without a reply (a person took the chat), or
                # with its reply.done lost on the way.
                if (turn := await sync_to_async(_finished)(turn_id)) is not None:
                    for name, payload in await sync_to_async(_ending)(turn):
                        yield sse(name, absolute(payload))
                    return
                if time.monotonic() - quiet_since >= KEEP_ALIVE_S:
                    yield b": keep-alive\n\n"
                    quiet_since = time.monotonic()
                continue
            if event.get("turn_id", turn_id) != turn_id:
                continue
            yield sse(event["type"], absolute(event))
            if event["type"] == "reply.done":
                turn = await sync_to_async(_turn)(turn_id)
                yield sse("turn", absolute(await sync_to_async(turn_json)(turn)))
                return
            quiet_since = time.monotonic()
        yield sse("pending", {"turn_id": turn_id})
    finally:
        await listener.leave()
