"""What a change to an order changes, a learned decision: its items (another version of an item), its shipping
address, its payment method, the account's default address, or nothing it says.

Read by agents.reading.decisions from `examples/change.<lang>.jsonl`. The words that name a kind are the
weakest evidence: "keep the address, just make the hoodie an XL" changes items, "put the difference on my gift
card" pays for an item change, an SD card is a product and no way to pay, and "send it to my office instead"
names no address at all. An address written out is read by its format first (agents.workflows.addresses), and
a message the model is not sure of says nothing, so the bot asks what to change.
"""

from __future__ import annotations

from enum import StrEnum

from agents.reading.decisions import Decision, surest


class Change(StrEnum):
    ITEMS = "items"
    ADDRESS = "address"  # where this order ships
    PAYMENT = "payment"
    DEFAULT_ADDRESS = "default_address"  # the address the account keeps for later orders
    NONE = "none"


CHANGE = Decision("change", tuple(change.value for change in Change), meaning_without_negated=True)
# A kind is read when the model is at least this sure of it: chosen on the examples' cross-validation.
CHANGE_AT = 0.5


def change_read(text: str) -> str | None:
    """What the message changes ("items", "address", "payment", "default_address"), or None when it does not
    say."""
    if not text.strip():
        return None
    return surest(CHANGE, text, at=CHANGE_AT, nothing=Change.NONE)
