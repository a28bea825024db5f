"""Webhooks: subscriptions, events recorded with the change that caused them, signed deliveries
retried with exponential backoff, and subscriptions disabled after repeated failures.

A delivery is a POST of the event's JSON with three headers:

- `Webhook-Id`: the event's id (the same for every subscription; retries repeat it, so receivers
  can ignore a duplicate);
- `Webhook-Event`: its type;
- `Webhook-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`.

A receiver recomputes the HMAC over the raw body and refuses a timestamp more than five minutes
old (`webhook_signature_verify`). Any 2xx answer within WEBHOOK_TIMEOUT_S is a success; anything
else is retried WEBHOOK_RETRY_BASE_S × 2ⁿ later, up to WEBHOOK_MAX_ATTEMPTS attempts. After
WEBHOOK_DISABLE_AFTER deliveries in a row have failed, the subscription is disabled (re-enabling
it, in the admin or with PATCH is_active, starts the count again). Deliveries are not ordered:
an event's `created_at` says when it happened.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import ssl
import time
import uuid
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEventType, WebhookSubscription

logger = logging.getLogger(__name__)

SIGNATURE_TOLERANCE_S = 300
WEBHOOK_DELIVER = "webhooks.tasks.webhook_deliver_task"
SECRET_PREFIX = "whsec_"


# --- subscriptions -----------------------------------------------------------------------------


_NAT64_PREFIXES = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")


def _ipv4_inside(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (SIIT,
    ::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:AABB:CCDD::), Teredo's client, or the old
    IPv4-compatible form (::a.b.c.d)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _IPV4_TRANSLATED:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if any(address in prefix for prefix in _NAT64_PREFIXES):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if int(address) >> 32 == 0:
        return ipaddress.IPv4Address(int(address))
    return None


def _unicast_global(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # is_global alone lets through multicast (224.0.0.0/4, ff00::/8), the deprecated site-local fec0::/10
    # and, in IPv6, much of the reserved space: none of them is one public host.
    return ip.is_global and not (
        ip.is_multicast
        or ip.is_reserved
        or ip.is_link_local
        or ip.is_loopback
        or ip.is_unspecified
        or (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local)
    )


def address_public(address: str) -> bool:
    """Whether a resolved address is one host on the public internet (global unicast), looking through
    IPv6 forms that only wrap an IPv4 address (a NAT64 gateway or 6to4 relay would carry the request to
    it): never private, loopback, link-local, multicast, reserved or unspecified."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _ipv4_inside(ip)
        if inner is not None:
            return _unicast_global(inner)
    return _unicast_global(ip)


