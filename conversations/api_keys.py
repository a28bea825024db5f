"""Integrator API keys: created once (the secret is shown once), stored as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from conversations.models import ApiKey, ApiScope
from conversations.prepared import PreparedRead
from conversations.rate import RateDecision, customer_rate_allow, rate_allow
from conversations.selectors import conversation_customer_id

KEY_PREFIX = "cs_"


def _hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_key_create(*, name: str, scopes: list[str] | None = None) -> tuple[ApiKey, str]:
    """A new key and its secret; only the hash is stored, so the secret cannot be shown again.

    Without `scopes` a key gets chat, kb and tickets; admin (webhooks) is only ever given explicitly."""
    if scopes is not None:
        unknown = sorted(set(scopes) - set(ApiScope.values))
        if unknown or not scopes:
            raise ValueError(f"scopes must be some of {', '.join(ApiScope.values)}; got {', '.join(unknown) or 'none'}")
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(
        name=name,
        prefix=raw[: len(KEY_PREFIX) + 8],
        key_hash=_hash(raw),
        **({"scopes": sorted(set(scopes), key=ApiScope.values.index)} if scopes is not None else {}),
    )
    return key, raw


def api_keys_revoke(*, key_ids: list[int]) -> int:
    """Revoke keys at once (they fail authentication from the next request); returns how many."""
    return ApiKey.objects.filter(pk__in=key_ids, revoked_at__isnull=True).update(revoked_at=timezone.now())


# When a key was last used is kept to this precision: an integrator's every call writing its key's row made
# concurrent calls with one key wait for each other's row lock.
LAST_USED_PRECISION = timedelta(minutes=1)


def api_key_authenticate(raw: str) -> ApiKey | None:
    found = _KEY_BY_HASH.objects(key_hash=_hash(raw))
    key = found[0] if found else None
    now = timezone.now()
    if key is not None and (key.last_used_at is None or now - key.last_used_at >= LAST_USED_PRECISION):
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


# Compiled once: every API request is authenticated by it.
_KEY_BY_HASH = PreparedRead(lambda key_hash: ApiKey.objects.filter(key_hash=key_hash, revoked_at__isnull=True))


class Integrator:
    """The DRF `request.user` of a call authenticated by an API key."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, key: ApiKey) -> None:
        self.key = key
        self.pk = None

    def __str__(self) -> str:
        return f"integrator {self.key.name}"


class ApiKeyAuthentication(BaseAuthentication):
    """`Authorization: Bearer <key>`."""

    def authenticate(self, request: Request) -> tuple[Integrator, ApiKey] | None:
        header = get_authorization_header(request).decode(errors="replace").split()
        if not header or header[0].lower() != "bearer":
            return None
        if len(header) != 2:
            raise AuthenticationFailed("The Authorization header must be: Bearer <key>.")
        key = api_key_authenticate(header[1])
        if key is None:
            raise AuthenticationFailed("Unknown or revoked API key.")
        return Integrator(key), key

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class HasApiScope(BasePermission):
    """The key must hold the view's `required_scope` (403 otherwise). Every API view names one."""

    def has_permission(self, request: Request, view: object) -> bool:
        scope = getattr(view, "required_scope", None)
        if scope not in ApiScope.values:
            raise ImproperlyConfigured(f"{type(view).__name__} must set required_scope to one of {ApiScope.values}")
        key = request.auth
        if not isinstance(key, ApiKey):
            return False
        self.message = f"This API key lacks the '{scope}' scope."
        return scope in key.scopes


class _SlidingWindowThrottle(BaseThrottle):
    decision = RateDecision(True, 0)

    def wait(self) -> float:
        return self.decision.retry_after_s


class ApiKeyRateThrottle(_SlidingWindowThrottle):
    """Requests per minute per key (its own rate, else API_REQUESTS_PER_MINUTE); 429 with Retry-After."""

    def allow_request(self, request: Request, view: object) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            return True
        self.decision = rate_allow(f"apikey:{key.pk}", key.rate_per_minute or settings.API_REQUESTS_PER_MINUTE)
        return self.decision.allowed


class CustomerMessageThrottle(_SlidingWindowThrottle):
    """A shopper's messages per minute, counted with their widget messages (seed 001: 100/min)."""

    def allow_request(self, request: Request, view: object) -> bool:
        if request.method != "POST":
            return True
        conversation_id = getattr(view, "kwargs", {}).get("conversation_id")
        if conversation_id is None:
            return True
        customer_id = conversation_customer_id(conversation_id)
        if customer_id is None:
            return True
        self.decision = customer_rate_allow(customer_id)
        return self.decision.allowed


class ApiKeySchema(OpenApiAuthenticationExtension):
    """How the OpenAPI schema describes ApiKeyAuthentication."""

    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from `manage.py create_api_key NAME --scopes …`.",
        }
