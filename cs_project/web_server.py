"""The HTTP and WebSocket server: uvicorn (uvloop, httptools, websockets) on cs_project.asgi, with three answers it
does not give by itself.

- A request whose URL carries raw UTF-8 (`curl "…/kb/search?q=专票需要什么"` sends it as is; browsers
  percent-encode it) gets a bare 400 from httptools' parser, which follows RFC 9112 to the letter, before the
  application sees it. Here the request line's non-ASCII bytes are percent-encoded first, as a browser would have,
  so the query simply works.
- A WebSocket message over 1 MiB closes the socket with 1009 (message too big), the client told why
  (`ws_max_size`). A malformed multipart body reaches the application, which answers it in the API's error shape
  (uvicorn parses no body).
- Behind a proxy (`--proxy-headers`, on with HTTPS_PROXY) the client's address is the X-Forwarded-For entry the
  trusted proxy appended (conversations.client_address), never the leftmost one, which the client writes itself:
  REMOTE_ADDR, the WebSocket scope's client and the access log name the address Django's rules (login
  throttling) count. The scheme comes from X-Forwarded-Proto.

Chosen over daphne and granian by `bench/ws_load.py --burst` against one system, side by side: the three served
the burst at the same rate and CPU per reply (what a reply costs is the application's work, not the server's).
uvicorn is maintained, runs on uvloop, and its HTTP protocol is a Python class the request-line fix can extend.
Its WebSockets run on websockets' sans-I/O protocol (`websockets-sansio`), not the legacy asyncio one, which
websockets deprecates: side by side, the same burst at the same rate with 0.3–0.9 ms less web CPU per reply and
207 MiB instead of 226 for the web process.

One server process runs on one core. `web_servers_run` starts WEB_PROCESSES of them on one listening socket that
they all accept from, so one port is served by every core; one that ends is started again alone. SIGTERM stops a
server gracefully: it stops accepting, lets requests in flight finish (WEB_GRACEFUL_SHUTDOWN_S at most) and closes
WebSockets with 1012 (service restart), which the widget reconnects after.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn
from django.conf import settings
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from conversations.client_address import forwarded_client_address

logger = logging.getLogger(__name__)

_NON_ASCII = re.compile(rb"[\x80-\xff]")
WS_MAX_MESSAGE_BYTES = 1024 * 1024
REQUEST_LINE_MAX_BYTES = 64 * 1024  # a longer line is left for the parser to refuse

Scope = MutableMapping[str, Any]
AsgiApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def request_target_ascii(uri: bytes) -> bytes:
    """The request target with every non-ASCII byte percent-encoded (RFC 3986 §2.1)."""
    return _NON_ASCII.sub(lambda match: b"%%%02X" % match.group()[0], uri)


class AsciiRequestLineProtocol(HttpToolsProtocol):
    """httptools' protocol, fed each request's first line with its non-ASCII bytes percent-encoded. The method and
    the version are ASCII tokens, so only the target can change. A request pipelined behind another in the same
    packet is fed as it came (no client sends raw UTF-8 that way)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._line_start: bytes | None = b""  # the next request line's bytes so far; None inside a request

    def data_received(self, data: bytes) -> None:
        if self._line_start is not None:
            data, self._line_start = (self._line_start + data if self._line_start else data), None
            end = data.find(b"\n")
            if end < 0 and len(data) < REQUEST_LINE_MAX_BYTES:
                self._line_start = data  # the line is not complete yet
                return
            if end >= 0 and not data[:end].isascii():
                data = request_target_ascii(data[:end]) + data[end:]
        super().data_received(data)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._line_start = b""


