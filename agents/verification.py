"""Who the customer in a chat really is, before any private data or write (τ-bench policy, seed 004).

A conversation is verified when the widget or API vouched for its customer (signed identity), or
when the customer proves an account in chat, as the store's CHAT_VERIFICATION says (`chat_proof`): the
account's details (email, first + last name + zip, or an order id + the last four digits of the phone)
name an account, and either prove it (`details`) or have a one-time code emailed to its address, which
the customer types back (`code`, the default); with `signed` only a signed identity counts. The proven
account becomes the conversation's `verified_customer`; tools only ever act for that account.
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
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from agents.models import VerificationCode
from agents.store.models import Address, Order
from conversations.language import say
from conversations.models import Conversation, Customer

logger = logging.getLogger(__name__)

MAX_FAILED_ATTEMPTS = 3
_BARE_ZIP = re.compile(r"(?<![\d#A-Za-z])(?:\d{5}|\d{6})(?![\d])")


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


def _by_email(email: str) -> Customer | None:
    matches = list(Customer.objects.filter(email__iexact=email.strip())[:2])
    return matches[0] if len(matches) == 1 else None


def _by_name_and_zip(names: list[str], zip_code: str) -> Customer | None:
    for name in names:
        match = Q(customer__name__iexact=name.strip())
        parts = name.split()
        if len(parts) >= 2:
            match |= Q(customer__first_name__iexact=parts[0], customer__last_name__iexact=parts[-1])
        owners = Address.objects.filter(match, is_default=True, zip=zip_code.strip())
        customer_ids = set(owners.values_list("customer_id", flat=True))
        if len(customer_ids) == 1:
            return Customer.objects.get(pk=customer_ids.pop())
    return None


def _by_zip_and_name_said(text: str, zip_code: str) -> Customer | None:
    """The one account at `zip_code` whose first and last name the message says, in either order ("It's
    Noah Sanchez, 20056", "Sanchez, Noah - zip 20056", "first name Noah, surname Sanchez"): names are
    hard to tell from other capitalised words, so the account's own name is looked for instead."""
    words = set(re.findall(r"\w+", text.lower()))
    owners = Customer.objects.filter(addresses__is_default=True, addresses__zip=zip_code.strip()).distinct()[:50]
    said = [
        c
        for c in owners
        if c.first_name and c.last_name and set(re.findall(r"\w+", f"{c.first_name} {c.last_name}".lower())) <= words
    ]
    return said[0] if len(said) == 1 else None


def _by_order_and_phone(order_ids: list[str], last4: str) -> Customer | None:
    for order_id in order_ids:
        order = Order.objects.select_related("customer").filter(external_id=order_id).first()
        if order and len(last4) == 4 and _digits(order.customer.phone).endswith(last4):
            return order.customer
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
# Codes one account may be sent, over all conversations: a new chat does not buy new guesses
# (at most 10 × 5 tries of a million an hour) and nobody can flood a customer's inbox.
ACCOUNT_CODES_PER_HOUR = 10
_CODE = re.compile(r"(?<!\d)(\d{3})[\s-]?(\d{3})(?!\d)")


class ProofStatus(StrEnum):
    VERIFIED = "verified"  # the account is proven: act for it
    CODE_SENT = "code_sent"  # an account was named: a code went to its email
    CODE_WRONG = "code_wrong"
    CODE_SPENT = "code_spent"  # wrong, and out of tries: the account's details again
    CODE_EXPIRED = "code_expired"  # a new one was sent
    CODE_UNSENDABLE = "code_unsendable"  # no email on file, too many codes, or the mail server failed
    SIGN_IN = "sign_in"  # only a signed-in identity counts here
    NO_MATCH = "no_match"  # something to check, and it matched no account
    NOTHING = "nothing"  # nothing to check in the message


@dataclass(frozen=True)
class Proof:
    status: ProofStatus
    customer: Customer | None = None
    sent_to: str = ""  # the masked address a code went to
    tries_left: int = 0

    @property
    def failed(self) -> bool:
        """A wrong proof: it counts towards handing the chat to a person."""
        return self.status in (ProofStatus.NO_MATCH, ProofStatus.CODE_WRONG, ProofStatus.CODE_SPENT)


def chat_proof(conversation: Conversation, entities: dict[str, Any], text: str, *, awaiting: str = "") -> Proof:
    """What the message proves, by the store's CHAT_VERIFICATION:

    - `details` (τ-bench's policy): the email, the name with the zip, or an order id with the phone's
      last four digits prove the account;
    - `code` (the default): those details only name the account; a 6-digit code is emailed to the
      address on file, and typing it proves the account;
    - `signed`: nothing said in chat proves anything; only a signed-in identity does.
    `awaiting` is the slot the chat waits for ("email" or "code"): a bare zip counts beside a name only
    as the answer to the identity question."""
    mode = settings.CHAT_VERIFICATION
    if mode == "signed":
        return Proof(ProofStatus.SIGN_IN)
    if mode == "code":
        code = _CODE.search(text) if awaiting == "code" else None
        if code is not None:
            return _code_check(conversation, code.group(1) + code.group(2))
    attempt = verification_attempt(entities, text if awaiting in ("email", "code") else "")
    if attempt.customer is None:
        return Proof(ProofStatus.NO_MATCH if attempt.tried else ProofStatus.NOTHING)
    if mode == "details":
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


def _code_send(conversation: Conversation, customer: Customer) -> Proof:
    """Email a new code to the account's address (any earlier one stops working)."""
    if not customer.email:
        return Proof(ProofStatus.CODE_UNSENDABLE, customer)
    recent = VerificationCode.objects.filter(created_at__gte=timezone.now() - timedelta(hours=1))
    if (
        recent.filter(conversation_id=conversation.pk).count() >= CODES_PER_HOUR
        or recent.filter(customer=customer).count() >= ACCOUNT_CODES_PER_HOUR
    ):
        return Proof(ProofStatus.CODE_UNSENDABLE, customer)
    code = f"{secrets.randbelow(10**6):06d}"
    with transaction.atomic():
        _codes_retire(conversation.pk)
        VerificationCode.objects.create(
            conversation=conversation,
            customer=customer,
            code_hash=_code_hash(conversation.pk, code),
            sent_to=customer.email,
            expires_at=timezone.now() + CODE_TTL,
        )
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
        logger.warning("verification code to %s not sent: %s", masked_email(customer.email), exc)
        _codes_retire(conversation.pk)
        return Proof(ProofStatus.CODE_UNSENDABLE, customer)
    return Proof(ProofStatus.CODE_SENT, customer, sent_to=masked_email(customer.email))


def _code_check(conversation: Conversation, code: str) -> Proof:
    pending = _pending_code(conversation.pk)
    if pending is None:
        return Proof(ProofStatus.NOTHING)
    if pending.expires_at <= timezone.now():
        sent = _code_send(conversation, pending.customer)
        return replace(sent, status=ProofStatus.CODE_EXPIRED) if sent.status == ProofStatus.CODE_SENT else sent
    if hmac.compare_digest(pending.code_hash, _code_hash(conversation.pk, code)):
        VerificationCode.objects.filter(pk=pending.pk).update(used_at=timezone.now())
        return Proof(ProofStatus.VERIFIED, pending.customer)
    VerificationCode.objects.filter(pk=pending.pk).update(attempts=F("attempts") + 1)
    pending.refresh_from_db(fields=["attempts"])
    left = max(CODE_TRIES - pending.attempts, 0)
    if left == 0:
        _codes_retire(conversation.pk)
        return Proof(ProofStatus.CODE_SPENT)
    return Proof(ProofStatus.CODE_WRONG, tries_left=left)
