"""Money: a number with a currency, with 千/万, or after a budget word; ranges share their currency.

"¥3999", "49.99 dollars", "三千左右", "预算 3000 到 4000" are amounts; "3 days", "5000 mAh" and the 9 of
"X9" are not. Runs last, so ids, phone numbers and dates have already taken their digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.intents.entities.scan import Scan
from agents.intents.entities.text import is_ascii_alnum, is_cjk, parse_cn_number

_NUMBER_RE = re.compile(r"(?<![0-9])(?<![0-9][.,])(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)")
_CN_NUMERAL = "零〇一二两三四五六七八九十百千万"
_CN_AMOUNT_RE = re.compile(rf"(?<![{_CN_NUMERAL}])[一二两三四五六七八九十][{_CN_NUMERAL}]{{0,7}}")
_AMOUNT_MULT_RE = re.compile(r"[ ]?(?:(?P<cjk>千|万)|(?P<en>k|thousand)(?![A-Za-z]))", re.IGNORECASE)
_AMOUNT_SUFFIX_RE = re.compile(
    r"[ ]?(?:(?P<cny>元|块钱|人民币|(?:rmb|cny|yuan)(?![A-Za-z]))|(?P<kuai>块)"
    r"|(?P<usd>美元|美金|刀|(?:usd|dollars?|bucks)(?![A-Za-z])))",
    re.IGNORECASE,
)
_KUAI_OK_AFTER = frozenset("钱的吧吗呢啊呀了左以上下内多")
_CN_AMOUNT_OK_AFTER = frozenset("的吧吗呢啊呀了左以上下内多块元")
_AMOUNT_PREFIX_RE = re.compile(
    r"(?:(?P<usd>US\$|\$|(?<![A-Za-z])usd|美元)|(?P<cny>¥|(?<![A-Za-z])(?:cny|rmb)|人民币))[ ]?", re.IGNORECASE
)
_AMOUNT_CONTEXT_BEFORE_RE = re.compile(
    r"(?:预算|价位|价格|价钱|售价|单价|费用|花了|付了|付款|支付了?|退款|退了|退我|不超过|不高于|低于|不到|最多|大概|大约|差不多"
    r"|降价到|降到|涨到|差价|补差价|便宜了?"
    r"|(?<![A-Za-z])(?:budget(?:[ ]+(?:is|of|was))?|under|below|less[ ]+than|no[ ]+more[ ]+than|not[ ]+more[ ]+than"
    r"|at[ ]+most|max(?:imum)?|within|up[ ]+to|around|about|approximately|roughly|price[ds]?(?:[ ]+(?:is|of|was|at))?"
    r"|costs?|cost[ ]+me|spent|spend|paid|pay|refund(?:ed)?|charged))"
    r"[ ]?(?:是|在|为|了|:|大概|大约|约)?[ ]?",
    re.IGNORECASE,
)
_AMOUNT_CONTEXT_AFTER_RE = re.compile(r"[ ]?(?:以内|以下|之内|左右|上下|以上)")
_AMOUNT_UNIT_AFTER_RE = re.compile(
    r"[ ]?(?:(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|mah|gb|tb|mb|g|t|mp|hz|w|inch(?:es)?"
    r"|cm|mm|kg|items?|pieces?|pcs|phones?|units?|times?|people|persons?|percent|orders?|questions?|digits?)"
    r"(?![A-Za-z])|%|个|天|日|号|月|年|周|小时|分钟|秒|次|台|部|件|张|位|人|毫安|像素|寸|英寸|克|岁|款|种|条|倍|瓦|分)",
    re.IGNORECASE,
)
_AMOUNT_RANGE_RE = re.compile(r"[ ]?(?:元|块)?[ ]?(?:-|~|到|至|(?i:to))[ ]?(?:¥|\$)?")


@dataclass
class _AmountCandidate:
    start: int
    end: int
    value: float
    currency: str | None
    accepted: bool
    blocked: bool = False  # part of a name (X9) or a count (3 days): never an amount


class _AmountContext:
    """Where, in one message, a currency sign or a budget word ends: a number starting there is money."""

    def __init__(self, text: str) -> None:
        self.currency_before: dict[int, str] = {
            m.end(): "USD" if m["usd"] else "CNY" for m in _AMOUNT_PREFIX_RE.finditer(text)
        }
        self.budget_before = {m.end() for m in _AMOUNT_CONTEXT_BEFORE_RE.finditer(text)}


def _amount_candidate(
    scan: Scan, context: _AmountContext, start: int, end: int, value: float, *, chinese: bool
) -> _AmountCandidate:
    """Read the multiplier, currency and context around a number and decide if it is an amount.

    A number is an amount with a currency (¥3999, 49.99 dollars), with 千/万 (3千, 三千, 1.5万) or
    after a budget word (预算 3000, under 4000), unless a unit follows (3 days, 5000 mAh, 5千毫安).
    """
    text = scan.text
    cjk_mult = chinese and ("千" in text[start:end] or "万" in text[start:end])
    if not chinese and (mult := _AMOUNT_MULT_RE.match(text, end)):
        cjk_mult = mult["cjk"] is not None
        value *= 10000 if mult["cjk"] == "万" else 1000
        end = mult.end()
    currency = context.currency_before.get(start)
    if currency is None and start and is_ascii_alnum(text[start - 1]):
        return _AmountCandidate(start, end, value, None, False, blocked=True)  # "X9", "V2": part of a name
    if suffix := _AMOUNT_SUFFIX_RE.match(text, end):
        after = text[suffix.end() : suffix.end() + 1]
        kuai_ok = not is_cjk(after) or after in _KUAI_OK_AFTER
        if suffix["usd"] or suffix["cny"] or kuai_ok:
            currency = currency or ("USD" if suffix["usd"] else "CNY")
            end = suffix.end()
    value = round(value, 2)
    if currency:
        return _AmountCandidate(start, end, value, currency, True)
    if _AMOUNT_UNIT_AFTER_RE.match(text, end):
        return _AmountCandidate(start, end, value, None, False, blocked=True)
    accepted = cjk_mult or start in context.budget_before or _AMOUNT_CONTEXT_AFTER_RE.match(text, end) is not None
    return _AmountCandidate(start, end, value, None, accepted)


def _amount_candidates(scan: Scan) -> list[_AmountCandidate]:
    """Every number not taken by another entity, in digits or Chinese numerals, judged as an amount."""
    text = scan.text
    context = _AmountContext(text)
    candidates: list[_AmountCandidate] = []
    for m in _NUMBER_RE.finditer(text):
        if scan.free(m.start(), m.end()):
            value = float(m["num"].replace(",", ""))
            candidates.append(_amount_candidate(scan, context, m.start(), m.end(), value, chinese=False))
    for m in _CN_AMOUNT_RE.finditer(text):
        number = parse_cn_number(m.group())
        if number is not None and scan.free(m.start(), m.end()):
            candidate = _amount_candidate(scan, context, m.start(), m.end(), float(number), chinese=True)
            # Chinese numerals are also words (差不多一样, 一千零一夜): without a currency, only from 一百 up
            # and at the end of a phrase (预算三千, 三千左右, 三千的).
            after = text[candidate.end : candidate.end + 1]
            candidate.accepted = candidate.accepted and (
                candidate.currency is not None
                or (number >= 100 and (not is_cjk(after) or after in _CN_AMOUNT_OK_AFTER))
            )
            candidates.append(candidate)
    return candidates


def extract_amounts(scan: Scan) -> None:
    text = scan.text
    candidates = sorted(_amount_candidates(scan), key=lambda c: c.start)
    # Ranges: "3000-4000元", "预算 3000 到 4000": both ends are amounts, in the same currency.
    for previous, current in zip(candidates, candidates[1:], strict=False):
        if previous.end > current.start or not _AMOUNT_RANGE_RE.fullmatch(text, previous.end, current.start):
            continue
        if previous.blocked or current.blocked or not (previous.accepted or current.accepted):
            continue
        currency = previous.currency or current.currency
        for end in (previous, current):
            end.accepted, end.currency = True, end.currency or currency

    seen: set[tuple[float, str | None]] = set()
    for candidate in candidates:
        key = (candidate.value, candidate.currency)
        if candidate.accepted and key not in seen and scan.take(candidate.start, candidate.end):
            seen.add(key)
            scan.amounts.append({"value": candidate.value, "currency": candidate.currency})
