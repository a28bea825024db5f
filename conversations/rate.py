"""Sliding one-minute windows in Redis, shared by every process: per shopper (seed 001: 100
requests/min, widget and API together) and per API key.

Each bucket is a sorted set of the last minute's request times, trimmed and counted in one Lua
script, so a limit holds over *any* 60 seconds: a burst at :59 and another at :01 share one window
instead of each getting a fresh minute, and every process agrees because Redis keeps the clock.
"""

from __future__ import annotations

import functools
import logging
import math
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django_redis import get_redis_connection
from redis.commands.core import Script
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

WINDOW_S = 60

_SLIDING_WINDOW = """
local now_t = redis.call('TIME')
local now = tonumber(now_t[1]) * 1000000 + tonumber(now_t[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + window - now
"""


@functools.cache
def _sliding_window() -> Script:
    """The script, sent by its SHA1 (EVALSHA) and loaded again when Redis does not know it (a restarted or
    flushed Redis). Each call names the client it runs on."""
    return get_redis_connection("default").register_script(_SLIDING_WINDOW)


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    retry_after_s: int  # when refused: seconds until the oldest request in the window leaves it


def rate_allow(bucket: str, limit: int, *, window_s: float = WINDOW_S) -> RateDecision:
    """Count one request in `bucket` unless the last `window_s` seconds already hold `limit`.

    While Redis is out the request is let through: a customer's message is stored and answered
    once it is back, which beats refusing every customer for a limit nobody can count."""
    try:
        client = get_redis_connection("default")
        wait_us = _sliding_window()(
            keys=[cache.make_key(f"rate:{bucket}")],
            args=[limit, int(window_s * 1_000_000), uuid.uuid4().hex],
            client=client,
        )
    except RedisError as exc:
        logger.warning("rate limit %s not counted, Redis is unavailable: %s", bucket, exc)
        return RateDecision(True, 0)
    if int(wait_us) <= 0:
        return RateDecision(True, 0)
    return RateDecision(False, max(1, math.ceil(int(wait_us) / 1_000_000)))


def customer_rate_allow(customer_id: int) -> RateDecision:
    return rate_allow(f"customer:{customer_id}", settings.CUSTOMER_MESSAGES_PER_MINUTE)
