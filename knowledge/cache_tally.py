"""Cache lookups counted per unit of work, for the analytics' hit rates (docs/analytics.md).

The retrieval cache counts here, and so does the engine's tool cache (agents may import knowledge,
never the other way). A subtask opens a tally around its specialist; a lookup outside any tally (the
search API, a benchmark) counts nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class CacheTally:
    lookups: Counter[str] = field(default_factory=Counter)
    hits: Counter[str] = field(default_factory=Counter)


_open: ContextVar[CacheTally | None] = ContextVar("cache_tally", default=None)


@contextmanager
def cache_tally() -> Iterator[CacheTally]:
    tally = CacheTally()
    token = _open.set(tally)
    try:
        yield tally
    finally:
        _open.reset(token)


def cache_lookup_count(cache: str, *, hit: bool) -> None:
    tally = _open.get()
    if tally is not None:
        tally.lookups[cache] += 1
        tally.hits[cache] += hit
