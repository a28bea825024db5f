"""Knowledge read once per unit of work (a turn's run): its version, and each search's cached answer.

A turn asked Redis for the knowledge version before every search, and it searches a question twice (the
recognition's look-up, then the knowledge specialist's answer): up to eight round trips for one question and
its clauses. Inside `knowledge_pinned()` the version is read once and each search's cached answer fetched
once, so the whole turn also reads one set of contents. The look-up that recognition runs in another thread
shares the pin: it runs in a copy of the block's context, which holds the same pin."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class KnowledgePin:
    version: str | None = None
    searches: dict[str, dict[str, Any]] = field(default_factory=dict)  # the retrieval cache's key → its value


_pin: ContextVar[KnowledgePin | None] = ContextVar("knowledge_pin", default=None)


@contextmanager
def knowledge_pinned() -> Iterator[KnowledgePin]:
    pin = KnowledgePin()
    token = _pin.set(pin)
    try:
        yield pin
    finally:
        _pin.reset(token)


def knowledge_pin() -> KnowledgePin | None:
    """The pin of the block this runs in, or None outside any (the search API, an ingest, the admin)."""
    return _pin.get()
