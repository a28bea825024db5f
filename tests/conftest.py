"""Shared fixtures: the real embedded services, a real Celery worker, named personas."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection

from cs_project import embedded
from cs_project.celery import app as celery_app
from cs_project.config import parse_database_url
from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - the fixture

BASE_DIR = Path(settings.BASE_DIR)
SHARED_DATA = BASE_DIR.parent / "shared" / "data"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Leave running what another process (make run) started; stop what this test run started.
    embedded.stop_started_here(settings.VAR_DIR)


def database_url_for_tests() -> str:
    """URL of the test database pytest-django created, for processes the tests start."""
    return parse_database_url(settings.DATABASE_URL).url(name=connection.settings_dict["NAME"])


def subprocess_env(**overrides: str) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cs_project.settings.test"}
    env.update(overrides)
    return env


@dataclass(frozen=True)
class CeleryWorkers:
    engine: subprocess.Popen[bytes]  # the engine's queue (chat turns, webhooks, e-mail)
    ingest: subprocess.Popen[bytes]  # the upload jobs' queue, one at a time


@pytest.fixture(scope="session")
def celery_workers(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[CeleryWorkers]:
    """Real Celery worker processes on the test database and the test broker, as `make run` starts them:
    one on the engine's queue and one, with concurrency 1, on the uploads'. Started side by side."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        database_url = database_url_for_tests()

    def start(*options: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "manage.py", "worker", "--loglevel=WARNING", *options],
            cwd=BASE_DIR,
            env=subprocess_env(DATABASE_URL=database_url, REDIS_URL=settings.REDIS_URL),
            start_new_session=True,
        )

    workers = CeleryWorkers(
        engine=start("--concurrency=4", "--hostname=engine@%h"),
        ingest=start("--ingest", "--concurrency=1", "--hostname=ingest@%h"),
    )
    deadline = time.monotonic() + 60
    while len(celery_app.control.ping(timeout=0.5)) < 2:
        if any(p.poll() is not None for p in (workers.engine, workers.ingest)) or time.monotonic() > deadline:
            for process in (workers.engine, workers.ingest):
                process.kill()
            pytest.fail("the Celery workers did not start")
    yield workers
    for process in (workers.engine, workers.ingest):
        process_group_stop(process, timeout=20)


@pytest.fixture(scope="session")
def celery_worker(celery_workers: CeleryWorkers) -> subprocess.Popen[bytes]:
    """The worker on the engine's queue; the one on the uploads' queue runs beside it."""
    return celery_workers.engine


@pytest.fixture(scope="session")
def ingest_worker(celery_workers: CeleryWorkers) -> subprocess.Popen[bytes]:
    return celery_workers.ingest


def process_group_stop(process: subprocess.Popen[bytes], *, timeout: float) -> None:
    """SIGTERM a server started with start_new_session=True and its children; SIGKILL after `timeout`."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


class AsgiServer:
    def __init__(self, url: str, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.process = process


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def asgi_server_start(database_url: str, *, processes: int = 1) -> AsgiServer:
    """`manage.py web` on a free port, on `database_url` and the tests' Redis, once it answers."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "web", "--port", str(port), "--processes", str(processes)],
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=database_url, REDIS_URL=settings.REDIS_URL, DEMO_MODE="1"),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/healthz", timeout=5).close()
        except urllib.error.HTTPError:
            pass  # it answers (503 until a worker replies to its ping): the server is up
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                pytest.fail("the ASGI server did not start")
            time.sleep(0.2)
            continue
        return AsgiServer(url, process)


@pytest.fixture(scope="session")
def asgi_server(django_db_setup: None, django_db_blocker: Any) -> Iterator[AsgiServer]:
    """The web server (uvicorn) serving cs_project.asgi (HTTP, static files, WebSockets, event streams) on the test
    database and Redis: the server `make run` starts, in demo mode as `make run` is (the store page
    signs in demo shoppers). pytest-django's live_server is WSGI."""
    with django_db_blocker.unblock():
        database_url = database_url_for_tests()
    server = asgi_server_start(database_url)
    yield server
    process_group_stop(server.process, timeout=15)


@pytest.fixture
def sample_store_path() -> Path:
    return BASE_DIR / "tests" / "fixtures" / "taubench_sample.json"


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> None:
    """A new channel-layer object per test: each async test runs on its own event loop, and the
    Redis layer's receive lock belongs to the loop that first used it (a server has one loop for life)."""
    from channels.layers import channel_layers

    channel_layers.backends = {}


