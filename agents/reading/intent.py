"""What a clause asks for, of the intents the engine serves, a learned decision: a return, a question about the
returns policy, the state of the customer's refund, a product's price, a fault, small talk…

Read by agents.reading.decisions from `examples/intent.<lang>.jsonl` (contrasts between intents that share their
words, each with its why: "what is your refund policy" asks how the store works, "I want a refund" asks it to
act, "has my refund come through" asks about the customer's own refund) and from the intent exemplars the
neighbours vote with (agents/intents/data/exemplars.jsonl). It takes the place of keyword rules: a wording it
misses is taught by an example, and the offline classifier (agents.intents.offline.classify) weighs its reading
against the neighbours' vote.
"""

from __future__ import annotations

import re
from pathlib import Path

from agents.reading.decisions import Decision, likelihood
from agents.taxonomy import Intent

# The exemplars the neighbours vote with (agents.intents.exemplars reads them), named by path: the offline
# classifier reads this decision, so this module imports nothing of agents.intents.
EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "intents" / "data" / "exemplars.jsonl"
# Ids are formats: an order's ("#W2912646", "W2912646") reads as the word order, a stored payment method's
# ("credit_card_1199336") as what it is, so that no example teaches a number.
_ORDER_ID = re.compile(r"#\s*[A-Za-z]{0,2}\d{4,}\b|\b[A-Za-z]{1,2}\d{6,}\b")
_PAYMENT_ID = re.compile(r"\b(credit_card|gift_card|paypal)_\w+", re.IGNORECASE)


def ids_as_words(text: str, _before: str = "") -> str:
    """The text with its ids written as the words they stand for."""
    text = _PAYMENT_ID.sub(lambda m: m.group(1).replace("_", " "), text)
    return _ORDER_ID.sub("订单" if re.search(r"[\u4e00-\u9fff]", text) else "order", text)


# What a clause says of an item in brackets ("退Wireless Earbuds（颜色：蓝的；续航：四小时）", "the lamp (brass,
# 3-way)") describes it: the more options it lists, the more a whole-clause vector reads a change of version.
_DESCRIBED = re.compile(r"[（(][^（）()]{1,120}[)）]")


def described_apart(text: str) -> str:
    """The clause without what it says in brackets, as the meaning vector reads it; the n-grams still read the
    brackets' words with the rest ("the earbuds (swap for black)")."""
    return _DESCRIBED.sub(" ", text)


INTENT = Decision(
    "intent",
    tuple(intent.value for intent in Intent),
    framing=ids_as_words,
    meaning_of=described_apart,
    also=((EXEMPLARS_FILE, "intent"),),
)


def intent_likelihood(text: str) -> list[tuple[Intent, float]]:
    """Every intent with its probability for the clause, likeliest first."""
    read = likelihood(INTENT, ids_as_words(text))
    return sorted(((Intent(label), p) for label, p in read.items()), key=lambda pair: -pair[1])
