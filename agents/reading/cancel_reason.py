"""Why a customer cancels an order, a learned decision: "ordered by mistake", "no longer needed", or no reason
that fits (then the bot asks).

Read by agents.reading.decisions from `examples/cancel_reason.<lang>.jsonl`. A customer asked why tells a story
as often as they name a reason ("my sister gave me hers", "公司发了电脑", "the cat walked over the keyboard"),
and a question put back ("do I get my money back?") or "just cancel it" gives none. The reason goes to the
store with the cancellation, so a message the model is not sure of gives none and the bot asks again: that
costs a turn, a wrong reason costs nothing the customer sees but is a wrong record.
"""

from __future__ import annotations

from enum import StrEnum

from agents.reading.decisions import Decision, surest


class Reason(StrEnum):
    MISTAKE = "ordered by mistake"  # the values the cancel tool takes
    NOT_NEEDED = "no longer needed"
    NONE = "none"


CANCEL_REASON = Decision("cancel_reason", tuple(reason.value for reason in Reason))
# A reason is read when the model is at least this sure of it: chosen on the examples' cross-validation
# (manage.py train_decisions).
REASON_AT = 0.5
# A reason said again, in place of one given before ("不需要了…", then "其实是点错了"), is read only when the model is
# sure of it: a message answering something else ("邮箱是…，劳驾了") must not undo the reason given.
RESTATED_AT = 0.7
MAX_WORDS = 60  # a longer message tells more than why; its reason, if any, is asked for


def cancel_reason(text: str, *, at: float = REASON_AT) -> str | None:
    """The reason the message gives for cancelling, as the cancel tool takes it, or None when it gives none (or
    the model is less than `at` sure of it)."""
    if not text.strip() or len(text.split()) > MAX_WORDS:
        return None
    return surest(CANCEL_REASON, text, at=at, nothing=Reason.NONE)
