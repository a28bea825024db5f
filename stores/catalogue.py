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

from stores.backend import StoreBackend, store_backend
from stores.records import StoreCatalogue, StoreUnavailable
from stores.versions import catalogue_version

log = logging.getLogger(__name__)

TTL_S = 60
_lock = threading.Lock()
# (the backend it came from, when it was read, the catalogue's version then, the catalogue)
_snapshot: tuple[StoreBackend, float, str, StoreCatalogue] | None = None


def store_catalogue() -> StoreCatalogue:
    global _snapshot
    store, version = store_backend(), catalogue_version()
    with _lock:
        snapshot = _snapshot if _snapshot is not None and _snapshot[0] is store else None
    if snapshot is not None and snapshot[2] == version and time.monotonic() - snapshot[1] < TTL_S:
        return snapshot[3]
    last_key = f"store:catalogue:last:{store.name}"
    try:
        catalogue = store.catalogue()
    except StoreUnavailable:
        last = snapshot[3] if snapshot is not None else cache.get(last_key)
        if last is None:
            raise
        log.warning("The store did not answer for its catalogue: the last one read stays in use a minute more.")
        catalogue = last
    else:
        cache.set(last_key, catalogue, timeout=None)
    with _lock:
        _snapshot = (store, time.monotonic(), version, catalogue)
    return catalogue


def store_catalogue_forget() -> None:
    """Drop this process's snapshot (a test's fresh start; a restart does the same)."""
    global _snapshot
    with _lock:
        _snapshot = None
