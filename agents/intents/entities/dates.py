"""Dates: absolute (2024-06-11, 6/11/2024, 6月11日, June 11th) and relative (昨天, 3 days ago), as ISO dates.

A date without a year is in the year of `today`, a relative one counted from it; "may", "mar" and
"march" are months only when capitalised.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from agents.intents.entities.scan import Scan
from agents.intents.entities.text import EN_NUMBERS, TOKEN_END, TOKEN_START, small_number

_MONTHS = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march"})  # also plain words: only when capitalised
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?:19|20)[0-9]{2}"
_DATE_YMD_RE = re.compile(
    rf"(?<![0-9])(?P<y>{_YEAR})[ ]?(?:[\-/.]|年)[ ]?(?P<m>[0-9]{{1,2}})[ ]?(?:[\-/.]|月)[ ]?(?P<d>[0-9]{{1,2}})"
    r"(?:[ ]?[日号])?(?![0-9])"
)
_DATE_US_RE = re.compile(rf"(?<![0-9/])(?P<a>[0-9]{{1,2}})/(?P<b>[0-9]{{1,2}})/(?P<y>{_YEAR})(?![0-9/])")
_DATE_ZH_MD_RE = re.compile(
    r"(?<![0-9])(?P<m>[0-9]{1,2})[ ]?月[ ]?(?P<d>[0-9]{1,2})(?P<mark>[ ]?[日号])?(?![0-9])"
    r"(?P<after>[个天次台部件元块%位]?)"
)
_DATE_EN_MD_RE = re.compile(
    rf"(?<![A-Za-z])(?P<mon>{_MONTH})\.?[ ]+(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?{TOKEN_END}"
    rf"(?:,?[ ]+(?P<y>{_YEAR})(?![0-9]))?",
    re.IGNORECASE,
)
_DATE_EN_DM_RE = re.compile(
    rf"{TOKEN_START}(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?[ ]+(?:of[ ]+)?(?P<mon>{_MONTH})(?![A-Za-z])\.?"
    rf"(?:,?[ ]+(?P<y>{_YEAR})(?![0-9]))?",
    re.IGNORECASE,
)
_EN_COUNT = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
_RELATIVE_DAYS = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "昨日": -1,
    "今天": 0,
    "今日": 0,
    "明天": 1,
    "明日": 1,
    "后天": 2,
    "大后天": 3,
    "the day before yesterday": -2,
    "day before yesterday": -2,
    "yesterday": -1,
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
}
_DATE_RELATIVE_RE = re.compile(
    r"(?P<zh>大前天|大后天|前天|昨天|昨日|今天|今日|明天|明日|后天)"
    r"|(?<![A-Za-z])(?P<en>the day before yesterday|day before yesterday|the day after tomorrow|day after tomorrow"
    r"|yesterday|today|tonight|tomorrow)(?![A-Za-z])"
    r"|(?<![0-9])(?P<zn>[0-9]{1,3}|[一二两三四五六七八九十]{1,3})[ ]?个?[ ]?(?P<zu>天|周|星期|礼拜)[ ]?(?:之前|以前|前)"
    rf"|{TOKEN_START}(?P<enn>[0-9]{{1,3}}|{_EN_COUNT})[ ]+(?P<eu>days?|weeks?)[ ]+ago(?![A-Za-z])",
    re.IGNORECASE,
)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _add_date(scan: Scan, m: re.Match[str], day: date | None, end: int | None = None) -> None:
    if day is not None and scan.take(m.start(), m.end() if end is None else end):
        scan.dates.append((m.start(), day.isoformat()))


def _month_ok(word: str) -> bool:
    """The words may, mar and march are dates only when capitalised ("May 5", not "you may 2")."""
    return word.lower() not in _AMBIGUOUS_MONTHS or word[0].isupper()


def extract_dates(scan: Scan) -> None:
    text, year = scan.text, scan.today.year
    for m in _DATE_YMD_RE.finditer(text):
        _add_date(scan, m, _safe_date(int(m["y"]), int(m["m"]), int(m["d"])))
    if "/" in text:
        for m in _DATE_US_RE.finditer(text):
            first, second = int(m["a"]), int(m["b"])
            month, day = (second, first) if first > 12 else (first, second)
            _add_date(scan, m, _safe_date(int(m["y"]), month, day))
    if "月" in text:
        for m in _DATE_ZH_MD_RE.finditer(text):
            if m["mark"] or not m["after"]:
                end = m.end("mark") if m["mark"] else m.end("d")
                _add_date(scan, m, _safe_date(year, int(m["m"]), int(m["d"])), end=end)
    for regex in (_DATE_EN_MD_RE, _DATE_EN_DM_RE):
        for m in regex.finditer(text):
            if _month_ok(m["mon"]):
                given = int(m["y"]) if m["y"] else year
                _add_date(scan, m, _safe_date(given, _MONTHS[m["mon"].lower()], int(m["d"])))
    for m in _DATE_RELATIVE_RE.finditer(text):
        offset = _days_from_today(m)
        if offset is None:
            continue
        try:
            resolved: date | None = scan.today + timedelta(days=offset)
        except OverflowError:  # past date.min or date.max
            resolved = None
        _add_date(scan, m, resolved)


def _days_from_today(m: re.Match[str]) -> int | None:
    """The days a relative date is from today ("yesterday", "三天前", "2 weeks ago"); None past ten years."""
    word = m["zh"] or m["en"]
    if word:
        return _RELATIVE_DAYS[" ".join(word.lower().split())]
    count = small_number(m["zn"] or m["enn"])
    if count is None or count > 3650:
        return None
    unit = (m["zu"] or m["eu"]).lower()
    return -count * (1 if unit in {"天", "day", "days"} else 7)
