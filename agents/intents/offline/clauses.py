"""Clause splitting: a message cut into the things it says, each a substring of the message.

Sentence punctuation first, then connectors (并且 / 然后 / and also / by the way ...), then commas, never
inside brackets or a postal address; a fragment too short to stand alone, or one that only sets a time
or condition ("before #W1 goes out, ..."), stays with its neighbour.
"""

from __future__ import annotations

import re

from agents.intents.small_talk import is_small_talk
from agents.intents.word_lists import word_list, words_pattern

CJK = r"\u4e00-\u9fff"
# A period after a digit ends a sentence only when words follow ("…gift_card_123. And…"), not in "1.5L".
_HARD_SPLIT = re.compile(r"[。！？!?；;\n\r…]+|\.{2,}|(?<![0-9])\.(?![0-9])|(?<=[0-9])\.(?=\s+[^\W\d])")
_CONNECTORS = word_list("discourse")["connectors"]
_ZH_CONNECTOR = re.compile(
    rf"{words_pattern(_CONNECTORS['zh']).pattern}|并(?=(?:{words_pattern(_CONNECTORS['zh after 并']).pattern}))"
)
_EN_CONNECTOR = re.compile(
    rf"(?:,\s*|\s+and\s+)(?:{words_pattern(_CONNECTORS['after a comma or and']).pattern})|"
    rf"{words_pattern(_CONNECTORS['anywhere']).pattern}|"
    rf"\s+and\s+(?=(?:{words_pattern(_CONNECTORS['may follow and']).pattern}))",
    re.IGNORECASE,
)
_SOFT_SPLIT = re.compile(rf"[，,]|(?<=[{CJK}])\s+(?=[{CJK}])")
_CONTENT = re.compile(rf"[A-Za-z0-9{CJK}]")
# What names the thing just said: "…my gift card, id gift_card_1 instead", "…, number #W1".
_APPOSITION = re.compile(
    r"\s*(?:(?:id|no\.?|number|ref)\b\s*[:#]?\s*)?(?:credit_card|gift_card|paypal)_\w+|"
    r"\s*(?:id|no\.?|number)\s*[:#]?\s*#?\s*[A-Za-z]?\d{4,}",
    re.IGNORECASE,
)
_LEADING_JUNK = re.compile(
    rf"^[\s,，、:：\-–—]*(?:(?:and|also|plus|then)\b\s*|还有\s*|那\s*(?=[{CJK}]))?", re.IGNORECASE
)


# A clause that only sets a time or condition for the next one: "before #W1 goes out, can you switch
# the lamp…", "if I order at 4pm, when can I collect it?", "发货前，帮我改成白色".
_SUBORDINATE = re.compile(
    r"^\W*(?:(?:and|also|plus|then|so)\W+)?"
    # "when" opens a question too ("when will it arrive, and …"): only "when I …" sets a time.
    r"(?:before|after|once|until|till|as soon as|while|if|in case|"
    r"when(?!\s+(?:is|are|was|were|will|would|do|does|did|can|could|should|shall|may|might)\b))\b|"
    rf"^[{CJK}\w#\s]{{0,10}}(?:之前|以前|前|之后|以后|的时候)$",
    re.IGNORECASE,
)


def _is_short(fragment: str) -> bool:
    cjk = len(re.findall(rf"[{CJK}]", fragment))
    words = len(re.findall(r"[A-Za-z0-9]+", fragment))
    return cjk + words < 3 if cjk else words < 3


