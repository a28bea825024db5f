"""POST /api/v1/nlu/parse and `manage.py create_api_key`."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from conversations.api_keys import api_key_create
from conversations.models import ApiKey

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars")]

URL = "/api/v1/nlu/parse"


@pytest.fixture
def api(client: Client) -> Any:
    _, raw = api_key_create(name="shop-backend")

    def post(body: Any, *, key: str | None = raw, content_type: str = "application/json") -> Any:
        headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
        data = body if isinstance(body, str) else __import__("json").dumps(body)
        return client.post(URL, data=data, content_type=content_type, **headers)

    return post


def test_create_api_key_prints_the_key_alone_on_its_last_line() -> None:
    out = io.StringIO()

    call_command("create_api_key", "shop-backend", stdout=out, stderr=io.StringIO())

    raw = out.getvalue().strip().splitlines()[-1]
    assert raw.startswith("cs_") and " " not in raw
    key = ApiKey.objects.get(name="shop-backend")
    assert raw.startswith(key.prefix) and raw not in key.key_hash


def test_parse_english_returns_intents_entities_emotion_and_level(api: Any) -> None:
    response = api({"text": "Where is my order #W1234567? I'm getting really annoyed"})

    assert response.status_code == 200
    body = response.json()
    assert body["intents"][0]["name"] in {"logistics_query", "order_query"}
    assert 0 <= body["intents"][0]["confidence"] <= 1
    assert body["entities"]["order_ids"] == ["#W1234567"]
    assert body["emotion_score"] < 0.5
    assert body["level"] == "classifier"


def test_parse_chinese_multi_intent(api: Any) -> None:
    body = api({"text": "对比 Find X8 和 X9 的区别，并告诉我 X9 国补后多少钱", "locale": "zh"}).json()

    assert [i["name"] for i in body["intents"]][:2] == ["product_compare", "price_query"]


def test_parse_rule_level_for_a_human_request(api: Any) -> None:
    body = api({"text": "转人工"}).json()

    assert body["intents"][0]["name"] == "human_request" and body["level"] == "rule"


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({}, 400, "invalid", "text"),
        ({"text": "   "}, 400, "invalid", "text"),
        ({"text": "x" * 5000}, 400, "invalid", "text"),
        ({"text": "hi", "locale": "fr"}, 400, "invalid", "locale"),
        ("{not json", 400, "parse_error", None),
        ([1, 2], 400, "invalid", None),
    ],
)
def test_bad_input_gets_the_error_shape(api: Any, body: Any, status: int, code: str, field: str | None) -> None:
    response = api(body)

    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert error.get("field") == field


@pytest.mark.parametrize("key", [None, "cs_wrong", "two words"])
def test_missing_or_wrong_key_is_401(api: Any, key: str | None) -> None:
    response = api({"text": "hi"}, key=key)

    assert response.status_code == 401
    assert response.json()["error"]["code"] in {"not_authenticated", "authentication_failed"}


def test_a_revoked_key_is_refused(client: Client) -> None:
    from django.utils import timezone

    key, raw = api_key_create(name="old")
    ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())

    response = client.post(URL, {"text": "hi"}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")

    assert response.status_code == 401


def test_openapi_schema_describes_the_endpoint(client: Client) -> None:
    response = client.get("/api/schema/")

    assert response.status_code == 200
    assert b"/api/v1/nlu/parse" in response.content
