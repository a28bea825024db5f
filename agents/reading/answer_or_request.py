"""Whether a message answers the one thing the bot asked for, asks a question back, or leaves the question for a new
request: a learned decision, read while a request waits on a slot.

Read by agents.reading.decisions from `examples/answer_or_request.<lang>.jsonl` (each with the `slot` the bot
asked for and its why): "um I think it's #W…, right?" answers "which order?" though it ends in a question mark,
"why do you need my e-mail?" asks back, "actually forget the address, I want to cancel the order" leaves the
question for another request, and "go ahead, I can't wait" answers "Shall I go ahead?". The slot is read with the
message, as the words of the bot's question, since "the blue one" answers "which colour?" and not "which order?".

What a message gives for a slot by its format (an order id, an e-mail, a zip, a payment method, a value of the
item's options) is read by agents.workflows.slots; this decision reads the rest (agents.workflows.switch).
"""

from __future__ import annotations

from enum import StrEnum

from agents.reading.decisions import Decision, likelihood
from agents.reading.intent import ids_as_words


class Reply(StrEnum):
    ANSWER = "answer"  # answers the slot, in part, in other words, with a tag question or a correction
    NEW_REQUEST = "new_request"  # leaves the question for another request, or drops this one for it
    QUESTION = "question"  # asks something back before answering


# The words of the bot's question for each slot, read before the message.
SLOT_ASKED = {
    "order_id": "which order number",
    "reason": "why, the reason",
    "item_ids": "which items",
    "new_item_ids": "which new options",
    "address": "which new address",
    "payment_method_id": "which payment method",
    "email": "your email or name and zip",
    "confirm": "shall I go ahead, yes or no",
}
# A reading this sure stands; below it the engine keeps its older sign (whether another request was read surely).
SURE_AT = 0.5


def asked_then_said(text: str, slot: str = "") -> str:
    """The message as the decision reads it: the slot's question, then the message with its ids as words."""
    asked = SLOT_ASKED.get(slot, slot.replace("_", " "))
    return f"({asked}) {ids_as_words(text)}" if asked else ids_as_words(text)


ANSWER_OR_REQUEST = Decision(
    "answer_or_request", tuple(reply.value for reply in Reply), framing=asked_then_said, context="slot"
)


def reply_likelihood(slot: str, text: str) -> dict[Reply, float]:
    """How likely each reading of the message is, the bot having asked for `slot`."""
    return {Reply(label): p for label, p in likelihood(ANSWER_OR_REQUEST, asked_then_said(text, slot)).items()}


def reply_read(slot: str, text: str) -> Reply | None:
    """The likeliest reading when it is SURE_AT likely, else None; None too for a slot the examples do not ask
    for (a fault's description, a repair's kind)."""
    if slot not in SLOT_ASKED:
        return None
    read = reply_likelihood(slot, text)
    best = max(read, key=lambda reply: read[reply])
    return best if read[best] >= SURE_AT else None