def webhook_url_check(url: str) -> list[str]:
    """An http(s) URL whose every address is one public host, unless WEBHOOK_ALLOW_PRIVATE_URLS: a
    subscription must not make the server call into its own network (the database, the admin, a cloud's
    metadata) or send to a group of hosts (multicast).

    Returns the addresses the host resolved to, all checked; a delivery connects to one of them
    and never resolves the name again, so a name cannot point elsewhere between check and call."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValidationError("The URL's port is not a number from 0 to 65535.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("Give an http or https URL.")
    try:
        addresses = list(dict.fromkeys(str(info[4][0]) for info in socket.getaddrinfo(parts.hostname, port)))
    except (OSError, UnicodeError):
        raise ValidationError(f"The host {parts.hostname} cannot be resolved.") from None
    if not settings.WEBHOOK_ALLOW_PRIVATE_URLS and not all(address_public(address) for address in addresses):
        raise ValidationError(
            f"The host {parts.hostname} is not on the public internet: a private network, loopback, "
            "link-local, multicast or reserved address."
        )
    return addresses


def _events_check(events: list[str]) -> list[str]:
    unknown = sorted(set(events) - set(WebhookEventType.values))
    if unknown or not events:
        raise ValidationError(f"Events must be some of {', '.join(WebhookEventType.values)}.")
    return sorted(set(events), key=WebhookEventType.values.index)


def webhook_subscribe(
    *, url: str, events: list[str], description: str = "", created_by: str = ""
) -> WebhookSubscription:
    """A new subscription with a new signing secret (returned on it; shown to the caller once)."""
    webhook_url_check(url)
    return WebhookSubscription.objects.create(
        url=url,
        events=_events_check(events),
        description=description,
        secret=SECRET_PREFIX + secrets.token_urlsafe(32),
        created_by=created_by[:100],
    )


def webhook_update(
    *,
    subscription_id: int,
    url: str | None = None,
    events: list[str] | None = None,
    description: str | None = None,
    is_active: bool | None = None,
) -> WebhookSubscription:
    """Change what is given. Enabling a subscription clears its failure count."""
    with transaction.atomic():
        subscription = WebhookSubscription.objects.select_for_update().get(pk=subscription_id)
        if url is not None:
            webhook_url_check(url)
            subscription.url = url
        if events is not None:
            subscription.events = _events_check(events)
        if description is not None:
            subscription.description = description
        if is_active is True and not subscription.is_active:
            subscription.is_active, subscription.consecutive_failures, subscription.disabled_reason = True, 0, ""
        elif is_active is False and subscription.is_active:
            subscription.is_active, subscription.disabled_reason = False, "disabled by hand"
        subscription.save()
    return subscription


def webhook_unsubscribe(*, subscription_id: int) -> None:
    """Delete the subscription; its deliveries (the log) go with it, pending ones unsent."""
    WebhookSubscription.objects.filter(pk=subscription_id).delete()


# --- events ------------------------------------------------------------------------------------

# Every message emits an event and subscriptions rarely change, so who subscribes to what is read from
# a table in the cache, valid for the version it was read under; a change bumps the version at once and
# again once committed (a table read from the database in between is never used after the second).
_SUBSCRIBERS_KEY = "webhooks:subscribers"
_SUBSCRIBERS_VERSION_KEY = "webhooks:subscribers:version"


def webhook_subscribers_changed(**_signal: object) -> None:
    """A subscription was added, changed or deleted (the receiver of its model's post_save and
    post_delete, so a delete in the admin counts too)."""
    _subscribers_version_bump()
    transaction.on_commit(_subscribers_version_bump)


def _subscribers_version_bump() -> None:
    try:
        cache.add(_SUBSCRIBERS_VERSION_KEY, 0, timeout=None)
        cache.incr(_SUBSCRIBERS_VERSION_KEY)
    except Exception:  # noqa: BLE001 - the cache out: the next read after it is back reloads
        logger.warning("webhook subscribers' version not bumped (cache unavailable)")


def _subscribers(event_type: str) -> list[int]:
    """The active subscriptions to `event_type`; with the cache out, read from the database."""
    try:
        cached = cache.get_many([_SUBSCRIBERS_KEY, _SUBSCRIBERS_VERSION_KEY])
    except Exception:  # noqa: BLE001 - an event is still recorded while the cache is out
        return _subscribers_by_event().get(event_type, [])
    version = cached.get(_SUBSCRIBERS_VERSION_KEY, 0)
    table = cached.get(_SUBSCRIBERS_KEY)
    if table is None or table["version"] != version:
        table = {"version": version, "by_event": _subscribers_by_event()}
        try:
            cache.set(_SUBSCRIBERS_KEY, table, timeout=None)
        except Exception:  # noqa: BLE001 - read again next time
            logger.warning("webhook subscribers not cached (cache unavailable)")
    return list(table["by_event"].get(event_type, []))


def _subscribers_by_event() -> dict[str, list[int]]:
    by_event: dict[str, list[int]] = {}
    for pk, events in WebhookSubscription.objects.filter(is_active=True).order_by("pk").values_list("pk", "events"):
        for subscribed in events:
            by_event.setdefault(subscribed, []).append(pk)
    return by_event


def webhook_event_emit(event_type: str, data: dict[str, Any]) -> None:
    """Record the event for every active subscription to it, in the caller's transaction (so it
    exists exactly when the change does), and hand the deliveries to the worker after the commit."""
    subscriptions = _subscribers(event_type)
    if not subscriptions:
        return
    event_id = uuid.uuid4()
    now = timezone.now()
    body = json.dumps(
        {"id": str(event_id), "type": event_type, "created_at": now.isoformat(), "data": data},
        cls=DjangoJSONEncoder,
        ensure_ascii=False,
    )
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(subscription_id=pk, event_id=event_id, event_type=event_type, body=body, next_attempt_at=now)
        for pk in subscriptions
    )
    ids = [d.pk for d in deliveries]
    transaction.on_commit(lambda: _queue(ids))


def _queue(delivery_ids: list[int], *, countdown: float = 0) -> None:
    # By name: the task calls down into this module, which never imports the tasks.
    for pk in delivery_ids:
        current_app.send_task(WEBHOOK_DELIVER, args=[pk], countdown=countdown)


# --- delivering --------------------------------------------------------------------------------


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def webhook_signature_verify(secret: str, header: str, body: bytes, *, now: float | None = None) -> bool:
    """What a receiver checks: the HMAC over the raw body, and a timestamp at most five minutes off."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > SIGNATURE_TOLERANCE_S:
        return False
    expected = webhook_signature(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, fields.get("v1", ""))


