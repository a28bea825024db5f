"""Version counters of the store's data: one for all of it, one per customer. A change bumps them, so a read
cached under an older version (the tools cache theirs: agents.tools.base) is never served again."""

from __future__ import annotations

from django.core.cache import cache

from conversations.models import Customer

_ALL_KEY = "store:version:all"


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
    """The version of what everyone reads (the catalogue): bumped by a change with no customer."""
    return str(cache.get(_ALL_KEY, 0))


def store_changed(customer_id: str | None) -> None:
    """The store says a customer's data changed (by the store's id), or, with None, the catalogue or everyone's."""
    known = (
        Customer.objects.filter(external_id=customer_id).values_list("pk", flat=True).first() if customer_id else None
    )
    store_version_bump(known)
