"""The store's catalogue as the engine reads it: one snapshot per process, read again after a minute or as soon
as the store's data changes (the catalogue's version, stores.versions: bumped by the built-in tables' signals
and by the store's events).

The last snapshot read is also kept in the shared cache. A store that does not answer leaves it in use (for a
minute, then the store is tried again), in this process or any other, after a restart too: product questions
are still answered, and products still recognised in messages, from what the store last said. With none,
`StoreUnavailable` reaches the caller.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache import cache

from stores.backend import store_backend
from stores.records import StoreCatalogue, StoreUnavailable
from stores.versions import catalogue_version

log = logging.getLogger(__name__)

TTL_S = 60
_lock = threading.Lock()
_snapshot: tuple[float, str, StoreCatalogue] | None = None


def _last_key() -> str:
    return f"store:catalogue:last:{store_backend().name}"


def store_catalogue() -> StoreCatalogue:
    global _snapshot
    version = catalogue_version()
    with _lock:
        snapshot = _snapshot
    if snapshot is not None and snapshot[1] == version and time.monotonic() - snapshot[0] < TTL_S:
        return snapshot[2]
    try:
        catalogue = store_backend().catalogue()
    except StoreUnavailable:
        last = snapshot[2] if snapshot is not None else cache.get(_last_key())
        if last is None:
            raise
        log.warning("The store did not answer for its catalogue: the last one read stays in use a minute more.")
        catalogue = last
    else:
        cache.set(_last_key(), catalogue, timeout=None)
    with _lock:
        _snapshot = (time.monotonic(), version, catalogue)
    return catalogue


def store_catalogue_forget() -> None:
    """Drop this process's snapshot (a test's fresh start; a restart does the same)."""
    global _snapshot
    with _lock:
        _snapshot = None
