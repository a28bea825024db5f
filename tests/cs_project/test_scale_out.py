"""Scaled out on one machine: two ASGI processes and two Celery workers on the same Postgres and Redis,
started the way docs/deploy.md tells an operator to start them on many machines.

A shopper's reply reaches a widget socket on the other web process (the channel layer is shared, not
the process), and a worker killed in the middle of a turn costs the turn nothing: the survivor
answers it once, and the delivery the broker later hands out again finds nothing left to do."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

import pytest
from celery.utils.nodenames import host_format
from django.conf import settings
from django.db import transaction
from django.db.models import F
from websockets.sync.client import ClientConnection, connect

from agents.models import Subtask, TurnRun
from agents.states import TERMINAL, SubtaskStatus, TurnStatus
from agents.tasks import subtask_execute_task
from conversations.api_keys import api_key_create
from conversations.models import Conversation, Customer, Message
from conversations.realtime import conversation_group
from conversations.services import conversation_start
from cs_project.celery import app as celery_app
from tests.agents.engine import sse_events, turn_fanned_out_by_hand
from tests.conftest import BASE_DIR, _free_port, database_url_for_tests, process_group_stop, subprocess_env

pytestmark = pytest.mark.django_db(transaction=True)

T = TypeVar("T")

WORKER_NAMES = ("w1@%h", "w2@%h")
# Only our two workers consume it, so the turn the kill test needs lands on a worker this module may
# kill, and never on the session's `celery_worker` (which shares the default queue with them).
PRIVATE_QUEUE = f"{settings.CELERY_TASK_DEFAULT_QUEUE}.scale-out"


@dataclass
class Cluster:
    web: list[str]  # base URLs of the two ASGI processes
    workers: dict[str, subprocess.Popen[bytes]]  # node name → worker process


def _started(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "manage.py", *argv], cwd=BASE_DIR, env=env, start_new_session=True)


def _until_web_answers(url: str, process: subprocess.Popen[bytes], deadline: float) -> None:
    while True:
        try:
            urllib.request.urlopen(f"{url}/healthz", timeout=5).close()
            return
        except urllib.error.HTTPError:
            return  # a 503 is an answer: the server is up
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the ASGI server on {url} did not start")
            time.sleep(0.2)


def _until_worker_answers(node: str, process: subprocess.Popen[bytes], deadline: float) -> None:
    while not celery_app.control.ping(destination=[node], timeout=0.5):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the Celery worker {node} did not start")


@pytest.fixture(scope="module")
def cluster(django_db_setup: None, django_db_blocker: Any) -> Iterator[Cluster]:
    with django_db_blocker.unblock():
        env = subprocess_env(DATABASE_URL=database_url_for_tests(), REDIS_URL=settings.REDIS_URL, DEMO_MODE="1")
    ports = [_free_port()]
    while len(ports) < 2:
        ports = list(dict.fromkeys([*ports, _free_port()]))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        web = {
            f"http://127.0.0.1:{port}": _started(["web", "--port", str(port), "--processes", "1"], env)
            for port in ports
        }
        processes.extend(web.values())
        workers = {
            host_format(name): _started(["worker", "--concurrency=2", f"--hostname={name}", "--loglevel=WARNING"], env)
            for name in WORKER_NAMES
        }
        processes.extend(workers.values())
        # Four Django processes boot at once on two cores: give them longer than one alone needs.
        deadline = time.monotonic() + 90
        for url, process in web.items():
            _until_web_answers(url, process, deadline)
        for node, process in workers.items():
            _until_worker_answers(node, process, deadline)
        added = celery_app.control.add_consumer(PRIVATE_QUEUE, destination=list(workers), reply=True, timeout=5)
        assert len(added) == len(workers), added
        yield Cluster(list(web), workers)
    finally:
        for process in processes:
            if process.poll() is None:
                process_group_stop(process, timeout=20)


def _until(condition: Callable[[], T | None], *, timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def _post_json(url: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _event_stream(url: str, body: Any, headers: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of a POST answered with text/event-stream, until the server ends it."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream", **headers},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert response.headers["X-Accel-Buffering"] == "no"  # what lets nginx pass each event on at once
        return sse_events(response)


@contextmanager
def _widget(base_url: str, token: str) -> Iterator[ClientConnection]:
    """The widget's socket on one ASGI process, past its `history` frame."""
    with connect(f"{base_url.replace('http://', 'ws://')}/ws/widget?token={token}", open_timeout=30) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "history"
        yield socket


