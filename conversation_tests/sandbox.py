"""Where a conversation test runs: on the live engine, inside a transaction that is rolled back.

Nothing a test does outlives it: its chats, tickets, analytics rows and webhook events are rolled back, and so
are the orders it cancels or its fixtures changed. What the engine sends after a commit (the queue, the real-time
channels, webhook deliveries) is never sent, since nothing commits. Three things live outside the database and
are kept apart for the test's length:

- the shared cache: a test gets an empty space of its own in it (its own key prefix, emptied at the end), so the
  store's cached answers (tool reads, the catalogue, retrieval) and its counters (rate limits, identity guesses)
  neither leak in nor out; only the knowledge's version is carried in (a test does not change the knowledge), so
  this process's list of searchable articles stays warm;
- the store: the built-in tables, never the store's own system, which a test could otherwise change for real
  (a `http`, `mcp` or `shopify` store is tested on the orders the test's fixtures put in the tables);
- mail: a verification code goes to the outbox, never to a real shopper.

The settings are changed for the whole process while a test runs, so tests run where nothing else is served at
the same time: the command, or a worker process (prefork: one task at a time), never a web process.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from django.core.cache import caches
from django.db import transaction
from django.test.utils import override_settings

from knowledge.services import KNOWLEDGE_VERSION_KEY, knowledge_version
from stores.catalogue import store_catalogue_forget

OUTBOX = "conversations.mail.OutboxBackend"


@contextlib.contextmanager
def sandbox() -> Iterator[None]:
    shared, version = caches["default"], knowledge_version()
    own = caches.create_connection("default")
    own.key_prefix = f"{shared.key_prefix}:conversation-test:{uuid.uuid4().hex}"
    own.set(KNOWLEDGE_VERSION_KEY, version, timeout=None)
    caches["default"] = own
    store_catalogue_forget()  # this process's catalogue is the store's: the test reads its own
    try:
        with override_settings(STORE_BACKEND="builtin", EMAIL_BACKEND=OUTBOX), transaction.atomic():
            yield
            transaction.set_rollback(True)
    finally:
        caches["default"] = shared
        store_catalogue_forget()  # …and the test's catalogue is not the store's
        own.delete_pattern("*")  # type: ignore[attr-defined]  # django_redis: only this prefix's keys
