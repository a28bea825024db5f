"""How far a workflow has got, besides the values of its slots: a typed record kept in WorkflowState.progress.

The slots hold what the customer gave (order, items, reason, address…) and are what a request writes; the
progress holds how the conversation got there, which no tool ever reads. Every field has its default when the
workflow starts, and the record is stored without its defaults, so an old row reads as a fresh one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, NotRequired, TypedDict


class Said(TypedDict):
    """Words of the customer's kept for this request, read again once what they need is known."""

    text: str
    entities: dict[str, Any]
    # What they put right, read when they were said (agents.reading.correction): [meant, mistaken or ""].
    fix: NotRequired[list[str]]
    # Read only for the slots whose latest word counts (Workflow.restated): a correction whose value was put
    # right in the words before it may still say one of those again ("刚才说错了，理由是下错单了").
    restated_only: NotRequired[bool]


@dataclass
class Progress:
    # Words said before the account or the order was known: read again once it is, so nothing is asked twice.
    pending: list[Said] = field(default_factory=list)
    # Answers in a row that filled nothing for the awaited slot (agents.workflows.runner offers choices, then
    # a person); proofs of identity that failed, across the request.
    unusable: int = 0
    verify_failures: int = 0
    # Item changes: the new version of each item settled while another item's is still asked for; the options
    # asked for an item that no version has (kept for the answer to "not available"); the one version offered
    # when only it has the options named, taken on a "yes".
    replacements: dict[str, str] = field(default_factory=dict)
    asked: dict[str, dict[str, str]] = field(default_factory=dict)
    offered: dict[str, str] = field(default_factory=dict)
    # An address given in part, kept until the rest arrives.
    draft: str = ""
    # The value (an order or a card) refused last, and the refused order's status: the same one twice ends the
    # request, saying what can be done with that order.
    refused: str = ""
    refused_status: str = ""
    # A cancellation that names only some of the order's items: the confirmation says the whole order goes.
    part_asked: bool = False
    # What the write returned.
    result: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, stored: dict[str, Any] | None) -> Progress:
        known = {f.name for f in fields(cls)}
        return cls(**{name: value for name, value in (stored or {}).items() if name in known})

    def dump(self) -> dict[str, Any]:
        fresh = asdict(Progress())
        return {name: value for name, value in asdict(self).items() if value != fresh[name]}

    def item_choice_done(self) -> None:
        """Every item's new version is settled: what was kept while choosing them is no longer needed."""
        self.replacements, self.asked, self.offered = {}, {}, {}


def said_before(slots: dict[str, Any], progress: Progress) -> str:
    """What the customer has given a request, as one text that a correction is read against
    (agents.reading.correction): the words kept for it, the values of its slots, the address given in part and
    the options asked for."""
    said = [said["text"] for said in progress.pending]
    said += [value for options in progress.asked.values() for value in options.values()]
    return "\n".join([*said, *_strings(slots), progress.draft]).strip()


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for inner in value.values() for text in _strings(inner)]
    if isinstance(value, list):
        return [text for inner in value for text in _strings(inner)]
    return []
