"""Closed classes of words kept as data (`data/*.json`): the grammar a reader looks for around shop language, such
as question words or the words that announce another request, and lexicons such as emotion's. A list becomes
one pattern, longest word first, so that a longer phrase hides a shorter one it contains; a word's Latin ends
may not run on into more letters, and a space inside a phrase matches any run of spaces."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"


@cache
def word_list(name: str) -> Any:
    """The word list `data/<name>.json`."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def words_pattern(words: Iterable[str], *, edge: str = "a-z0-9", flags: int = 0) -> re.Pattern[str]:
    """One pattern for the words (`edge`: the characters that may not touch a word's Latin ends)."""

    def guarded(word: str) -> str:
        body = r"\s+".join(re.escape(part) for part in word.split())
        before = f"(?<![{edge}])" if word[:1].isascii() and word[:1].isalnum() else ""
        after = f"(?![{edge}])" if word[-1:].isascii() and word[-1:].isalnum() else ""
        return before + body + after

    return re.compile("|".join(guarded(word) for word in sorted(set(words), key=len, reverse=True)), flags)
