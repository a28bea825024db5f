"""The web server `make run` starts (cs_project.web_server): what it answers that uvicorn alone does not."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import time
import urllib.request
from urllib.parse import urlsplit

import psutil
import pytest
import websockets

from conversations.api_keys import api_key_create
from conversations.widget import widget_session_open
from cs_project.web_server import request_target_ascii
from tests.conftest import AsgiServer, asgi_server_start, database_url_for_tests, process_group_stop


@pytest.mark.django_db(transaction=True)
def test_raw_utf8_in_a_query_string_is_read_as_a_browser_would_have_sent_it(asgi_server: AsgiServer) -> None:
    """curl sends "?q=专票需要什么" unencoded, which the HTTP parser alone refuses with a bare 400."""
    _, key = api_key_create(name="search", scopes=["kb"])
    address = urlsplit(asgi_server.url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall(
            "GET /api/v1/kb/search?q=专票需要什么&k=1 HTTP/1.1\r\n".encode()
            + f"Host: {address.netloc}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n".encode()
        )
        response = b""
        while chunk := connection.recv(65536):
            response += chunk
    head, _, body = response.partition(b"\r\n\r\n")

    assert head.startswith(b"HTTP/1.1 200"), head
    assert set(json.loads(body)) == {"results", "miss"}


def test_the_request_target_is_percent_encoded_byte_by_byte() -> None:
    assert request_target_ascii("GET /s?q=专票 HTTP/1.1".encode()) == b"GET /s?q=%E4%B8%93%E7%A5%A8 HTTP/1.1"
    assert request_target_ascii(b"GET /s?q=a%20b HTTP/1.1") == b"GET /s?q=a%20b HTTP/1.1"


@pytest.mark.django_db(transaction=True)
def test_a_socket_message_over_the_servers_limit_is_closed_with_1009(asgi_server: AsgiServer) -> None:
    """Up to 1 MiB the consumer answers `too_large` and stays open; beyond, the server closes with
    1009 (message too big) instead of dropping the connection without a word."""
    token = widget_session_open(locale="en").token
    url = asgi_server.url.replace("http://", "ws://") + f"/ws/widget?token={token}"

    async def exchange() -> tuple[dict[str, object], int | None]:
        async with websockets.connect(url, max_size=None) as ws:
            await ws.recv()  # history
            await ws.send(json.dumps({"type": "message.send", "text": "a" * 500_000, "client_id": "big"}))
            too_large = json.loads(await asyncio.wait_for(ws.recv(), 10))
            await ws.send("a" * (1024 * 1024 + 1))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            return too_large, closed.value.rcvd.code if closed.value.rcvd else None

    too_large, code = asyncio.run(exchange())

    assert too_large["code"] == "too_large"
    assert code == 1009


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("processes", [1, 2])
def test_a_graceful_stop_closes_open_sockets_with_1012_service_restart(processes: int) -> None:
    """A deploy stops the server (SIGTERM): an open widget is told 1012 (service restart) and reconnects with its
    backoff, instead of seeing its connection drop without a word."""
    server = asgi_server_start(database_url_for_tests(), processes=processes)
    token = widget_session_open(locale="en").token
    url = server.url.replace("http://", "ws://") + f"/ws/widget?token={token}"

    async def stopped_while_open() -> int | None:
        async with websockets.connect(url) as ws:
            await ws.recv()  # history
            os.killpg(server.process.pid, signal.SIGTERM)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 20)
            return closed.value.rcvd.code if closed.value.rcvd else None

    try:
        code = asyncio.run(stopped_while_open())
    finally:
        process_group_stop(server.process, timeout=15)
    assert code == 1012


@pytest.mark.django_db(transaction=True)
def test_a_server_process_that_dies_is_replaced_alone_while_the_others_serve() -> None:
    # given: the web server on two processes, as on a two-core machine
    server = asgi_server_start(database_url_for_tests(), processes=2)
    try:
        first, second = psutil.Process(server.process.pid).children()

        # when: one of them is killed
        first.kill()

        # then: the port never stops answering, a new process takes the dead one's place, the other goes on
        deadline = time.monotonic() + 30
        while len(children := psutil.Process(server.process.pid).children()) < 2 or first.pid in {
            child.pid for child in children
        }:
            assert urllib.request.urlopen(f"{server.url}/static/admin/css/base.css", timeout=5).status == 200
            assert time.monotonic() < deadline, "no process took the dead one's place"
            time.sleep(0.1)
        assert second.pid in {child.pid for child in children} and server.process.poll() is None

        # when: they keep dying, more often than once each within the minute
        for child in children:
            child.kill()

        # then: all stop, and the exit status tells whoever supervises the server
        assert server.process.wait(timeout=30) != 0
        assert not any(child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in children)
    finally:
        if server.process.poll() is None:
            process_group_stop(server.process, timeout=15)
