"""Check that the configured Postgres (with pgvector) and Redis answer before anything starts.

Run by every entry point (manage.py, the ASGI app) so that an unreachable service is reported
as one line naming its variable instead of a driver traceback on the first query.
"""

from __future__ import annotations

import psycopg
import redis
from django.conf import settings

from cs_project.config import ConfigError, mask_url


def _source(kind: str, source: str) -> str:
    return f"embedded {kind}" if source == "embedded" else source


def services_check() -> None:
    """Raise ConfigError naming the variable of the first service that does not answer."""
    database_source = _source("Postgres", settings.DATABASE_SOURCE)
    try:
        with psycopg.connect(settings.DATABASE_URL, connect_timeout=3) as conn:
            row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(
            f"{database_source}: cannot reach Postgres at {mask_url(settings.DATABASE_URL)} ({reason})"
        ) from None
    if row is None:
        raise ConfigError(f"{database_source}: the Postgres server has no pgvector extension installed")

    redis_source = _source("Redis", settings.REDIS_SOURCE)
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=3, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        raise ConfigError(f"{redis_source}: cannot reach Redis at {mask_url(settings.REDIS_URL)} ({exc})") from None
