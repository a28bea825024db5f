"""The OpenAPI schema against the running API: schemathesis makes requests from /api/schema/ (valid
and invalid ones) to daphne with a real worker, and no answer may be a server error or differ
from what the schema says (status code, media type, body)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from agents.models import TurnRun
from agents.states import TERMINAL
from conversations.api_keys import api_key_create
from knowledge.models import IngestJob, IngestJobStatus
from tests.conftest import AsgiServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def api_schema(asgi_server: AsgiServer) -> Any:
    return schemathesis.openapi.from_url(f"{asgi_server.url}/api/schema/?format=json")


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def bearer() -> dict[str, str]:
    _, key = api_key_create(name="schemathesis", scopes=["chat", "kb", "tickets", "admin"])
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(autouse=True)
def _worker_done() -> Any:
    """Let the worker finish what the requests started before the database is emptied under it."""
    yield
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        TurnRun.objects.exclude(status__in=TERMINAL).exists()
        or IngestJob.objects.filter(status__in=[IngestJobStatus.QUEUED, IngestJobStatus.RUNNING]).exists()
    ):
        time.sleep(0.2)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_its_schema_says(case: Any, bearer: dict[str, str]) -> None:
    case.call_and_validate(headers=bearer, checks=CHECKS, timeout=30)