def _until_reply_done(socket: ClientConnection, *, timeout: float = 30) -> list[dict[str, Any]]:
    """Every event up to and including the first reply.done."""
    deadline = time.monotonic() + timeout
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] != "reply.done":
        events.append(json.loads(socket.recv(timeout=max(0.1, deadline - time.monotonic()))))
    return events


def _assert_streamed_reply(events: list[dict[str, Any]], *, text: str, conversation_id: int) -> dict[str, Any]:
    """The customer's message came back, then the reply as deltas adding up to the one reply.done of
    the turn; returns that reply.done."""
    echo = next(e["message"] for e in events if e["type"] == "message.created" and e["message"]["sender"] == "customer")
    assert echo["text"] == text
    deltas = [e["delta"] for e in events if e["type"] == "reply.delta"]
    done = events[-1]
    assert deltas and "".join(deltas) == done["text"]
    turn = TurnRun.objects.get(conversation_id=conversation_id)
    assert turn.status == TurnStatus.DONE and (done["turn_id"], done["message_id"]) == (turn.pk, turn.reply_message_id)
    bot_messages = Message.objects.filter(conversation_id=conversation_id, sender="bot")
    assert list(bot_messages.values_list("pk", flat=True)) == [turn.reply_message_id]
    return done


def test_a_message_sent_through_one_server_is_answered_on_a_widget_connected_to_the_other(cluster: Cluster) -> None:
    server_a, server_b = cluster.web
    session = _post_json(f"{server_a}/widget/session", {"locale": "en"})

    # the same shopper in two tabs, each tab's socket on a different ASGI process
    with _widget(server_b, session["token"]) as tab_on_b, _widget(server_a, session["token"]) as tab_on_a:
        tab_on_a.send(json.dumps({"type": "message.send", "text": "Hello there!", "client_id": "scale-out-en"}))
        on_b = _until_reply_done(tab_on_b)
        on_a = _until_reply_done(tab_on_a)

    done = _assert_streamed_reply(on_b, text="Hello there!", conversation_id=session["conversation_id"])
    assert next(e for e in on_b if e["type"] == "message.created")["message"]["client_id"] == "scale-out-en"
    assert on_a[-1] == done
    assert "hello" in done["text"].lower()


def test_a_message_posted_to_one_servers_api_streams_its_reply_to_a_widget_on_the_other(cluster: Cluster) -> None:
    server_a, server_b = cluster.web
    session = _post_json(f"{server_a}/widget/session", {"locale": "zh"})
    _, key = api_key_create(name="scale-out")
    messages = f"{server_a}/api/v1/conversations/{session['conversation_id']}/messages"

    with _widget(server_b, session["token"]) as widget_on_b:
        streamed = _event_stream(
            messages, {"text": "你好呀！"}, {"Authorization": f"Bearer {key}", "Idempotency-Key": "scale-out-zh"}
        )
        on_b = _until_reply_done(widget_on_b)

    done = _assert_streamed_reply(on_b, text="你好呀！", conversation_id=session["conversation_id"])
    names = [name for name, _ in streamed]
    assert names[0] == "accepted" and names[-2:] == ["reply.done", "turn"]
    assert {key: dict(streamed)["reply.done"][key] for key in ("turn_id", "message_id", "text")} == {
        key: done[key] for key in ("turn_id", "message_id", "text")
    }
    assert "您好" in done["text"]


# --- a worker killed mid-turn --------------------------------------------------------------------


def _fan_out_to_our_workers(chat: Conversation, specialists: list[str]) -> tuple[TurnRun, dict[str, str]]:
    """A turn with these subtasks, queued as the agent node queues them but on our workers' own queue;
    returns the turn and each specialist's Celery task id."""
    with transaction.atomic():
        turn, subtasks = turn_fanned_out_by_hand(chat, specialists)
        task_ids = {subtask.specialist: f"scale-out-subtask-{subtask.pk}" for subtask in subtasks}
        for subtask in subtasks:
            transaction.on_commit(
                partial(
                    subtask_execute_task.apply_async,
                    (subtask.pk,),
                    queue=PRIVATE_QUEUE,
                    task_id=task_ids[subtask.specialist],
                )
            )
    return turn, task_ids


