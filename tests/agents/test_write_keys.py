"""The idempotency key a store write carries: one per request of one conversation, never met by another chat."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agents.tools import ToolContext
from agents.tools.actions import write_key
from conversations.models import Conversation, Customer
from conversations.services import conversation_start

pytestmark = [pytest.mark.django_db]


def test_a_request_repeated_in_its_conversation_keeps_its_key_and_another_chat_with_that_id_does_not() -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="key_shopper"), language="en")
    ctx = ToolContext(conversation_id=chat.pk, customer=None)
    request = {"order_id": "#W1", "reason": "no longer needed"}

    first = write_key(ctx, "cancel", request)

    assert write_key(ctx, "cancel", dict(request)) == first  # a yes again after a lost answer: the same write
    assert write_key(ctx, "cancel", {**request, "reason": "ordered by mistake"}) != first
    # The same id in a database begun again (a reset, a new install) is another conversation.
    Conversation.objects.filter(pk=chat.pk).update(created_at=chat.created_at - timedelta(days=3))
    assert write_key(ctx, "cancel", request) != first
