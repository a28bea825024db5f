"""Waiting for a turn's end without polling: the end, once committed, is pushed to a Redis list
(`turn_ended_announce`), and a request waiting for the reply blocks on it (`turn_wait`). The list outlives a
pop (it is pushed back), so a waiter that arrives late, or a second one for the same turn, is not left waiting.
"""

from __future__ import annotations

import logging
import time

from django.db import connection
from django_redis import get_redis_connection
from redis.exceptions import RedisError

from agents.models import TurnRun
from agents.states import TERMINAL
from conversations.prepared import PreparedRead

logger = logging.getLogger(__name__)

ENDED_TTL_S = 120  # longer than any wait for a reply (API_REPLY_TIMEOUT_S)
BLOCK_SLICE_S = 1.0


def turn_ended_announce(turn_id: int) -> None:
    """Wake the requests waiting for this turn's reply (run after the commit that ended it). With Redis out,
    a request already waiting sleeps until its timeout, when it reads the turn anyway."""
    try:
        _ended_mark(turn_id)
    except RedisError:
        logger.warning("turn %s ended unannounced (Redis unavailable)", turn_id)


def turn_wait(*, turn: TurnRun, timeout: float) -> TurnRun | None:
    """The turn, read again with its conversation once it has finished, or None if it is still running after
    `timeout` seconds. `turn`: the caller's row (a turn that ends meanwhile has left its mark in Redis, so it
    is not read before the wait). With Redis out it does not wait: the turn is answered once the queue is back,
    and the caller says so (202)."""
    turn_id = turn.pk
    if turn.status in TERMINAL:
        return _turn_with_conversation(turn_id)
    if not connection.in_atomic_block:
        connection.close()  # back to the pool while this request waits, not held for the whole wait
    deadline = time.monotonic() + timeout
    try:
        redis = get_redis_connection("default")
        # In slices shorter than the cache's socket timeout (SOCKET_TIMEOUT, 2 s): one blocking pop for the whole
        # wait was cut by it, and a reply slower than 2 s was answered 202 instead of waited for.
        while (left := deadline - time.monotonic()) > 0:
            if redis.blpop([_ended_key(turn_id)], timeout=min(left, BLOCK_SLICE_S)) is not None:
                _ended_mark(turn_id)  # for whoever else waits
                break
    except RedisError:
        pass  # no waiting without Redis (nor any progress: the queue is there too); the turn is as it is
    turn = _turn_with_conversation(turn_id)
    return turn if turn.status in TERMINAL else None


def _ended_key(turn_id: int) -> str:
    return f"cs:turn-ended:{turn_id}"


def _ended_mark(turn_id: int) -> None:
    with get_redis_connection("default").pipeline() as pipe:
        pipe.rpush(_ended_key(turn_id), 1).expire(_ended_key(turn_id), ENDED_TTL_S).execute()


def _turn_with_conversation(turn_id: int) -> TurnRun:
    return _TURN_WITH_CONVERSATION.one(turn_id=turn_id)


# Compiled once: a request waiting for its reply reads it.
_TURN_WITH_CONVERSATION = PreparedRead(
    lambda turn_id: TurnRun.objects.select_related("conversation").filter(pk=turn_id)
)
