"""The customer's WebSocket (ARCHITECTURE §8): `ws/widget?token=…`.

In: `{"type": "message.send", "text", "client_id"}`, `{"type": "typing"}`, `{"type": "conversation.end"}`
(the shopper's "End chat") and `{"type": "rating.send", "score": 1-5, "comment"}` (once per closing).
Out: `history` once on connect (the transcript, the status, whether a reply is in flight, whether a
rating is wanted), then the conversation group's events as they happen (`message.created`,
`reply.delta`, `reply.done`, `typing`, `status.changed`), `rating.saved`, and `error` for a frame it
cannot take. A bad frame never closes the socket; only a bad token does (close code 4401, after an
`error` event saying so).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext_noop

from conversations.json_input import JsonInputError, json_input_read, text_unreadable, text_unreadable_removed
from conversations.language import detect_language, say
from conversations.models import Language
from conversations.outage import service_outage
from conversations.realtime import conversation_group, layer_message
from conversations.services import MessageRejected, RatingRefused, conversation_end_by_customer, conversation_rate
from conversations.widget import (
    MessageHandler,
    RateLimited,
    WidgetTicket,
    rate_limited_reply,
    widget_history,
    widget_message_receive,
    widget_token_read,
)

CLOSE_BAD_TOKEN = 4401
CLOSE_TRY_AGAIN_LATER = 1013  # RFC 6455 registry: the widget reconnects with its backoff
TYPING_EVERY_S = 2.0  # a customer's typing is relayed at most this often
_CLIENT_ID_MAX = 64

_FRAME_ERRORS = {
    "too_large": gettext_noop("That message is too large to send. Please shorten it."),
    "bad_frame": gettext_noop("That message could not be read."),
    "unknown_type": gettext_noop("That kind of message is not supported."),
    "unavailable": gettext_noop("We can't take messages for a moment. Please send it again in a few seconds."),
}
# Sent before the chat's language is known: said in both.
_BAD_TOKEN = gettext_noop("This chat session is invalid or expired.")


T = TypeVar("T")


def database_call(function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`function` on the event loop's pool of threads, each with its own database connection. A socket's
    calls still run one after another (its consumer awaits each), while different sockets' run side by
    side: channels' default, one thread per process for every consumer, queued them all behind each other."""
    return database_sync_to_async(function, thread_sensitive=False)