def _asked(node: str, command: str) -> Any:
    """`node`'s answer to a Celery inspect command, asked again until it answers: a worker busy
    starting a task can miss a reply deadline, and no answer must not read as "nothing running"."""

    def ask() -> tuple[Any] | None:
        replies = getattr(celery_app.control.inspect(destination=[node], timeout=2, limit=1), command)() or {}
        return (replies[node],) if node in replies else None

    return _until(ask, timeout=20, what=f"{node} answering {command}")[0]


def _running(task_id: str, node: str) -> bool:
    return any(task["id"] == task_id for task in _asked(node, "active"))


def _subtasks_started(node: str) -> int:
    """How many subtasks `node` has started since it came up."""
    return int(_asked(node, "stats")["total"].get(subtask_execute_task.name, 0))


def _unacked_delivery_restore(task_id: str) -> bool:
    """Put the delivery of `task_id` that a dead worker left unacknowledged back on its queue, as the
    broker does by itself once it is older than the visibility timeout."""
    with celery_app.connection_for_write() as connection:
        channel = connection.default_channel
        for tag, raw in channel.client.hgetall(channel.unacked_key).items():
            message, _exchange, _routing_key = json.loads(raw)
            if message["headers"]["id"] == task_id:
                channel.qos.restore_by_tag(tag, leftmost=True)
                return True
    return False


def test_a_worker_killed_in_the_middle_of_a_turn_costs_it_nothing_and_it_is_answered_once(
    cluster: Cluster, listen: Any
) -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="scale_out_kill", name="Ada", locale="en"))
    events = listen(conversation_group(chat.pk))
    turn, task_ids = _fan_out_to_our_workers(chat, ["hanging", "slow_io"])
    _until(
        lambda: Subtask.objects.filter(turn=turn, specialist="slow_io", status=SubtaskStatus.DONE).exists(),
        timeout=30,
        what="the quick subtask answered",
    )
    nodes = [node for node, process in cluster.workers.items() if process.poll() is None]
    victim = _until(
        lambda: next((node for node in nodes if _running(task_ids["hanging"], node)), None),
        timeout=15,
        what="the slow subtask running",
    )
    survivor = next(node for node in nodes if node != victim)

    # when: the worker in the middle of the turn dies with all its processes, as with a lost machine
    os.killpg(cluster.workers[victim].pid, signal.SIGKILL)
    cluster.workers[victim].wait(timeout=10)

    # The broker holds the dead worker's delivery for its visibility timeout (an hour), so what
    # recovers the turn is the sweep beat sends every 15 s, once the subtask is older than
    # SUBTASK_TIMEOUT_S + 10 s. The rows are aged by that much instead of waiting it out.
    Subtask.objects.filter(turn=turn, status=SubtaskStatus.PENDING).update(
        created_at=F("created_at") - timedelta(seconds=settings.SUBTASK_TIMEOUT_S + 10)
    )
    celery_app.send_task("agents.tasks.turn_sweep_task")  # what beat sends

    # then: the turn ends with the answer the survivor had, once, on the customer's socket too
    done = _until(
        lambda: TurnRun.objects.filter(pk=turn.pk, status__in=TERMINAL).first(), timeout=30, what="the turn answered"
    )
    assert done.status == TurnStatus.DONE and "answer to q1" in done.reply["text"]
    assert dict(Subtask.objects.filter(turn=turn).values_list("specialist", "status")) == {
        "hanging": SubtaskStatus.TIMED_OUT,
        "slow_io": SubtaskStatus.DONE,
    }
    bot_messages = Message.objects.filter(conversation=chat, sender="bot")
    assert list(bot_messages.values_list("pk", flat=True)) == [done.reply_message_id]
    reply_done = events.events(timeout=10, until="reply.done")[-1]
    assert reply_done["type"] == "reply.done" and reply_done["message_id"] == done.reply_message_id

    # when: the dead worker's delivery comes round again (acks_late), as it does an hour later
    started_before = _subtasks_started(survivor)
    assert _unacked_delivery_restore(task_ids["hanging"]), "the broker lost the dead worker's delivery"
    _until(
        lambda: _subtasks_started(survivor) > started_before and not _running(task_ids["hanging"], survivor),
        timeout=20,
        what="the survivor ran the redelivered subtask",
    )

    # then: it finds the subtask settled and says nothing more
    assert list(bot_messages.values_list("pk", flat=True)) == [done.reply_message_id]
    assert Subtask.objects.get(turn=turn, specialist="hanging").status == SubtaskStatus.TIMED_OUT
