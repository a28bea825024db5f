"""The API's one error shape for what goes wrong before any endpoint's own code runs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.test import Client

from conversations.api_keys import api_key_create
from tests.conftest import AsgiServer


@pytest.fixture
def auth(db: None) -> dict[str, Any]:
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
        (
            "post",
            "/api/v1/conversations",
            {"data": b"\xff\xfe", "content_type": "application/json"},
            400,
            "parse_error",
        ),
        ("get", "/api/v1/conversations/1/turns/not-a-number", {}, 404, "not_found"),
    ],
)
def test_routing_method_and_media_type_errors_have_the_error_shape(
    client: Client, auth: dict[str, Any], method: str, path: str, kwargs: dict[str, Any], status: int, code: str
) -> None:
    response = getattr(client, method)(path, **kwargs, **auth)

    assert response.status_code == status and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == code and response.json()["error"]["message"]


def test_pages_outside_the_api_keep_their_html_404(client: Client, db: None) -> None:
    response = client.get("/no-such-page")

    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ('{"customer": {"external_id": "u1", "metadata": ' + "[" * 5000 + "]" * 5000 + "}}", 400, "too_deep"),
        ('{"customer": {"external_id": "u1", "name": ' + "[" * 40 + "]" * 40 + "}}", 400, "too_deep"),
        ('{"customer": {"external_id": "u1\\u0000"}}', 400, "unreadable_text"),
        ('{"customer": {"external_id": "\\ud800"}}', 400, "unreadable_text"),
        ('{"customer\\u0000": {"external_id": "u1"}}', 400, "unreadable_text"),
        ('{"customer": {"external_id": "u1", "name": "' + "x" * (1024 * 1024) + '"}}', 413, "too_large"),
        # not JSON, though Python's json reads them (a text field would then store "nan")
        ('{"customer": {"external_id": NaN}}', 400, "parse_error"),
        ('{"customer": {"external_id": "u1", "name": Infinity}}', 400, "parse_error"),
        ('{"customer": {"external_id": "u1"}, "locale": -Infinity}', 400, "parse_error"),
    ],
)
def test_bodies_too_deep_unreadable_or_too_large_get_the_error_shape_and_store_nothing(
    client: Client, auth: dict[str, Any], body: str, status: int, code: str
) -> None:
    from conversations.models import Conversation, Customer

    response = client.post("/api/v1/conversations", body, content_type="application/json", **auth)

    assert response.status_code == status and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == code
    assert not Customer.objects.exists() and not Conversation.objects.exists()


def test_an_upload_may_be_larger_than_a_json_body_but_not_than_its_own_limit(
    client: Client, auth: dict[str, Any], settings: Any
) -> None:
    settings.KNOWLEDGE_MAX_FILE_BYTES = 10
    response = client.post(
        "/api/v1/kb/documents", b"x" * (2 * 1024 * 1024), content_type="multipart/form-data; boundary=b", **auth
    )

    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


@pytest.mark.django_db(transaction=True)
def test_a_malformed_multipart_body_gets_the_error_shape_from_the_real_server(asgi_server: AsgiServer) -> None:
    _, key = api_key_create(name="uploader", scopes=["kb"])
    request = urllib.request.Request(
        f"{asgi_server.url}/api/v1/kb/documents",
        data=b"--b0undary--\r\n",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "multipart/form-data; boundary=b0undary"},
    )

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)

    assert refused.value.code == 400 and refused.value.headers["Content-Type"] == "application/json"
    assert json.load(refused.value)["error"] == {
        "code": "invalid",
        "message": "This list may not be empty.",
        "field": "file",
    }
