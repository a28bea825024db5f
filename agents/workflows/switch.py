"""Is a message an answer to the slot the bot asked for, or a new topic? (pure)"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from agents.reading.message import TextReading
from agents.workflows import slots as read

_ASKS = re.compile(
    r"^\W*(?:how|what|what's|which|is|are|does|do|will|when|where|why)\b|.*(?:吗|多少钱|多少|是什么|怎么样)[？?]?\s*$",
    re.IGNORECASE,
)
_ENTITY_SLOTS = {
    "order_id": ("order_ids",),
    # The verification question accepts any of its proofs: email, name + zip, order + phone digits.
    "email": ("email", "names", "zip", "last4", "phone"),
    "phone": ("phone",),
    "contact": ("email", "phone"),
    "imei": ("imei",),
    "zip": ("zip",),
    "phone_last4": ("last4", "phone"),
    "address": ("zip",),
}


def is_slot_answer(
    slot: str,
    text: str,
    reading: TextReading,
    entities: dict[str, Any],
    *,
    other_intent_confidence: float,
    before: str = "",
) -> bool:
    """True when `text` (read as `reading`) answers `slot`, `before` being what the customer gave the request.
    Free-text slots (reason, description, …) accept anything that is not confidently a different request."""
    if read.correction(text, before) is not None:  # "sorry typo, linear not tactile" puts right what was said
        return True
    if slot == "confirm":
        return reading.yes_no is not None
    choices: dict[str, Mapping[str, Iterable[str]]] = {
        "warranty_status": read.WARRANTY_WORDS,
        "repair_type": read.REPAIR_TYPE_WORDS,
        "invoice_type": read.INVOICE_TYPE_WORDS,
    }
    if slot in choices and read.read_choice(text, choices[slot]):
        return True
    if slot == "change" and reading.change:
        return True
    if slot == "reason" and reading.reason:
        return True
    if slot == "payment_method_id" and read.PAYMENT_WORDS.search(text):
        return True
    named = [str(p).lower() for p in entities.get("products") or []]
    if slot in ("item_ids", "new_item_ids") and any(product in text.lower() for product in named):
        # "I want the Digital Camera I got in 20MP (would like the 30MP one)" names the item it is
        # about; "how much is the 30MP one?" asks something of its own, and "can you set up a return
        # for it" (the product named elsewhere in the message) asks for something else.
        return not _ASKS.match(text)
    if slot in _ENTITY_SLOTS:
        return any(entities.get(key) for key in _ENTITY_SLOTS[slot]) or other_intent_confidence < 0.7
    return other_intent_confidence < 0.7
