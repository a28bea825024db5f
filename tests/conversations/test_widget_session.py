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
    assert conversation.customer.locale == "zh" and conversation.customer.conversations.get() == conversation
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
        # no maximum lifetime: 100 years ahead, or a day and more after its iat
        (
            {"identity_token": signed({"sub": "shop-42", "exp": int(time.time()) + 100 * 365 * 86400})},
            "invalid",
            "identity_token",
        ),
        (
            {
                "identity_token": signed(
                    {"sub": "shop-42", "iat": int(time.time()) - 3600, "exp": int(time.time()) + 86400}
                )
            },
            "invalid",
            "identity_token",
        ),
        # not valid yet, or issued in the future
        (
            {
                "identity_token": signed(
                    {"sub": "shop-42", "nbf": int(time.time()) + 3600, "exp": int(time.time()) + 7200}
                )
            },
            "invalid",
            "identity_token",
        ),
        (
            {
                "identity_token": signed(
                    {"sub": "shop-42", "iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}
                )
            },
            "invalid",
            "identity_token",
        ),
        (
            {"identity_token": signed({"sub": "shop-42", "iat": "yesterday", "exp": int(time.time()) + 60})},
            "invalid",
            "identity_token",
        ),
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
        ('{"locale": NaN}', "invalid_json", ""),
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


def test_an_identity_within_its_maximum_lifetime_is_accepted(client: Client, settings: Any) -> None:
    now = int(time.time())
    settings.WIDGET_IDENTITY_MAX_AGE_S = 2 * 3600

    fresh = session(client, {"identity_token": signed({"sub": "shop-42", "iat": now - 60, "exp": now + 3600})})
    without_iat = session(client, {"identity_token": signed({"sub": "shop-43", "exp": now + 3600})})
    too_long = session(client, {"identity_token": signed({"sub": "shop-44", "iat": now, "exp": now + 3 * 3600})})

    assert fresh.status_code == 200 and fresh.json()["customer"]["verified"] is True
    assert without_iat.status_code == 200
    assert too_long.status_code == 400 and "at most 7200 s" in too_long.json()["error"]["message"]


def test_new_anonymous_chats_are_limited_per_address(client: Client, settings: Any) -> None:
    # given: a limit of 3 new chats in 10 minutes
    settings.WIDGET_SESSIONS_PER_ADDRESS = 3
    opened = [session(client, {}, REMOTE_ADDR="203.0.113.5") for _ in range(3)]

    # when
    refused = session(client, {}, REMOTE_ADDR="203.0.113.5")
    elsewhere = session(client, {}, REMOTE_ADDR="198.51.100.8")
    resumed = session(
        client,
        {"conversation_id": opened[0].json()["conversation_id"], "token": opened[0].json()["token"]},
        REMOTE_ADDR="203.0.113.5",
    )
    signed_in = session(client, {"identity_token": identity_token_issue("shop-9")}, REMOTE_ADDR="203.0.113.5")

    # then: the fourth is refused in the widget's error shape, and nothing was written for it
    assert all(response.status_code == 200 for response in opened)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert 0 < int(refused["Retry-After"]) <= 600 and refused["Access-Control-Allow-Origin"] == "*"
    assert Customer.objects.filter(external_id__startswith="visitor-").count() == 4  # 3 here, 1 elsewhere
    assert elsewhere.status_code == resumed.status_code == signed_in.status_code == 200


def test_an_ipv6_client_is_one_client_across_its_block(client: Client, settings: Any) -> None:
    settings.WIDGET_SESSIONS_PER_ADDRESS = 2
    first = session(client, {}, REMOTE_ADDR="2001:db8:1:2::10")
    second = session(client, {}, REMOTE_ADDR="2001:db8:1:2:ffff::1")

    third = session(client, {}, REMOTE_ADDR="2001:db8:1:2:abcd::9")

    assert first.status_code == second.status_code == 200 and third.status_code == 429
    assert Conversation.objects.get(pk=first.json()["conversation_id"]).client_key == "address:2001:db8:1:2::/64"


def test_a_new_chat_remembers_its_client_for_identity_limits(client: Client) -> None:
    opened = session(client, {}, REMOTE_ADDR="203.0.113.5").json()

    assert Conversation.objects.get(pk=opened["conversation_id"]).client_key == "address:203.0.113.5"
