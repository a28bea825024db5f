"""The web widget's sessions: signed conversation tokens, signed customer identities, and the
one door through which a widget message enters the engine.

A store that knows who its shopper is signs the whole identity on its own server, as Intercom and
Chatwoot do: an HS256 JWT under `WIDGET_SITE_SECRET` whose `sub` is the shopper's id, with `name`,
`email` and an `exp` (required). It goes on the widget tag, and it marks the customer verified, so
the bot may show them their own orders without asking. Because the name and the email are signed
too, nobody can claim another person's address on a signed-in session. Without an identity the
widget gets an anonymous visitor. Either way the session is a conversation plus a token that proves
the browser may read and write it; the token is what the WebSocket opens with.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from typing import Any, Protocol

import jwt
from django.conf import settings
from django.core import signing
from django.db import transaction

from conversations.language import say
from conversations.models import Channel, Conversation, ConversationStatus, Customer, Language, Message, Sender
from conversations.prepared import PreparedRead
from conversations.rate import customer_rate_allow, rate_allow
from conversations.realtime import message_payload, staff_display_name
from conversations.services import (
    conversation_start,
    conversation_start_for_visitor,
    conversation_verified_customer_set,
    customer_upsert,
)

_TOKEN_SALT = "conversations.widget.token"
HISTORY_LIMIT = 100


class WidgetSessionError(Exception):
    def __init__(self, code: str, message: str, field: str = "", status: int = 400, retry_after_s: int = 0) -> None:
        super().__init__(message)
        self.code, self.message, self.field, self.status = code, message, field, status
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class WidgetTicket:
    """What a valid token proves: this browser may use this conversation as this customer."""

    conversation_id: int
    customer_id: int


@dataclass(frozen=True)
class WidgetSession:
    conversation: Conversation
    token: str


_IDENTITY_ALGORITHM = "HS256"
# Clocks of the store's server and ours may disagree by this much.
_IDENTITY_LEEWAY_S = 30


def identity_token_issue(external_id: str, *, name: str = "", email: str = "", ttl_s: int = 3600) -> str:
    """What the store's server puts on the widget tag for a signed-in shopper (the demo page uses it too)."""
    now = int(time.time())
    claims: dict[str, Any] = {"sub": external_id, "iat": now, "exp": now + ttl_s}
    if name:
        claims["name"] = name
    if email:
        claims["email"] = email
    return jwt.encode(claims, settings.WIDGET_SITE_SECRET, algorithm=_IDENTITY_ALGORITHM)


def _identity_claims(token: str) -> dict[str, Any]:
    """The claims of a valid identity token. Only HS256 is accepted, so a token cannot pick a weaker
    algorithm (`none`) or make our secret stand in for a public key. It lives at most
    WIDGET_IDENTITY_MAX_AGE_S: from its `iat` (not in the future) to its `exp`, or from now to its `exp`
    without an `iat`; an `nbf` still ahead refuses it."""
    try:
        claims = jwt.decode(
            token,
            settings.WIDGET_SITE_SECRET,
            algorithms=[_IDENTITY_ALGORITHM],
            options={"require": ["sub", "exp"], "verify_iat": True, "verify_nbf": True},
            leeway=_IDENTITY_LEEWAY_S,
        )
    except jwt.ImmatureSignatureError:
        raise WidgetSessionError(
            "invalid", "the identity token is not valid yet (its nbf or iat is in the future)", "identity_token"
        ) from None
    except jwt.ExpiredSignatureError:
        raise WidgetSessionError("identity_expired", "the identity token has expired", "identity_token") from None
    except jwt.MissingRequiredClaimError as exc:
        raise WidgetSessionError(
            "invalid", f"the identity token needs a '{exc.claim}' claim", "identity_token"
        ) from None
    except jwt.InvalidSignatureError:
        raise WidgetSessionError(
            "bad_signature", "the identity token is not signed with this site's secret", "identity_token"
        ) from None
    except jwt.InvalidTokenError as exc:
        raise WidgetSessionError(
            "invalid", f"the identity token is not a valid HS256 JWT ({exc})", "identity_token"
        ) from None
    issued = claims.get("iat", time.time())
    if not isinstance(issued, int | float) or claims["exp"] - issued > settings.WIDGET_IDENTITY_MAX_AGE_S:
        raise WidgetSessionError(
            "invalid",
            f"the identity token may live at most {settings.WIDGET_IDENTITY_MAX_AGE_S} s (exp - iat)",
            "identity_token",
        )
    return claims


