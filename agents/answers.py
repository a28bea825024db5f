"""What a specialist is given for one subtask, what it gives back, and its typed error (pure data).

The engine, the specialists and the workflows all speak these types, so they live below all three."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.reading.message import Reading, TextReading


@dataclass(frozen=True)
class SpecialistContext:
    turn_id: int
    subtask_id: int
    conversation_id: int
    customer_id: int
    language: str  # "zh" or "en": the language to answer in
    intent: str
    text: str  # the clause this subtask serves
    message_text: str  # the whole customer message
    entities: dict[str, Any]
    emotion_score: float
    history: str = ""  # layered summary of the conversation so far
    digression: bool = False  # a paused workflow's message that another subtask answers as a question
    reading: Reading | None = None  # the turn's reading of the message; a new one when none is given

    def __post_init__(self) -> None:
        if self.reading is None:
            object.__setattr__(self, "reading", Reading(self.message_text))

    @property
    def message_reading(self) -> Reading:
        assert self.reading is not None  # set in __post_init__
        return self.reading

    def read(self, text: str) -> TextReading:
        """What the learned decisions read in `text` (the message, a part of it, or words kept from before)."""
        return self.message_reading.of(text)


@dataclass(frozen=True)
class SpecialistResult:
    text: str
    # False when the specialist could not answer (the "not available" placeholder or a knowledge
    # miss): the turn then counts as unresolved and the failure counter goes up (seed 000).
    resolved: bool = True
    sources: tuple[dict[str, Any], ...] = ()
    awaiting: dict[str, Any] | None = None  # {"slot", "prompt", "choices"}
    quick_replies: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)
    knowledge: bool = False  # answers from the knowledge base are not rewritten by the LLM
    # A question that waited for the customer's identity, now proven: the workflow specialist has the
    # business specialist answer it after this text.
    resume: SpecialistContext | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "resolved": self.resolved,
            "sources": list(self.sources),
            "awaiting": self.awaiting,
            "quick_replies": list(self.quick_replies),
            "data": self.data,
            "knowledge": self.knowledge,
        }


class SpecialistError(Exception):
    """A specialist cannot answer, and says why (the subtask is recorded as failed with this message and
    the turn answers with the other subtasks). A transient one (`permanent=False`: a remote API timing
    out) is tried again a few times first (agents.subtasks)."""

    def __init__(self, message: str, *, permanent: bool = True) -> None:
        super().__init__(message)
        self.permanent = permanent
