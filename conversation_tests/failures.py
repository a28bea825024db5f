"""Why a conversation test failed, kept as data and said in the reader's language (the admin's, or the command's
LANGUAGE_CODE) in words a store owner understands: what should have happened, and what happened instead."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from django.utils.translation import gettext as _

REPLY_SHOWN = 160  # characters of a reply quoted in a failure


@dataclass(frozen=True)
class Failure:
    check: str  # contains, not_contains, cites, intent, awaits, choices, escalated, answered, escalation_reason,
    # tool, order, no_customer, no_order, unreadable
    wanted: str = ""
    got: str = ""
    order: str = ""
    turn: int = 0  # 0: before the first turn

    def at(self, turn: int) -> Failure:
        return replace(self, turn=turn)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Failure:
        return cls(**{key: data[key] for key in ("check", "wanted", "got", "order", "turn") if key in data})

    def __str__(self) -> str:
        said = self._said()
        if self.check == "unreadable":
            return said[:1].upper() + said[1:]
        if self.turn == 0:
            return _("The test could not start: %(why)s") % {"why": said}
        return _("Turn %(turn)s: %(why)s") % {"turn": self.turn, "why": said}

    def _said(self) -> str:
        values = {"wanted": self.wanted, "got": self.got or _("nothing"), "order": self.order}
        if self.check in ("contains", "not_contains"):
            values["got"] = _short(self.got)
        template = {
            "contains": _("the reply should mention “%(wanted)s”, but it said: “%(got)s”"),
            "not_contains": _("the reply should not mention “%(wanted)s”, but it said: “%(got)s”"),
            "cites": _("the reply should cite the article “%(wanted)s”, but it cited: %(got)s"),
            "intent": _("the message should be read as %(wanted)s, but it was read as: %(got)s"),
            "awaits": _("the assistant should wait for “%(wanted)s”, but it waited for: %(got)s")
            if self.wanted
            else _("the assistant should not wait for an answer, but it asked for: %(got)s"),
            "choices": _("the choices offered should include %(wanted)s, but they were: %(got)s"),
            "escalated": _("the chat should have gone to a person, but the assistant answered it itself"),
            "answered": _("the assistant should have answered, but the chat went to a person (%(got)s)"),
            "escalation_reason": _("the chat should go to a person for %(wanted)s, but it went for %(got)s"),
            "tool": _("the assistant should have called %(wanted)s, but it called: %(got)s"),
            "order": _("order %(order)s should be %(wanted)s afterwards, but it is: %(got)s"),
            "no_customer": _("the store has no customer “%(got)s”"),
            "no_order": _("the store has no order %(got)s"),
            "unreadable": _("the test cannot be read: %(got)s"),
        }[self.check]
        return template % values


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= REPLY_SHOWN else flat[: REPLY_SHOWN - 1] + "…"
