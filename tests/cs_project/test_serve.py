"""`manage.py serve` (what `make run` starts): everything up, Ctrl-C stops it all, data kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest
from django.conf import settings

from cs_project import embedded
from cs_project.config import parse_database_url
from cs_project.embedded import _free_port
from tests.conftest import BASE_DIR, subprocess_env


@pytest.fixture
def isolated_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A scratch database and the run's own embedded Redis (under a scratch var/), so the run
    touches neither the demo nor the suite."""
    config = parse_database_url(settings.DATABASE_URL)
    name = f"cs_serve_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    var_dir = tmp_path / "var"
    env = subprocess_env(
        DJANGO_SETTINGS_MODULE="cs_project.settings.base",
        DATABASE_URL=config.url(name=name),
        CS_VAR_DIR=str(var_dir),
        WORKER_CONCURRENCY="1",
    )
    env.pop("REDIS_URL", None)
    yield env
    embedded.redis_stop(var_dir)
    with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _get_json(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _serve_until_healthy(env: dict[str, str], port: int) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        try:
            status, body = _get_json(f"http://127.0.0.1:{port}/healthz")
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.5)
            continue
        if status == 200:
            return process, body
        time.sleep(0.5)
    process.kill()
    pytest.fail("serve did not become healthy")


def _interrupt(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    return output


def _until_health(
    port: int, condition: Callable[[Any], bool], timeout: float = 60, *, web_restarting: bool = False
) -> dict[str, Any]:
    """Poll /healthz until `condition(body)`; every poll must get an answer (the site stays up),
    unless it is the web server itself that is being started again."""
    deadline = time.monotonic() + timeout
    seen: list[Any] = []
    while time.monotonic() < deadline:
        try:
            _, body = _get_json(f"http://127.0.0.1:{port}/healthz")
        except (urllib.error.URLError, ConnectionError):
            if not web_restarting:
                raise
            time.sleep(0.5)
            continue
        seen.append({k: body.get(k) for k in ("status", "down", "degraded")})
        if "processes" in body and condition(body):
            return body
        time.sleep(0.5)
    pytest.fail(f"not recovered within {timeout} s: {seen[-3:]}")


def _pid_of(var_dir: str, command: str, *, without: str = "") -> int:
    for process in psutil.process_iter(["cmdline"]):
        try:
            line = " ".join(process.info["cmdline"] or [])
            if process.environ().get("CS_VAR_DIR") == var_dir and command in line and not (without and without in line):
                return process.pid
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    raise AssertionError(f"no {command} running")


def _processes_of_run(var_dir: str) -> list[str]:
    """Command lines of processes started with this run's environment (the server and its children)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if process.environ().get("CS_VAR_DIR") == var_dir:
                found.append(" ".join(process.info["cmdline"] or []))
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def test_serve_starts_everything_and_ctrl_c_stops_it_keeping_the_data(isolated_env: dict[str, str]) -> None:
    port = _free_port()

    # when: the first run comes up, as `make run` starts it
    process, health = _serve_until_healthy({**isolated_env, "DEMO_MODE": "1"}, port)

    # then: every part answers, uploads with a worker of their own, and the demo store is there
    assert health["status"] == "ok" and health["processes"]["ingest"]["state"] == "running"
    assert _pid_of(isolated_env["CS_VAR_DIR"], "manage.py worker --ingest --concurrency 1")
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/?lang=zh", timeout=5).read().decode()
    assert "Find X9" in page
    assert urllib.request.urlopen(f"http://127.0.0.1:{port}/static/admin/css/base.css", timeout=5).status == 200
    with psycopg.connect(isolated_env["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("UPDATE store_order SET status = 'cancelled' WHERE external_id = '#D1001'")

    # when: the worker's whole process group is killed; then: it is started again, the site never stops
    worker = _pid_of(isolated_env["CS_VAR_DIR"], "manage.py worker", without="--ingest")
    os.killpg(worker, signal.SIGKILL)
    health = _until_health(port, lambda h: h["processes"]["worker"]["restarts"] >= 1 and h["status"] == "ok")
    assert health["processes"]["web"]["restarts"] == 0 and health["processes"]["beat"]["restarts"] == 0

    # when: beat dies, then the web server; then: each is started again, and only that one
    os.killpg(_pid_of(isolated_env["CS_VAR_DIR"], "manage.py beat"), signal.SIGKILL)
    health = _until_health(port, lambda h: h["processes"]["beat"]["restarts"] >= 1 and h["status"] == "ok")
    os.killpg(_pid_of(isolated_env["CS_VAR_DIR"], "manage.py web"), signal.SIGKILL)
    health = _until_health(
        port, lambda h: h["processes"]["web"]["restarts"] >= 1 and h["status"] == "ok", web_restarting=True
    )
    restarts = {name: part["restarts"] for name, part in health["processes"].items()}
    assert restarts == {"web": 1, "worker": 1, "ingest": 0, "beat": 1}

    # when: the embedded Redis dies; then: it is started again on its data, and everything recovers
    redis_pid = int((Path(isolated_env["CS_VAR_DIR"]) / "redis" / "redis.pid").read_text())
    os.kill(redis_pid, signal.SIGKILL)
    _until_health(port, lambda h: h["embedded"]["redis"]["restarts"] >= 1 and h["status"] == "ok")

    # when: Ctrl-C
    output = _interrupt(process)

    # then: it printed where things are, and stopped every process it started
    assert process.returncode == 0, output
    assert f"demo store : http://127.0.0.1:{port}/" in output
    assert output.index("starting the web server") < output.index("demo store :")
    assert "not healthy yet" not in output and "Service Unavailable: /healthz" not in output
    assert f"admin      : http://127.0.0.1:{port}/admin/" in output
    assert "login staff / staff-demo-123" in output and "DEMO MODE" in output
    assert "stopped: web, worker, ingest, beat" in output
    assert _processes_of_run(isolated_env["CS_VAR_DIR"]) == []

    # when: it runs a second time, out of demo mode
    process, health = _serve_until_healthy(isolated_env, port)
    output = _interrupt(process)

    # then: the data of the first run is still there, and the demo login no longer opens
    with psycopg.connect(isolated_env["DATABASE_URL"]) as conn:
        status = conn.execute("SELECT status FROM store_order WHERE external_id = '#D1001'").fetchone()
        orders = conn.execute("SELECT count(*) FROM store_order").fetchone()
        password = conn.execute("SELECT password FROM auth_user WHERE username = 'staff'").fetchone()
    assert status == ("cancelled",)
    assert orders == (10,)
    assert password is not None and password[0].startswith("!")  # Django's unusable password
    assert "DEMO MODE" not in output and "staff-demo-123" not in output
    assert "no longer opens with its demo password" in output
