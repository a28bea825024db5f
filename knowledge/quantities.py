"""Whether a sentence's range holds a number the question gives (pure): the row of a price or size table that
answers. "How much is the 3-year plan on a $1,200 laptop?" is answered by "Product price: $1,000-$1,499.99, 3
years: $199", and "do you take away a 70 inch TV?" by "65 inches and larger": words shared with the question
cannot tell these rows from their neighbours, which say the same words with other figures.

Formats only: numbers, the ways help texts write a range (a dash, "to", "under", "and up", "以上", "以内"), and
whether the number's unit is a date or time that no range of amounts should take.
"""

from __future__ import annotations

import math
import re

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CURRENCY = r"[¥$€£]\s?"
# A number in the question, unless it is a date, a time of day or an order id (too many digits to be an amount).
_ASKED = re.compile(
    rf"(?<![\w.,/])(?:{_CURRENCY})?({_NUMBER})(?!\s?(?:[:/.]\d|[年月日号点]|st\b|nd\b|rd\b|th\b|am\b|pm\b))", re.I
)
_TO = r"\s?(?:-|–|—|~|～|to|至|到)\s?"
_BETWEEN = re.compile(rf"(?:{_CURRENCY})?({_NUMBER})[^\d\s,，:：;；]{{0,12}}?{_TO}(?:{_CURRENCY})?({_NUMBER})", re.I)
_BELOW = re.compile(
    rf"(?:\b(?:under|below|less than|up to|at most|no more than)\s|不超过|不满|低于|少于)"
    rf"\s?(?:{_CURRENCY})?({_NUMBER})|"
    rf"({_NUMBER})\s?[^\d\s,，。]{{0,4}}?(?:以下|以内|及以下)",
    re.I,
)
_ABOVE = re.compile(
    rf"(?:\b(?:over|above|more than|at least|from)\s|超过|高于|满)\s?(?:{_CURRENCY})?({_NUMBER})|"
    rf"(?:{_CURRENCY})?({_NUMBER})\s?[^\d\s,，。]{{0,12}}?(?:\s(?:and|or)\s(?:up|above|over|larger|more|bigger)\b|\+|以上|及以上|起)",
    re.I,
)


_UNIT = re.compile(r"\s?(?:-|–|to|至|到)?\s?([A-Za-z]+|[\u4e00-\u9fff]|\")")
_UNITS = {"in": "inch", "inches": "inch", '"': "inch", "寸": "inch", "元": "$", "块": "$", "yuan": "$", "rmb": "$"}


def _unit(text: str, end: int, currency: bool) -> str:
    """The unit a number at text[:end] is in: a currency, or the word after it ("inch", "years", "元"), folded."""
    if currency:
        return "$"
    word = _UNIT.match(text, end)
    name = word.group(1).lower() if word else ""
    name = _UNITS.get(name, name)
    return name[:-1] if name.endswith("s") and len(name) > 3 else name


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def numbers_asked(question: str) -> list[tuple[float, str]]:
    """The amounts and sizes a question gives, each with its unit; a 6-digit or longer run is an id, not an amount."""
    return [
        (_value(m.group(1)), _unit(question, m.end(1), bool(re.match(_CURRENCY, m.group(0)))))
        for m in _ASKED.finditer(question)
        if len(m.group(1).replace(",", "")) < 6
    ]


def ranges_held(text: str) -> list[tuple[float, float, str]]:
    """The ranges a sentence states, each (low, high, unit), open ends infinite."""
    found = []
    for m in _BETWEEN.finditer(text):
        unit = _unit(text, m.end(2), bool(re.search(_CURRENCY, m.group(0))))
        found.append((_value(m.group(1)), _value(m.group(2)), unit))
    for pattern, below in ((_BELOW, True), (_ABOVE, False)):
        for m in pattern.finditer(text):
            group = 1 if m.group(1) else 2
            value = _value(m.group(group))
            unit = _unit(text, m.end(group), bool(re.search(_CURRENCY, m.group(0))))
            found.append((-math.inf, value, unit) if below else (value, math.inf, unit))
    return [(low, high, unit) for low, high, unit in found if low <= high]


def quantity_fits(numbers: list[tuple[float, str]], text: str) -> bool | None:
    """Whether one of the question's `numbers` lies in a range `text` states in the same unit: True, False when
    its ranges in those units all leave the numbers out (the row of another case), None when it states none (a
    number the text says outright is a shared word, not a range, and counts as one elsewhere)."""
    held = [(n, low, high) for n, unit in numbers for low, high, held_unit in ranges_held(text) if unit == held_unit]
    if not held:
        return None
    return any(low <= n <= high for n, low, high in held)
