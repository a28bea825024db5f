"""API keys: scopes decide what a key may call (403 with the error shape otherwise); revoked keys stop."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from conversations.api_keys import api_key_create
from conversations.models import ApiKey
from tests.constraints import assert_rejected

pytestmark = pytest.mark.django_db

# One call per scope: (scope, method, path, body)
CALLS = [
    ("chat", "post", "/api/v1/nlu/parse", {"text": "where is my order"}),
    ("chat", "post", "/api/v1/conversations", {"customer": {"external_id": "shop-1"}}),
    ("kb", "get", "/api/v1/kb/search?q=warranty", None),
    ("kb", "get", "/api/v1/kb/jobs/00000000-0000-0000-0000-000000000000", None),
]


def call(client: Client, raw: str, method: str, path: str, body: dict[str, Any] | None) -> Any:
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    if method == "post":
        return client.post(path, body, content_type="application/json", **headers)
    return client.get(path, **headers)


@pytest.mark.parametrize(("scope", "method", "path", "body"), CALLS)
def test_a_key_without_the_scope_gets_403_and_one_with_it_gets_through(
    client: Client, scope: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    _, without = api_key_create(name="narrow", scopes=["tickets"])
    _, with_scope = api_key_create(name="wide", scopes=[scope])

    refused = call(client, without, method, path, body)
    allowed = call(client, with_scope, method, path, body)

    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == f"This API key lacks the '{scope}' scope."
    assert allowed.status_code != 403


def test_default_scopes_leave_out_admin_and_unknown_scopes_are_refused() -> None:
    key, _ = api_key_create(name="default")

    assert key.scopes == ["chat", "kb", "tickets"]
    with pytest.raises(ValueError, match="got root"):
        api_key_create(name="bad", scopes=["chat", "root"])
    with pytest.raises(ValueError):
        api_key_create(name="empty", scopes=[])
    assert_rejected(
        lambda: ApiKey.objects.create(name="x", prefix="cs_x", key_hash="x", scopes=["root"]), "api_key_scopes_known"
    )


def test_the_command_takes_scopes_and_refuses_unknown_ones() -> None:
    out, err = io.StringIO(), io.StringIO()

    call_command("create_api_key", "ops", "--scopes", "admin,chat", stdout=out, stderr=err)

    key = ApiKey.objects.get(name="ops")
    assert key.scopes == ["chat", "admin"] and "scopes chat,admin" in err.getvalue()
    assert out.getvalue().strip().startswith("cs_")
    with pytest.raises(CommandError, match="got everything"):
        call_command("create_api_key", "oops", "--scopes", "everything", stdout=out, stderr=err)


def test_a_key_revoked_in_the_admin_stops_working(client: Client) -> None:
    key, raw = api_key_create(name="old")
    admin = User.objects.create_superuser("root", "root@example.com", "pw")
    staff = Client()
    staff.force_login(admin)

    before = call(client, raw, "get", "/api/v1/kb/search?q=warranty", None)
    staff.post("/admin/conversations/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    after = call(client, raw, "get", "/api/v1/kb/search?q=warranty", None)

    assert before.status_code == 200
    assert after.status_code in (401, 403) and after.json()["error"]["message"] == "Unknown or revoked API key."
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None


def test_when_a_key_was_last_used_is_kept_to_the_minute_without_a_write_per_call(client: Client) -> None:
    from datetime import timedelta

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from conversations.api_keys import LAST_USED_PRECISION

    key, raw = api_key_create(name="shop", scopes=["chat"])
    assert key.last_used_at is None

    call(client, raw, "post", "/api/v1/nlu/parse", {"text": "hello"})
    first = ApiKey.objects.get(pk=key.pk).last_used_at
    with CaptureQueriesContext(connection) as queries:
        call(client, raw, "post", "/api/v1/nlu/parse", {"text": "hello again"})
    assert first is not None and ApiKey.objects.get(pk=key.pk).last_used_at == first
    assert not [q for q in queries.captured_queries if q["sql"].startswith('UPDATE "conversations_apikey"')]

    ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - LAST_USED_PRECISION - timedelta(seconds=1))
    call(client, raw, "post", "/api/v1/nlu/parse", {"text": "a minute later"})
    assert ApiKey.objects.get(pk=key.pk).last_used_at > first  # type: ignore[operator]
