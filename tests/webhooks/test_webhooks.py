"""Webhooks end to end: the API and admin, events recorded with their change, deliveries signed and
sent by the real worker to a real HTTP receiver on loopback, retried with backoff, then disabled."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone

from conversations.api_keys import api_key_create
from conversations.models import Customer
from tests.constraints import assert_rejected
from tickets.models import TicketKind
from tickets.services import ticket_create
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services import (
    address_public,
    webhook_deliveries_sweep,
    webhook_signature,
    webhook_signature_verify,
    webhook_subscribe,
    webhook_update,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]


class Receiver:
    """An HTTP server on loopback that records each POST and answers with the next scripted status."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []  # answers in turn; 200 once they run out
        self.always: int | None = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"headers": dict(self.headers), "body": body, "at": time.monotonic()})
                status = receiver.always or (receiver.statuses.pop(0) if receiver.statuses else 200)
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(r["body"]) for r in self.requests]

    def wait(self, condition: Callable[[], bool], timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"received {[e['type'] for e in self.events()]}"
            time.sleep(0.05)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


@pytest.fixture
def api(client: Client) -> Callable[..., Any]:
    _, key = api_key_create(name="backend", scopes=["chat", "tickets", "admin"])

    def call(method: str, path: str, body: Any = None, *, key: str = key) -> Any:
        kwargs: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
        if body is not None:
            kwargs.update(data=json.dumps(body), content_type="application/json")
        return getattr(client, method)(f"/api/v1{path}", **kwargs)

    return call


def _settled(delivery_count: int) -> Callable[[], bool]:
    def settled() -> bool:
        states = list(WebhookDelivery.objects.values_list("status", flat=True))
        return len(states) == delivery_count and all(
            s in (DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED) for s in states
        )

    return settled


def test_a_subscription_needs_the_admin_scope_and_shows_its_secret_once(api: Any, receiver: Receiver) -> None:
    _, chat_only = api_key_create(name="widget backend", scopes=["chat"])

    refused = api("post", "/webhooks", {"url": receiver.url, "events": ["ticket.created"]}, key=chat_only)
    created = api("post", "/webhooks", {"url": receiver.url, "events": ["ticket.created", "message.created"]})

    assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"
    assert created.status_code == 201
    body = created.json()
    assert body["secret"].startswith("whsec_") and body["events"] == ["ticket.created", "message.created"]
    assert body["is_active"] is True
    detail = api("get", f"/webhooks/{body['id']}").json()
    listed = api("get", "/webhooks").json()["results"]
    assert "secret" not in detail and [s["id"] for s in listed] == [body["id"]] and "secret" not in listed[0]
    assert WebhookSubscription.objects.get().created_by == "api key backend"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://example.com/x", "events": ["ticket.created"]}, "url"),
        ({"url": "not a url", "events": ["ticket.created"]}, "url"),
        ({"url": "https://example.com/x", "events": []}, "events"),
        ({"url": "https://example.com/x", "events": ["order.paid"]}, "events"),
        ({"events": ["ticket.created"]}, "url"),
    ],
)
def test_bad_subscriptions_are_refused_on_their_field(api: Any, body: dict[str, Any], field: str) -> None:
    response = api("post", "/webhooks", body)

    assert response.status_code == 400 and response.json()["error"]["field"] == field
    assert not WebhookSubscription.objects.exists()


def test_a_private_address_is_refused_unless_allowed(api: Any, receiver: Receiver, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False

    response = api("post", "/webhooks", {"url": receiver.url, "events": ["ticket.created"]})

    assert response.status_code == 400 and "private network" in response.json()["error"]["message"]
    assert response.json()["error"]["field"] == "url"


@pytest.mark.parametrize(
    "url",
    [
        "http://[::ffff:127.0.0.1]/hooks",  # IPv4-mapped
        "http://[::ffff:a9fe:a9fe]/hooks",  # the same, written in hex: a cloud's metadata address
        "http://[64:ff9b::7f00:1]/hooks",  # NAT64 of 127.0.0.1
        "http://[64:ff9b:1::a00:1]/hooks",  # local-use NAT64 of 10.0.0.1
        "http://[2002:7f00:1::]/hooks",  # 6to4 of 127.0.0.1
        "http://[2002:c0a8:101::1]/hooks",  # 6to4 of 192.168.1.1
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks",  # Teredo, client 127.0.0.1
        "http://[::127.0.0.1]/hooks",  # IPv4-compatible
        "http://[fd00::1]/hooks",
        "http://0x7f000001/hooks",  # not even a valid URL
        "http://2130706433/hooks",
    ],
)
def test_private_addresses_in_any_disguise_are_refused(api: Any, settings: Any, url: str) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False

    response = api("post", "/webhooks", {"url": url, "events": ["ticket.created"]})

    error = response.json()["error"]
    assert response.status_code == 400 and error["field"] == "url", url
    assert "private network" in error["message"] or not url.startswith("http://[")
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("64:ff9b::808:808", True),  # NAT64 of a public address
        ("2002:808:808::1", True),
        ("127.0.0.1", False),
        ("169.254.169.254", False),
        ("fe80::1%eth0", False),
    ],
)
def test_an_address_is_public_only_when_what_it_carries_is(address: str, public: bool) -> None:
    assert address_public(address) is public