def _cut(text: str, spans: list[tuple[int, int]], pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Each span cut at the matches of `pattern` (the matches themselves dropped), never inside
    brackets or an address: "the helmet (the low, M, blue one)" is one thing said."""
    out = []
    addresses = [m.span() for m in POSTAL_ADDRESS.finditer(text)]  # once per text, not per cut
    for start, end in spans:
        last = start
        for m in pattern.finditer(text[start:end]):
            if _protected(text, start + m.start(), addresses):
                continue
            out.append((last, start + m.start()))
            last = start + m.end()
        out.append((last, end))
    return out


# A US postal address, from its street number (or a unit said first) to its zip code and country:
# its commas separate fields, not clauses.
POSTAL_ADDRESS = re.compile(
    r"(?:\b(?:apt|apartment|unit|suite|ste)\s*[\w-]+,?\s*|#\s*\d+[A-Za-z]?,?\s*)?"
    r"\b\d{1,6}[A-Za-z]?\s+[A-Za-z][^.?!;\n]{0,90}?"
    # a state's two capitals before the zip ("TX 77129", "FL, 32205"), or a street type on the way
    r"(?:\b(?-i:[A-Z]{2})\W{1,3}|\b(?:st|street|ave|avenue|rd|road|dr|drive|ln|lane|blvd|boulevard|ct|court|way|"
    r"place|pl)\b[^.?!;\n]{0,60}?\b)"
    r"\d{5}(?:-\d{4})?\b"
    r"(?:[\s,(]+(?:USA|U\.S\.A\.?|US|United States)\b\)?)?",
    re.IGNORECASE,
)


def _protected(text: str, at: int, addresses: list[tuple[int, int]]) -> bool:
    """`at` is inside brackets (on the same line) or inside one of the postal `addresses` (spans)."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    opened = line.count("(") + line.count("（") - line.count(")") - line.count("）")
    rest = text[at : text.find("\n", at) if "\n" in text[at:] else len(text)]
    if opened > 0 and re.search(r"[)）]", rest):
        return True
    return any(begin < at < end for begin, end in addresses)


def split_clauses(text: str) -> list[str]:
    """Split a message into clauses: sentence punctuation, connectors (并且/然后/顺便/and also/plus ...),
    then commas (a fragment too short to stand alone stays with its neighbour). A bare "and"/"和" between
    two names does not split ("compare X8 and X9" is one clause). Clauses are substrings of `text`."""
    spans = _cut(text, [(0, len(text))], _HARD_SPLIT)
    spans = _cut(text, spans, _EN_CONNECTOR)
    spans = _cut(text, spans, _ZH_CONNECTOR)
    clauses = [clause for piece in spans for clause in _comma_clauses(text, piece)]
    cleaned = []
    for start, end in clauses:
        clause = _LEADING_JUNK.sub("", text[start:end].strip()).strip(" ,，、:：")
        if _CONTENT.search(clause):
            cleaned.append(clause)
    return cleaned or ([text.strip()] if text.strip() else [])


def _comma_clauses(text: str, piece: tuple[int, int]) -> list[tuple[int, int]]:
    """The clauses of one piece cut at its commas: a fragment too short to stand alone, or subordinate, goes
    with the one after it (the last with the one before)."""
    fragments = [f for f in _cut(text, [piece], _SOFT_SPLIT) if _CONTENT.search(text[f[0] : f[1]])]
    merged: list[tuple[int, int]] = []
    pending: tuple[int, int] | None = None
    for frag in fragments:
        if pending is None and is_small_talk(text[frag[0] : frag[1]]):
            merged.append(frag)  # "您好，..." / "好的，..." stand alone
            continue
        if pending is None and merged and _APPOSITION.match(text[frag[0] : frag[1]]):
            merged[-1] = (merged[-1][0], frag[1])  # "use my gift card, id gift_card_1": one thing said
            continue
        if pending is not None:
            frag = (pending[0], frag[1])
            pending = None
        if _is_short(text[frag[0] : frag[1]]) or _SUBORDINATE.search(text[frag[0] : frag[1]]):
            pending = frag
        else:
            merged.append(frag)
    if pending is not None:
        short_tail = _is_short(text[pending[0] : pending[1]])
        if merged and short_tail and not is_small_talk(text[pending[0] : pending[1]]):
            merged[-1] = (merged[-1][0], pending[1])
        else:
            merged.append(pending)
    return merged


def sentence_of(text: str, clause: str) -> str:
    """The sentence of `text` that holds `clause` (the clause itself when it is not found)."""
    at = text.find(clause)
    if at < 0:
        return clause
    starts = [0] + [m.end() for m in _HARD_SPLIT.finditer(text) if m.end() <= at]
    end = _HARD_SPLIT.search(text, at + len(clause))
    return text[starts[-1] : end.start() if end else len(text)]


# A clause that asks something itself: it opens as a question, or is a Chinese question. Not a relative
# clause that tells something of what was just named ("order #W1, which has not been dispatched: …").
_QUESTIONS = word_list("discourse")["questions"]
_OPENS_A_QUESTION = re.compile(
    rf"^\W*(?:(?:{words_pattern(_QUESTIONS['lead-ins']).pattern})\W+)?"
    r"(?!(?:which|who)\s+(?:has|had|was|were|is)\s+(?:not|been|already|just|still)\b)"
    rf"(?:{words_pattern(_QUESTIONS['openers']).pattern})",
    re.IGNORECASE,
)
_ASKS_IN_CHINESE = words_pattern(_QUESTIONS["zh"])


def is_question(text: str) -> bool:
    """A question: a question mark, a clause that opens as a question, or a Chinese question word."""
    return "?" in text or "？" in text or asks_as_a_question(text)


def asks_as_a_question(text: str) -> bool:
    """The clause opens as a question ("can you…", "is there…") or holds a Chinese question word."""
    return bool(_OPENS_A_QUESTION.search(text) or _ASKS_IN_CHINESE.search(text))
