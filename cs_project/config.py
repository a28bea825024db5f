"""Read the service URLs and flags from the environment.

Every error names the variable it came from and fits on one line, because it is what an operator
sees instead of a traceback (manage.py, the ASGI app and the Celery app print it and exit).
"""

from __future__ import annotations

import os
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


class ConfigError(Exception):
    """A setting is malformed or a configured service cannot be reached."""


@dataclass(frozen=True)
class DatabaseConfig:
    name: str
    user: str
    password: str
    host: str
    port: str
    options: Mapping[str, str]

    def as_django(self, *, pool_max_size: int = 40) -> dict[str, Any]:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": self.name,
            "USER": self.user,
            "PASSWORD": self.password,
            "HOST": self.host,
            "PORT": self.port,
            "OPTIONS": {
                "connect_timeout": 5,
                # A pool per process (Django's, psycopg_pool): under ASGI every HTTP request runs in a
                # thread of its own, so a connection kept per thread was a new connection per request.
                # A request waits at most `timeout` for one before it is answered 503. A connection that
                # cannot be made is not retried in the background with growing waits
                # (`reconnect_timeout` 0): the next request tries at once, so the site is back as soon
                # as Postgres is.
                "pool": {"min_size": 1, "max_size": pool_max_size, "timeout": 5, "reconnect_timeout": 0},
                **self.options,
            },
            "CONN_MAX_AGE": 0,  # pooled: a closed connection goes back to the pool
            "CONN_HEALTH_CHECKS": True,  # the pool checks a connection before handing it out
        }

    def url(self, *, name: str | None = None) -> str:
        """Rebuild a URL for this database (or another database on the same server)."""
        auth = self.user + (f":{self.password}" if self.password else "")
        query = ""
        if self.host.startswith("/"):
            host_part = ""
            query = f"?host={self.host}"
        else:
            host_part = self.host + (f":{self.port}" if self.port else "")
        return f"postgresql://{auth}@{host_part}/{name or self.name}{query}"


_POSTGRES_SCHEMES = {"postgres", "postgresql", "pgsql"}
_REDIS_SCHEMES = {"redis", "rediss", "unix"}


def parse_database_url(url: str, *, variable: str = "DATABASE_URL") -> DatabaseConfig:
    """Parse a postgres URL; a Unix-socket directory goes in `?host=/path`."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"{variable} is malformed ({exc}): {mask_url(url)}") from None
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise ConfigError(
            f"{variable} must start with postgresql:// (got {parts.scheme or 'no scheme'!r}): {mask_url(url)}"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name or "/" in name:
        raise ConfigError(f"{variable} must name one database, as in postgresql://host/dbname")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = query.pop("host", "") or unquote(parts.hostname or "")
    if not host:
        raise ConfigError(f"{variable} must name a host (or ?host=/socket/dir): {mask_url(url)}")
    return DatabaseConfig(
        name=name,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        host=host,
        port=str(port or ""),
        options=query,
    )


def parse_redis_url(url: str, *, variable: str = "REDIS_URL") -> str:
    """Validate a redis URL and return it normalised (no trailing database number)."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises on a non-numeric port
    except ValueError as exc:
        raise ConfigError(f"{variable} is malformed ({exc}): {mask_url(url)}") from None
    if parts.scheme not in _REDIS_SCHEMES:
        raise ConfigError(
            f"{variable} must start with redis://, rediss:// or unix:// "
            f"(got {parts.scheme or 'no scheme'!r}): {mask_url(url)}"
        )
    if parts.scheme == "unix":
        if not parts.path:
            raise ConfigError(f"{variable} must name a socket path, as in unix:///run/redis.sock")
        return f"unix://{parts.path}"
    if not parts.hostname:
        raise ConfigError(f"{variable} must name a host, as in redis://127.0.0.1:6379: {mask_url(url)}")
    database = parts.path.strip("/")
    if database and not database.isdigit():
        raise ConfigError(f"{variable} database must be a number (got {database!r}): {mask_url(url)}")
    return f"{parts.scheme}://{parts.netloc}"


def redis_db_url(base: str, db: int) -> str:
    """The URL of one numbered Redis database on the server `base` points at."""
    if base.startswith("unix://"):
        return f"{base}?db={db}"
    return f"{base}/{db}"


def celery_broker_url(redis_url: str) -> str:
    # kombu spells a Unix-socket Redis transport `redis+socket://`, not `unix://`.
    if redis_url.startswith("unix://"):
        path, _, query = redis_url.removeprefix("unix://").partition("?")
        return f"redis+socket://{path}" + (f"?virtual_host={query.removeprefix('db=')}" if query else "")
    return redis_url


def redis_services(
    redis_url: str, *, broker_db: int, cache_db: int, channels_db: int, key_prefix: str
) -> dict[str, Any]:
    """CACHES, CHANNEL_LAYERS and CELERY_BROKER_URL on one Redis server, one numbered database each,
    so a FLUSHDB of the cache never drops queued tasks."""
    return {
        "CACHES": {
            "default": {
                "BACKEND": "django_redis.cache.RedisCache",
                "LOCATION": redis_db_url(redis_url, cache_db),
                "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
                "KEY_PREFIX": key_prefix,
            }
        },
        "CHANNEL_LAYERS": {
            "default": {
                # Redis pub/sub: a group's event is one PUBLISH, pushed to the processes whose sockets joined the
                # group. The list-based layer (channels_redis.core) kept a list per socket, written by a script per
                # event and read by a blocking pop with a backup per read: a third of the web process's CPU per
                # reply went there. What pub/sub gives up: an event published while a process reconnects to Redis
                # is not kept for its sockets (the lists kept it a minute). The message itself is stored, and the
                # widget shows it with the history it reads when it reconnects.
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [{"address": redis_db_url(redis_url, channels_db)}]},
            }
        },
        "CELERY_BROKER_URL": celery_broker_url(redis_db_url(redis_url, broker_db)),
    }


def mask_url(url: str) -> str:
    """Hide the password of a URL so it can be printed."""
    try:
        parts = urlsplit(url)
        if parts.password:
            return url.replace(f":{parts.password}@", ":***@", 1)
    except ValueError:
        pass
    return url


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name} must be true or false (got {raw!r})")


def env_list(name: str, default: list[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int, environ: Mapping[str, str] = os.environ) -> int:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number (got {raw!r})") from None


def env_choice(name: str, default: str, choices: tuple[str, ...], environ: Mapping[str, str] = os.environ) -> str:
    raw = (environ.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)} (got {raw!r})")
    return raw


def env_time_zone(name: str, default: str, environ: Mapping[str, str] = os.environ) -> str:
    """An IANA time zone name, e.g. Asia/Shanghai."""
    raw = (environ.get(name) or "").strip()
    if not raw:
        return default
    try:
        zoneinfo.ZoneInfo(raw)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"{name} must be a time zone such as Asia/Shanghai or UTC (got {raw!r})") from None
    return raw


def env_url(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """An optional http(s) URL, e.g. OPENAI_BASE_URL; empty string when unset."""
    raw = (environ.get(name) or "").strip()
    if not raw:
        return ""
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises on a non-numeric port
    except ValueError as exc:
        raise ConfigError(f"{name} is malformed ({exc}): {mask_url(raw)}") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ConfigError(f"{name} must be an http:// or https:// URL: {mask_url(raw)}")
    return raw.rstrip("/")
