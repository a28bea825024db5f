"""Fixed one-minute request windows in Redis, shared by every process: per shopper (seed 001:
100 requests/min, widget and API together) and per API key."""

from __future__ import annotations

import time

from django.core.cache import cache

WINDOW_S = 60


def rate_allow(bucket: str, limit: int) -> bool:
    """Count one request in `bucket`'s current minute; False once the minute holds more than `limit`."""
    key = f"rate:{bucket}:{int(time.time()) // WINDOW_S}"
    cache.add(key, 0, timeout=WINDOW_S * 2)
    try:
        return cache.incr(key) <= limit
    except ValueError:  # evicted between add and incr: count afresh
        cache.add(key, 1, timeout=WINDOW_S * 2)
        return True


def rate_retry_after() -> int:
    """Seconds until the current window ends."""
    return WINDOW_S - int(time.time()) % WINDOW_S


def customer_rate_allow(customer_id: int) -> bool:
    from django.conf import settings

    return rate_allow(f"customer:{customer_id}", settings.CUSTOMER_MESSAGES_PER_MINUTE)
