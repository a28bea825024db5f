from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache

from stores.http import HttpStore
from stores.mcp import McpStore
from tests.conftest import BASE_DIR, _free_port, database_url_for_tests, process_group_stop, subprocess_env

STORE_TOKEN = "store-api-token-for-the-tests"


@dataclass(frozen=True)
class StoreServer:
    url: str
    process: subprocess.Popen[bytes]

    def client(self, **options: Any) -> HttpStore:
        return HttpStore(base_url=self.url, token=STORE_TOKEN, **options)


def _server_start(command: str, path: str, django_db_blocker: Any) -> tuple[str, subprocess.Popen[bytes]]:
    """`manage.py <command>` on a free port, the test database and Redis; its URL once it answers (401 without
    the token)."""
    with django_db_blocker.unblock():
        database_url = database_url_for_tests()
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", command, "--port", str(port), "--token", STORE_TOKEN],
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=database_url, REDIS_URL=settings.REDIS_URL),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}{path}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
        except urllib.error.HTTPError:
            return url, process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                pytest.fail(f"manage.py {command} did not start")
            time.sleep(0.2)


@pytest.fixture(scope="session")
def store_server(django_db_setup: None, django_db_blocker: Any) -> Iterator[StoreServer]:
    """`manage.py store_server` in a process of its own, on the test database and Redis."""
    url, process = _server_start("store_server", "", django_db_blocker)
    yield StoreServer(url, process)
    process_group_stop(process, timeout=15)


def store_down(test_settings: Any) -> None:
    """STORE_API_URL pointed at a port nobody listens on: the store's system is down."""
    test_settings.STORE_API_URL = f"http://127.0.0.1:{_free_port()}"
    test_settings.STORE_API_TIMEOUT_S = 1


@pytest.fixture
def http_store(store_server: StoreServer, settings: Any) -> Iterator[StoreServer]:
    """The engine configured for STORE_BACKEND=http against the store server; the breaker starts closed."""
    settings.STORE_BACKEND = "http"
    settings.STORE_API_URL = store_server.url
    settings.STORE_API_TOKEN = STORE_TOKEN
    cache.delete_many(["store:http:breaker:open", "store:http:breaker:failures"])
    yield store_server


@dataclass(frozen=True)
class McpServer:
    url: str
    process: subprocess.Popen[bytes]

    def client(self, **options: Any) -> McpStore:
        return McpStore(url=self.url, token=STORE_TOKEN, **options)


@pytest.fixture(scope="session")
def store_mcp_server(django_db_setup: None, django_db_blocker: Any) -> Iterator[McpServer]:
    """`manage.py store_mcp_server` (streamable HTTP) in a process of its own, on the test database and Redis."""
    url, process = _server_start("store_mcp_server", "/mcp", django_db_blocker)
    yield McpServer(url, process)
    process_group_stop(process, timeout=15)


@pytest.fixture
def mcp_store(store_mcp_server: McpServer, settings: Any) -> Iterator[McpServer]:
    """The engine configured for STORE_BACKEND=mcp against the store's MCP server; the breaker starts closed."""
    settings.STORE_BACKEND = "mcp"
    settings.STORE_MCP_URL = store_mcp_server.url
    settings.STORE_MCP_TOKEN = STORE_TOKEN
    settings.STORE_MCP_COMMAND = ""
    cache.delete_many(["store:mcp:breaker:open", "store:mcp:breaker:failures"])
    yield store_mcp_server
