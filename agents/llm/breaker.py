"""A circuit breaker shared by every process through Redis.

Outcomes are counted per minute; when more than half of the calls in the last minute failed (and
there were enough to judge), the breaker opens and the engine runs offline for OPEN_SECONDS.
"""

from __future__ import annotations

import time

from django.core.cache import cache

WINDOW_SECONDS = 60
OPEN_SECONDS = 300
MIN_CALLS = 4
ERROR_RATE = 0.5

_OPEN_KEY = "llm:breaker:open"


def _bucket_keys(now: float) -> tuple[str, str]:
    minute = int(now // WINDOW_SECONDS)
    return f"llm:breaker:calls:{minute}", f"llm:breaker:errors:{minute}"


def breaker_is_open() -> bool:
    return bool(cache.get(_OPEN_KEY))


def breaker_record(*, ok: bool) -> None:
    """Count one call's outcome; open the breaker when the error rate crosses ERROR_RATE."""
    calls_key, errors_key = _bucket_keys(time.time())
    for key in (calls_key, *(() if ok else (errors_key,))):
        cache.add(key, 0, timeout=WINDOW_SECONDS * 2)
        cache.incr(key)
    if ok:
        return
    calls = cache.get(calls_key) or 0
    errors = cache.get(errors_key) or 0
    if calls >= MIN_CALLS and errors / calls > ERROR_RATE:
        cache.set(_OPEN_KEY, 1, timeout=OPEN_SECONDS)
