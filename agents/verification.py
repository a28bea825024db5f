"""Who the customer in a chat really is, before any private data or write (τ-bench policy, seed 004).

A conversation is verified when the widget or API vouched for its customer (signed identity), or
when the customer proves an account in chat, as the store's CHAT_VERIFICATION says (`chat_proof`): the
account's details (email, first + last name + zip, or an order id + the last four digits of the phone)
name an account, and either prove it (`details`) or have a one-time code emailed to its address, which
the customer types back (`code`, the default); with `signed` only a signed identity counts. The proven
account becomes the conversation's `verified_customer`; tools only ever act for that account.

Nothing said in chat learns whether details match an account: with `code`, details that match and
details that do not get the same reply ("if that matches an account, a code is on its way"), and a
code typed after either is checked the same way (a request that matched nothing keeps a code row that
no code opens). Guesses are counted per client (the address that opened the chat: `client_key`), not
per chat, and a client that keeps guessing is locked out for longer each time. Codes are budgeted per
requester, so strangers cannot spend an account's codes: a client gets CLIENT_CODES_PER_HOUR codes, and
one account ACCOUNT_CODES_PER_HOUR over every client that has never proven it (its owner's own client
always gets its share).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import smtplib
from dataclasses import dataclass, replace
from datetime import timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from agents.models import VerificationCode
from conversations.language import say
from conversations.models import Conversation, Customer
from conversations.rate import rate_allow
from conversations.services import customer_upsert
from stores.backend import store_backend
from stores.records import StoreCustomer

logger = logging.getLogger(__name__)

MAX_FAILED_ATTEMPTS = 3
_BARE_ZIP = re.compile(r"(?<![\d#A-Za-z])(?:\d{5}|\d{6})(?![\d])")
# A word of a name: letters, which Chinese around it does not join ("我是Mei Silva哈" says Mei and Silva).
_NAME_WORD = re.compile(r"[^\W\d_\u3400-\u9fff]+")


def verified_customer(conversation: Conversation) -> Customer | None:
    if conversation.verified_customer_id is not None:
        return conversation.verified_customer
    if conversation.customer.verified:
        return conversation.customer
    return None


def verified_customer_now(conversation_id: int) -> Customer | None:
    """The chat's verified customer as stored now: a turn's own subtask may have verified them since the
    conversation was read."""
    return verified_customer(
        Conversation.objects.select_related("verified_customer", "customer").get(pk=conversation_id)
    )


@dataclass(frozen=True)
class VerificationAttempt:
    customer: Customer | None  # the proven account, or None
    tried: bool  # the message carried something to check (email, name + zip, order + phone digits)


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isdigit())


def _account(found: StoreCustomer) -> Customer:
    """Our row of an account the store found: its id is the store's, created the first time it is proven."""
    known = Customer.objects.filter(external_id=found.customer_id).first()
    return known or customer_upsert(
        external_id=found.customer_id,
        name=found.name,
        first_name=found.first_name,
        last_name=found.last_name,
        email=found.email,
        phone=found.phone,
    )


def _by_email(email: str) -> Customer | None:
    matches = store_backend().customers_by_email(email.strip())
    return _account(matches[0]) if len(matches) == 1 else None


def _named(account: StoreCustomer, name: str) -> bool:
    """The account is the one called `name`: its whole name, or its first and last name."""
    parts = name.lower().split()
    return account.name.lower() == name.strip().lower() or (
        len(parts) >= 2 and (account.first_name.lower(), account.last_name.lower()) == (parts[0], parts[-1])
    )


def _by_name_and_zip(names: list[str], zip_code: str) -> Customer | None:
    accounts = store_backend().customers_by_zip(zip_code.strip())
    for name in names:
        owners = {a.customer_id: a for a in accounts if _named(a, name)}
        if len(owners) == 1:
            return _account(owners.popitem()[1])
    return None


