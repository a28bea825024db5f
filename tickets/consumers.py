"""The console's WebSocket, `ws/staff`: the staff group's events (queue changes, every message), and
the full event stream of the chats a console page watches. Session-authenticated, so it checks the
origin; only staff with the take-over permission may connect.

In: `{"type": "watch", "conversation_id"}` and `{"type": "typing", "conversation_id"}` (shown to the
customer, only for a chat this person owns)."""

from __future__ import annotations

import json
import time
from typing import Any

from conversations.consumers import DatabaseCallsConsumer, database_call
from conversations.models import Conversation, ConversationStatus
from conversations.realtime import STAFF_GROUP, conversation_group
from conversations.services import staff_typing
from tickets.selectors import console_allowed

CLOSE_FORBIDDEN = 4403
TYPING_EVERY_S = 2.0


class StaffConsumer(DatabaseCallsConsumer):
    watched: set[int]
    _typing_at = 0.0

    async def connect(self) -> None:
        self.watched = set()
        user = self.scope.get("user")
        if user is None or not await database_call(console_allowed)(user):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.channel_layer.group_add(STAFF_GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(STAFF_GROUP, self.channel_name)
        for conversation_id in self.watched:
            await self.channel_layer.group_discard(conversation_group(conversation_id), self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = json.loads(text_data or "")
            kind, conversation_id = frame["type"], int(frame["conversation_id"])
        except (ValueError, TypeError, KeyError):
            await self._send({"type": "error", "code": "bad_frame", "message": "expected {type, conversation_id}"})
            return
        if kind == "watch":
            if not await database_call(Conversation.objects.filter(pk=conversation_id).exists)():
                await self._send({"type": "error", "code": "not_found", "message": "no such conversation"})
                return
            self.watched.add(conversation_id)
            await self.channel_layer.group_add(conversation_group(conversation_id), self.channel_name)
        elif kind == "typing":
            await self._typing(conversation_id)
        else:
            await self._send({"type": "error", "code": "unknown_type", "message": f"unknown type {kind!r}"})

    async def _typing(self, conversation_id: int) -> None:
        now = time.monotonic()
        if now - self._typing_at < TYPING_EVERY_S:
            return
        self._typing_at = now
        user = self.scope["user"]
        owns = await database_call(
            Conversation.objects.filter(
                pk=conversation_id, status=ConversationStatus.HUMAN, assigned_staff_id=user.pk
            ).exists
        )()
        if owns:
            await database_call(staff_typing)(conversation_id=conversation_id, staff=user)

    async def conversation_events(self, message: dict[str, Any]) -> None:
        for event in message["events"]:
            await self._send(event)

    async def _send(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(event, ensure_ascii=False))
