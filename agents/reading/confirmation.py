"""What an answer to "Shall I go ahead?" says, and whether a customer gives up a request: a learned decision.

Read by agents.reading.decisions from `examples/confirmation.<lang>.jsonl`: "yes" (go ahead), "no" (not this,
or something in it is wrong), "cancel" (drop the whole request, at any step) and "other" (a question back, a
hesitation, another subject, an answer to some other question). "I don't mind, go ahead" and "好的，不用急" say
yes although they hold a "no"; "ok but no, the colour is wrong" says no although it holds an "ok".

The answer is read in the context of the request it answers (its workflow kind, an example's `request`): at "Shall
I cancel the order?" the words of cancelling ("取消吧", "just cancel it") confirm it, where at a return they give
the return up.

A yes writes a change, so it is read only when the model is sure of it (YES_AT); a message it is not sure of is
asked again, which costs a turn and never a wrong write. Giving up ends the request, so it too needs CANCEL_AT.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from agents.reading.decisions import Decision, in_context, likelihood


class Answer(StrEnum):
    YES = "yes"
    NO = "no"
    CANCEL = "cancel"
    OTHER = "other"


def answering(text: str, request: str) -> str:
    """The message as the decision reads it: within the request it answers about. Its own function, so that the
    fitted model's key holds this module's source (the framing's), not that of every decision."""
    return in_context(text, request)


CONFIRMATION = Decision("confirmation", tuple(answer.value for answer in Answer), framing=answering, context="request")
# Chosen on the examples' cross-validation (manage.py train_decisions prints how each bar fares there) and on
# bench/slot_reading's development halves, where at 0.6 no yes was read where none was said.
YES_AT = 0.6
CANCEL_AT = 0.6
MAX_WORDS = 30  # a longer message tells or asks more than a yes or a no


@dataclass(frozen=True)
class ConfirmationReading:
    answer: Answer
    likelihood: dict[Answer, float]


def confirmation_read(text: str, request: str = "") -> ConfirmationReading:
    """The answer a message gives (see answer_of) within `request` (the kind of the workflow it answers, if any)."""
    if not text.strip() or len(text.split()) > MAX_WORDS:
        return ConfirmationReading(Answer.OTHER, {})
    read = {Answer(label): p for label, p in likelihood(CONFIRMATION, answering(text, request)).items()}
    return ConfirmationReading(answer_of(read), read)


def answer_of(likelihood: Mapping[Answer, float]) -> Answer:
    """Giving up and yes each need their bar; a message more likely to decline (no and giving up together) than
    anything else declines; the rest is no answer."""
    yes, no, cancel, other = (likelihood[label] for label in Answer)
    if cancel >= CANCEL_AT:
        return Answer.CANCEL
    if no + cancel > max(yes, other):  # declining, whether it is this proposal or the whole request
        return Answer.NO
    if yes >= YES_AT and yes > other:
        return Answer.YES
    return Answer.OTHER


def yes_no(text: str, request: str = "") -> bool | None:
    """True for a yes, False for a no (or giving up), None when the message is not (only) an answer."""
    return yes_no_of(confirmation_read(text, request).answer)


def yes_no_of(answer: Answer) -> bool | None:
    return {Answer.YES: True, Answer.NO: False, Answer.CANCEL: False}.get(answer)


def gives_up(text: str, request: str = "") -> bool:
    """The customer drops the request they are in ("never mind, thanks", "不办了谢谢")."""
    return confirmation_read(text, request).answer == Answer.CANCEL
