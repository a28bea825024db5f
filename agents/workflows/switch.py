"""Is a message an answer to the slot the bot asked for, or a new topic? (pure)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents.reading.answer_or_request import Reply, reply_read
from agents.reading.message import TextReading
from agents.workflows import slots as read

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
    A value the slot takes, said in its format or in its words, answers it; otherwise the learned reading of a
    reply (agents.reading.answer_or_request) tells an answer in other words from a question back or a new
    request, and when it is unsure, anything that is not confidently a different request answers."""
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
    if slot in _ENTITY_SLOTS and any(entities.get(key) for key in _ENTITY_SLOTS[slot]):
        return True
    replied = reply_read(slot, text)  # read only when no value of the slot's format was given
    named = [str(p).lower() for p in entities.get("products") or []]
    if slot in ("item_ids", "new_item_ids") and any(product in text.lower() for product in named):
        # "I want the Digital Camera I got in 20MP (would like the 30MP one)" names the item it is about; "how
        # much is the 30MP one?" asks something of its own, and "the desk lamp (black) — just refund it" gives
        # up the exchange for a return
        return replied not in (Reply.QUESTION, Reply.NEW_REQUEST)
    if replied is not None:
        return replied == Reply.ANSWER
    return other_intent_confidence < 0.7


def leaves_the_question(slot: str, text: str) -> bool:
    """The learned reading of the reply is sure it leaves the slot's question for another request."""
    return reply_read(slot, text) == Reply.NEW_REQUEST
