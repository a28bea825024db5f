"""Shared set-up for benchmarks: a scratch database on the configured (or embedded) Postgres,
a real Celery worker on it, and percentile helpers. Benchmarks print figures; they assert nothing."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def django_setup(settings_module: str = "cs_project.settings.base", **env: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings_module)
    # A queue of its own, so neither a `make run` worker nor another benchmark's worker on the same
    # Redis (each on its own scratch database) takes this benchmark's tasks.
    os.environ.setdefault("CELERY_QUEUE", f"cs-bench-{uuid.uuid4().hex[:8]}")
    # The scripted shoppers prove who they are by their account's details (τ-bench's policy): no mailbox
    # to read an emailed code from. The worker inherits this environment.
    os.environ.setdefault("CHAT_VERIFICATION", "details")
    # Every scripted shopper opens its chat from this machine's one address.
    os.environ.setdefault("WIDGET_SESSIONS_PER_ADDRESS", "100000")
    # A scripted client sends far more than a person's 100 messages or an integrator's requests a minute: the
    # rate limits are tested in tests/, not measured here.
    os.environ.setdefault("CUSTOMER_MESSAGES_PER_MINUTE", "1000000")
    os.environ.setdefault("API_REQUESTS_PER_MINUTE", "1000000")
    os.environ.update(env)
    import django

    django.setup()


@contextlib.contextmanager
def scratch_database() -> Iterator[str]:
    """Point this process at a new, migrated database; drop it afterwards. Yields its URL."""
    import psycopg
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from cs_project.config import parse_database_url

    config = parse_database_url(settings.DATABASE_URL)
    name = f"cs_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    connections.close_all()
    connections["default"].close_pool()  # type: ignore[attr-defined]  # Django 5.1+; the pool is of the database before
    settings.DATABASES["default"]["NAME"] = name
    try:
        call_command("migrate", verbosity=0)
        yield config.url(name=name)
    finally:
        connections.close_all()
        connections["default"].close_pool()  # type: ignore[attr-defined]  # not in django-stubs yet
        with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def demo_turns_here() -> Iterator[None]:
    """A scratch database with the demo store and the shipped intent exemplars, and the Celery queue pointed at
    one no worker reads (deleted afterwards): every statement of a turn driven in this process runs here."""
    from django.conf import settings
    from django.core.management import call_command

    with scratch_database():
        call_command("seed_demo", verbosity=0)
        call_command("sync_exemplars", verbosity=0)
        settings.CELERY_TASK_DEFAULT_QUEUE = f"bench-unread-{uuid.uuid4().hex[:8]}"
        try:
            yield
        finally:
            from cs_project.celery import app

            with app.connection_for_write() as connection:
                connection.default_channel.queue_delete(settings.CELERY_TASK_DEFAULT_QUEUE)


@contextlib.contextmanager
def worker(
    database_url: str, *, concurrency: int = 4, root: Path | str = ROOT, **env: str
) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker process on `database_url` (of the checkout at `root`), started and stopped around the
    block."""
    from cs_project.celery import app

    node = f"bench-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
    process = subprocess.Popen(
        [
            sys.executable,
            str(Path(root) / "manage.py"),
            "worker",
            f"--concurrency={concurrency}",
            "--loglevel=WARNING",
            f"--hostname={node}",
        ],
        env={**os.environ, "DATABASE_URL": database_url, **env},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not app.control.ping(destination=[node], timeout=0.5, limit=1):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the Celery worker did not start")
    try:
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@contextlib.contextmanager
def store_server(database_url: str, token: str, command: str = "store_server") -> Iterator[str]:
    """`manage.py store_server` (the store API over the built-in tables), or with `command="store_mcp_server"` the
    store's MCP server, on a free loopback port and `database_url`; yields its URL once it answers."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), command, "--port", str(port), "--token", token],
        env={**os.environ, "DATABASE_URL": database_url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}" + ("/mcp" if command == "store_mcp_server" else "")
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url if command == "store_mcp_server" else f"{url}/variants", timeout=5).close()
        except urllib.error.HTTPError:
            break  # it answers (401 without the token)
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise SystemExit("the store server did not start") from None
            time.sleep(0.2)
    try:
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@contextlib.contextmanager
def web_server(database_url: str) -> Iterator[str]:
    """`manage.py web` (one process) on a free loopback port and `database_url`; yields its address."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "web", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, "DATABASE_URL": database_url, "WEB_PROCESSES": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


class ApiClient:
    """GET requests with an API key on one kept-alive connection, as an integrator's HTTP client sends them."""

    def __init__(self, address: str, key: str) -> None:
        self.address, self.key = address, key
        self._connection: http.client.HTTPConnection | None = None

    def get(self, path: str, **params: str) -> dict[str, Any]:
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self.address, timeout=60)
        query = urllib.parse.urlencode(params)
        self._connection.request("GET", f"{path}?{query}", headers={"Authorization": f"Bearer {self.key}"})
        response = self._connection.getresponse()
        body: dict[str, Any] = json.loads(response.read())
        if response.status != 200:
            raise SystemExit(f"the API answered {response.status}: {body}")
        return body

    def wait_until_up(self, path: str, **params: str) -> None:
        """The first request that the server answers (it is still starting until then)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get(path, **params)
                return
            except OSError:
                self._connection = None
                if time.monotonic() > deadline:
                    raise SystemExit("the web server did not start") from None
                time.sleep(0.5)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


@contextlib.contextmanager
def sides_started(script: str, option: str, against: Path) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """The two sides of an --against comparison: `script` run with `option CHECKOUT` for this checkout and for
    `against`, each in its checkout, once both said they are ready; their input closed and awaited after."""
    if not (against / "manage.py").exists():
        sys.exit(f"{against} is not a checkout of the project (no manage.py)")
    sides = {"this": ROOT, "against": against}
    processes = {
        name: subprocess.Popen(
            [sys.executable, script, option, str(checkout)],
            cwd=checkout,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, checkout in sides.items()
    }
    try:
        for process in processes.values():
            side_line(process, starting="ready")
        yield processes
    finally:
        for process in processes.values():
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=120)


def side_ask(process: subprocess.Popen[str], request: str, *, answer: str) -> str:
    """Send a side one request line; its answer line, without the word `answer` it starts with."""
    assert process.stdin is not None
    process.stdin.write(request + "\n")
    process.stdin.flush()
    return side_line(process, starting=answer + " ").removeprefix(answer + " ")


def side_line(process: subprocess.Popen[str], *, starting: str) -> str:
    """The next line a side of an --against comparison printed that starts so (what else it prints is passed
    over); a side that ended is an error."""
    assert process.stdout is not None
    while line := process.stdout.readline():
        if line.startswith(starting):
            return line
    sys.exit(f"a side ended early (exit code {process.wait()}); run it alone to see why")


def summary(values_ms: list[float]) -> str:
    return (
        f"n={len(values_ms)}  p50={statistics.median(values_ms):7.1f} ms  p95={percentile(values_ms, 95):7.1f} ms  "
        f"max={max(values_ms):7.1f} ms"
    )