def _claim(delivery_id: int) -> WebhookDelivery | None:
    """Take a due delivery for one attempt; None if it is not due or another worker has it."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now + timedelta(seconds=1)
    ).update(status=DeliveryStatus.SENDING, claimed_until=now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_S + 30))
    if not claimed:
        return None
    return WebhookDelivery.objects.select_related("subscription").filter(pk=delivery_id).first()  # None: unsubscribed


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the address that was checked, whatever the name resolves to by now."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS; the certificate is still checked against the host's name (SNI)."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """The answer's status code (None without one) and what went wrong, if anything.

    The URL is checked again at every delivery (the name may point elsewhere now), and the POST goes
    to an address that check approved. A redirect is an answer, not a detour: it is not followed."""
    connection: http.client.HTTPConnection | None = None
    try:
        address = webhook_url_check(url)[0]
        parts = urlsplit(url)
        pinned = _PinnedHTTPSConnection if parts.scheme == "https" else _PinnedHTTPConnection
        port = parts.port or (443 if parts.scheme == "https" else 80)
        connection = pinned(parts.hostname or "", port, address=address, timeout=settings.WEBHOOK_TIMEOUT_S)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("POST", target, body=body, headers=headers)
        status = connection.getresponse().status
    except ValidationError as exc:
        return None, exc.messages[0]
    except (OSError, ValueError, http.client.HTTPException) as exc:  # refused, unreachable, timed out, malformed
        return None, f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if connection is not None:
            connection.close()
    return status, "" if 200 <= status < 300 else f"HTTP {status}"


def webhook_deliver(delivery_id: int) -> str | None:
    """One attempt of a delivery; returns its status afterwards, None if it was not due or not ours."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    subscription = delivery.subscription
    if not subscription.is_active:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.FAILED,
            claimed_until=None,
            finished_at=timezone.now(),
            last_error="subscription disabled",
        )
        return DeliveryStatus.FAILED
    body = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cs-webhooks/1",
        "Webhook-Id": str(delivery.event_id),
        "Webhook-Event": delivery.event_type,
        "Webhook-Signature": webhook_signature(subscription.secret, int(time.time()), body),
    }
    started = time.perf_counter()
    status_code, error = _post(subscription.url, body, headers)
    latency_ms = round((time.perf_counter() - started) * 1000)
    return _record(delivery, status_code=status_code, error=error, latency_ms=latency_ms)


def _record(delivery: WebhookDelivery, *, status_code: int | None, error: str, latency_ms: int) -> str:
    attempt = delivery.attempts + 1
    now = timezone.now()
    succeeded = not error
    final = succeeded or attempt >= settings.WEBHOOK_MAX_ATTEMPTS
    retry_in = settings.WEBHOOK_RETRY_BASE_S * 2 ** (attempt - 1)
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, number=attempt, status_code=status_code, latency_ms=latency_ms, error=error
        )
        status = DeliveryStatus.SUCCEEDED if succeeded else DeliveryStatus.FAILED if final else DeliveryStatus.PENDING
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=status,
            attempts=attempt,
            claimed_until=None,
            last_status_code=status_code,
            last_latency_ms=latency_ms,
            last_error=error,
            next_attempt_at=now if final else now + timedelta(seconds=retry_in),
            finished_at=now if final else None,
        )
        if final:
            _subscription_count(delivery.subscription_id, succeeded=succeeded)
        else:
            transaction.on_commit(lambda: _queue([delivery.pk], countdown=retry_in))
    return status


def _subscription_count(subscription_id: int, *, succeeded: bool) -> None:
    subscription = WebhookSubscription.objects.select_for_update().get(pk=subscription_id)
    if succeeded:
        subscription.consecutive_failures = 0
    else:
        subscription.consecutive_failures += 1
        if subscription.is_active and subscription.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER:
            subscription.is_active = False
            subscription.disabled_reason = (
                f"{subscription.consecutive_failures} deliveries in a row failed "
                f"({settings.WEBHOOK_MAX_ATTEMPTS} attempts each)"
            )
    subscription.save(update_fields=["consecutive_failures", "is_active", "disabled_reason", "updated_at"])


def webhook_deliveries_sweep() -> int:
    """Queue again what a lost task or a dead worker left behind: due deliveries nobody took, and
    claims that expired mid-send. Returns how many."""
    now = timezone.now()
    stale = WebhookDelivery.objects.filter(status=DeliveryStatus.SENDING, claimed_until__lt=now)
    stale.update(status=DeliveryStatus.PENDING, claimed_until=None)
    due = list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lt=now - timedelta(seconds=settings.WEBHOOK_SWEEP_GRACE_S)
        ).values_list("pk", flat=True)[:500]
    )
    _queue(due)
    return len(due)