def widget_token_issue(conversation: Conversation) -> str:
    return signing.TimestampSigner(salt=_TOKEN_SALT).sign_object(
        {"c": conversation.pk, "u": conversation.customer_id}, compress=True
    )


def widget_token_read(token: str) -> WidgetTicket | None:
    """The ticket a token proves, or None when it is forged, malformed or older than the max age."""
    try:
        data = signing.TimestampSigner(salt=_TOKEN_SALT).unsign_object(token, max_age=settings.WIDGET_TOKEN_MAX_AGE_S)
        return WidgetTicket(conversation_id=int(data["c"]), customer_id=int(data["u"]))
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def locale_normalize(locale: str | None) -> str | None:
    """zh, zh-CN, zh_Hans… → zh; en, en-GB… → en; anything else → None."""
    prefix = (locale or "").strip().lower()[:2]
    return prefix if prefix in Language.values else None


def _identified_customer(identity_token: str, locale: str) -> Customer:
    claims = _identity_claims(identity_token)
    external_id = str(claims["sub"]).strip()
    if not external_id or len(external_id) > 128:
        raise WidgetSessionError("invalid", "the identity token's sub must be 1 to 128 characters", "identity_token")
    signed = {
        field: value.strip()[:limit]
        for field, limit in (("name", 200), ("email", 254))
        if isinstance(value := claims.get(field), str)
    }
    return customer_upsert(external_id=external_id, locale=locale, verified=True, **signed)


def client_key_for(address: str | None) -> str:
    """The key per-client limits count under: the address, and for IPv6 its /64 (one subscriber's block,
    which hands out new addresses at will). Empty when the address is unknown (a Unix socket)."""
    if not address:
        return ""
    ip = ipaddress.ip_address(address)
    if ip.version == 6:
        return f"address:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
    return f"address:{ip}"


def widget_session_open(
    *,
    site_key: str = "",
    locale: str | None = None,
    identity_token: str = "",
    conversation_id: int | None = None,
    token: str = "",
    client_address: str | None = None,
) -> WidgetSession:
    """Resume the conversation a valid token names, or start one.

    - `conversation_id` + `token`: the same chat again (a reload, another tab). A token for another
      conversation, forged or expired, is refused, so nobody reads a chat by guessing its id.
    - `identity_token` (signed): that customer, verified; a token of another customer is ignored (a shared
      computer after sign-in), and their latest open widget chat is resumed.
    - neither: a new anonymous visitor, at most WIDGET_SESSIONS_PER_ADDRESS from one `client_address` in any
      WIDGET_SESSIONS_WINDOW_S (429 `rate_limited` beyond).
    A new conversation remembers its client (`client_key`) for the limits on identity guesses.
    """
    if site_key and site_key != settings.WIDGET_SITE_KEY:
        raise WidgetSessionError("bad_site_key", "unknown site key", "site_key")
    language = locale_normalize(locale) or Language.EN
    client = client_key_for(client_address)
    resumed: Conversation | None = None
    if conversation_id is not None or token:
        ticket = widget_token_read(token)
        if ticket is None or ticket.conversation_id != conversation_id:
            raise WidgetSessionError("bad_token", "the conversation token is invalid or expired", "token")
        resumed = Conversation.objects.select_related("customer").filter(pk=ticket.conversation_id).first()
        if resumed is None:
            raise WidgetSessionError("bad_token", "the conversation no longer exists", "conversation_id")
    with transaction.atomic():
        if identity_token:
            customer = _identified_customer(identity_token, language)
            if resumed is not None and resumed.customer_id != customer.pk:
                resumed = None
            if resumed is None:
                resumed = (
                    Conversation.objects.filter(customer=customer, channel=Channel.WIDGET)
                    .exclude(status=ConversationStatus.CLOSED)
                    .order_by("-updated_at")
                    .first()
                )
        elif resumed is not None:
            customer = resumed.customer
        else:
            _new_visitor_allow(client)
            resumed = conversation_start_for_visitor(locale=language, client_key=client)
            customer = resumed.customer
        if resumed is None:
            resumed = conversation_start(
                customer=customer, channel=Channel.WIDGET, language=language, client_key=client
            )
        if customer.verified and resumed.verified_customer_id is None:
            conversation_verified_customer_set(conversation_id=resumed.pk, customer=customer)
            resumed.verified_customer = customer
    return WidgetSession(conversation=resumed, token=widget_token_issue(resumed))


