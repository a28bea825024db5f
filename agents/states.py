"""Turn and subtask statuses and the moves allowed between them (pure: no ORM)."""

from django.db import models


class TurnStatus(models.TextChoices):
    RECEIVED = "received", "Received"  # the customer's message is stored; nothing decided yet
    RECOGNIZED = "recognized", "Recognized"  # intents, entities and emotion are recorded
    FANNED_OUT = "fanned_out", "Fanned out"  # one subtask per specialist is queued
    MERGING = "merging", "Merging"  # every subtask finished; the reply is being composed
    DONE = "done", "Done"  # the bot replied (an answer or a clarifying question)
    ESCALATED = "escalated", "Escalated"  # handed to a human with an escalation card
    SKIPPED = "skipped", "Skipped"  # a human owns the conversation: the bot stayed silent
    FAILED = "failed", "Failed"  # an unexpected error; the customer got an apology


TERMINAL = frozenset({TurnStatus.DONE, TurnStatus.ESCALATED, TurnStatus.SKIPPED, TurnStatus.FAILED})

ALLOWED_TRANSITIONS: dict[TurnStatus, frozenset[TurnStatus]] = {
    TurnStatus.RECEIVED: frozenset({TurnStatus.RECOGNIZED, TurnStatus.SKIPPED, TurnStatus.FAILED}),
    TurnStatus.RECOGNIZED: frozenset(
        {TurnStatus.FANNED_OUT, TurnStatus.DONE, TurnStatus.ESCALATED, TurnStatus.SKIPPED, TurnStatus.FAILED}
    ),
    TurnStatus.FANNED_OUT: frozenset({TurnStatus.MERGING, TurnStatus.FAILED}),
    TurnStatus.MERGING: frozenset({TurnStatus.DONE, TurnStatus.ESCALATED, TurnStatus.SKIPPED, TurnStatus.FAILED}),
    TurnStatus.DONE: frozenset(),
    TurnStatus.ESCALATED: frozenset(),
    TurnStatus.SKIPPED: frozenset(),
    TurnStatus.FAILED: frozenset(),
}


class SubtaskStatus(models.TextChoices):
    PENDING = "pending", "Pending"  # queued, no result yet
    DONE = "done", "Done"  # the specialist answered (resolved or not)
    FAILED = "failed", "Failed"  # the specialist raised
    TIMED_OUT = "timed_out", "Timed out"  # no answer within SUBTASK_TIMEOUT_S


def transition_allowed(from_: str, to: str) -> bool:
    return TurnStatus(to) in ALLOWED_TRANSITIONS[TurnStatus(from_)]
