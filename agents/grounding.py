"""Which figures and policy commitments of a written reply its evidence does not state (issue 18's grounding).

An LLM that writes a knowledge answer or polishes the engine's draft may make up a number ("30 days" where the
help article says 7), a price, a date or a promise ("a full refund", "free shipping"). Every number of the
reply, and every commitment from a fixed list of what stores promise, must appear in the evidence: the passages
the answer cites, or the draft built from the turn's tool results.

- Numbers are compared as values, whatever their writing: "7", "seven days", "七天", "1,299" and "1299" match.
  Number words count only before a unit ("one of our colleagues" is no figure), as do Chinese numerals ("一下"
  is no figure, "十五天" is 15 days).
- Commitments are concepts written in either language: "全额退款" in a Chinese answer is grounded by "full
  refund" in an English passage.
- Citation markers ([1]) and the list numbers a rewrite adds at a line's start are no figures.
"""

from __future__ import annotations

import re

_UNITS_EN = (
    r"(?:%|percent|per ?cent|days?|nights?|hours?|minutes?|weeks?|months?|years?|times|working|business|calendar|"
    r"yuan|rmb|dollars?|usd|euros?|pounds?|items?|pieces?|units?|orders?|gb|tb|mah|inch(?:es)?|kg|g)"
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90, "hundred": 100,
}  # fmt: skip
_NUMBER_WORD = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})(?=[\s-]+{_UNITS_EN}\b)", re.IGNORECASE)
_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = "天日号个月年周小时分钟秒次元块折件台倍成人岁"
_CN_NUMERAL = re.compile(rf"[零〇一二两三四五六七八九十百千万]+(?=[{_CN_UNITS}]|个?(?:工作日|小时|月|星期|礼拜))")
_CITATION = re.compile(r"\[\d{1,2}\]")
_LIST_NUMBER = re.compile(r"(?m)^\s*\d{1,2}[.)、]\s")
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")

# What a store promises, by concept: the reply may promise it only when the evidence does.
COMMITMENTS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "full_refund": r"\bfull(?:y)? refund|\brefund\w*\b[^.!?\n]{0,20}\bin full\b|100 ?% refund|全额退|全款退|退全款",
        "free_shipping": (
            r"\bfree (?:shipping|delivery|returns?)\b|\b(?:shipping|delivery) is free\b|"
            r"\b(?:ship|deliver|send|return)\w*\b[^.!?\n]{0,15}\bfor free\b|包邮|免运费|运费全免|免费退|免费寄"
        ),
        "no_questions": r"\bno[- ]questions?[- ]asked\b|\bno reason needed\b|无理由",
        "lifetime": r"\blifetime\b|\bforever\b|终身|永久",
        "compensation": r"\bcompensat\w*|赔偿|补偿|赔付",
        "price_protection": r"\bprice (?:protection|match\w*|guarantee)|保价|价保",
        "cash_back": r"\bcash ?back\b|返现",
        "coupon": r"\bcoupons?\b|\bvouchers?\b|\bstore credit\b|优惠券|代金券|购物券",
        "waived_fee": (
            r"\bwaive[sd]?\b|\bno (?:fee|charge|cost)\b|\bfree of charge\b|\bfor free\b|免费|不收(?:取)?费|免收"
        ),
        "guarantee": r"\bguarantee[sd]?\b|\bpromise\b|保证|承诺",
    }.items()
}


def _cn_value(numeral: str) -> int:
    """The value of a Chinese numeral up to the ten thousands: 七 7, 十五 15, 三十 30, 一百二十 120."""
    total, section, digit = 0, 0, 0
    for char in numeral:
        if char in _CN_DIGITS:
            digit = _CN_DIGITS[char]
        elif char == "万":
            total += (section + digit) * 10000
            section, digit = 0, 0
        else:
            section += (digit or 1) * {"十": 10, "百": 100, "千": 1000}[char]
            digit = 0
    return total + section + digit


def _in_digits(text: str) -> str:
    text = _NUMBER_WORD.sub(lambda m: str(_NUMBER_WORDS[m.group(1).lower()]), text)
    return _CN_NUMERAL.sub(lambda m: str(_cn_value(m.group())), text)


def figures(text: str) -> set[str]:
    """The numbers a text states, as canonical values ("1,299.00" and "1299" are both "1299")."""
    text = _LIST_NUMBER.sub(" ", _CITATION.sub(" ", _in_digits(text)))
    values = set()
    for match in _NUMBER.finditer(text):
        value = match.group().replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        values.add(value.lstrip("0") or "0")
    return values


def commitments(text: str) -> set[str]:
    return {name for name, pattern in COMMITMENTS.items() if pattern.search(text)}


def ungrounded(text: str, evidence: str) -> list[str]:
    """What `text` states that `evidence` does not: its numbers (as written values) and commitment concepts,
    sorted; empty when the text is grounded."""
    missing = sorted(figures(text) - figures(evidence), key=lambda value: (len(value), value))
    return missing + sorted(commitments(text) - commitments(evidence))
