"""The HTTP and WebSocket server: daphne, with three answers it does not give by itself.

- A request whose URL carries raw UTF-8 (`curl "…/kb/search?q=专票需要什么"` sends it as is;
  browsers percent-encode it) got a bare 400 from Twisted's request-line parser, which follows
  RFC 9112 to the letter, before the application saw it. Here those bytes are percent-encoded
  first, as a browser would have, so the query simply works.
- A WebSocket message over daphne's limit (1 MiB) made autobahn drop the TCP connection without a
  close frame; here the client is told why, with close code 1009 (message too big).
- Twisted parses every POSTed form body for daphne, which never uses the result, and answers a
  malformed multipart body with a bare 400 before the application sees it. Off, the API answers
  such a request itself, in its error shape.
- Behind a proxy (`--proxy-headers`, on with HTTPS_PROXY) daphne took the client's address from the
  leftmost X-Forwarded-For entry, which the client writes itself. Here it is the entry the trusted
  proxy appended (conversations.client_address), so REMOTE_ADDR, the WebSocket scope's client and the
  access log name the address Django's rules (login throttling) count.

`daphne_adjust()` makes these changes; cs_project.asgi calls it, so they hold however daphne is
started (`manage.py web`, `python -m daphne`, runserver).

One daphne process runs on one core. `web_servers_run` starts WEB_PROCESSES of them (one per core serves the
most) on one listening socket that they all accept from, so one port is served by every core.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from typing import Any

import daphne.http_protocol
import daphne.server
import daphne.utils
import daphne.ws_protocol
import twisted.web.http
from daphne.cli import CommandLineInterface
from daphne.http_protocol import WebRequest
from daphne.ws_protocol import WebSocketFactory
from django.conf import settings
from twisted.web.http_headers import Headers

from conversations.client_address import forwarded_client_address

_NON_ASCII = re.compile(rb"[\x80-\xff]")


def request_target_ascii(uri: bytes) -> bytes:
    """The request target with every non-ASCII byte percent-encoded (RFC 3986 §2.1)."""
    return _NON_ASCII.sub(lambda match: b"%%%02X" % match.group()[0], uri)


_parse_request_line = twisted.web.http._parseRequestLine


def _parse_request_line_ascii(line: bytes) -> tuple[bytes, bytes, bytes]:
    # The method and the version are ASCII tokens, so only the target can change.
    return _parse_request_line(line if line.isascii() else request_target_ascii(line))


class _ClosingWebSocketFactory(WebSocketFactory):
    def resetProtocolOptions(self) -> None:  # noqa: N802 - autobahn's name
        super().resetProtocolOptions()
        self.failByDrop = False  # fail with a close frame (1009 for an oversized message)


_request_init = WebRequest.__init__


def _request_init_without_form_parsing(self: WebRequest, *args: Any, **kwargs: Any) -> None:
    _request_init(self, *args, **kwargs)
    self._parsePOSTFormSubmission = False


_parse_x_forwarded_for = daphne.utils.parse_x_forwarded_for


def _header_values(headers: Headers | dict[bytes, Any], name: str) -> list[str]:
    """Every value of header `name`: twisted's Headers (HTTP) keep each line, a dict (WebSocket) one value."""
    key = name.lower().encode()
    if isinstance(headers, Headers):
        raw = headers.getRawHeaders(key) or []
    else:
        found = {k.lower(): v for k, v in headers.items()}.get(key)
        raw = found if isinstance(found, list) else [found] if found is not None else []
    return [value.decode("latin-1") for value in raw]


def parse_x_forwarded_for_trusted(
    headers: Headers | dict[bytes, Any],
    address_header_name: str | None = "X-Forwarded-For",
    port_header_name: str | None = "X-Forwarded-Port",
    proto_header_name: str | None = "X-Forwarded-Proto",
    original_addr: list[Any] | None = None,
    original_scheme: str | None = None,
) -> tuple[list[Any] | None, str | None]:
    """daphne's parse_x_forwarded_for (the scheme and port it reads are kept), with the client's address
    picked as conversations.client_address picks it, from every line of the header joined."""
    addr, scheme = _parse_x_forwarded_for(
        headers, address_header_name, port_header_name, proto_header_name, original_addr, original_scheme
    )
    if not address_header_name:
        return addr, scheme
    forwarded_for = ",".join(_header_values(headers, address_header_name))
    if not forwarded_for.strip():
        return addr, scheme
    peer = str(original_addr[0]) if original_addr else None
    client = forwarded_client_address(forwarded_for, peer=peer, proxy_count=settings.TRUSTED_PROXY_COUNT)
    if client is None:
        return original_addr, scheme
    return [client, addr[1] if addr else 0], scheme


def daphne_adjust() -> None:
    twisted.web.http._parseRequestLine = _parse_request_line_ascii
    daphne.server.WebSocketFactory = _ClosingWebSocketFactory  # type: ignore[misc]
    WebRequest.__init__ = _request_init_without_form_parsing  # type: ignore[method-assign]
    # The protocols imported the function by name, so it is replaced where they call it.
    daphne.http_protocol.parse_x_forwarded_for = parse_x_forwarded_for_trusted  # type: ignore[assignment]
    daphne.ws_protocol.parse_x_forwarded_for = parse_x_forwarded_for_trusted  # type: ignore[assignment]


def web_server_run(*, host: str, port: int, proxy_headers: bool = False, fd: int | None = None) -> None:
    """Serve cs_project.asgi until stopped (blocks), on host:port or on the listening socket `fd` shared with
    other processes. `proxy_headers`: take the client's address and scheme from X-Forwarded-For /
    X-Forwarded-Proto, which only a trusted proxy in front may set."""
    argv = ["--fd", str(fd)] if fd is not None else ["-b", host, "-p", str(port)]
    if proxy_headers:
        argv.append("--proxy-headers")
    CommandLineInterface().run([*argv, "cs_project.asgi:application"])


def web_servers_run(*, host: str, port: int, processes: int, proxy_headers: bool = False) -> int:
    """`processes` daphne processes accepting on one socket bound here; the kernel hands each connection to
    one of them. Blocks until one of them ends (then the others are stopped too, so a supervisor restarts
    them together) or SIGTERM/SIGINT arrives; returns the exit status."""
    if processes <= 1:
        web_server_run(host=host, port=port, proxy_headers=proxy_headers)
        return 0
    listener = socket.create_server((host, port), backlog=1024)
    fd = listener.fileno()
    command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "web", "--fd", str(fd)]
    if proxy_headers:
        command.append("--proxy-headers")
    children = [subprocess.Popen(command, pass_fds=[fd]) for _ in range(processes)]
    listener.close()  # the children hold it open

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    try:
        _, status = os.wait()
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            child.wait()
    return os.waitstatus_to_exitcode(status) if status else 0