def _new_visitor_allow(client: str) -> None:
    if not client:
        return
    decision = rate_allow(
        f"widget-sessions:{client}", settings.WIDGET_SESSIONS_PER_ADDRESS, window_s=settings.WIDGET_SESSIONS_WINDOW_S
    )
    if not decision.allowed:
        raise WidgetSessionError(
            "rate_limited",
            f"too many new chats from this address; try again in {decision.retry_after_s} s",
            status=429,
            retry_after_s=decision.retry_after_s,
        )


def widget_history(ticket: WidgetTicket) -> dict[str, Any] | None:
    """The `history` event a (re)connecting widget starts from; None when the conversation is gone.

    `awaiting_reply` is true while the customer's last message has no answer yet: its turn is in
    flight, and its deltas and `reply.done` will arrive on the socket like any other."""
    found = _HISTORY_CONVERSATION.objects(conversation_id=ticket.conversation_id)
    conversation = found[0] if found else None
    if conversation is None or conversation.customer_id != ticket.customer_id:
        return None
    messages = _HISTORY_MESSAGES.objects(conversation_id=conversation.pk)[::-1]
    spoken = [m for m in messages if m.sender != Sender.SYSTEM]
    return {
        "type": "history",
        "conversation_id": conversation.pk,
        "status": conversation.status,
        "language": conversation.language,
        "agent_name": staff_display_name(conversation.assigned_staff) if conversation.assigned_staff else None,
        "messages": [message_payload(m) for m in messages],
        "awaiting_reply": bool(spoken)
        and spoken[-1].sender == Sender.CUSTOMER
        and conversation.status == ConversationStatus.BOT,
        "rating_wanted": conversation.closed_at is not None
        and not conversation.ratings.filter(closed_at=conversation.closed_at).exists(),
    }


# Compiled once: every widget that connects reads them.
_HISTORY_CONVERSATION = PreparedRead(
    lambda conversation_id: Conversation.objects.select_related("assigned_staff").filter(pk=conversation_id)
)
_HISTORY_MESSAGES = PreparedRead(
    lambda conversation_id: (
        Message.objects.filter(conversation_id=conversation_id, internal=False)
        .select_related("author")
        .order_by("-created_at", "-pk")[:HISTORY_LIMIT]
    )
)


# --- inbound messages -------------------------------------------------------------------------


class MessageHandler(Protocol):
    def __call__(self, *, conversation_id: int, text: str, client_id: str) -> Any: ...


class RateLimited(Exception):
    pass


def rate_limited_reply(language: str) -> str:
    return say(language, "You're sending messages very quickly - please wait a minute and try again.")


def widget_message_receive(ticket: WidgetTicket, *, text: str, client_id: str, handle: MessageHandler) -> Any:
    """A customer's message from the widget: rate-limited per customer, then handed to `handle`, the engine
    (conversations sits below it: the project's routing passes it in, cs_project.routing).

    Raises RateLimited, or conversations.services.MessageRejected (empty, too long) with the polite reply."""
    if not customer_rate_allow(ticket.customer_id).allowed:
        raise RateLimited
    return handle(conversation_id=ticket.conversation_id, text=text, client_id=client_id)
