"""CPU time spent by each part of a running system on this machine (Linux /proc), for a benchmark to
divide by what it served: the web processes, the worker's main process and its children, Postgres,
Redis, and the benchmark itself. And what bounds them: each part's largest process (resident memory) and
Postgres' client connections.

A process that ends (a Postgres backend whose connection closed, a recycled worker child) is counted
through its parent's reaped-children time, so nothing spent in between is lost.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
_PAGE_MIB = os.sysconf("SC_PAGE_SIZE") / 2**20
PARTS = ("web", "worker children", "worker main", "postgres", "redis", "benchmark")


def _processes() -> dict[int, tuple[int, str, float, float]]:
    """pid → (parent, command line, own CPU seconds, reaped children's CPU seconds)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended while being read
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        # after the name: state ppid … utime(12) stime(13) cutime(14) cstime(15), counted from state = 0
        own = (int(fields[11]) + int(fields[12])) * _TICK_S
        reaped = (int(fields[13]) + int(fields[14])) * _TICK_S
        found[int(entry.name)] = (int(fields[1]), command, own, reaped)
    return found


def _part(pid: int, processes: dict[int, tuple[int, str, float, float]]) -> str:
    parent, command, _, _ = processes[pid]
    if "manage.py web" in command:
        return "web"
    if "manage.py worker" in command and "--ingest" not in command:
        parent_command = processes.get(parent, (0, "", 0.0, 0.0))[1]
        return "worker children" if "manage.py worker" in parent_command else "worker main"
    if "postgres" in command.split(" ", 1)[0] or command.startswith("postgres:"):
        return "postgres"
    if "redis-server" in command:
        return "redis"
    return ""


def cpu_seconds() -> dict[str, float]:
    """CPU seconds so far of each part in PARTS. A worker child's reaped time belongs to the worker's main
    process (the children are its reaped children), so it is moved to the children's part."""
    processes = _processes()
    totals = dict.fromkeys(PARTS, 0.0)
    for pid, (_, _, own, reaped) in processes.items():
        part = _part(pid, processes)
        if not part:
            continue
        totals[part] += own
        totals["worker children" if part == "worker main" else part] += reaped
    usage = resource.getrusage(resource.RUSAGE_SELF)
    totals["benchmark"] = usage.ru_utime + usage.ru_stime
    return totals


def cpu_spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {part: after[part] - before[part] for part in PARTS}


def memory_and_connections() -> tuple[dict[str, float], int]:
    """Each part's largest resident memory of one process (MiB), and how many clients Postgres serves now."""
    processes = _processes()
    largest = dict.fromkeys(PARTS[:-1], 0.0)
    clients = 0
    for pid, (_, command, _, _) in processes.items():
        part = _part(pid, processes)
        if not part:
            continue
        if part == "postgres" and command.startswith("postgres:") and ("[local]" in command or "(" in command):
            clients += 1  # a backend serving a client ("postgres: user db [local] idle"), not a server process
        try:
            resident = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE_MIB
        except (OSError, IndexError):
            continue
        largest[part] = max(largest[part], resident)
    return largest, clients
