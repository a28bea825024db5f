"""The OpenAPI schema against the running API: schemathesis makes requests from the schema (valid
and invalid ones) to the real web server with a real worker, and no answer may be a server error or differ from
what the schema says (status code, media type, body)."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
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
EXAMPLES_PER_MODE = 25


def _schema() -> dict[str, Any]:
    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))


OPERATIONS = [result.ok() for result in schemathesis.openapi.from_dict(_schema()).get_all_operations()]


@pytest.fixture
def bearer() -> dict[str, Any]:
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


def test_the_served_schema_is_the_one_tested(asgi_server: AsgiServer) -> None:
    with urllib.request.urlopen(f"{asgi_server.url}/api/schema/?format=json", timeout=30) as response:
        assert json.load(response) == _schema()


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_each_operation_answers_as_its_schema_says(
    operation: Any, asgi_server: AsgiServer, bearer: dict[str, str]
) -> None:
    @given(case=operation.as_strategy(GenerationMode.POSITIVE) | operation.as_strategy(GenerationMode.NEGATIVE))
    @settings(max_examples=2 * EXAMPLES_PER_MODE, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def answers_as_documented(case: Any) -> None:
        case.call_and_validate(base_url=asgi_server.url, headers=bearer, checks=CHECKS, timeout=30)

    answers_as_documented()


@pytest.mark.parametrize("path", ["/api/v1/conversations/1/messages", "/api/v1/kb/search"])
def test_a_host_header_that_is_no_host_name_answers_in_the_error_shape(client: Any, path: str) -> None:
    # Django refuses it before any view (DisallowedHost); the schema's error shape still holds
    response = client.post(path, data="{}", content_type="application/json", HTTP_HOST=";b")

    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "bad_request"


def test_a_host_header_that_is_no_host_name_gets_djangos_page_outside_the_api(client: Any) -> None:
    response = client.get("/widget/", HTTP_HOST=";b")

    assert response.status_code == 400 and "text/html" in response["Content-Type"]
