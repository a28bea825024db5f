"""Greetings, thanks, goodbyes and small talk: short, friendly, and steering back to the store."""

from __future__ import annotations

import re

from django.utils.translation import gettext_noop

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from conversations.language import say, say_in_context
from stores.catalogue import store_catalogue
from stores.records import StoreUnavailable

_THANKS = re.compile(r"thank|thx|\bty\b|谢|感谢", re.IGNORECASE)
_BYE = re.compile(r"\bbye\b|goodbye|see you|good ?night|再见|拜拜|晚安", re.IGNORECASE)
_BOT = re.compile(r"robot|\bbot\b|\bai\b|human or|are you real|机器人|真人|人工智能|你是谁", re.IGNORECASE)
_HOW_ARE_YOU = re.compile(r"how are you|how's it going|你好吗|最近怎么样", re.IGNORECASE)

REPLIES = {
    "thanks": gettext_noop("You're welcome! Anything else I can help you with?"),
    "bye": gettext_noop("Goodbye, and thanks for shopping with us!"),
    "bot": gettext_noop(
        "I'm the store's virtual assistant. I can check orders and deliveries, prices and stock, and help "
        "with returns, repairs and invoices - and I'll bring in a colleague whenever you'd like a person."
    ),
    "how_are_you": gettext_noop("I'm doing well, thanks for asking! How can I help you today?"),
    "greeting": gettext_noop(
        "Hello! How can I help you today? I can check an order, a delivery, a price or stock, or help with a return."
    ),
}


def greeting_quick_replies(language: str) -> tuple[str, ...]:
    """Where a greeting can go next; the price question names one of this store's own products."""
    # Quick replies are sent as the customer's own words, hence their context.
    try:
        examples = store_catalogue().examples(limit=1)
    except StoreUnavailable:
        examples = []  # a greeting is still answered; only the price suggestion is left out
    price = [say_in_context("customer", language, "Price of %(product)s", product=name) for name in examples]
    return (
        say_in_context("customer", language, "Where is my order?"),
        *price,
        say_in_context("customer", language, "Return an item"),
    )


@register
class Chitchat(Specialist):
    name = "chitchat"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        text = ctx.text
        kind = "greeting"
        for candidate, pattern in (("thanks", _THANKS), ("bye", _BYE), ("bot", _BOT), ("how_are_you", _HOW_ARE_YOU)):
            if pattern.search(text):
                kind = candidate
                break
        quick = greeting_quick_replies(ctx.language) if kind == "greeting" else ()
        return SpecialistResult(text=say(ctx.language, REPLIES[kind]), quick_replies=quick, data={"kind": kind})
