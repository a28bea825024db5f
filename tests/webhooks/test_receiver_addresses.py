"""A webhook receiver must be one host on the public internet: every address that is not global unicast
(private, loopback, link-local, multicast, reserved, unspecified, or an IPv6 form wrapping such an IPv4 one)
is refused when subscribing, when the URL is changed, and again at each delivery."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from conversations.api_keys import api_key_create
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services import address_public, webhook_deliver

pytestmark = pytest.mark.django_db

NOT_PUBLIC = [
    "http://[::ffff:0:7f00:1]/",  # IPv4-translated (SIIT) 127.0.0.1
    "http://[::ffff:0:a9fe:a9fe]/hooks",  # the same form of a cloud's metadata address
    "http://224.0.0.1/",  # multicast, all hosts
    "http://239.255.255.250:1900/",  # multicast (SSDP)
    "http://[ff02::1]/",  # IPv6 multicast, link scope
    "http://[ff0e::1]/",  # IPv6 multicast, global scope
    "http://[::ffff:224.0.0.1]/",  # IPv4-mapped multicast
    "http://240.0.0.1/",  # reserved
    "http://255.255.255.255/",  # broadcast
    "http://0.0.0.0/",  # unspecified (connects to this host)
    "http://[::]/",
    "http://[100::1]/",  # discard-only
    "http://[fec0::1]/",  # site-local
    "http://[fe80::1]/",  # link-local
    "http://169.254.169.254/latest/meta-data/",
]


@pytest.fixture
def api(client: Client, settings: Any) -> Any:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    _, key = api_key_create(name="backend", scopes=["admin"])

    def call(method: str, path: str, body: Any) -> Any:
        return getattr(client, method)(
            f"/api/v1{path}", data=json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {key}"
        )

    return call


@pytest.mark.parametrize("url", NOT_PUBLIC)
def test_a_receiver_that_is_not_one_public_host_is_refused(api: Any, url: str) -> None:
    response = api("post", "/webhooks", {"url": url, "events": ["ticket.created"]})

    assert response.status_code == 400, url
    error = response.json()["error"]
    assert error["code"] and error["field"] == "url"
    assert "not on the public internet" in error["message"]
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize("url", ["http://[::ffff:0:7f00:1]/", "http://224.0.0.1/"])
def test_a_subscriptions_url_cannot_be_changed_to_one(api: Any, url: str) -> None:
    subscription = WebhookSubscription.objects.create(
        url="https://hooks.example.com/in", events=["ticket.created"], secret="whsec_x"
    )

    response = api("patch", f"/webhooks/{subscription.pk}", {"url": url})

    assert response.status_code == 400 and response.json()["error"]["field"] == "url"
    assert WebhookSubscription.objects.get(pk=subscription.pk).url == "https://hooks.example.com/in"


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("::ffff:0:808:808", True),  # IPv4-translated form of a public address
        ("64:ff9b::808:808", True),  # NAT64 of a public address
        ("::ffff:0:7f00:1", False),
        ("::ffff:0:a00:1", False),  # 10.0.0.1
        ("224.0.0.1", False),
        ("ff0e::1", False),
        ("240.0.0.1", False),
        ("0.0.0.0", False),
        ("::", False),
        ("fec0::1", False),
        ("100::1", False),
    ],
)
def test_only_global_unicast_is_public(address: str, public: bool) -> None:
    assert address_public(address) is public


@pytest.mark.parametrize("resolved_later", ["::ffff:0:7f00:1", "224.0.0.1"])
def test_a_delivery_to_a_name_that_now_resolves_there_is_refused_without_connecting(
    settings: Any, monkeypatch: pytest.MonkeyPatch, resolved_later: str
) -> None:
    """The name was public when subscribed; by the delivery it points at such an address (DNS changes)."""
    from webhooks import services

    # given
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    resolve = services.socket.getaddrinfo
    monkeypatch.setattr(
        services.socket,
        "getaddrinfo",
        lambda host, *args, **kwargs: resolve(resolved_later if host == "hooks.shop.test" else host, *args, **kwargs),
    )
    subscription = WebhookSubscription.objects.create(
        url="http://hooks.shop.test/in", events=["ticket.created"], secret="whsec_x"
    )
    delivery = WebhookDelivery.objects.create(
        subscription=subscription, event_type="ticket.created", body="{}", next_attempt_at=timezone.now()
    )

    # when
    status = webhook_deliver(delivery.pk)

    # then
    assert status == DeliveryStatus.PENDING  # to be tried again later, as any failed attempt
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    # the check's refusal, made before any connection (one would fail otherwise: refused, unreachable)
    assert attempt.status_code is None and "not on the public internet" in attempt.error
