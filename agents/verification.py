"""Who the customer in a chat really is, before any private data or write (τ-bench policy, seed 004).

A conversation is verified when the widget or API vouched for its customer (signed identity), or
when the customer proves an account in chat: by email, by first + last name + zip, or by an order
id + the last four digits of the phone on the account. The proven account becomes the
conversation's `verified_customer`; tools only ever act for that account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q

from agents.store.models import Address, Order
from conversations.models import Conversation, Customer

MAX_FAILED_ATTEMPTS = 3
_BARE_ZIP = re.compile(r"(?<![\d#A-Za-z])(?:\d{5}|\d{6})(?![\d])")


def verified_customer(conversation: Conversation) -> Customer | None:
    if conversation.verified_customer_id is not None:
        return conversation.verified_customer
    if conversation.customer.verified:
        return conversation.customer
    return None


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


def conversation_verify(*, conversation_id: int, customer: Customer) -> None:
    with transaction.atomic():
        Conversation.objects.filter(pk=conversation_id).update(verified_customer=customer)
