"""How shoppers name the products of an English catalogue in their own words: 头盔 for a Bicycle Helmet, 台灯 for a
Desk Lamp, "the tee" for a T-Shirt, "the power bank" for a Portable Charger.

Words are data (`product_words.zh.json`, `product_words.en.json`: an English product noun, as a catalogue name
ends, and the words a shopper types for it besides the name's own). A product's words are those of every ending of
its name the files know ("sleeping bag" and "bag"); where two products of one order share a word, it names the one
whose name it says more of (台灯 names a Desk Lamp beside a Floor Lamp, whose 台灯 comes from "lamp" alone), and
neither when it says as much of both (agents.workflows.slots).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

LANGUAGES = ("zh", "en")


@cache
def _words() -> dict[str, tuple[str, ...]]:
    words: dict[str, list[str]] = {}
    for language in LANGUAGES:
        data = json.loads(Path(__file__).with_name(f"product_words.{language}.json").read_text(encoding="utf-8"))
        for noun, said in data.items():
            if not noun.startswith("_"):
                words.setdefault(noun.lower(), []).extend(said)
    return {noun: tuple(dict.fromkeys(said)) for noun, said in words.items()}


def _singular(word: str) -> str:
    for plural, single in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("s", "")):
        if word.endswith(plural) and len(word) > len(plural) + 2:
            return word[: -len(plural)] + single
    return word


def product_words(name: str) -> dict[str, int]:
    """The words a shopper types for the product called `name` besides its name, lower case, the longest ending first
    (办公椅 and 椅子 for an Office Chair), each with how many English words the ending that gave it holds: a word
    of "desk lamp" (台灯) says more of a Desk Lamp than a word of "lamp" (灯) does."""
    words = re.findall(r"[a-z][a-z-]*", name.lower())
    known = _words()
    found: dict[str, int] = {}
    for size in range(min(len(words), 3), 0, -1):
        ending = [*words[-size:-1], _singular(words[-1])]
        for noun in (" ".join(words[-size:]), " ".join(ending)):
            for word in known.get(noun, ()):
                found.setdefault(word.lower(), size)
    return found


@cache
def _all_words() -> tuple[str, ...]:
    return tuple(dict.fromkeys(word.lower() for words in _words().values() for word in words))


@cache
def longer_words(word: str) -> tuple[str, ...]:
    """The known product words that hold `word` and say more (滑板板面, a skateboard's deck, holds 滑板): where
    one of them is written, `word` alone is not what is named."""
    return tuple(longer for longer in _all_words() if word in longer and longer != word)