def test_every_delivery_checks_the_address_again_and_posts_to_the_one_it_checked(
    receiver: Receiver, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name resolved once per delivery, and connected to at that address: it cannot point
    somewhere else between the check and the call (DNS rebinding)."""
    from webhooks import services

    port = int(receiver.url.rsplit(":", 1)[1].split("/")[0])
    lookups: list[str] = []
    resolve = services.socket.getaddrinfo

    def shop_test_is_loopback(host: str, *args: Any, **kwargs: Any) -> Any:
        lookups.append(host)
        return resolve("127.0.0.1" if host == "hooks.shop.test" else host, *args, **kwargs)

    monkeypatch.setattr(services.socket, "getaddrinfo", shop_test_is_loopback)
    url = f"http://hooks.shop.test:{port}/hooks?from=cs"

    status, error = services._post(url, b"{}", {"Content-Type": "application/json"})

    assert (status, error) == (200, "")
    assert [host for host in lookups if host != "127.0.0.1"] == ["hooks.shop.test"]  # the literal needs no DNS
    assert receiver.requests[-1]["headers"]["Host"] == f"hooks.shop.test:{port}"

    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False  # the name now points into a private network
    status, error = services._post(url, b"{}", {"Content-Type": "application/json"})

    assert status is None and "private network" in error and len(receiver.requests) == 1


@pytest.mark.parametrize(("locale", "text"), [("en", "Hello!"), ("zh", "你好")])
def test_messages_are_delivered_signed_and_logged(api: Any, receiver: Receiver, locale: str, text: str) -> None:
    secret = api("post", "/webhooks", {"url": receiver.url, "events": ["message.created"]}).json()["secret"]
    conversation = api("post", "/conversations", {"customer": {"external_id": f"wh_{locale}"}, "locale": locale})

    reply = api("post", f"/conversations/{conversation.json()['id']}/messages", {"text": text}).json()

    receiver.wait(lambda: len(receiver.requests) == 2)
    events = receiver.events()
    assert [e["type"] for e in events] == ["message.created", "message.created"]
    by_sender = {e["data"]["message"]["sender"]: e["data"]["message"] for e in events}
    assert by_sender["customer"]["text"] == text and by_sender["bot"]["text"] == reply["reply"]["text"]
    for request, event in zip(receiver.requests, events, strict=True):
        headers = request["headers"]
        assert headers["Webhook-Event"] == "message.created" and headers["Webhook-Id"] == event["id"]
        assert webhook_signature_verify(secret, headers["Webhook-Signature"], request["body"])
        assert not webhook_signature_verify("whsec_other", headers["Webhook-Signature"], request["body"])
    receiver.wait(_settled(2))
    log = api("get", f"/webhooks/{WebhookSubscription.objects.get().pk}/deliveries").json()["results"]
    assert [(d["status"], d["attempts"], d["last_status_code"]) for d in log] == [("succeeded", 1, 200)] * 2
    assert all(d["last_latency_ms"] is not None for d in log)


def test_only_subscribed_event_types_are_delivered(receiver: Receiver) -> None:
    webhook_subscribe(url=receiver.url, events=["ticket.created"])
    customer = Customer.objects.create(external_id="wh_only")

    ticket_create(kind=TicketKind.COMPLAINT, subject="Broken kettle", customer=customer)
    ticket_create(kind=TicketKind.CALLBACK, subject="Call me", customer=customer)

    receiver.wait(_settled(2))
    assert {e["data"]["ticket"]["subject"] for e in receiver.events()} == {"Broken kettle", "Call me"}
    assert set(WebhookDelivery.objects.values_list("event_type", flat=True)) == {"ticket.created"}


def test_who_subscribes_is_read_again_as_soon_as_a_subscription_changes(receiver: Receiver) -> None:
    # Subscribers are cached (every message emits an event); each change must show in the very next event.
    def created(subject: str) -> set[int]:
        """The subscriptions the ticket.created event of a new ticket was recorded for."""
        ticket_create(kind=TicketKind.COMPLAINT, subject=subject)
        recorded = WebhookDelivery.objects.filter(event_type="ticket.created", body__contains=f'"subject": "{subject}"')
        return set(recorded.values_list("subscription_id", flat=True))

    assert created("Nobody listens") == set()
    first = webhook_subscribe(url=receiver.url, events=["ticket.created"])
    assert created("One listens") == {first.pk}
    second = webhook_subscribe(url=receiver.url, events=["ticket.created", "message.created"])
    assert created("Two listen") == {first.pk, second.pk}
    webhook_update(subscription_id=first.pk, is_active=False)
    assert created("One is off") == {second.pk}
    receiver.wait(_settled(4))  # delivered: a delivery being sent holds its subscription's rows
    WebhookSubscription.objects.filter(pk=second.pk).delete()  # as the admin's delete does: no service
    assert created("The other is gone") == set()
    webhook_update(subscription_id=first.pk, is_active=True)
    assert created("Back on") == {first.pk}


def test_ticket_and_conversation_events_carry_what_changed(api: Any, receiver: Receiver) -> None:
    webhook_subscribe(
        url=receiver.url,
        events=["ticket.created", "ticket.updated", "conversation.closed", "conversation.escalated"],
    )
    customer = Customer.objects.create(external_id="wh_all", email="ada@example.com")
    ticket = ticket_create(kind=TicketKind.COMPLAINT, subject="Late parcel", customer=customer)
    conversation = api("post", "/conversations", {"customer": {"external_id": "wh_all"}, "locale": "zh"}).json()

    api("patch", f"/tickets/{ticket.pk}", {"status": "in_progress"})
    api("post", f"/conversations/{conversation['id']}/messages", {"text": "转人工"})
    api("post", f"/conversations/{conversation['id']}/close", {"reason": "refund", "note": "refunded"})

    receiver.wait(_settled(5))  # the escalation, with nobody online, also opened a callback ticket
    events = {e["type"]: e["data"] for e in receiver.events() if e["type"] != "ticket.created"}
    created = [e["data"]["ticket"] for e in receiver.events() if e["type"] == "ticket.created"]
    assert sorted(t["kind"] for t in created) == ["callback", "complaint"]
    assert next(t for t in created if t["kind"] == "complaint")["reference"] == ticket.reference
    assert events["ticket.updated"]["changes"] == {"status": ["open", "in_progress"]}
    assert events["ticket.updated"]["ticket"]["status"] == "in_progress"
    assert events["conversation.escalated"]["conversation_id"] == conversation["id"]
    assert events["conversation.escalated"]["reason"] == "requested"
    closed = events["conversation.closed"]
    assert closed["conversation"]["resolution"] == "refund" and closed["note"] == "refunded"


def test_a_failed_delivery_is_retried_with_growing_waits_until_it_succeeds(receiver: Receiver) -> None:
    receiver.statuses = [500, 503]
    webhook_subscribe(url=receiver.url, events=["ticket.created"])

    ticket_create(kind=TicketKind.COMPLAINT, subject="Retry me")

    receiver.wait(_settled(1))
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("succeeded", 3, 200)
    assert list(delivery.attempt_log.values_list("number", "status_code")) == [(1, 500), (2, 503), (3, 200)]
    first, second, third = (r["at"] for r in receiver.requests)
    assert 0.2 <= second - first and 0.4 <= third - second  # WEBHOOK_RETRY_BASE_S 0.2 in the test settings
    assert len({r["headers"]["Webhook-Id"] for r in receiver.requests}) == 1
    assert WebhookSubscription.objects.get().consecutive_failures == 0


def test_a_subscription_failing_again_and_again_is_disabled(api: Any, receiver: Receiver) -> None:
    receiver.always = 500
    subscription = webhook_subscribe(url=receiver.url, events=["ticket.created"])

    ticket_create(kind=TicketKind.COMPLAINT, subject="One")
    ticket_create(kind=TicketKind.COMPLAINT, subject="Two")
    receiver.wait(_settled(2))
    ticket_create(kind=TicketKind.COMPLAINT, subject="Three")

    subscription.refresh_from_db()
    assert subscription.is_active is False and "2 deliveries in a row failed" in subscription.disabled_reason
    assert len(receiver.requests) == 6  # two deliveries × WEBHOOK_MAX_ATTEMPTS 3; nothing for "Three"
    assert WebhookDelivery.objects.count() == 2 and WebhookAttempt.objects.count() == 6

    enabled = api("patch", f"/webhooks/{subscription.pk}", {"is_active": True}).json()
    assert enabled["is_active"] is True and enabled["consecutive_failures"] == 0 and enabled["disabled_reason"] is None


def test_a_rolled_back_change_sends_nothing(receiver: Receiver) -> None:
    webhook_subscribe(url=receiver.url, events=["ticket.created"])

    with pytest.raises(RuntimeError), transaction.atomic():
        ticket_create(kind=TicketKind.COMPLAINT, subject="Never")
        raise RuntimeError("the caller failed")
    ticket_create(kind=TicketKind.COMPLAINT, subject="After")

    receiver.wait(_settled(1))
    assert [e["data"]["ticket"]["subject"] for e in receiver.events()] == ["After"]


def test_the_sweep_sends_what_a_lost_task_or_a_dead_worker_left(receiver: Receiver) -> None:
    subscription = webhook_subscribe(url=receiver.url, events=["ticket.created"])
    long_ago = timezone.now() - timedelta(minutes=5)
    body = json.dumps({"id": "e1", "type": "ticket.created", "data": {}})
    lost = WebhookDelivery.objects.create(
        subscription=subscription, event_type="ticket.created", body=body, next_attempt_at=long_ago
    )
    stuck = WebhookDelivery.objects.create(
        subscription=subscription,
        event_type="ticket.created",
        body=body,
        next_attempt_at=long_ago,
        status=DeliveryStatus.SENDING,
        claimed_until=long_ago,
    )

    assert webhook_deliveries_sweep() == 2

    receiver.wait(_settled(2))
    assert {lost.pk, stuck.pk} == set(WebhookDelivery.objects.filter(status="succeeded").values_list("pk", flat=True))


def test_a_signature_is_refused_when_the_body_or_the_time_is_off() -> None:
    body = b'{"id": "1"}'
    header = webhook_signature("whsec_a", int(time.time()), body)

    assert webhook_signature_verify("whsec_a", header, body)
    assert not webhook_signature_verify("whsec_a", header, body + b" ")
    assert not webhook_signature_verify("whsec_a", header, body, now=time.time() + 301)
    assert not webhook_signature_verify("whsec_a", "v1=abc", body)


def test_the_admin_shows_the_secret_once_and_each_attempt(client: Client, receiver: Receiver) -> None:
    admin = User.objects.create_superuser("root", password="pw")
    client.force_login(admin)

    page = client.post(
        "/admin/webhooks/webhooksubscription/add/",
        {"url": receiver.url, "events": ["ticket.created"], "description": "ERP"},
        follow=True,
    )
    subscription = WebhookSubscription.objects.get()
    assert subscription.secret in page.content.decode() and subscription.created_by == "root"
    assert (
        subscription.secret
        not in client.get(f"/admin/webhooks/webhooksubscription/{subscription.pk}/change/").content.decode()
    )

    receiver.statuses = [502]
    ticket_create(kind=TicketKind.COMPLAINT, subject="Logged")
    receiver.wait(_settled(1))
    log = client.get(f"/admin/webhooks/webhookdelivery/{WebhookDelivery.objects.get().pk}/change/").content.decode()
    assert "502" in log and "succeeded" in log.lower()


def test_the_database_refuses_unknown_events_and_inconsistent_deliveries(receiver: Receiver) -> None:
    subscription = webhook_subscribe(url=receiver.url, events=["ticket.created"])
    now = timezone.now()

    assert_rejected(
        lambda: WebhookSubscription.objects.create(url=receiver.url, events=["order.paid"], secret="s"),
        "webhook_events_known",
    )
    assert_rejected(
        lambda: WebhookSubscription.objects.create(url=receiver.url, events=[], secret="s"), "webhook_events_known"
    )
    assert_rejected(
        lambda: WebhookDelivery.objects.create(
            subscription=subscription, body="{}", next_attempt_at=now, status="lost"
        ),
        "webhook_delivery_status_valid",
    )
    assert_rejected(
        lambda: WebhookDelivery.objects.create(
            subscription=subscription, body="{}", next_attempt_at=now, status="sending"
        ),
        "webhook_delivery_sending_claimed",
    )
    delivery = WebhookDelivery.objects.create(
        subscription=subscription, body="{}", next_attempt_at=now + timedelta(days=1)
    )
    WebhookAttempt.objects.create(delivery=delivery, number=1, latency_ms=5)
    assert_rejected(
        lambda: WebhookAttempt.objects.create(delivery=delivery, number=1, latency_ms=5), "webhook_attempt_once"
    )


def test_a_subscription_is_changed_and_deleted_and_bad_changes_are_refused(api: Any, receiver: Receiver) -> None:
    created = api("post", "/webhooks", {"url": receiver.url, "events": ["ticket.created"]}).json()
    path = f"/webhooks/{created['id']}"

    changed = api("patch", path, {"events": ["ticket.updated", "conversation.closed"], "description": "CRM"})
    refused = api("patch", path, {"events": ["order.paid"]})
    off = api("patch", path, {"is_active": False}).json()

    assert changed.status_code == 200 and changed.json()["events"] == ["conversation.closed", "ticket.updated"]
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "events"
    assert off["is_active"] is False and off["disabled_reason"] == "disabled by hand"
    assert api("patch", "/webhooks/999999", {"is_active": True}).status_code == 404
    assert api("delete", path).status_code == 204
    assert api("get", path).status_code == 404 and api("get", "/webhooks").json()["results"] == []
