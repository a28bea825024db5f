"""The API's one error shape for what goes wrong before any endpoint's own code runs."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conversations.api_keys import api_key_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def auth() -> dict[str, str]:
    _, key = api_key_create(name="shop")
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        ("get", "/api/v1/nothing-here", {}, 404, "not_found"),
        ("get", "/api/v1/conversations/", {}, 404, "not_found"),
        ("get", "/api/v1/conversations", {}, 405, "method_not_allowed"),
        ("delete", "/api/v1/tickets", {}, 405, "method_not_allowed"),
        (
            "post",
            "/api/v1/conversations",
            {"data": "customer=u1", "content_type": "application/x-www-form-urlencoded"},
            415,
            "unsupported_media_type",
        ),
        ("post", "/api/v1/conversations", {"data": "{", "content_type": "application/json"}, 400, "parse_error"),
        ("get", "/api/v1/conversations/1/turns/not-a-number", {}, 404, "not_found"),
    ],
)
def test_routing_method_and_media_type_errors_have_the_error_shape(
    client: Client, auth: dict[str, str], method: str, path: str, kwargs: dict[str, Any], status: int, code: str
) -> None:
    response = getattr(client, method)(path, **kwargs, **auth)

    assert response.status_code == status and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == code and response.json()["error"]["message"]


def test_pages_outside_the_api_keep_their_html_404(client: Client) -> None:
    response = client.get("/no-such-page")

    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
