"""Reads of conversations: as the public API and webhooks show them, and who has the chat."""

from __future__ import annotations

from typing import Any

from conversations.models import Conversation, ConversationStatus, Message
from conversations.prepared import PreparedRead


def conversation_json(conversation: Conversation) -> dict[str, Any]:
    return {
        "id": conversation.pk,
        "status": conversation.status,
        "channel": conversation.channel,
        "language": conversation.language,
        "customer": {"external_id": conversation.customer.external_id, "verified": conversation.customer.verified},
        "created_at": conversation.created_at.isoformat(),
        "closed_at": conversation.closed_at.isoformat() if conversation.closed_at else None,
        "resolution": conversation.resolution or None,
    }


def conversation_is_human(conversation_id: int) -> bool:
    """A person has taken the chat over: the bot says nothing more in it."""
    return Conversation.objects.filter(pk=conversation_id, status=ConversationStatus.HUMAN).exists()


def conversation_customer_id(conversation_id: int) -> int | None:
    """Whose conversation it is; None: there is no such conversation."""
    found = _CUSTOMER_OF.rows(conversation_id=conversation_id)
    return found[0][0] if found else None


# Compiled once: an API message is throttled by its customer and refused when its conversation does not exist.
_CUSTOMER_OF = PreparedRead(
    lambda conversation_id: Conversation.objects.filter(pk=conversation_id).values_list("customer_id")
)


def conversation_internal_notes(conversation_id: int) -> list[str]:
    """The staff's notes on a chat, which the customer never sees."""
    return [text for (text,) in _INTERNAL_NOTES.rows(conversation_id=conversation_id)]


_INTERNAL_NOTES = PreparedRead(
    lambda conversation_id: Message.objects.filter(conversation_id=conversation_id, internal=True).values_list("text")
)