def _by_zip_and_name_said(text: str, zip_code: str) -> Customer | None:
    """The one account at `zip_code` whose first and last name the message says, in either order ("It's
    Noah Sanchez, 20056", "Sanchez, Noah - zip 20056", "first name Noah, surname Sanchez"): names are
    hard to tell from other capitalised words, so the account's own name is looked for instead."""
    words = set(_NAME_WORD.findall(text.lower()))
    said = [
        a
        for a in store_backend().customers_by_zip(zip_code.strip())
        if a.first_name and a.last_name and set(_NAME_WORD.findall(f"{a.first_name} {a.last_name}".lower())) <= words
    ]
    return _account(said[0]) if len(said) == 1 else None


def _by_order_and_phone(order_ids: list[str], last4: str) -> Customer | None:
    for order_id in order_ids:
        owner = store_backend().order_owner(order_id)
        if owner and len(last4) == 4 and _digits(owner.phone).endswith(last4):
            return _account(owner)
    return None


def verification_attempt(entities: dict[str, Any], text: str = "") -> VerificationAttempt:
    """Try every proof the message carries; the first that names exactly one account wins."""
    email = entities.get("email") or ""
    names = list(entities.get("names") or [])
    zip_code = entities.get("zip") or ""
    order_ids = list(entities.get("order_ids") or [])
    last4 = entities.get("last4") or (_digits(entities.get("phone") or "")[-4:])
    if not zip_code and text:  # "It's Emma Wilson, 94105": a bare zip counts beside the account's own name
        bare = _BARE_ZIP.search(text)
        zip_code = bare.group(0) if bare else ""
    tried = bool(email or (names and zip_code) or (order_ids and last4) or (zip_code and text))
    customer = (
        (_by_email(email) if email else None)
        or (_by_name_and_zip(names, zip_code) if names and zip_code else None)
        or (_by_zip_and_name_said(text, zip_code) if zip_code and text else None)
        or (_by_order_and_phone(order_ids, last4) if order_ids and last4 else None)
    )
    return VerificationAttempt(customer=customer, tried=tried)


# --- how a chat proves who the customer is (CHAT_VERIFICATION) -------------------------------------

CODE_TTL = timedelta(minutes=10)
CODE_TRIES = 5  # wrong codes before the code stops working
CODES_PER_HOUR = 5  # codes one conversation may have sent
CLIENT_CODES_PER_HOUR = 5  # codes one client (address) may have sent, over all its chats and accounts
CLIENT_CODES_PER_ACCOUNT_HOUR = 3  # of those, to one account
# Codes one account may be sent an hour at the request of clients that never proved it: nobody can flood a
# customer's inbox, and strangers together cannot spend the owner's share (their own client is not counted).
ACCOUNT_CODES_PER_HOUR = 10
# Identity guesses (details to check, codes typed) one client may make in IDENTITY_WINDOW before it is locked
# out: IDENTITY_LOCKOUT at first, twice as long each time it happens again within a day (at most a day).
IDENTITY_GUESSES = 10
IDENTITY_WINDOW = timedelta(minutes=15)
IDENTITY_LOCKOUT = timedelta(minutes=15)
_CODE = re.compile(r"(?<!\d)(\d{3})[\s-]?(\d{3})(?!\d)")


class ProofStatus(StrEnum):
    VERIFIED = "verified"  # the account is proven: act for it
    CODE_SENT = "code_sent"  # details were given: if they name an account, a code went to its email
    CODE_WRONG = "code_wrong"
    CODE_SPENT = "code_spent"  # wrong, and out of tries: the account's details again
    CODE_EXPIRED = "code_expired"  # a new one was sent (if the details named an account)
    LOCKED_OUT = "locked_out"  # this client guessed too often: nothing is checked until the lockout ends
    SIGN_IN = "sign_in"  # only a signed-in identity counts here
    NO_MATCH = "no_match"  # `details` only: something to check, and it matched no account
    NOTHING = "nothing"  # nothing to check in the message


@dataclass(frozen=True)
class Proof:
    status: ProofStatus
    customer: Customer | None = None
    tries_left: int = 0
    retry_after_s: int = 0  # LOCKED_OUT: until the lockout ends

    @property
    def failed(self) -> bool:
        """A wrong proof: it counts towards handing the chat to a person."""
        return self.status in (ProofStatus.NO_MATCH, ProofStatus.CODE_WRONG, ProofStatus.CODE_SPENT)


