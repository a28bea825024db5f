"""What an operator sees when starting a command with bad or unreachable service settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import BASE_DIR, subprocess_env


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"DATABASE_URL": "mysql://shop@db/cs"}, "DATABASE_URL"),
        ({"DATABASE_URL": "postgresql://db:port/cs"}, "DATABASE_URL"),
        ({"REDIS_URL": "memcached://cache:11211"}, "REDIS_URL"),
        ({"DEBUG": "perhaps"}, "DEBUG"),
        ({"OPENAI_BASE_URL": "not a url"}, "OPENAI_BASE_URL"),
    ],
)
def test_malformed_setting_is_one_line_naming_the_variable(env: dict[str, str], variable: str) -> None:
    result = _manage("check", **env)

    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {variable}")


def test_unreachable_postgres_is_one_line_naming_database_url() -> None:
    result = _manage("check", DATABASE_URL="postgresql://postgres@127.0.0.1:9/cs")

    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith(
        "error: DATABASE_URL: cannot reach Postgres at postgresql://postgres@127.0.0.1:9/cs"
    )


def test_unreachable_redis_is_one_line_naming_redis_url() -> None:
    result = _manage("check", DATABASE_URL=settings.DATABASE_URL, REDIS_URL="redis://127.0.0.1:9")

    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("error: REDIS_URL: cannot reach Redis at redis://127.0.0.1:9")
    assert len(result.stderr.strip().splitlines()) == 1


def test_with_urls_set_nothing_embedded_starts(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"

    result = _manage(
        "services", CS_VAR_DIR=str(var_dir), DATABASE_URL=settings.DATABASE_URL, REDIS_URL=settings.REDIS_URL
    )

    assert result.returncode == 0, result.stderr
    assert "postgres (DATABASE_URL)" in result.stdout
    assert "redis (REDIS_URL)" in result.stdout
    assert not (var_dir / "postgres").exists()
    assert not (var_dir / "redis").exists()


def test_a_worker_asked_for_no_queue_says_so_before_starting() -> None:
    result = _manage("worker", "--queues", " , ", DATABASE_URL=settings.DATABASE_URL, REDIS_URL=settings.REDIS_URL)

    assert result.returncode != 0
    assert "--queues needs at least one queue name" in result.stderr and "Traceback" not in result.stderr
