"""What /healthz reports: each service the product needs, checked for real, with its version."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.db import DatabaseError, connection

from cs_project.celery import app as celery_app
from cs_project.supervisor import serve_status
from knowledge.embeddings import embeddings_status
from stores.backend import store_backend


def _postgres() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            version = cursor.fetchone()[0]
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except DatabaseError as exc:
        connection.close()  # a broken connection must not be reused by the next request
        return {"ok": False, "error": str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}
    if row is None:
        return {"ok": False, "version": version, "error": "pgvector extension is not installed (run migrate)"}
    return {"ok": True, "version": version, "pgvector": row[0]}


def _redis() -> dict[str, Any]:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        client.ping()
        version = client.info("server").get("redis_version", "")
    except redis.RedisError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "version": version}


def _celery() -> dict[str, Any]:
    """A worker must consume the chat's queue: an upload worker alone (CELERY_INGEST_QUEUE) answers no
    customer. A missing upload worker is reported beside it (`ingest`), and does not make the chat down."""
    chat, ingest = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_INGEST_QUEUE
    try:
        with celery_app.connection_for_write(url=settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            # limit=2: `make run`'s two workers answer at once. Only when two answered and neither consumes the
            # chat's queue is every worker waited for (fewer answers mean the wait was spent already: a poll
            # must answer within seconds while a worker reconnects).
            queues = _worker_queues(conn, limit=2)
            if len(queues) >= 2 and chat not in {queue for names in queues.values() for queue in names}:
                queues = _worker_queues(conn, limit=None)
    except Exception as exc:  # noqa: BLE001 - kombu raises transport-specific errors
        return {"ok": False, "error": f"broker unreachable: {exc}"}
    if not queues:
        return {"ok": False, "error": "no worker replied to ping"}
    consuming = {queue for names in queues.values() for queue in names}
    report: dict[str, Any] = {"ok": chat in consuming, "workers": sorted(queues), "ingest": ingest in consuming}
    if not report["ok"]:
        report["error"] = f"no worker consumes the chat queue '{chat}'"
    return report


def _worker_queues(conn: Any, *, limit: int | None) -> dict[str, list[str]]:
    replies = celery_app.control.broadcast("active_queues", reply=True, timeout=1.5, limit=limit, connection=conn)
    return {name: [queue["name"] for queue in queues] for reply in replies for name, queues in reply.items()}


def _embeddings() -> dict[str, Any]:
    status = embeddings_status()
    report: dict[str, Any] = {"ok": status.loaded, "loaded": status.loaded, "backend": status.backend}
    if status.dimensions is not None:
        report["dimensions"] = status.dimensions
    if status.error:
        report["error"] = status.error
    return report


def _supervised() -> tuple[dict[str, Any], list[str]]:
    """Under `manage.py serve`: each process and embedded service it keeps alive, and the ones that
    are being started again right now (degraded: the site answers, something is missing)."""
    status = serve_status(settings.VAR_DIR)
    if status is None:
        return {}, []
    processes: dict[str, Any] = status.get("processes", {})
    services: dict[str, Any] = status.get("services", {})
    degraded = [name for name, part in {**processes, **services}.items() if part.get("state") != "running"]
    return {"processes": processes, "embedded": services}, degraded


def _server(url: str) -> tuple[str | None, int | None]:
    parts = urlsplit(url)
    return parts.hostname, parts.port


def health_report() -> dict[str, Any]:
    """Check every part; `down` names the ones that failed (empty when all are healthy), and
    `degraded` the supervised processes being started again after they died."""
    redis_part = _redis()
    # While the broker's Redis does not answer, asking the workers would only wait for it again, past a poller's
    # patience.
    broker_down = not redis_part["ok"] and _server(settings.CELERY_BROKER_URL) == _server(settings.REDIS_URL)
    parts = {
        "postgres": _postgres(),
        "redis": redis_part,
        "celery": {"ok": False, "error": "broker unreachable: Redis is down"} if broker_down else _celery(),
        "embeddings": _embeddings(),
    }
    down = [name for name, part in parts.items() if not part["ok"]]
    supervised, degraded = _supervised()
    # Without the store's system the order tools fail politely and everything else works: degraded, not down.
    parts["store"] = {"backend": settings.STORE_BACKEND, **store_backend().health()}
    degraded += [] if parts["store"]["ok"] else ["store"]
    status = "down" if down else "degraded" if degraded else "ok"
    return {"status": status, "down": down, "degraded": degraded, **parts, **supervised}
