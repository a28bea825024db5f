"""The supervisor behind `manage.py serve`, on real child processes: a child that keeps dying is
started again after 1, 2, 4 … s, one that ran a healthy while starts again at 1 s, its sibling never
notices, and /healthz names it degraded while it waits."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from cs_project import supervisor as supervisor_module
from cs_project.supervisor import Supervisor, when_healthy

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def _watch_for(supervisor: Supervisor, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for child in supervisor.children.values():
            supervisor._watch(child, time.monotonic())
        time.sleep(0.05)


@pytest.fixture
def said() -> list[str]:
    return []


def _supervisor(tmp_path: Path, said: list[str], crashing: list[str]) -> Supervisor:
    supervisor = Supervisor(argvs={"worker": crashing, "web": SLEEPER}, cwd=tmp_path, var_dir=tmp_path, say=said.append)
    for child in supervisor.children.values():
        supervisor._start(child)
    return supervisor


def test_a_child_that_keeps_dying_waits_longer_each_time_and_its_sibling_runs_on(
    tmp_path: Path, said: list[str]
) -> None:
    supervisor = _supervisor(tmp_path, said, [sys.executable, "-c", "raise SystemExit(3)"])
    web = supervisor.children["web"].process
    assert web is not None

    try:
        _watch_for(supervisor, 7.6)  # dies at once each time: out at 0, 1, 3 and 7 s
    finally:
        supervisor.stop()

    worker = supervisor.children["worker"]
    waits = [line for line in said if line.startswith("worker exited")]
    assert waits[:3] == [f"worker exited with code 3; starting it again in {s} s" for s in (1, 2, 4)]
    assert worker.restarts == 3 and worker.last_exit == 3
    assert supervisor.children["web"].restarts == 0 and supervisor.children["web"].process is web


def test_a_child_that_ran_a_healthy_while_starts_again_at_once(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor_module, "HEALTHY_AFTER_S", 0.5)
    supervisor = _supervisor(tmp_path, said, [sys.executable, "-c", "import time; time.sleep(0.7)"])

    try:
        _watch_for(supervisor, 4.0)  # runs 0.7 s (healthy), 1 s wait, runs 0.7 s, 1 s wait …
    finally:
        supervisor.stop()

    waits = [line for line in said if line.startswith("worker exited")]
    assert len(waits) >= 2 and all(line.endswith("in 1 s") for line in waits)


def test_healthz_names_the_child_being_started_again_as_degraded(
    tmp_path: Path, said: list[str], settings: Any, db: None
) -> None:
    settings.VAR_DIR = tmp_path
    supervisor = _supervisor(tmp_path, said, [sys.executable, "-c", "raise SystemExit(1)"])
    try:
        _watch_for(supervisor, 0.5)  # died, waiting its first second
        supervisor._write_status()
        waiting = Client().get("/healthz").json()
        _watch_for(supervisor, 0.8)  # started again, and dead again
    finally:
        supervisor.stop()

    assert waiting["degraded"] == ["worker"]
    assert waiting["processes"]["worker"] == {"state": "restarting", "restarts": 0, "last_exit": 1}
    assert waiting["processes"]["web"]["state"] == "running"


class _Health(BaseHTTPRequestHandler):
    answers: list[int] = []
    asked: list[int] = []

    def do_GET(self) -> None:
        status = self.answers.pop(0) if self.answers else 200
        self.asked.append(status)
        self.send_response(status)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Health.answers, _Health.asked = [], []
    yield f"http://127.0.0.1:{server.server_address[1]}/healthz"
    server.shutdown()


def test_the_addresses_are_announced_once_the_system_answers_healthy(health_server: str) -> None:
    _Health.answers = [503, 503, 503]
    announced: list[tuple[bool, list[int]]] = []

    when_healthy(health_server, lambda ok: announced.append((ok, list(_Health.asked))), stopping=lambda: False)

    assert announced == [(True, [503, 503, 503, 200])]


def test_a_system_that_never_gets_healthy_is_announced_so_after_the_wait(health_server: str) -> None:
    _Health.answers = [503] * 100
    announced: list[bool] = []

    when_healthy(health_server, announced.append, stopping=lambda: False, wait_s=1.0)

    assert announced == [False] and len(_Health.asked) >= 2


def test_nothing_is_announced_once_stopping(health_server: str) -> None:
    announced: list[bool] = []

    when_healthy(health_server, announced.append, stopping=lambda: True)

    assert announced == [] and _Health.asked == []
