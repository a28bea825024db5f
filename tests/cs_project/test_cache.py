"""The cache backend (cs_project.cache): one django-redis client per process, shared by the cache objects Django
makes per thread and per async context."""

from __future__ import annotations

import contextvars
import threading

from django.core.cache import caches


def _cache_elsewhere() -> object:
    return contextvars.Context().run(lambda: caches["default"])  # as Django's per-request context sees it


def test_cache_objects_of_two_contexts_share_one_client_and_its_data() -> None:
    here, elsewhere = caches["default"], _cache_elsewhere()

    assert here is not elsewhere
    assert here.client is elsewhere.client  # type: ignore[attr-defined]
    here.set("shared-client-test", {"n": 1}, timeout=30)
    assert elsewhere.get("shared-client-test") == {"n": 1}  # type: ignore[attr-defined]


def test_threads_using_the_shared_client_at_once_each_read_their_own_values() -> None:
    wrong: list[tuple[int, object]] = []

    def work(number: int) -> None:
        cache = caches["default"]
        for round_number in range(50):
            cache.set(f"thread-test-{number}", (number, round_number), timeout=30)
            got = cache.get(f"thread-test-{number}")
            if got != (number, round_number):
                wrong.append((number, got))

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert wrong == []
    assert len({id(caches["default"].client)} | {id(_cache_elsewhere().client)}) == 1  # type: ignore[attr-defined]
