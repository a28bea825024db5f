"""One reading of a customer's message: every learned judgement the turn makes about its words, made once.

`message_read` reads the whole message and each part the intent node found in it, and the result (`Reading`)
travels with the turn (TurnRun.reading): the intent node decides with it whether an open request is left for
another, the route node whether a part asks how the store works or for the customer's own records, and the
workflow runner whether the customer says yes, declines, gives up, why they cancel and what a change changes.
None of them reads the words again.

A text that is not the message or one of its parts (words kept from an earlier message until the order was
known, the words about one item of a list) is read when first asked for, once, and kept with the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.reading.ask_or_tell import Said, said_of
from agents.reading.asks import Asks, asks_policy_too, asks_read
from agents.reading.cancel_reason import cancel_reason
from agents.reading.change import change_read
from agents.reading.confirmation import Answer, confirmation_read, yes_no_of


@dataclass(frozen=True)
class TextReading:
    """What one text says, by each learned decision (agents.reading.*)."""

    answer: Answer  # as an answer to "Shall I go ahead?": yes, no, giving up the request, or none of them
    asks: Asks  # how the store works, the customer's own records, a request, or none of these
    policy_too: bool  # a request that also asks how the store works: the help centre answers beside it
    said: Said  # asks the store to act, asks it to act on what was told before, or only tells or asks to know
    change: str | None  # what a change of an order not yet shipped changes (agents.reading.change.Change)
    reason: str | None  # why an order is cancelled, as the cancel tool takes it

    @property
    def yes_no(self) -> bool | None:
        """True for a yes, False for a no or giving up, None when the text is not (only) an answer."""
        return yes_no_of(self.answer)

    @property
    def gives_up(self) -> bool:
        return self.answer == Answer.CANCEL

    @property
    def asks_the_store(self) -> bool:
        """It asks the store to do something it names ("can you change…", "can I exchange?", "帮我退…")."""
        return self.said == Said.ASKS


def text_read(text: str, request: str = "") -> TextReading:
    """What `text` says; as an answer, within `request` (the kind of the workflow waiting for one, if any)."""
    return TextReading(
        answer=confirmation_read(text, request).answer,
        asks=asks_read(text) if text.strip() else Asks.OTHER,
        policy_too=bool(text.strip()) and asks_policy_too(text),
        said=said_of(text),
        change=change_read(text),
        reason=cancel_reason(text),
    )


@dataclass
class Reading:
    """The readings of a message and its parts, by text, within the request waiting for an answer (`request`, a
    workflow kind, "" for none). `of` reads a text not read yet, once."""

    message: str
    request: str = ""
    texts: dict[str, TextReading] = field(default_factory=dict)

    def of(self, text: str) -> TextReading:
        if text not in self.texts:
            self.texts[text] = text_read(text, self.request)
        return self.texts[text]

    @property
    def whole(self) -> TextReading:
        return self.of(self.message)

    def as_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "request": self.request,
            "texts": [{"text": text, **asdict(read)} for text, read in self.texts.items()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, message: str) -> Reading:
        """The reading a turn stored; a turn stored before readings were kept (or with another message) is read
        again when asked."""
        if not data or data.get("message") != message:
            return cls(message)
        request = str(data.get("request") or "")
        texts = {}
        for row in data.get("texts", []):
            try:
                texts[row["text"]] = TextReading(
                    answer=Answer(row["answer"]),
                    asks=Asks(row["asks"]),
                    policy_too=bool(row["policy_too"]),
                    said=Said(row["said"]),
                    change=row["change"],
                    reason=row["reason"],
                )
            except (KeyError, TypeError, ValueError):
                continue  # read again when asked for
        return cls(message, request, texts)


def message_read(message: str, parts: Iterable[str] = (), request: str = "") -> Reading:
    """The reading of the message and of its parts (the texts the intent node found requests or questions in),
    within the request waiting for an answer."""
    reading = Reading(message, request)
    for text in dict.fromkeys([message, *parts]):
        reading.of(text)
    return reading
