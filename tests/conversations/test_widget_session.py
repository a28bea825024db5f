"""POST /widget/session: anonymous visitors, resumed chats, signed identities, and every bad input."""

from __future__ import annotations

import json
import time
from typing import Any

import jwt
import pytest
from django.conf import settings
from django.test import Client

from conversations.models import Conversation, Customer
from conversations.widget import identity_token_issue, widget_token_read

pytestmark = pytest.mark.django_db


def session(client: Client, body: Any, **headers: Any) -> Any:
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post("/widget/session", raw, content_type="application/json", **headers)


def test_an_anonymous_visitor_gets_a_conversation_token_and_socket_url(client: Client) -> None:
    response = session(client, {"site_key": "demo", "locale": "zh-CN"})

    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    body = response.json()
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert conversation.language == "zh" and conversation.channel == "widget" and body["locale"] == "zh"
    assert conversation.customer.external_id.startswith("visitor-") and not conversation.customer.verified
    assert body["ws_url"] == f"ws://testserver/ws/widget?token={body['token']}"
    assert widget_token_read(body["token"]).conversation_id == conversation.pk
    assert body["customer"] == {"name": None, "verified": False}


def test_the_token_resumes_the_same_conversation(client: Client) -> None:
    first = session(client, {"locale": "en"}).json()

    again = session(client, {"conversation_id": first["conversation_id"], "token": first["token"]}).json()

    assert again["conversation_id"] == first["conversation_id"]
    assert Conversation.objects.count() == 1


def signed(claims: dict[str, Any], secret: str = "", algorithm: str = "HS256") -> str:
    key = "" if algorithm == "none" else secret or settings.WIDGET_SITE_SECRET
    return jwt.encode(claims, key, algorithm=algorithm)


def test_a_signed_identity_marks_the_customer_verified_and_resumes_their_open_chat(client: Client) -> None:
    token = identity_token_issue("shop-42", name="Ada", email="ada@example.com")

    first = session(client, {"identity_token": token}).json()
    # a store's own server signs with any JWT library: the claims are all that count
    second = session(client, {"identity_token": signed({"sub": "shop-42", "exp": time.time() + 60})}).json()

    customer = Customer.objects.get(external_id="shop-42")
    assert customer.verified and customer.name == "Ada" and customer.email == "ada@example.com"
    assert first["conversation_id"] == second["conversation_id"]
    assert Conversation.objects.get(pk=first["conversation_id"]).verified_customer == customer
    assert first["customer"] == {"name": "Ada", "verified": True}


def test_an_identity_ignores_a_token_of_another_customer(client: Client) -> None:
    visitor = session(client, {}).json()

    signed = session(
        client,
        {
            "conversation_id": visitor["conversation_id"],
            "token": visitor["token"],
            "identity_token": identity_token_issue("shop-7"),
        },
    ).json()

    assert signed["conversation_id"] != visitor["conversation_id"]
    assert Conversation.objects.get(pk=signed["conversation_id"]).customer.external_id == "shop-7"


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        # the old form, whose name and email were not signed
        (
            {"identity": {"external_id": "shop-42", "email": "li.wei@example.com", "signature": "0" * 64}},
            "invalid",
            "identity",
        ),
        (
            {
                "identity_token": signed(
                    {"sub": "shop-42", "exp": 2**40}, secret="a secret someone guessed, not the site's"
                )
            },
            "bad_signature",
            "identity_token",
        ),
        ({"identity_token": signed({"sub": "shop-42", "exp": 2**40}, algorithm="none")}, "invalid", "identity_token"),
        ({"identity_token": signed({"sub": "shop-42", "exp": 2**40}, algorithm="HS512")}, "invalid", "identity_token"),
        ({"identity_token": signed({"sub": "shop-42", "exp": 1_000_000})}, "identity_expired", "identity_token"),
        ({"identity_token": signed({"sub": "shop-42"})}, "invalid", "identity_token"),
        ({"identity_token": signed({"exp": 2**40, "email": "li.wei@example.com"})}, "invalid", "identity_token"),
        ({"identity_token": signed({"sub": "", "exp": 2**40})}, "invalid", "identity_token"),
        ({"identity_token": signed({"sub": 42, "exp": 2**40})}, "invalid", "identity_token"),
        ({"identity_token": "not.a.jwt"}, "invalid", "identity_token"),
        ({"identity_token": {"sub": "shop-42"}}, "invalid", "identity_token"),
        ({"conversation_id": 1, "token": "forged:token"}, "bad_token", "token"),
        ({"conversation_id": 1}, "bad_token", "token"),
        ({"conversation_id": "1", "token": "x"}, "invalid", "conversation_id"),
        ({"conversation_id": True, "token": "x"}, "invalid", "conversation_id"),
        ({"site_key": "someone-else"}, "bad_site_key", "site_key"),
        ({"locale": 5}, "invalid", "locale"),
        ("{not json", "invalid_json", ""),
        ("[1, 2]", "invalid", ""),
        (json.dumps({"locale": "x" * 9000}), "too_large", ""),
        (json.dumps({"locale": "x" * 70_000}), "too_large", ""),
        ('{"locale": ' + "[" * 1500 + "]" * 1500 + "}", "too_deep", ""),
        ('{"site_key": "demo\\u0000"}', "unreadable_text", ""),
        ('{"locale": "\\udfff"}', "unreadable_text", ""),
    ],
)
def test_bad_input_gets_the_error_shape_and_writes_nothing(client: Client, body: Any, code: str, field: str) -> None:
    response = session(client, body)

    assert response.status_code == (413 if code == "too_large" else 400)
    assert response["Content-Type"] == "application/json" and response["Access-Control-Allow-Origin"] == "*"
    error = response.json()["error"]
    assert error["code"] == code and error.get("field", "") == field and error["message"]
    assert not Conversation.objects.exists() and not Customer.objects.exists()


def test_a_token_cannot_open_another_conversation(client: Client) -> None:
    mine = session(client, {}).json()
    theirs = session(client, {}).json()

    response = session(client, {"conversation_id": theirs["conversation_id"], "token": mine["token"]})

    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_token"


def test_an_expired_token_is_refused(client: Client, settings: Any) -> None:
    first = session(client, {}).json()
    settings.WIDGET_TOKEN_MAX_AGE_S = -1

    response = session(client, {"conversation_id": first["conversation_id"], "token": first["token"]})

    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_token"


def test_preflight_and_other_methods(client: Client) -> None:
    preflight = client.options("/widget/session", HTTP_ORIGIN="https://shop.example")
    get = client.get("/widget/session")

    assert preflight.status_code == 204 and "POST" in preflight["Access-Control-Allow-Methods"]
    assert get.status_code == 405 and get.json()["error"]["code"] == "method_not_allowed"
