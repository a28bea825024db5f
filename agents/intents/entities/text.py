"""What every extractor shares: the normalised text, token boundaries and numbers written three ways.

The message is read in NFKC with zero-width characters dropped and one kind of dash; product names are
compared "squashed" (lower case, no spaces, hyphens or underscores); counts may be digits, Chinese
numerals (三千五) or English words (three).
"""

from __future__ import annotations

import re
import unicodedata

# Longer messages are cut: the extractor stays fast whatever it is given.
MAX_TEXT_CHARS = 20_000

TOKEN_START = r"(?<![A-Za-z0-9])"  # starts a token: no ASCII letter or digit before
TOKEN_END = r"(?![A-Za-z0-9])"  # ends a token: no ASCII letter or digit after
NAME_SEP = r"[\s_\-]*"  # what may separate the characters of a product name: "Find X9", "FindX9", "Find-X9"
FILLER = r"(?:\s|[:#=是为]|(?:is|was|are)(?![A-Za-z]))*"  # between a context word and its value

NAME_SEP_RE = re.compile(r"[\s_\-]+")
_DROP_CHARS = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-"})

_CN_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}


def normalise(text: object) -> str:
    """NFKC, no zero-width characters, one kind of dash; "" for anything that is not text."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text[: MAX_TEXT_CHARS * 4]).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFKC", text[:MAX_TEXT_CHARS])
    return text.translate(_DROP_CHARS).translate(_DASHES)[:MAX_TEXT_CHARS]


def squash(text: str) -> str:
    """The form names are compared in: normalised, lower case, no spaces, hyphens or underscores."""
    return NAME_SEP_RE.sub("", normalise(text)).lower()


def parse_cn_number(text: str) -> int | None:
    """Chinese numerals: 三千 → 3000, 三千五 → 3500, 一万五 → 15000, 两百 → 200; None if malformed."""
    total = section = 0
    digit: int | None = None
    last_unit = 0
    for ch in text:
        if ch in _CN_DIGITS:
            if digit is not None:
                return None
            digit = _CN_DIGITS[ch]
            if digit == 0:
                last_unit, digit = 0, None
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            if digit is None:
                if unit != 10 or section or total:
                    return None
                digit = 1
            section += digit * unit
            digit, last_unit = None, unit
        elif ch == "万":
            if digit is not None:
                section += digit
            if section == 0:
                return None
            total += section * 10000
            section, digit, last_unit = 0, None, 10000
        else:
            return None
    if digit is not None:
        section += digit * (last_unit // 10) if last_unit >= 10 else digit
    value = total + section
    return value or None


def small_number(text: str) -> int | None:
    """A count in digits, Chinese numerals or English words: "3", "三", "three"."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in EN_NUMBERS:
        return EN_NUMBERS[text]
    return parse_cn_number(text)


def is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def is_cjk(ch: str) -> bool:
    return len(ch) == 1 and "\u4e00" <= ch <= "\u9fff"