class DatabaseCallsConsumer(AsyncWebsocketConsumer):
    """A socket that reaches the database only through `database_call`, which takes a pooled connection and
    gives it back around each call. Channels' own dispatch also closes old connections before every frame
    and every group event, in a thread hop of its own: a hop per event of every reply, finding nothing to
    close here. This dispatch goes straight to the handler."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class WidgetConsumer(DatabaseCallsConsumer):
    """The widget's socket. `message_handle` is the engine, which sits above conversations: the project's
    routing passes it in (cs_project.routing)."""

    ticket: WidgetTicket | None = None
    language: str = Language.EN
    _typing_at = 0.0

    def __init__(self, *args: Any, message_handle: MessageHandler, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.message_handle = message_handle

    async def connect(self) -> None:
        token = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        ticket = widget_token_read(token)
        await self.accept()
        history = None
        if ticket is not None:
            try:
                # Joined before the transcript is read: an event in between may arrive twice (the
                # widget keys messages by id), never not at all.
                await self.channel_layer.group_add(conversation_group(ticket.conversation_id), self.channel_name)
                history = await database_call(widget_history)(ticket)
            except Exception as exc:
                if not service_outage(exc):
                    raise
                await self._frame_error("unavailable")
                await self.close(code=CLOSE_TRY_AGAIN_LATER)
                return
            if history is None:
                await self.channel_layer.group_discard(conversation_group(ticket.conversation_id), self.channel_name)
        if ticket is None or history is None:
            await self._error("bad_token", f"{say(Language.ZH, _BAD_TOKEN)} / {say(Language.EN, _BAD_TOKEN)}")
            await self.close(code=CLOSE_BAD_TOKEN)
            return
        self.ticket, self.language = ticket, history["language"]
        await self.send(text_data=json.dumps(history, ensure_ascii=False))

    async def disconnect(self, code: int) -> None:
        if self.ticket is not None:
            await self.channel_layer.group_discard(conversation_group(self.ticket.conversation_id), self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ticket is None:
            return
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw.encode("utf-8", "surrogatepass")) > settings.WIDGET_MAX_FRAME_BYTES:
            await self._frame_error("too_large")
            return
        try:
            # A NUL in the text is answered by the engine's polite refusal, with the message's client_id.
            frame = json_input_read(raw, strings_checked=False)
        except JsonInputError:
            await self._frame_error("bad_frame")
            return
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind == "message.send":
            await self._message(frame)
        elif kind == "typing":
            await self._typing()
        elif kind == "conversation.end":
            await self._guarded(self._end())
        elif kind == "rating.send":
            await self._guarded(self._rate(frame))
        else:
            await self._frame_error("unknown_type")

    async def _message(self, frame: dict[str, Any]) -> None:
        assert self.ticket is not None
        text, client_id = frame.get("text"), frame.get("client_id", "")
        if (
            not isinstance(text, str)
            or not isinstance(client_id, str)
            or len(client_id) > _CLIENT_ID_MAX
            or text_unreadable(client_id)
        ):
            await self._frame_error("bad_frame")
            return
        try:
            await database_call(widget_message_receive)(
                self.ticket, text=text, client_id=client_id, handle=self.message_handle
            )
        except MessageRejected as rejected:
            await self._error(rejected.code, rejected.reply, client_id=client_id)
        except RateLimited:
            await self._error("rate_limited", rate_limited_reply(self._language_of(text)), client_id=client_id)
        except Exception as exc:
            if not service_outage(exc):
                raise
            # nothing was stored: the widget offers to resend it
            reply = say(self._language_of(text), _FRAME_ERRORS["unavailable"])
            await self._error("unavailable", reply, client_id=client_id)

    async def _end(self) -> None:
        assert self.ticket is not None
        await database_call(conversation_end_by_customer)(conversation_id=self.ticket.conversation_id)

    async def _rate(self, frame: dict[str, Any]) -> None:
        assert self.ticket is not None
        try:
            rating = await database_call(conversation_rate)(
                conversation_id=self.ticket.conversation_id, score=frame.get("score"), comment=frame.get("comment", "")
            )
        except RatingRefused as refused:
            await self._error(refused.code, say(self.language, refused.msgid, **refused.values))
            return
        await self.send(text_data=json.dumps({"type": "rating.saved", "score": rating.score}))

    async def _guarded(self, work: Awaitable[None]) -> None:
        """A frame's work; an outage is told, not a crash of the socket."""
        try:
            await work
        except Exception as exc:
            if not service_outage(exc):
                raise
            await self._frame_error("unavailable")

    def _language_of(self, text: str) -> str:
        return detect_language(text_unreadable_removed(text), default=self.language)

    async def _typing(self) -> None:
        assert self.ticket is not None
        now = time.monotonic()
        if now - self._typing_at < TYPING_EVERY_S:
            return
        self._typing_at = now
        event = {"type": "typing", "sender": "customer", "conversation_id": self.ticket.conversation_id}
        await self.channel_layer.group_send(conversation_group(self.ticket.conversation_id), layer_message([event]))

    async def conversation_events(self, message: dict[str, Any]) -> None:
        for event in message["events"]:
            if event.get("type") == "typing" and event.get("sender") == "customer":
                continue  # its own typing, echoed by the group
            await self.send(text_data=json.dumps(event, ensure_ascii=False))

    async def _frame_error(self, code: str) -> None:
        await self._error(code, say(self.language, _FRAME_ERRORS[code]))

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": message, **extra}))
