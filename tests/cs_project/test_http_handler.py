"""The HTTP side of cs_project.asgi: Django's middleware chain and the view run as under WSGI, in one hop from the
event loop to the request's thread."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from asgiref.sync import iscoroutinefunction

from cs_project.asgi import SyncChainHandler, application


def _get(path: str) -> tuple[int, dict[str, str], bytes]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    answer: dict[str, Any] = {"body": b""}

    async def run() -> None:
        received = False

        async def receive() -> dict[str, Any]:
            nonlocal received
            if not received:
                received = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # the client stays connected
            raise AssertionError("unreachable")

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")

        await application(scope, receive, send)

    asyncio.run(run())
    return answer["status"], answer["headers"], answer["body"]


def test_the_middleware_chain_is_the_sync_one() -> None:
    assert not iscoroutinefunction(SyncChainHandler()._middleware_chain)  # type: ignore[attr-defined]


def test_a_request_passes_the_middleware_and_reaches_the_view() -> None:
    status, headers, body = _get("/api/v1/conversations/1")

    assert status == 401  # the API's view, through DRF, without a key
    assert json.loads(body)["error"]["code"] == "not_authenticated"
    assert headers["x-frame-options"] == "DENY"  # XFrameOptionsMiddleware
    assert headers["x-content-type-options"] == "nosniff"  # SecurityMiddleware
