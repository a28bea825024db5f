"""The real Redis channel layer under the conditions a live socket meets."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

pytestmark = pytest.mark.asyncio


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
