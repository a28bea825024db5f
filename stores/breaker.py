"""A circuit breaker per store backend, shared by every process through the cache.

After BREAKER_FAILURES failed calls in a row the store is not called for BREAKER_OPEN_S: the customer is told at
once that the order system can't be reached, instead of waiting through timeouts; the first call after that
tries again.
"""

from __future__ import annotations

from django.core.cache import cache

BREAKER_FAILURES = 5
BREAKER_OPEN_S = 30


def _keys(name: str) -> tuple[str, str]:
    return f"store:{name}:breaker:open", f"store:{name}:breaker:failures"


def breaker_open(name: str) -> bool:
    return bool(cache.get(_keys(name)[0]))


def breaker_succeeded(name: str) -> None:
    cache.delete(_keys(name)[1])


def breaker_failed(name: str) -> None:
    open_key, failures_key = _keys(name)
    cache.add(failures_key, 0, timeout=BREAKER_OPEN_S * 4)
    if cache.incr(failures_key) >= BREAKER_FAILURES:
        cache.set(open_key, 1, timeout=BREAKER_OPEN_S)
        cache.delete(failures_key)
