"""The HTTP and WebSocket server: daphne, with two answers it does not give by itself.

- A request whose URL carries raw UTF-8 (`curl "…/kb/search?q=专票需要什么"` sends it as is;
  browsers percent-encode it) got a bare 400 from Twisted's request-line parser, which follows
  RFC 9112 to the letter, before the application saw it. Here those bytes are percent-encoded
  first, as a browser would have, so the query simply works.
- A WebSocket message over daphne's limit (1 MiB) made autobahn drop the TCP connection without a
  close frame; here the client is told why, with close code 1009 (message too big).
"""

from __future__ import annotations

import re

import daphne.server
import twisted.web.http
from daphne.cli import CommandLineInterface
from daphne.ws_protocol import WebSocketFactory

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


def web_server_run(*, host: str, port: int, proxy_headers: bool = False) -> None:
    """Serve cs_project.asgi until stopped (blocks). `proxy_headers`: take the client's address and
    scheme from X-Forwarded-For / X-Forwarded-Proto, which only a trusted proxy in front may set."""
    twisted.web.http._parseRequestLine = _parse_request_line_ascii
    daphne.server.WebSocketFactory = _ClosingWebSocketFactory  # type: ignore[misc]
    argv = ["-b", host, "-p", str(port)]
    if proxy_headers:
        argv.append("--proxy-headers")
    CommandLineInterface().run([*argv, "cs_project.asgi:application"])
