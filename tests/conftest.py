"""Shared fixtures: the real embedded services, a real Celery worker, named personas."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from cs_project import embedded
from cs_project.celery import app as celery_app
from cs_project.config import parse_database_url

BASE_DIR = Path(settings.BASE_DIR)
SHARED_DATA = BASE_DIR.parent / "shared" / "data"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Leave running what another process (make run) started; stop what this test run started.
    embedded.stop_started_here(settings.VAR_DIR)


def database_url_for_tests() -> str:
    """URL of the test database pytest-django created, for processes the tests start."""
    return parse_database_url(settings.DATABASE_URL).url(name=connection.settings_dict["NAME"])


def subprocess_env(**overrides: str) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cs_project.settings.test"}
    env.update(overrides)
    return env


@pytest.fixture(scope="session")
def celery_worker(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker process on the test database and the test broker."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        database_url = database_url_for_tests()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--concurrency=2", "--loglevel=WARNING"],
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=database_url, REDIS_URL=settings.REDIS_URL),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not celery_app.control.ping(timeout=0.5, limit=1):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("the Celery worker did not start")
    yield process
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture
def sample_store_path() -> Path:
    return BASE_DIR / "tests" / "fixtures" / "taubench_sample.json"
