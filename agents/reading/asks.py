"""What a message (or one clause of it) asks for, learned from examples: how the store works, what became of the
customer's own order or account, or that the store act on it.

Read by agents.reading.decisions from `examples/asks.<lang>.jsonl`. The line it draws is whether the answer is a
policy fact or lies in the customer's records: "my screen broke, does the accident plan cost me anything?" and
"is it too late to add cover seven weeks after buying?" tell a story in the first person and still ask how the
store works, so the help centre answers them without asking who the customer is; "has my refund come through?"
can only be answered from their records, and "I'd like to send the earbuds back" asks the store to act.
"""

from __future__ import annotations

from enum import StrEnum

from agents.reading.decisions import Decision, likelihood


class Asks(StrEnum):
    POLICY = "policy"  # how the store works: the help centre answers it for anyone
    OWN_STATE = "own_state"  # what became of the customer's own order, parcel, refund or account
    REQUEST = "request"  # the store is to act on the customer's order or account
    OTHER = "other"  # greetings, feelings, the catalogue (a product's price, stock, specs), small talk


ASKS = Decision("asks", tuple(kind.value for kind in Asks))
# A message read as a policy question is answered by the help centre and nothing else: a request told with a
# question ("…the earbuds still haven't shipped. Can I just cancel them?") would be lost, so a policy reading
# must be this sure; below it the likeliest other reading stands.
POLICY_AT = 0.6
# Read as a request, but this likely a policy question too: the help centre's answer goes beside the request.
POLICY_BESIDE_AT = 0.2


def asks_likelihood(text: str) -> dict[Asks, float]:
    """How likely each of the four readings is."""
    if not text.strip():
        return {kind: float(kind == Asks.OTHER) for kind in Asks}
    return {Asks(label): p for label, p in likelihood(ASKS, text).items()}


def asks_read(text: str) -> Asks:
    """The likeliest of the four, a policy question only when sure."""
    read = dict(asks_likelihood(text))
    if read[Asks.POLICY] < POLICY_AT:
        read.pop(Asks.POLICY)
    return max(read, key=lambda kind: read[kind])


def asks_policy_too(text: str) -> bool:
    """A request that also asks how the store works ("the invoice title is wrong, can it still be changed?",
    "I bought the cover two months ago and want to cancel it, do I get anything back?"): the rule answers
    the question whether the request can be done, so the help centre's answer goes beside it. A bare
    request ("can you cancel my order?", "我要退货") reads as policy at under 0.05."""
    return asks_likelihood(text)[Asks.POLICY] >= POLICY_BESIDE_AT
