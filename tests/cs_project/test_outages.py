"""Postgres or Redis out: every endpoint answers 503 with the error shape and Retry-After, a message
that was stored is answered 202 with its turn (so a retry is safe), and the server recovers by
itself. The web server runs as `make run` starts it, reaching both services through TCP gates."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message as Headers
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets
from django.conf import settings
from django.db import connection

from agents.models import TurnRun
from agents.states import TERMINAL
from conversations.api_keys import api_key_create
from conversations.models import Message
from conversations.services import conversation_start, customer_upsert
from conversations.widget import widget_session_open
from cs_project.config import parse_database_url
from tests.conftest import BASE_DIR, _free_port, process_group_stop, subprocess_env
from tests.faults import TcpGate

pytestmark = pytest.mark.django_db(transaction=True)


class Web:
    def __init__(self, url: str, postgres: TcpGate, redis: TcpGate) -> None:
        self.url, self.postgres, self.redis = url, postgres, redis

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Headers, bytes]:
        """(status, headers read in any case, body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, headers=headers, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()


@pytest.fixture
def web() -> Iterator[Web]:
    database = parse_database_url(settings.DATABASE_URL)
    postgres = TcpGate(Path(database.host) / ".s.PGSQL.5432")
    redis_address = urlsplit(settings.REDIS_URL)
    redis = TcpGate((redis_address.hostname or "127.0.0.1", redis_address.port or 6379))
    port = _free_port()
    env = subprocess_env(
        DATABASE_URL=f"postgresql://{database.user}@{postgres.address}/{connection.settings_dict['NAME']}",
        REDIS_URL=f"redis://:{redis_address.password or ''}@{redis.address}",
        API_REPLY_TIMEOUT_S="1",
    )
    process = subprocess.Popen(
        [sys.executable, "manage.py", "web", "--port", str(port), "--processes", "1"],
        cwd=BASE_DIR,
        env=env,
        start_new_session=True,
    )
    server = Web(f"http://127.0.0.1:{port}", postgres, redis)
    deadline = time.monotonic() + 60
    while True:
        try:
            server.call("GET", "/healthz")
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                pytest.fail("the web server did not start")
            time.sleep(0.2)
    yield server
    process_group_stop(process, timeout=15)
    postgres.close()
    redis.close()
    _turns_settled()


def _turns_settled(timeout: float = 30, still_for: float = 3) -> None:
    """Wait for a worker of the session (when one runs) to finish the turns the server took: the database is
    emptied after the test, and emptying it under a worker's query deadlocks. Turns that nobody moves for
    `still_for` seconds have no worker."""
    deadline = time.monotonic() + timeout
    seen, since = None, time.monotonic()
    while time.monotonic() < deadline:
        open_turns = list(TurnRun.objects.exclude(status__in=TERMINAL).values_list("pk", "status"))
        if not open_turns or time.monotonic() - since > still_for:
            return
        if open_turns != seen:
            seen, since = open_turns, time.monotonic()
        time.sleep(0.2)


def assert_unavailable(status: int, headers: Headers, body: bytes) -> None:
    assert status == 503, body[:300]
    assert headers["Content-Type"] == "application/json" and int(headers["Retry-After"]) > 0
    assert json.loads(body)["error"]["code"] == "service_unavailable"


def test_with_redis_out_a_stored_message_is_answered_202_and_a_retry_makes_no_second(web: Web) -> None:
    _, key = api_key_create(name="shop")
    auth = {"Authorization": f"Bearer {key}"}
    conversation = conversation_start(customer=customer_upsert(external_id="outage-1"), channel="api")
    messages = f"/api/v1/conversations/{conversation.pk}/messages"

    web.redis.close()
    first = web.call("POST", messages, {"text": "Where is my order?"}, **auth, **{"Idempotency-Key": "k-1"})
    retry = web.call("POST", messages, {"text": "Where is my order?"}, **auth, **{"Idempotency-Key": "k-1"})
    streamed = web.call("POST", f"{messages}?stream=1", {"text": "你好"}, **auth, **{"Idempotency-Key": "k-2"})
    health = web.call("GET", "/healthz")

    assert first[0] == 202 and retry[0] == 202
    assert json.loads(first[2])["turn_id"] == json.loads(retry[2])["turn_id"]
    assert list(Message.objects.filter(conversation=conversation).values_list("text", flat=True)) == [
        "Where is my order?"
    ]
    assert_unavailable(*streamed)  # the stream needs Redis; nothing of it was stored
    assert health[0] == 503 and "redis" in json.loads(health[2])["down"]

    web.redis.open()
    assert web.call("GET", "/api/v1/kb/search?q=warranty", **auth)[0] == 200


def test_with_postgres_out_every_door_answers_503_and_comes_back_by_itself(web: Web) -> None:
    _, key = api_key_create(name="shop")
    auth = {"Authorization": f"Bearer {key}"}

    web.postgres.close()
    message = web.call("POST", "/api/v1/conversations/1/messages", {"text": "hi"}, **auth)
    search = web.call("GET", "/api/v1/kb/search?q=%E5%8F%91%E7%A5%A8", **auth)
    session = web.call("POST", "/widget/session", {"locale": "zh"})
    page = web.call("GET", "/?lang=zh")
    health = web.call("GET", "/healthz")

    assert_unavailable(*message)
    assert_unavailable(*search)
    assert_unavailable(*session)
    assert session[1]["Access-Control-Allow-Origin"] == "*"
    assert page[0] == 503 and "Retry-After" in page[1] and "暂时不可用" in page[2].decode()
    assert health[0] == 503 and "postgres" in json.loads(health[2])["down"]

    web.postgres.open()
    assert web.call("POST", "/widget/session", {"locale": "en"})[0] == 200
    assert web.call("GET", "/api/v1/kb/search?q=warranty", **auth)[0] == 200


def test_with_redis_out_a_new_visitor_still_gets_a_widget_session(web: Web) -> None:
    web.redis.close()
    session = web.call("POST", "/widget/session", {"locale": "en"})
    web.redis.open()

    assert session[0] == 200, session[2][:300]  # a session is a row and a signed token: no Redis needed
    assert json.loads(session[2])["token"]


@pytest.mark.parametrize(
    ("language", "text", "refusal"), [("zh", "发票怎么开？", "几秒"), ("en", "Invoice?", "few seconds")]
)
def test_the_widget_socket_refuses_a_message_politely_while_postgres_is_out_and_stays_open(
    web: Web, language: str, text: str, refusal: str
) -> None:
    token = widget_session_open(locale=language).token
    url = web.url.replace("http://", "ws://") + f"/ws/widget?token={token}"

    async def exchange() -> tuple[dict[str, Any], dict[str, Any]]:
        async with websockets.connect(url) as ws:
            await ws.recv()  # the history
            web.postgres.close()
            await ws.send(json.dumps({"type": "message.send", "text": text, "client_id": "c-1"}))
            refused = json.loads(await asyncio.wait_for(ws.recv(), 30))
            web.postgres.open()
            await ws.send(json.dumps({"type": "message.send", "text": text, "client_id": "c-1"}))
            while True:  # the same socket takes it once the database is back
                event = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if event.get("type") == "message.created" and event["message"]["client_id"] == "c-1":
                    return refused, event

    refused, stored = asyncio.run(exchange())

    assert refused["type"] == "error" and refused["code"] == "unavailable" and refused["client_id"] == "c-1"
    assert refusal in refused["message"]
    assert stored["message"]["text"] == text
    assert Message.objects.filter(client_id="c-1").count() == 1  # nothing was stored by the refused send
