"""A circuit breaker per store backend, shared by every process through the cache.

After BREAKER_FAILURES failed calls in a row the breaker opens: for BREAKER_OPEN_S the store is not called and the
customer is told at once that the order system can't be reached, instead of waiting through timeouts. While it is
open, one call every BREAKER_PROBE_S goes through all the same (half-open): a store that is back closes it at
once, so shoppers are not kept out for the rest of the 30 s.
"""

from __future__ import annotations

from django.core.cache import cache

BREAKER_FAILURES = 5
BREAKER_OPEN_S = 30
BREAKER_PROBE_S = 5


def _keys(name: str) -> tuple[str, str, str]:
    return f"store:{name}:breaker:open", f"store:{name}:breaker:failures", f"store:{name}:breaker:probe"


def breaker_open(name: str) -> bool:
    """Whether this call must not go to the store; while open, one caller every BREAKER_PROBE_S is let through."""
    open_key, _, probe_key = _keys(name)
    if not cache.get(open_key):
        return False
    return not cache.add(probe_key, 1, timeout=BREAKER_PROBE_S)


def breaker_succeeded(name: str) -> None:
    open_key, failures_key, _ = _keys(name)
    cache.delete_many([open_key, failures_key])


def breaker_failed(name: str) -> None:
    open_key, failures_key, _ = _keys(name)
    cache.add(failures_key, 0, timeout=BREAKER_OPEN_S * 4)
    if cache.incr(failures_key) >= BREAKER_FAILURES:
        cache.set(open_key, 1, timeout=BREAKER_OPEN_S)
        cache.delete(failures_key)
