"""The only caller of the channel layer: events to a conversation's group and to the staff group.

Events that describe rows are sent after the transaction that wrote them commits, so a client
never hears of a message it cannot load. Streamed deltas describe no row and go out at once.

On the layer, one message carries the events a publish has for one group, in order:
`{"type": "conversation.events", "events": [...]}` (a reply's message, deltas and end are one Redis
trip and one wake-up of each listening consumer, not one per event).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from conversations.events import Event
from conversations.models import Message

logger = logging.getLogger(__name__)

STAFF_GROUP = "staff"


def conversation_group(conversation_id: int) -> str:
    return f"conversation.{conversation_id}"


def layer_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    """What goes on the channel layer for `events` to one group (handled by consumers'
    `conversation_events`)."""
    return {"type": "conversation.events", "events": events}


class _Publisher:
    """The pub/sub channel layer's PUBLISH, made from the calling thread with a client of its own.

    The layer itself is asynchronous: from a request's or a task's thread, each publish went into an event loop
    in a thread of its own and back, and that hop cost three times the PUBLISH (0.27 ms of CPU against 0.07).
    What a consumer receives is unchanged: the layer's channel for the group (channels_redis' pub/sub names it
    `<prefix>__group__<group>`) and a message serialized by the layer. One per process (redis-py gives a forked
    child connections of its own), shared by its threads.
    """

    def __init__(self) -> None:
        config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
        self._prefix = config.get("prefix", "asgi")
        self._client = redis.Redis.from_url(
            config["hosts"][0]["address"], socket_connect_timeout=2, socket_timeout=PUBLISH_TIMEOUT_S
        )

    def publish(self, messages: Sequence[tuple[str, bytes]]) -> None:
        """PUBLISH each (group, message), in order and in one round trip (a reply's events go to its conversation
        and to the staff's inbox)."""
        if len(messages) == 1:
            self._client.publish(self._channel(messages[0][0]), messages[0][1])
            return
        with self._client.pipeline(transaction=False) as pipe:
            for group, message in messages:
                pipe.publish(self._channel(group), message)
            pipe.execute()

    def _channel(self, group: str) -> str:
        return f"{self._prefix}__group__{group}"


PUBLISH_TIMEOUT_S = 5


@functools.cache
def _publisher() -> _Publisher:
    return _Publisher()


def _publish(batch: list[tuple[str, dict[str, Any]]]) -> None:
    """Send (group, event) pairs in order: one PUBLISH for each group's events."""
    layer = get_channel_layer()
    if layer is None or not batch:
        return
    # Round-trip through JSON so that a payload that would not survive the wire fails here, loudly.
    # Each group's events in one layer message, the groups in the order they were first named.
    by_group: dict[str, list[dict[str, Any]]] = {}
    for group, event in batch:
        by_group.setdefault(group, []).append(json.loads(json.dumps(event, ensure_ascii=False)))
    try:
        _publisher().publish([(group, layer.serialize(layer_message(events))) for group, events in by_group.items()])
    except Exception:  # noqa: BLE001 - a lost live event must never fail the turn; clients reload history
        logger.exception("could not publish %d event(s)", len(batch))


def _send_on_commit(group: str, event: Event | dict[str, Any]) -> None:
    """Queue an event for when the current transaction commits, batched with the others.

    One on_commit callback per transaction carries every event of that transaction, so a turn
    enters the event loop once instead of once per event. A rolled-back transaction drops its
    callback and with it its batch.
    """
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        # Only a batch opened in this very block (same savepoints): an inner block that rolls
        # back must take its own events with it.
        current = set(connection.savepoint_ids)
        for savepoints, callback, _ in connection.run_on_commit:
            open_batch = getattr(callback, "event_batch", None)
            if open_batch is not None and savepoints == current:
                open_batch.append((group, dict(event)))
                return
    batch: list[tuple[str, dict[str, Any]]] = [(group, dict(event))]

    def flush() -> None:
        _publish(batch)

    flush.event_batch = batch  # type: ignore[attr-defined]
    transaction.on_commit(flush)
    if connection.in_atomic_block:
        _ahead_of_other_work(connection.run_on_commit, set(connection.savepoint_ids))


def _ahead_of_other_work(hooks: list[tuple[set[str], Callable[[], None], bool]], block: set[str]) -> None:
    """Move the batch just registered (the last hook) ahead of the other after-commit work its own block
    registered before it (not ahead of an earlier batch, nor of an enclosing block's work). A customer watching
    the chat waits for the events; the rest can wait one publish: starting the conversation's next turn, waking
    a request waiting for the turn, queueing a task."""
    entry = hooks.pop()
    at = len(hooks)
    while at and hooks[at - 1][0] >= block and not hasattr(hooks[at - 1][1], "event_batch"):
        at -= 1
    hooks.insert(at, entry)


def send_conversation_event_on_commit(conversation_id: int, event: Event | dict[str, Any]) -> None:
    _send_on_commit(conversation_group(conversation_id), event)


def send_conversation_events_on_commit(conversation_id: int, events: Sequence[Event | dict[str, Any]]) -> None:
    for event in events:
        _send_on_commit(conversation_group(conversation_id), event)


def send_staff_event_on_commit(event: Event | dict[str, Any]) -> None:
    _send_on_commit(STAFF_GROUP, event)


def send_conversation_events_now(conversation_id: int, events: Sequence[Event | dict[str, Any]]) -> None:
    """For events that describe no database row (streamed reply deltas, typing), in order, in one trip."""
    _publish([(conversation_group(conversation_id), dict(event)) for event in events])


def send_conversation_event_now(conversation_id: int, event: Event | dict[str, Any]) -> None:
    send_conversation_events_now(conversation_id, [event])


class ConversationListener:
    """A conversation's events for a plain HTTP response (the API's event stream), heard as a socket
    consumer hears them: through a channel of its own in the conversation's group.

    `join` (from the view, before the message is handled, so no event of its turn is missed), then
    `next` from the response's async iterator, then `leave`. One task reads the channel for the
    whole stream: channels_redis drops what it was handing over when a receive() is cancelled, so
    the timeouts of `next` wait on a queue instead."""

    def __init__(self, conversation_id: int) -> None:
        self.group = conversation_group(conversation_id)
        self.layer = get_channel_layer()
        self.channel = ""
        self._events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None

    def join(self) -> None:
        async_to_sync(self._join)()

    async def _join(self) -> None:
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(self.group, self.channel)

    async def _read(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            for event in message["events"]:
                self._events.put_nowait(event)

    async def next(self, *, timeout: float) -> dict[str, Any] | None:
        """The next event, or None after `timeout` seconds without one."""
        if self._reader is None:
            self._reader = asyncio.create_task(self._read())
        try:
            return await asyncio.wait_for(self._events.get(), timeout)
        except TimeoutError:
            if self._reader.done():
                self._reader.result()  # the channel layer failed: say so rather than wait forever
            return None

    async def leave(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        await self.layer.group_discard(self.group, self.channel)


def staff_display_name(user: Any) -> str:
    """How a staff member is named to customers: first name, else the username."""
    return user.first_name or user.get_username()


def message_payload(message: Message) -> dict[str, Any]:
    return {
        "id": message.pk,
        "conversation_id": message.conversation_id,
        "sender": message.sender,
        "author_name": staff_display_name(message.author) if message.author_id else None,
        "client_id": message.client_id,
        "text": message.text,
        "sources": message.sources,
        "metadata": message.metadata,
        "internal": message.internal,
        "created_at": message.created_at.isoformat() if message.created_at else None,
    }