class TrustedProxyHeaders:
    """The client's address and scheme as the proxy in front says them (only a trusted proxy may set the headers:
    `--proxy-headers`, on with HTTPS_PROXY)."""

    def __init__(self, app: AsgiApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = forwarded_scope(scope)
        await self.app(scope, receive, send)


def forwarded_scope(scope: Scope) -> Scope:
    """The scope with `client` taken from X-Forwarded-For as conversations.client_address picks it (from every line
    of the header joined), and `scheme` from X-Forwarded-Proto; as it came when they are absent."""
    forwarded_for = ",".join(value.decode("latin-1") for name, value in scope["headers"] if name == b"x-forwarded-for")
    protos = [
        value.decode("latin-1").strip().lower() for name, value in scope["headers"] if name == b"x-forwarded-proto"
    ]
    changed = dict(scope)
    if protos and protos[-1] in ("http", "https"):
        secure = protos[-1] == "https"
        changed["scheme"] = ("https" if secure else "http") if scope["type"] == "http" else ("wss" if secure else "ws")
    if forwarded_for.strip():
        peer = scope["client"][0] if scope.get("client") else None
        client = forwarded_client_address(forwarded_for, peer=peer, proxy_count=settings.TRUSTED_PROXY_COUNT)
        if client is not None:
            changed["client"] = (client, 0)
    return changed


def _header_values(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for header, value in scope["headers"] if header == name]


def web_server_run(*, host: str, port: int, proxy_headers: bool = False, fd: int | None = None) -> None:
    """Serve cs_project.asgi until stopped (blocks), on host:port or on the listening socket `fd` shared with
    other processes. `proxy_headers`: take the client's address and scheme from X-Forwarded-For /
    X-Forwarded-Proto, which only a trusted proxy in front may set."""
    from cs_project.asgi import application

    config = uvicorn.Config(
        TrustedProxyHeaders(application) if proxy_headers else application,
        host=host,
        port=port,
        fd=fd,
        loop="uvloop",
        http=AsciiRequestLineProtocol,
        ws="websockets-sansio",
        ws_max_size=WS_MAX_MESSAGE_BYTES,
        ws_ping_interval=20.0,  # a quiet widget stays open through proxies that drop idle connections
        ws_ping_timeout=20.0,
        lifespan="off",
        proxy_headers=False,  # TrustedProxyHeaders reads them, as the rest of the project picks the address
        server_header=False,
        log_config=None,  # Django's LOGGING: the access log goes to the root handler like every other line
        timeout_graceful_shutdown=settings.WEB_GRACEFUL_SHUTDOWN_S,
    )
    uvicorn.Server(config).run()


# Server processes that end more often than this many times each in a minute are not going to serve (a port taken, a
# setting): they are all stopped and the exit status goes to whoever supervises.
ENDS_PER_PROCESS_A_MINUTE = 1


def web_servers_run(*, host: str, port: int, processes: int, proxy_headers: bool = False) -> int:
    """`processes` server processes accepting on one socket bound here; the kernel hands each connection to
    one of them. One that ends is started again on its own while the others go on serving, unless more than
    ENDS_PER_PROCESS_A_MINUTE × `processes` ended in the last minute: then all stop. Blocks until then or
    SIGTERM/SIGINT (a graceful stop of every server); returns the exit status."""
    if processes <= 1:
        web_server_run(host=host, port=port, proxy_headers=proxy_headers)
        return 0
    listener = socket.create_server((host, port), backlog=1024)  # kept open here to hand to a replacement
    fd = listener.fileno()
    command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "web", "--fd", str(fd)]
    if proxy_headers:
        command.append("--proxy-headers")
    children: dict[int, subprocess.Popen[bytes]] = {}
    ended: list[float] = []

    def start() -> None:
        child = subprocess.Popen(command, pass_fds=[fd])
        children[child.pid] = child

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for _ in range(processes):
            start()
        while True:
            pid, status = os.wait()
            if (child := children.pop(pid, None)) is None:
                continue
            child.returncode = code = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
            now = time.monotonic()
            ended = [at for at in ended if at > now - 60] + [now]
            if len(ended) > ENDS_PER_PROCESS_A_MINUTE * processes:
                logger.error("web server processes keep ending (the last: exit status %s): stopping them all", code)
                return code or 1
            logger.warning("web server process %s ended (exit status %s): starting another", pid, code)
            start()
    finally:
        for child in children.values():
            child.terminate()
        for child in children.values():
            child.wait()
        listener.close()