def client_key(conversation: Conversation) -> str:
    """Who is asking, for the guess and code limits: the address that opened the chat, else its customer
    (an API conversation: the integrator's server speaks for one customer)."""
    return conversation.client_key or f"customer:{conversation.customer_id}"


def _lockout_left_s(client: str) -> int:
    ends_at = cache.get(f"identity-lockout:{client}")
    return max(0, int(ends_at - timezone.now().timestamp())) if ends_at else 0


def _guess_counted(client: str) -> Proof | None:
    """Count one identity guess by `client`; a LOCKED_OUT proof when it may not guess now."""
    left = _lockout_left_s(client)
    if left:
        return Proof(ProofStatus.LOCKED_OUT, retry_after_s=left)
    decision = rate_allow(f"identity:{client}", IDENTITY_GUESSES, window_s=IDENTITY_WINDOW.total_seconds())
    if decision.allowed:
        return None
    level_key = f"identity-lockout-level:{client}"
    level = int(cache.get(level_key) or 0)
    lockout_s = int(min(IDENTITY_LOCKOUT.total_seconds() * 2**level, timedelta(days=1).total_seconds()))
    cache.set(f"identity-lockout:{client}", timezone.now().timestamp() + lockout_s, lockout_s)
    cache.set(level_key, level + 1, int(timedelta(days=1).total_seconds()))
    logger.warning("identity guesses: client %s locked out for %s s", client, lockout_s)
    return Proof(ProofStatus.LOCKED_OUT, retry_after_s=lockout_s)


def chat_proof(conversation: Conversation, entities: dict[str, Any], text: str, *, awaiting: str = "") -> Proof:
    """What the message proves, by the store's CHAT_VERIFICATION:

    - `details` (τ-bench's policy): the email, the name with the zip, or an order id with the phone's
      last four digits prove the account;
    - `code` (the default): those details only name the account; a 6-digit code is emailed to the
      address on file, and typing it proves the account. Whether they named one is never told;
    - `signed`: nothing said in chat proves anything; only a signed-in identity does.
    `awaiting` is the slot the chat waits for ("email" or "code"): a bare zip counts beside a name only
    as the answer to the identity question. Every check counts as a guess of the chat's client."""
    mode = settings.CHAT_VERIFICATION
    if mode == "signed":
        return Proof(ProofStatus.SIGN_IN)
    client = client_key(conversation)
    if mode == "code":
        code = _CODE.search(text) if awaiting == "code" else None
        if code is not None:
            return _guess_counted(client) or _code_check(conversation, code.group(1) + code.group(2))
    attempt = verification_attempt(entities, text if awaiting in ("email", "code") else "")
    if not attempt.tried:
        return Proof(ProofStatus.NOTHING)
    locked = _guess_counted(client)
    if locked is not None:
        return locked
    if mode == "details":
        if attempt.customer is None:
            return Proof(ProofStatus.NO_MATCH)
        return Proof(ProofStatus.VERIFIED, attempt.customer)
    return _code_send(conversation, attempt.customer)


def _pending_code(conversation_id: int) -> VerificationCode | None:
    return (
        VerificationCode.objects.filter(conversation_id=conversation_id, used_at__isnull=True)
        .select_related("customer")
        .order_by("-created_at")
        .first()
    )


def _codes_retire(conversation_id: int) -> None:
    """The conversation's unused codes stop working (replaced, unsent or out of tries)."""
    VerificationCode.objects.filter(conversation_id=conversation_id, used_at__isnull=True).update(
        used_at=timezone.now()
    )


def _code_hash(conversation_id: int, code: str) -> str:
    key = f"verification-code:{settings.SECRET_KEY}".encode()
    return hmac.new(key, f"{conversation_id}:{code}".encode(), hashlib.sha256).hexdigest()


