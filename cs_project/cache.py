"""The cache backend: django-redis, with one client per process."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from django_redis.cache import RedisCache as DjangoRedisCache


class RedisCache(DjangoRedisCache):
    """django-redis' cache, whose client is made once per process and configuration and shared by every instance.

    Django makes a cache object per thread and per async context, so under ASGI one per HTTP request, and each
    made its client afresh: 0.34 ms of CPU before its first command, four times the command itself. The client
    holds the connection pool's Redis objects, which are safe to share between threads.
    """

    _shared: ClassVar[dict[str, Any]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @property
    def client(self) -> Any:
        made: Any = self._client  # type: ignore[has-type]  # django-redis' attribute, set in its __init__
        if made is None:
            key = f"{self._server}\n{sorted(self._params.items())!r}"
            with self._lock:
                if key not in self._shared:
                    self._shared[key] = self._client_cls(self._server, self._params, self)
            made = self._client = self._shared[key]
        return made