@pytest.fixture(autouse=True)
def _clean_cache() -> Iterator[None]:
    """Each test starts with an empty cache: no intent-cache hits, breaker closed, nobody online; and ends with no
    language left active (the test client leaves a request's on for the tests after it)."""
    from django.core.cache import cache
    from django.utils import translation

    from agents.intents.catalogue import catalogue_forget

    cache.clear()
    catalogue_forget()
    yield
    translation.deactivate()


@pytest.fixture
def llm_settings(fake_openai: FakeOpenAI, settings: Any) -> FakeOpenAI:
    """The LLM switched on and pointed at the fake OpenAI-compatible server."""
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    settings.LLM_MODEL = "main-model"
    settings.LLM_SMALL_MODEL = "small-model"
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_S = 2
    return fake_openai


class EventListener:
    """Reads what arrives on the real Redis channel layer for one group, from the moment it is made: the
    pub/sub layer keeps a subscription per event loop, so the listener keeps one loop, reading all along."""

    def __init__(self, group: str) -> None:
        from channels.layers import get_channel_layer

        self._layer = get_channel_layer()
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="event-listener", daemon=True).start()
        self._arrived: queue.Queue[list[dict[str, Any]]] = queue.Queue()
        self.group = group
        self.channel = self._call(self._join())

    def _call(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout=10)

    async def _join(self) -> str:
        channel = await self._layer.new_channel()
        await self._layer.group_add(self.group, channel)
        self._reader = asyncio.ensure_future(self._read(channel))
        return str(channel)

    async def _read(self, channel: str) -> None:
        while True:
            self._arrived.put((await self._layer.receive(channel))["events"])

    def events(self, *, timeout: float = 1.0, until: str | None = None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        while True:
            try:
                events = self._arrived.get(timeout=timeout)
            except queue.Empty:
                return found
            found.extend(events)
            if until is not None and any(event.get("type") == until for event in events):
                return found

    def close(self) -> None:
        async def leave() -> None:
            self._reader.cancel()
            await self._layer.group_discard(self.group, self.channel)
            await self._layer.flush()  # this loop's connection to Redis, closed

        self._call(leave())
        self._loop.call_soon_threadsafe(self._loop.stop)


@pytest.fixture
def listen() -> Iterator[Any]:
    listeners: list[EventListener] = []

    def start(group: str) -> EventListener:
        listener = EventListener(group)
        listeners.append(listener)
        return listener

    yield start
    for listener in listeners:
        listener.close()


@pytest.fixture(scope="session")
def exemplars(django_db_setup: None, django_db_blocker: Any) -> None:
    """The shipped intent exemplars, committed once for the whole session."""
    from agents.intents.exemplar_index import exemplars_sync

    with django_db_blocker.unblock():
        exemplars_sync()


@pytest.fixture
def customer_ada(db: None) -> Any:
    from conversations.models import Customer

    return Customer.objects.create(
        external_id="ada_1815", name="Ada Lovelace", first_name="Ada", last_name="Lovelace", locale="en"
    )


@pytest.fixture
def customer_li(db: None) -> Any:
    from conversations.models import Customer

    return Customer.objects.create(external_id="li_wei", name="李伟", locale="zh", email="", phone="")


@pytest.fixture
def staff_bob(db: None) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("bob", password="pw", is_staff=True, first_name="Bob")


class ParkedQueue:
    """A queue on the real broker that no worker consumes: what the engine sent stays there to be read."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._redis = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def sent(self) -> list[tuple[str, tuple[Any, ...]]]:
        """(task name, args) of each message on the queue, oldest first (kombu pushes to the head)."""
        messages = [json.loads(raw) for raw in reversed(self._redis.lrange(self.name, 0, -1))]
        return [(m["headers"]["task"], tuple(json.loads(base64.b64decode(m["body"]))[0])) for m in messages]

    def delete(self) -> None:
        self._redis.delete(self.name)
        self._redis.close()


@pytest.fixture
def parked_queue(settings: Any) -> Iterator[ParkedQueue]:
    """Turns driven in-process, step by step, send their tasks to the real broker on a queue of their own,
    so the session's worker does not race the test; `.sent()` shows what was queued."""
    queue = ParkedQueue(f"cs-test-parked-{uuid.uuid4().hex[:8]}")
    settings.CELERY_TASK_DEFAULT_QUEUE = queue.name
    yield queue
    queue.delete()
