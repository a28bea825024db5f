"""The only caller of the channel layer: events to a conversation's group and to the staff group.

Events that describe rows are sent after the transaction that wrote them commits, so a client
never hears of a message it cannot load. Streamed deltas describe no row and go out at once.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from conversations.events import Event
from conversations.models import Message

logger = logging.getLogger(__name__)

STAFF_GROUP = "staff"


def conversation_group(conversation_id: int) -> str:
    return f"conversation.{conversation_id}"


def _send(group: str, event: Event | dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    # Round-trip through JSON so that a payload that would not survive the wire fails here, loudly.
    payload = json.loads(json.dumps(event, ensure_ascii=False))
    try:
        async_to_sync(layer.group_send)(group, {"type": "conversation.event", "event": payload})
    except Exception:  # noqa: BLE001 - a lost live event must never fail the turn; clients reload history
        logger.exception("could not publish %s to %s", payload.get("type"), group)


def send_conversation_event_on_commit(conversation_id: int, event: Event | dict[str, Any]) -> None:
    transaction.on_commit(lambda: _send(conversation_group(conversation_id), event))


def send_staff_event_on_commit(event: Event | dict[str, Any]) -> None:
    transaction.on_commit(lambda: _send(STAFF_GROUP, event))


def send_conversation_event_now(conversation_id: int, event: Event | dict[str, Any]) -> None:
    """For events that describe no database row (streamed reply deltas, typing)."""
    _send(conversation_group(conversation_id), event)


def message_payload(message: Message) -> dict[str, Any]:
    return {
        "id": message.pk,
        "conversation_id": message.conversation_id,
        "sender": message.sender,
        "text": message.text,
        "sources": message.sources,
        "metadata": message.metadata,
        "internal": message.internal,
        "created_at": message.created_at.isoformat() if message.created_at else None,
    }
