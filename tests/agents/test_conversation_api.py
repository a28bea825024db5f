"""The conversation endpoints of /api/v1 against a real worker."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client

from conversations.api_keys import api_key_create
from conversations.models import Customer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker", "exemplars")]


@pytest.fixture
def api(client: Client) -> Any:
    _, key = api_key_create(name="shop")

    def call(method: str, path: str, body: Any = None) -> Any:
        kwargs = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
        if body is not None:
            kwargs.update(data=json.dumps(body), content_type="application/json")
        return getattr(client, method)(f"/api/v1{path}", **kwargs)

    return call


def test_a_conversation_answers_a_message_with_the_reply_body(api: Any) -> None:
    created = api("post", "/conversations", {"customer": {"external_id": "shop_42", "name": "Ada"}, "locale": "en"})
    assert created.status_code == 201
    conversation = created.json()

    response = api("post", f"/conversations/{conversation['id']}/messages", {"text": "Hello!"})

    assert response.status_code == 200
    body = response.json()
    assert body["reply"]["text"].startswith("Hello!") and body["reply"]["awaiting"] is None
    assert body["intents"][0]["name"] == "chitchat" and body["status"] == "bot" and body["escalation"] is None
    again = api("get", f"/conversations/{conversation['id']}/turns/{body['turn_id']}")
    assert again.status_code == 200 and again.json()["reply"] == body["reply"]
    transcript = api("get", f"/conversations/{conversation['id']}/messages").json()
    assert [m["sender"] for m in transcript["results"]] == ["customer", "bot"] and transcript["count"] == 2


def test_an_escalation_is_reported_with_its_card(api: Any) -> None:
    conversation = api(
        "post", "/conversations", {"customer": {"external_id": "shop_43", "email": "c@example.com"}}
    ).json()

    body = api("post", f"/conversations/{conversation['id']}/messages", {"text": "转人工"}).json()

    assert body["status"] == "waiting_human" and body["escalation"]["reason"] == "requested"


def test_signed_identity_from_the_api_marks_the_customer_verified(api: Any) -> None:
    api("post", "/conversations", {"customer": {"external_id": "shop_44", "verified": True}})

    assert Customer.objects.get(external_id="shop_44").verified is True


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/conversations", {"customer": {}}, 400, "invalid"),
        ("/conversations", {"customer": {"external_id": "x", "email": "not-an-email"}}, 400, "invalid"),
        ("/conversations/999999/messages", {"text": "hi"}, 404, "not_found"),
    ],
)
def test_bad_requests_get_the_error_shape(api: Any, path: str, body: Any, status: int, code: str) -> None:
    response = api("post", path, body)

    assert response.status_code == status
    assert response.json()["error"]["code"] == code


def test_empty_and_over_long_messages_are_refused_politely(api: Any) -> None:
    conversation = api("post", "/conversations", {"customer": {"external_id": "shop_45"}}).json()

    empty = api("post", f"/conversations/{conversation['id']}/messages", {"text": "  "})
    long = api("post", f"/conversations/{conversation['id']}/messages", {"text": "x" * 3000})

    assert empty.status_code == 400 and empty.json()["error"] == {
        "code": "empty",
        "message": empty.json()["error"]["message"],
        "field": "text",
    }
    assert long.status_code == 400 and long.json()["error"]["code"] == "too_long"


def _post_with_key(client: Client, key: str, path: str, body: dict[str, Any], idempotency: str) -> Any:
    return client.post(
        f"/api/v1{path}",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
        HTTP_IDEMPOTENCY_KEY=idempotency,
    )


def test_concurrent_retries_with_one_idempotency_key_make_one_turn(api: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    from agents.models import TurnRun

    conversation = api("post", "/conversations", {"customer": {"external_id": "shop_77"}}).json()
    _, key = api_key_create(name="retrying")
    path = f"/conversations/{conversation['id']}/messages"

    def attempt(_: int) -> Any:
        try:
            return _post_with_key(Client(), key, path, {"text": "Hello!"}, "order-77-hello")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=4) as pool:
        responses = list(pool.map(attempt, range(4)))

    assert [r.status_code for r in responses] == [200] * 4
    assert len({r.json()["turn_id"] for r in responses}) == 1
    assert len({json.dumps(r.json()["reply"]) for r in responses}) == 1
    assert TurnRun.objects.filter(conversation_id=conversation["id"]).count() == 1
    mismatch = _post_with_key(Client(), key, path, {"text": "Something else"}, "order-77-hello")
    too_long = _post_with_key(Client(), key, path, {"text": "Hi"}, "k" * 65)
    assert mismatch.status_code == 422 and mismatch.json()["error"]["code"] == "idempotency_mismatch"
    assert too_long.status_code == 400 and too_long.json()["error"]["field"] == "Idempotency-Key"
    assert TurnRun.objects.filter(conversation_id=conversation["id"]).count() == 1


def test_closing_a_conversation_and_bad_closes(api: Any) -> None:
    conversation = api("post", "/conversations", {"customer": {"external_id": "shop_78"}, "locale": "zh"}).json()
    path = f"/conversations/{conversation['id']}/close"

    closed = api("post", path, {"reason": "answered", "note": "sorted by phone"})
    again = api("post", path, {})
    bad = api("post", f"/conversations/{conversation['id']}/close", {"reason": "bored"})
    missing = api("post", "/conversations/999999/close", {})

    assert closed.status_code == 200
    assert (
        closed.json()["status"] == "closed" and closed.json()["resolution"] == "answered" and closed.json()["closed_at"]
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "reason"
    assert missing.status_code == 404 and "error" in missing.json()
    transcript = api("get", f"/conversations/{conversation['id']}/messages").json()["results"]
    assert transcript[-1]["sender"] == "system" and transcript[-1]["text"].startswith("本次会话已结束")


def test_the_transcript_cursor_neither_skips_nor_repeats_while_messages_arrive(api: Any) -> None:
    from conversations.models import Conversation, Message

    conversation = api("post", "/conversations", {"customer": {"external_id": "shop_79"}}).json()
    chat = Conversation.objects.get(pk=conversation["id"])
    for n in range(3):
        Message.objects.create(conversation=chat, sender="customer", text=f"m{n}")

    first = api("get", f"/conversations/{chat.pk}/messages?page_size=2").json()
    for n in range(3, 5):  # new messages while the integrator pages
        Message.objects.create(conversation=chat, sender="customer", text=f"m{n}")
    second = api("get", first["next"].split("/api/v1")[1]).json()
    third = api("get", second["next"].split("/api/v1")[1]).json() if second["next"] else {"results": []}
    bad = api("get", f"/conversations/{chat.pk}/messages?cursor=garbage")

    assert first["count"] == 3 and [m["text"] for m in first["results"]] == ["m0", "m1"]
    seen = [m["text"] for m in first["results"] + second["results"] + third["results"]]
    assert seen == ["m0", "m1", "m2", "m3", "m4"]
    assert bad.status_code == 404 and bad.json()["error"]["code"] == "not_found"


def test_a_conversation_can_be_read_back(api: Any) -> None:
    created = api("post", "/conversations", {"customer": {"external_id": "shop_45"}, "locale": "zh"}).json()
    api("post", f"/conversations/{created['id']}/messages", {"text": "转人工"})

    read = api("get", f"/conversations/{created['id']}")
    missing = api("get", "/conversations/999999")

    assert read.status_code == 200
    assert read.json() | {"status": None} == created | {"status": None}
    assert read.json()["status"] == "waiting_human" and read.json()["language"] == "zh"
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(("question", "locale"), [("What is your return policy?", "en"), ("退货政策是怎样的", "zh")])
def test_a_citation_links_to_its_passage_by_a_full_url(api: Any, question: str, locale: str) -> None:
    from django.core.management import call_command

    call_command("seed_demo", verbosity=0)
    conversation = api("post", "/conversations", {"customer": {"external_id": f"cite_{locale}"}, "locale": locale})
    path = f"/conversations/{conversation.json()['id']}"

    body = api("post", f"{path}/messages", {"text": question}).json()
    deadline = time.monotonic() + 60
    while "reply" not in body and time.monotonic() < deadline:  # 202: a cold worker, the turn still running
        time.sleep(0.2)
        body = api("get", f"{path}/turns/{body['turn_id']}").json()
    transcript = api("get", f"{path}/messages").json()["results"]
    turn = api("get", f"{path}/turns/{body['turn_id']}").json()

    urls = [source["url"] for source in body["reply"]["sources"]]
    assert urls and all(url.startswith("http://testserver/kb/sources/") for url in urls)
    assert [s["url"] for s in transcript[-1]["sources"]] == urls == [s["url"] for s in turn["reply"]["sources"]]
