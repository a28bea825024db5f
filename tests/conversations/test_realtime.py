"""The real Redis channel layer under the conditions a live socket meets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.layers import get_channel_layer
from django.db import transaction

from conversations.realtime import (
    STAFF_GROUP,
    conversation_group,
    send_conversation_event_on_commit,
    send_staff_event_on_commit,
)


@pytest.mark.asyncio
async def test_a_consumer_can_wait_quietly_longer_than_the_layers_blocking_read() -> None:
    # given: a channel nobody writes to, as for a widget left open without a message
    layer = get_channel_layer()
    channel = await layer.new_channel()

    # when: it waits past channels_redis' 5 s blocking read (and redis-py's default socket timeout)
    waited = asyncio.create_task(layer.receive(channel))
    done, _ = await asyncio.wait({waited}, timeout=6.5)

    # then: still waiting, not crashed with a socket timeout; and a message still gets through
    assert not done
    await layer.send(channel, {"type": "ping"})
    assert (await asyncio.wait_for(waited, 5))["type"] == "ping"


@pytest.mark.django_db
def test_a_transactions_events_go_out_before_the_rest_of_its_after_commit_work(
    listen: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given: a transaction whose first after-commit work is not an event, then two events
    listener = listen(conversation_group(4242))
    heard_before_the_work: list[dict[str, Any]] = []
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        transaction.on_commit(lambda: heard_before_the_work.extend(listener.events(timeout=1)))
        send_conversation_event_on_commit(4242, {"type": "typing", "sender": "bot", "n": 1})
        send_conversation_event_on_commit(4242, {"type": "typing", "sender": "bot", "n": 2})

    # then: once committed, both reached the group, in order, before the other work ran
    assert [event["n"] for event in heard_before_the_work] == [1, 2]


@pytest.mark.django_db
def test_a_transactions_events_for_two_groups_reach_each_in_order(
    listen: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given: listeners on a conversation and on the staff's inbox
    chat, staff = listen(conversation_group(4343)), listen(STAFF_GROUP)

    # when: one transaction has events for both, interleaved (one publish of the two groups' messages)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        send_conversation_event_on_commit(4343, {"type": "typing", "n": 1})
        send_staff_event_on_commit({"type": "inbox", "n": 2})
        send_conversation_event_on_commit(4343, {"type": "typing", "n": 3})

    # then: each group hears its own, in order, and nothing of the other's
    assert [event["n"] for event in chat.events(timeout=1)] == [1, 3]
    assert [event["n"] for event in staff.events(timeout=1)] == [2]
