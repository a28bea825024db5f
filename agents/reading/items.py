"""Which items of an order a message asks for: two learned decisions over the places the message names items.

Finding where an item is named is string work over the order's own data (its product names, their last words,
their Chinese words, its option values: agents.workflows.slots). What a mention is there for is meaning, read by
two decisions from `examples/item_role.<lang>.jsonl` and `examples/items_scope.<lang>.jsonl`, whose texts carry
placeholders for the items so that the model learns the words around an item, never a product:

- `item_role`: is the item at `ITEM` asked for ("asked": to return, exchange or change) or only mentioned
  ("aside": kept, praised, ruled out, the story)? Other items named in the same message read as `OTHER`.
- `items_scope`: does the request cover only the items it asks for ("named"), or every item of the order but
  those it keeps ("all": "both", "send everything back except ITEM", "ITEM is fine, the other one has to go")?

A change is proposed only for what the customer named (issue: safety of writes), so "all" is read only when the
model is sure of it, and a mention the model reads aside is never asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from agents.reading.ask_or_tell import ASK_OR_TELL, Said, said_of
from agents.reading.decisions import CLAUSE_END, Decision, likelihood


class Role(StrEnum):
    ASKED = "asked"
    ASIDE = "aside"


class Scope(StrEnum):
    NAMED = "named"
    ALL = "all"


THIS, OTHER = "ITEM", "OTHER"
_DETERMINER = re.compile(r"\b(?:the|my|this|that|these|those|a|an|your|our)\s+$", re.IGNORECASE)
_SPACES = re.compile(r"[ \t]+")
# Where a sentence ends: its mark, or a line.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*|\n")
# A list mark opening a line: "- ", "• ", "2. ", "3、", "(1)".
LIST_MARK = re.compile(r"^\s*(?:[-•*·]|\d+\s*[.)、]|[（(]\d+[)）])")
_SAID = re.compile(r"[A-Za-z']+|\d+|[\u3400-\u9fff]{1,2}")
# What a piece can hold and still say nothing of its own: the items and the words that join them.
_SAYS_NOTHING = frozenset({THIS, OTHER, "and", "or", "both", "和", "或", "跟", "还有", "以及"})


def around_item(text: str) -> str:
    """The sentence that names ITEM. A list line, or a sentence that hardly says more than the items, comes with
    the lines before it up to one that says something ("Returning:\n- OTHER\n- ITEM"), or, when none does, with
    the sentences after it ("- ITEM\n- OTHER\nAll came scratched, please exchange")."""
    pieces = [piece for piece in _SENTENCE_END.split(text) if piece and piece.strip()]
    at = next((k for k, piece in enumerate(pieces) if THIS in piece), None)
    if at is None:
        return text
    start = at
    while start > 0 and not _says_something(pieces[start]):
        start -= 1
    if _says_something(pieces[start]):
        return "\n".join(pieces[start : at + 1])
    end = at
    while end < len(pieces) - 1 and not _says_something(pieces[end]):
        end += 1
    return "\n".join(pieces[at : end + 1])


def _says_something(piece: str) -> bool:
    """More than items, list marks and the words that join them ("OTHER and ITEM", "- ITEM")."""
    return any(w not in _SAYS_NOTHING for w in _SAID.findall(LIST_MARK.sub("", piece)))


def clause_of_item(text: str) -> str:
    """The clause of `around_item` that names ITEM ("ITEM换成S码的" in "ITEM换成S码的，OTHER刚好"), with the
    clauses after it up to one that asks when it only tells ("原来的ITEM（绿色），想换成红色的")."""
    around = around_item(text)
    clauses = [clause for line in around.splitlines() for clause in CLAUSE_END.split(line) if clause.strip()]
    at = next((k for k, clause in enumerate(clauses) if THIS in clause), None)
    if at is None:
        return around.strip() or "-"
    end = at
    while end < len(clauses) - 1 and said_of(clauses[end]) == Said.TELLS:
        end += 1
    return "，".join(clauses[at : end + 1]).strip()


ITEM_ROLE = Decision(
    "item_role",
    tuple(role.value for role in Role),
    focus=around_item,
    marker=THIS,
    beside=OTHER,
    meaning_also_of=clause_of_item,
    reads_with=(ASK_OR_TELL,),
)
ITEMS_SCOPE = Decision("items_scope", tuple(scope.value for scope in Scope))
# How sure the scope model must be that a message covers every item: reading "all" wrongly proposes items the
# customer never named, reading "named" wrongly only makes the bot ask which items. Chosen on a development set of
# orders and messages (0.5–0.7 read within a point of each other), never on a benchmark.
ALL_AT = 0.6
# An answer to "Which items?" names the items it means ("是E-Reader；Portable Charger（黑色）"): an item named there
# is left out only when the model is sure it is set aside ("the kettle, not the mug").
ANSWER_ASKED_AT = 0.2
# Beside "everything but …", how sure the role model must be that an item named is asked for too.
SURELY_ASKED = 0.8
SURELY_ASIDE = 1 - SURELY_ASKED


@dataclass(frozen=True)
class Mention:
    """Where the message names an item: the span of the words in the text, and the items they fit (several when
    the order holds one product more than once and the words tell none of them apart)."""

    start: int
    end: int
    item_ids: tuple[str, ...]


def placeholders(text: str, mentions: Sequence[Mention], this: Mention | None) -> str:
    """The text with each mention's words replaced: `this` one by ITEM, the others by OTHER (all by ITEM when
    `this` is None). A determiner goes with the item ("return ITEM", as the examples write it); lines stay."""
    out, at = [], 0
    for mention in sorted(mentions, key=lambda m: m.start):
        if mention.start < at:
            continue  # overlapping spans: the first one said stands for both
        word = THIS if this is None or mention == this else OTHER
        out += [_DETERMINER.sub("", text[at : mention.start]), word]
        at = mention.end
    out.append(text[at:])
    return _SPACES.sub(" ", "".join(out)).strip()


def items_asked(
    text: str, mentions: Sequence[Mention], order_ids: Sequence[str], *, answering: bool = False
) -> list[str] | None:
    """The ids of the items the message asks for, in the order it names them (every item in the order's order),
    or None when it asks for none. `answering`: the message answers "Which items?". "Both" and "all" said of
    items named together, none of them set aside, are those items ("return both pairs of sneakers", "the white
    shirts, both of them, and the cap"), not the order's."""
    asked = [_asked(text, mentions, mention) for mention in mentions]
    at = ANSWER_ASKED_AT if answering else 0.5
    said_of_several = any(len(mention.item_ids) > 1 for mention in mentions)
    if covers_all(placeholders(text, mentions, None)) and not (said_of_several and min(asked, default=0) >= at):
        return _all_but_those_kept(mentions, asked, order_ids)
    # an item named more than once is what the last mention of it says ("return the poles… actually never mind,
    # the poles are fine"; "I love the lamp… actually, return the lamp")
    last = {i: p for mention, p in zip(mentions, asked, strict=True) for i in mention.item_ids}
    chosen = [i for mention in mentions for i in mention.item_ids if last[i] >= at]
    return list(dict.fromkeys(chosen)) or None


def _all_but_those_kept(mentions: Sequence[Mention], asked: list[float], order_ids: Sequence[str]) -> list[str] | None:
    """Every item but those named, unless one is surely asked for too ("all of it, the lamp included")."""
    sure = {i for mention, p in zip(mentions, asked, strict=True) if p >= SURELY_ASKED for i in mention.item_ids}
    named = {i for mention in mentions for i in mention.item_ids}
    return [i for i in order_ids if i in sure or i not in named] or None


def covers_all(text: str) -> bool:
    """The request covers every item of the order (but those it keeps), items written as ITEM."""
    return bool(text.strip()) and likelihood(ITEMS_SCOPE, text).get(Scope.ALL, 0.0) >= ALL_AT


def set_aside(text: str, *, surely: bool = False) -> bool:
    """The item written ITEM in `text` is only mentioned there (kept, praised, ruled out), not asked for;
    `surely`: the model is sure of it, not only leaning that way (a line that only names and describes its
    item leans neither way)."""
    return likelihood(ITEM_ROLE, text)[Role.ASKED] < (SURELY_ASIDE if surely else 0.5)


def _asked(text: str, mentions: Sequence[Mention], mention: Mention) -> float:
    """How likely the message asks for the item at `mention`."""
    return likelihood(ITEM_ROLE, placeholders(text, mentions, mention))[Role.ASKED]
