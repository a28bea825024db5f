"""An escalation card as a person reads it in the console: the reason in words, the topics of each message
as labelled chips, the mood as a coloured scale with its legend, what the bot had collected as a labelled
table (no internal keys), order ids linked to the store admin, and the suggested first reply.

The card's JSON is written by the engine (agents.escalation) for machines as well (the API, webhooks);
this is the one place that turns it into words, in the staff member's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from tickets.models import EscalationCard, EscalationReason

# Why the chat came to a person, as the headline of the card.
REASON_LINES = {
    EscalationReason.REQUESTED: gettext_lazy("The customer asked to talk to a person."),
    EscalationReason.EMOTION: gettext_lazy("The customer is upset."),
    EscalationReason.REPEATED_FAILURE: gettext_lazy("The assistant could not help twice in a row."),
    EscalationReason.LOW_CONFIDENCE: gettext_lazy("The assistant could not tell what the customer wants."),
    EscalationReason.POLICY: gettext_lazy("The request is outside what the assistant may do."),
    EscalationReason.ERROR: gettext_lazy("A system error stopped the assistant."),
}

# Mood buckets of the engine's emotion score (0 = very negative, 0.5 = neutral, 1 = very positive).
MOODS = (
    (0.2, "very-upset", gettext_lazy("very upset")),
    (0.4, "upset", gettext_lazy("upset")),
    (0.6, "neutral", gettext_lazy("neutral")),
    (1.01, "calm", gettext_lazy("calm or happy")),
)

REQUESTS = {
    "return": gettext_lazy("Return"),
    "exchange": gettext_lazy("Exchange"),
    "repair": gettext_lazy("Repair"),
    "invoice": gettext_lazy("Invoice"),
    "cancel_order": gettext_lazy("Cancel an order"),
    "modify_order": gettext_lazy("Change an order"),
    "verify": gettext_lazy("Identity check"),
    "callback": gettext_lazy("Callback contact"),
}
REQUEST_STATES = {
    "active": gettext_lazy("in progress"),
    "cancelled": gettext_lazy("cancelled by the customer"),
}
SLOT_LABELS = {
    "order_id": gettext_lazy("Order"),
    "reason": gettext_lazy("Reason"),
    "item_ids": gettext_lazy("Items"),
    "new_item_ids": gettext_lazy("New items"),
    "payment_method_id": gettext_lazy("Payment method"),
    "address": gettext_lazy("Address"),
    "issue_description": gettext_lazy("Problem described"),
    "invoice_type": gettext_lazy("Invoice type"),
    "invoice_title": gettext_lazy("Invoice title"),
    "tax_id": gettext_lazy("Tax id"),
    "email": gettext_lazy("Email"),
    "phone": gettext_lazy("Phone"),
    "contact": gettext_lazy("Contact"),
    "intent": gettext_lazy("Wanted"),
    "confirmed": gettext_lazy("Confirmed"),
}


@dataclass(frozen=True)
class Mood:
    score: float
    key: str  # the CSS class: very-upset, upset, neutral, calm
    label: str


@dataclass(frozen=True)
class OrderLink:
    order_id: str
    url: str


@dataclass(frozen=True)
class CardView:
    card: EscalationCard
    reason_line: str
    topics: list[list[str]]  # per message, oldest first: the labels of what it asked
    moods: list[Mood]  # per message, oldest first
    request: str  # the workflow that was under way, in words ("Return, in progress"), or ""
    collected: list[tuple[str, str]]  # (label, value)
    orders: list[OrderLink]
    last_customer_message: str


def card_view(card: EscalationCard) -> CardView:
    return CardView(
        card=card,
        reason_line=str(REASON_LINES.get(EscalationReason(card.reason), card.get_reason_display())),
        topics=[_topic_labels(entry) for entry in card.intents if isinstance(entry, dict)],
        moods=[mood(score) for score in card.emotion_trajectory if isinstance(score, int | float)],
        request=_request(card.slots),
        collected=_collected(card.slots),
        orders=[OrderLink(order_id, _order_url(order_id)) for order_id in card.order_ids if isinstance(order_id, str)],
        last_customer_message=next(
            (m.get("text", "") for m in reversed(card.last_messages) if m.get("sender") == "customer"), ""
        ),
    )


def mood(score: float) -> Mood:
    key, label = next((key, label) for below, key, label in MOODS if score < below)
    return Mood(score=score, key=key, label=str(label))


def _topic_labels(entry: dict[str, Any]) -> list[str]:
    """The labels the engine stored with the turn, in the staff member's language; a name made readable for
    a card written before labels were stored."""
    language = "zh" if (get_language() or "").startswith("zh") else "en"
    labels = (entry.get("labels") or {}).get(language)
    if isinstance(labels, list) and labels:
        return [str(label) for label in labels]
    return [str(name).replace("_", " ").capitalize() for name in entry.get("intents", [])]


def _request(slots: dict[str, Any]) -> str:
    kind = slots.get("workflow")
    if not isinstance(kind, str) or not kind:
        return ""
    name = str(REQUESTS.get(kind, kind.replace("_", " ").capitalize()))
    state = REQUEST_STATES.get(str(slots.get("status", "")))
    return _("%(request)s, %(state)s") % {"request": name, "state": state} if state else name


def _collected(slots: dict[str, Any]) -> list[tuple[str, str]]:
    """What the customer had given, labelled; internal keys (a leading underscore, the workflow's own
    bookkeeping) are left out."""
    rows = []
    for key, value in slots.items():
        if key.startswith("_") or key in ("workflow", "status") or value in (None, "", [], {}):
            continue
        label = SLOT_LABELS.get(key, key.replace("_", " ").capitalize())
        rows.append((str(label), _value(value)))
    return rows


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return ", ".join(_value(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_value(item)}" for key, item in value.items() if not str(key).startswith("_"))
    return str(value)


def _order_url(order_id: str) -> str:
    try:
        return f"{reverse('admin:store_order_changelist')}?{urlencode({'q': order_id})}"
    except NoReverseMatch:  # the store admin is not installed
        return ""