def masked_email(email: str) -> str:
    """ "li.wei@example.com" → "l•••@example.com": enough for the customer to know where to look."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}•••@{domain}"


def _code_budget_left(conversation: Conversation, customer: Customer) -> bool:
    """Whether a code may go to `customer` at this chat's request: its chat, its client and the account
    each have codes left this hour (the account's hourly cap counts only clients that never proved it)."""
    client = client_key(conversation)
    recent = VerificationCode.objects.filter(created_at__gte=timezone.now() - timedelta(hours=1)).exclude(sent_to="")
    if recent.filter(conversation_id=conversation.pk).count() >= CODES_PER_HOUR:
        return False
    if recent.filter(client_key=client).count() >= CLIENT_CODES_PER_HOUR:
        return False
    if recent.filter(client_key=client, customer=customer).count() >= CLIENT_CODES_PER_ACCOUNT_HOUR:
        return False
    proven_by = VerificationCode.objects.filter(customer=customer, proven_at__isnull=False).values("client_key")
    if client in {row["client_key"] for row in proven_by}:
        return True
    return recent.filter(customer=customer).exclude(client_key__in=proven_by).count() < ACCOUNT_CODES_PER_HOUR


def _code_send(conversation: Conversation, customer: Customer | None) -> Proof:
    """Email a new code to the account's address (any earlier one stops working). When no account was named,
    or none can be sent to it now, a code row is kept all the same, which no code opens: what the customer
    sees next is the same either way."""
    code = f"{secrets.randbelow(10**6):06d}"
    sendable = customer is not None and bool(customer.email) and _code_budget_left(conversation, customer)
    with transaction.atomic():
        _codes_retire(conversation.pk)
        VerificationCode.objects.create(
            conversation=conversation,
            customer=customer,
            client_key=client_key(conversation),
            # Unsendable: the hash of another code, so the one in no mail cannot be guessed either.
            code_hash=_code_hash(conversation.pk, code if sendable else secrets.token_hex(8)),
            sent_to=customer.email if sendable and customer is not None else "",
            expires_at=timezone.now() + CODE_TTL,
        )
    if not sendable or customer is None:
        if customer is not None:
            logger.info("verification code for customer %s not sent: no email or no codes left", customer.pk)
        return Proof(ProofStatus.CODE_SENT)
    minutes = int(CODE_TTL.total_seconds() // 60)
    subject = say(conversation.language, "Your verification code: %(code)s", code=code)
    body = say(
        conversation.language,
        "Hello,\n\nYour code for the chat with our support is %(code)s. It is valid for %(minutes)s minutes.\n"
        "If you did not ask for it, you can ignore this email.",
        code=code,
        minutes=minutes,
    )
    try:
        send_mail(subject, body, None, [customer.email])
    except (OSError, smtplib.SMTPException) as exc:
        # Said as if sent: the chat must not tell a working address from one that is not. The owner asks again.
        logger.warning("verification code to %s not sent: %s", masked_email(customer.email), exc)
    return Proof(ProofStatus.CODE_SENT)


def _code_check(conversation: Conversation, code: str) -> Proof:
    pending = _pending_code(conversation.pk)
    if pending is None:
        return Proof(ProofStatus.NOTHING)
    if pending.expires_at <= timezone.now():
        return replace(_code_send(conversation, pending.customer), status=ProofStatus.CODE_EXPIRED)
    if pending.customer is not None and hmac.compare_digest(pending.code_hash, _code_hash(conversation.pk, code)):
        now = timezone.now()
        VerificationCode.objects.filter(pk=pending.pk).update(used_at=now, proven_at=now)
        return Proof(ProofStatus.VERIFIED, pending.customer)
    VerificationCode.objects.filter(pk=pending.pk).update(attempts=F("attempts") + 1)
    pending.refresh_from_db(fields=["attempts"])
    left = max(CODE_TRIES - pending.attempts, 0)
    if left == 0:
        _codes_retire(conversation.pk)
        return Proof(ProofStatus.CODE_SPENT)
    return Proof(ProofStatus.CODE_WRONG, tries_left=left)
