"""Whether an error means a service we depend on is out (Postgres, Redis, the Celery broker).

Such an error is not a bug: the request was fine and will succeed once the service is back, so the
API answers 503 with `Retry-After` (cs_project.views), a turn is retried instead of ending in an
apology, and rate limits let requests through rather than turn every customer away.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import BusyLoadingError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRY_AFTER_S = 5
_OUTAGES = (OperationalError, InterfaceError, BrokerError, RedisConnectionError, RedisTimeoutError, BusyLoadingError)


def service_outage(exc: BaseException | None) -> bool:
    """True when `exc`, or an error it was raised from, says a service could not be reached."""
    for _ in range(8):  # wrappers (django-redis, Celery) keep the original as __cause__ / __context__
        if exc is None:
            return False
        if isinstance(exc, _OUTAGES):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
