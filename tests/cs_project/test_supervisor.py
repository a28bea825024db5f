"""The supervisor behind `manage.py serve`, on real child processes: a child that keeps dying is
started again after 1, 2, 4 … s, one that ran a healthy while starts again at 1 s, its sibling never
notices, and /healthz names it degraded while it waits."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import pytest
from django.test import Client

from cs_project import embedded
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


def _redis_supervisor(var_dir: Path, said: list[str]) -> Supervisor:
    supervisor = Supervisor(
        argvs={"web": SLEEPER}, cwd=var_dir, var_dir=var_dir, embedded_services=["redis"], say=said.append
    )
    supervisor._redis_url = embedded.redis_url(var_dir)
    supervisor.services[0].server_pid = embedded.redis_pid(var_dir)
    supervisor._start(supervisor.children["web"])
    return supervisor


def _redis_servers(var_dir: Path) -> list[psutil.Process]:
    return embedded._redis_servers(var_dir.resolve() / "redis")


@pytest.fixture
def redis_var(tmp_path: Path) -> Iterator[Path]:
    embedded.redis_ensure(tmp_path)
    yield tmp_path
    embedded.redis_stop(tmp_path)


def test_a_paused_redis_is_waited_for_and_no_second_one_is_started(redis_var: Path, said: list[str]) -> None:
    # given: serve runs on the embedded Redis, which is paused (SIGSTOP) longer than a ping's timeout
    supervisor = _redis_supervisor(redis_var, said)
    [server] = _redis_servers(redis_var)
    server.suspend()
    try:
        # when: the supervisor checks its services for a while
        for _ in range(3):
            supervisor._watch_service(supervisor.services[0], time.monotonic())
            time.sleep(1.1)
        servers_while_paused = [process.pid for process in _redis_servers(redis_var)]
    finally:
        server.resume()
        supervisor.stop()

    # then: still the one server, nothing restarted
    assert servers_while_paused == [server.pid]
    assert supervisor.services[0].restarts == 0 and not any("redis" in line for line in said)


def test_a_redis_back_on_another_port_restarts_every_process(redis_var: Path, said: list[str]) -> None:
    # given: the embedded Redis dies and something else takes its port before it comes back
    supervisor = _redis_supervisor(redis_var, said)
    web = supervisor.children["web"].process
    assert web is not None
    [server] = _redis_servers(redis_var)
    old_url = embedded.redis_url(redis_var)
    assert old_url is not None
    server.kill()
    server.wait(5)
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", int(old_url.rsplit(":", 1)[1])))
    squatter.listen()
    try:
        # when
        supervisor._watch_service(supervisor.services[0], time.monotonic())
        new_url, servers = embedded.redis_url(redis_var), _redis_servers(redis_var)
    finally:
        squatter.close()
        supervisor.stop()

    # then: one Redis on a new port, and the web process was started again to read it
    assert new_url != old_url and len(servers) == 1
    assert supervisor.children["web"].process is not web and web.poll() is not None
    assert "embedded redis is on a new port; starting every process again" in said


def test_a_redis_another_process_started_again_between_two_checks_counts_as_a_restart(
    redis_var: Path, said: list[str]
) -> None:
    # given: the embedded Redis dies, and a process loading the settings starts it again before serve looks
    supervisor = _redis_supervisor(redis_var, said)
    [server] = _redis_servers(redis_var)
    server.kill()
    server.wait(5)
    embedded.redis_ensure(redis_var)
    try:
        # when: serve checks its services, twice
        for _ in range(2):
            supervisor._watch_service(supervisor.services[0], time.monotonic())
        servers = [process.pid for process in _redis_servers(redis_var)]
    finally:
        supervisor.stop()

    # then: one restart is counted, of the one new server, and no further one is started
    assert supervisor.services[0].restarts == 1 and supervisor.services[0].ok
    assert len(servers) == 1 and servers != [server.pid]
    assert said.count("embedded redis was started again by another process") == 1


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
