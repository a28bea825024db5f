"""What `manage.py serve` runs: the web server, a worker and beat as child processes, kept alive.

- A child that exits (a crash, `kill -9` of its process group) is started again after a backoff:
  1 s, doubling to 30 s while it keeps failing, back to 1 s once it has run a minute. The other
  children never notice.
- The embedded Postgres and Redis (when no DATABASE_URL / REDIS_URL is set) are checked every
  couple of seconds and started again on the same data if they died. A paused or busy one is not
  dead: it still holds its data directory (cs_project.embedded), so it is waited for, never doubled.
  Should a Redis come back on another port (its own was taken meanwhile), every child is started
  again, so all processes always talk to the one Redis.
- The state of every part is written to `var/serve_status.json`, which /healthz reads to report
  what is degraded (cs_project.health).
- Ctrl-C or SIGTERM stops the children in order, then the embedded services this run started.
- when_healthy() tells `serve` when the whole system answers, so its addresses are printed when they work.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from cs_project import embedded
from cs_project.config import ConfigError

BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 30.0
HEALTHY_AFTER_S = 60.0  # a child that ran this long before exiting starts again at the first backoff
SERVICES_CHECK_EVERY_S = 2.0
STATUS_FILE = "serve_status.json"


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff_s: float = BACKOFF_FIRST_S
    restart_at: float | None = None
    last_exit: int | None = None

    def state(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return "running"
        return "restarting"


@dataclass
class EmbeddedService:
    name: str
    pid: Callable[[Path], int | None]  # of the server holding the data; None when none does
    ensure: Callable[[Path], object]
    restarts: int = 0
    server_pid: int | None = None  # the last one seen
    ok: bool = True
    next_try_at: float = 0.0
    backoff_s: float = BACKOFF_FIRST_S


@dataclass
class Supervisor:
    argvs: dict[str, list[str]]
    cwd: Path
    var_dir: Path
    embedded_services: list[str] = field(default_factory=list)  # "postgres", "redis"
    say: Callable[[str], None] = print
    children: dict[str, Child] = field(init=False)
    services: list[EmbeddedService] = field(init=False)
    stop_report: list[str] = field(init=False, default_factory=list)
    _stopping: bool = field(init=False, default=False)
    _redis_url: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.children = {name: Child(name, argv) for name, argv in self.argvs.items()}
        known = {
            "postgres": EmbeddedService("postgres", embedded.postgres_pid, embedded.postgres_ensure),
            "redis": EmbeddedService("redis", embedded.redis_pid, embedded.redis_ensure),
        }
        self.services = [known[name] for name in self.embedded_services]

    def run(self) -> None:
        """Start every child and keep them up until Ctrl-C or SIGTERM; then stop them all."""
        signal.signal(signal.SIGINT, self._request_stop)
        signal.signal(signal.SIGTERM, self._request_stop)
        if "redis" in self.embedded_services:
            self._redis_url = embedded.redis_url(self.var_dir)
        for service in self.services:
            service.server_pid = service.pid(self.var_dir)
        for child in self.children.values():
            self._start(child)
        services_checked = time.monotonic()
        while not self._stopping:
            now = time.monotonic()
            for child in self.children.values():
                self._watch(child, now)
            if now - services_checked >= SERVICES_CHECK_EVERY_S:
                services_checked = now
                for service in self.services:
                    self._watch_service(service, now)
                self._write_status()
            time.sleep(0.2)
        self.stop_report = self.stop()

    def _request_stop(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True

    @property
    def stopping(self) -> bool:
        return self._stopping

    def _start(self, child: Child) -> None:
        # Each child gets its own process group, so Ctrl-C reaches only this process, which then
        # stops the children in order instead of all of them dying at once mid-request.
        child.process = subprocess.Popen(child.argv, cwd=self.cwd, start_new_session=True)
        child.started_at, child.restart_at = time.monotonic(), None

    def _watch(self, child: Child, now: float) -> None:
        if child.restart_at is not None:
            if now >= child.restart_at:
                child.restarts += 1
                self.say(f"{child.name}: starting again (restart {child.restarts})")
                self._start(child)
            return
        assert child.process is not None
        code = child.process.poll()
        if code is None:
            return
        self._reap_group(child.process)
        if now - child.started_at >= HEALTHY_AFTER_S:
            child.backoff_s = BACKOFF_FIRST_S
        child.last_exit, child.restart_at = code, now + child.backoff_s
        self.say(f"{child.name} exited with code {code}; starting it again in {child.backoff_s:.0f} s")
        child.backoff_s = min(child.backoff_s * 2, BACKOFF_MAX_S)
        self._write_status()

    def _watch_service(self, service: EmbeddedService, now: float) -> None:
        pid = service.pid(self.var_dir)
        if pid is not None:
            if not service.ok:
                self.say(f"embedded {service.name} is back")
            service.ok, service.backoff_s = True, BACKOFF_FIRST_S
            if pid and service.server_pid and pid != service.server_pid:
                # Any process of the project that loads the settings starts a dead embedded service itself
                # (a child starting again at that moment), so it can be back before this loop saw it gone.
                self._count_restart(service, f"embedded {service.name} was started again by another process")
            service.server_pid = pid or service.server_pid
            return
        if service.ok:
            self.say(f"embedded {service.name} is down; starting it again")
            service.ok = False
        if now < service.next_try_at:
            return
        try:
            service.ensure(self.var_dir)
        except (ConfigError, OSError, subprocess.SubprocessError) as exc:
            service.next_try_at = now + service.backoff_s
            service.backoff_s = min(service.backoff_s * 2, BACKOFF_MAX_S)
            self.say(f"embedded {service.name} did not start ({exc}); trying again in {service.backoff_s:.0f} s")
            return
        service.ok, service.server_pid = True, service.pid(self.var_dir)
        self._count_restart(service, f"embedded {service.name} started again")

    def _count_restart(self, service: EmbeddedService, message: str) -> None:
        service.restarts += 1
        self.say(message)
        if service.name == "redis":
            self._follow_redis()

    def _follow_redis(self) -> None:
        """Restart every child when the embedded Redis came back on another address: each read it once."""
        url = embedded.redis_url(self.var_dir)
        if url == self._redis_url:
            return
        self._redis_url = url
        self.say("embedded redis is on a new port; starting every process again")
        for child in self.children.values():
            if child.process is not None and child.process.poll() is None:
                self._reap_group(child.process)
                child.process.wait()
            child.restart_at = None
            self._start(child)

    @staticmethod
    def _reap_group(process: subprocess.Popen[bytes]) -> None:
        """A child's own children (the worker's pool) must not outlive it and hold its queue."""
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def status(self) -> dict[str, object]:
        return {
            "pid": os.getpid(),
            "updated_at": time.time(),
            "processes": {
                child.name: {"state": child.state(), "restarts": child.restarts, "last_exit": child.last_exit}
                for child in self.children.values()
            },
            "services": {
                service.name: {"state": "running" if service.ok else "restarting", "restarts": service.restarts}
                for service in self.services
            },
        }

    def _write_status(self) -> None:
        path = self.var_dir / STATUS_FILE
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.status()))
        temporary.replace(path)

    def stop(self) -> list[str]:
        """Stop the children (SIGTERM, then SIGKILL after 15 s) and the embedded services this run
        started; return the names of what was stopped."""
        running = [child for child in self.children.values() if child.process is not None]
        for child in running:
            if child.process is not None and child.process.poll() is None:
                os.killpg(child.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for child in running:
            assert child.process is not None
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.process.pid, signal.SIGKILL)
                child.process.wait()
        (self.var_dir / STATUS_FILE).unlink(missing_ok=True)
        return [*self.children, *embedded.stop_started_here(self.var_dir)]


def serve_status(var_dir: Path, *, max_age_s: float = 10.0) -> dict[str, Any] | None:
    """The supervisor's last status, or None when no `serve` is running (or it stopped updating)."""
    try:
        status = json.loads((var_dir / STATUS_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return None
    if time.time() - float(status.get("updated_at", 0)) > max_age_s:
        return None
    return status


READY_WAIT_S = 120.0
READY_POLL_S = 0.5


def when_healthy(
    health_url: str, announce: Callable[[bool], None], *, stopping: Callable[[], bool], wait_s: float = READY_WAIT_S
) -> None:
    """Poll `health_url` until it answers 200, then `announce(True)`; after `wait_s` without it, `announce(False)`
    (the addresses are printed either way, the second time saying the system is not healthy yet). Nothing is
    announced once `stopping()`. Run on a thread beside the supervisor, which keeps the main one."""
    deadline = time.monotonic() + wait_s
    while not stopping():
        try:
            with urllib.request.urlopen(health_url, timeout=5) as response:
                if response.status == 200:
                    announce(True)
                    return
        except (urllib.error.URLError, OSError):
            pass  # not listening yet (URLError), or a part still down (HTTPError 503)
        if time.monotonic() >= deadline:
            announce(False)
            return
        time.sleep(READY_POLL_S)
