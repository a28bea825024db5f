"""Version counters of the store's data: one for all of it, one per customer. A change bumps them, so a read
cached under an older version (the tools cache theirs: agents.tools.base) is never served again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.core.cache import cache

from conversations.models import Customer

_ALL_KEY = "store:version:all"
_catalogue_pinned: ContextVar[list[str] | None] = ContextVar("catalogue_version_pinned", default=None)


def _customer_key(customer_id: int | None) -> str:
    return f"store:version:{customer_id or 'anonymous'}"


def store_version_bump(customer_id: int | None = None) -> None:
    """One customer's data changed (their orders, addresses or cards) or, with no customer, everyone's (the
    catalogue, or a whole import)."""
    key = _customer_key(customer_id) if customer_id else _ALL_KEY
    cache.add(key, 0, timeout=None)
    cache.incr(key)


def store_version(customer_id: int | None) -> str:
    """The version a read of this customer's data (and the catalogue) is cached under."""
    customer_key = _customer_key(customer_id)
    versions = cache.get_many([_ALL_KEY, customer_key])
    return f"{versions.get(_ALL_KEY, 0)}.{versions.get(customer_key, 0)}"


def catalogue_version() -> str:
    """The version of what everyone reads (the catalogue): bumped by a change with no customer. Read once inside
    `catalogue_version_pinned()`."""
    pinned = _catalogue_pinned.get()
    if pinned:
        return pinned[0]
    version = str(cache.get(_ALL_KEY, 0))
    if pinned is not None:
        pinned.append(version)
    return version


@contextmanager
def catalogue_version_pinned() -> Iterator[None]:
    """Within the block (a turn's run), the catalogue's version is read once: the turn reads the catalogue when it
    recognises the message and again when it routes it, and each read asked Redis for the version."""
    token = _catalogue_pinned.set([])
    try:
        yield
    finally:
        _catalogue_pinned.reset(token)


def store_changed(customer_id: str | None) -> None:
    """The store says a customer's data changed (by the store's id), or, with None, the catalogue or everyone's."""
    known = (
        Customer.objects.filter(external_id=customer_id).values_list("pk", flat=True).first() if customer_id else None
    )
    store_version_bump(known)
