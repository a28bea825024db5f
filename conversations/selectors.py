"""Conversations as the public API and webhooks show them."""

from __future__ import annotations

from typing import Any

from conversations.models import Conversation


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
