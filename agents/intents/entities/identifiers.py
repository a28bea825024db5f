"""Ids and contact details: e-mail, tracking numbers, order ids, IMEI, phone, card last four, zip code.

Each needs its own shape and, where the shape alone is ambiguous, a context word ("tracking", 订单号,
"ending in"); IMEIs must pass the Luhn check. They run before dates and amounts, which would
otherwise read their digits.
"""

from __future__ import annotations

import re

from agents.intents.entities.scan import Scan
from agents.intents.entities.text import FILLER, TOKEN_END, TOKEN_START

_EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)

_TRACKING_PREFIXED_RE = re.compile(
    rf"{TOKEN_START}(?:SF[0-9]{{10,15}}|1Z[0-9A-Z]{{16}}|YT[0-9]{{10,13}}){TOKEN_END}", re.IGNORECASE
)
_TRACKING_CONTEXT_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:tracking|waybill)(?:[ ]?(?:number|num|no\.?|id|code|#))?"
    r"|快递单号|快递单|快递号|运单号|运单编号|物流单号|物流编号|物流号)"
    rf"{FILLER}(?P<id>[0-9]{{10,15}}|[A-Za-z]{{1,3}}[0-9]{{8,15}}){TOKEN_END}",
    re.IGNORECASE,
)

_ORDER_ID = rf"#?[ ]?(?P<id>(?P<letter>[A-Za-z])?(?P<digits>[0-9]{{4,20}})){TOKEN_END}"
_ORDER_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])orders?(?:[ ]?(?:number|num|no\.?|id|#))?|订单(?:编号|号码|号)?){FILLER}{_ORDER_ID}",
    re.IGNORECASE,
)
_ORDER_MORE_RE = re.compile(rf"\s*(?:,|、|/|&|和|及|与|跟|以及|(?i:and|or)(?![A-Za-z]))\s*{_ORDER_ID}")
_ORDER_HASH_RE = re.compile(rf"(?<![A-Za-z0-9&#])#[ ]?(?P<letter>[A-Za-z])?(?P<digits>[0-9]{{4,20}}){TOKEN_END}")
_ORDER_BARE_RE = re.compile(rf"(?<![A-Za-z0-9#])(?P<letter>[A-Z])(?P<digits>[0-9]{{6,12}}){TOKEN_END}")
# A short one ("D1001") where no model number would stand: beside Chinese, or alone ("D1001 寄到…").
_ORDER_SHORT_RE = re.compile(
    r"(?:^|(?<=[\u4e00-\u9fff\s]))(?<![A-Za-z0-9#])(?P<letter>[A-Z])(?P<digits>[0-9]{4,5})"
    r"(?=\s*[\u4e00-\u9fff]|\s*$|\s*[,，。.!！?？:：;；()（）\-–—])"
)
# ... and after a word that points at an order: "the phone from D2001", "in D1001".
_ORDER_AFTER_RE = re.compile(
    rf"\b(?:from|in|on|for|of|is|was|order)\s+(?P<letter>[A-Z])(?P<digits>[0-9]{{4,5}}){TOKEN_END}"
)

_IMEI_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])imei(?:[ ]?(?:number|no\.?|code|号|码))?|串号|串码){FILLER}"
    r"(?P<num>[0-9](?:[ \-]?[0-9]){14})(?![0-9])",
    re.IGNORECASE,
)
_IMEI_BARE_RE = re.compile(rf"{TOKEN_START}[0-9]{{15}}{TOKEN_END}")

_PHONE_RE = re.compile(
    r"(?<![0-9A-Za-z+])(?:"
    r"(?P<cn>(?:\+86[ \-]?)?1[3-9][0-9][ \-]?[0-9]{4}[ \-]?[0-9]{4})"
    r"|(?P<us>\+1[ .\-]?(?:\([2-9][0-9]{2}\)|[2-9][0-9]{2})[ .\-]?[0-9]{3}[ .\-]?[0-9]{4})"
    r"|(?P<intl>\+[2-9][0-9]{0,2}(?:[ .\-]?[0-9]){6,12})"
    r"|(?P<local>(?:\([2-9][0-9]{2}\)[ ]?|[2-9][0-9]{2}[ .\-])[0-9]{3}[ .\-][0-9]{4})"
    r"|(?P<landline>0[1-9][0-9]{1,2}-[0-9]{7,8})"
    r")(?![0-9])"
)

_LAST4_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:last[ ]?(?:four|4)[ ]?(?:digits?|numbers?|nums?)(?:[^0-9\n]{0,25}?)"
    r"|last[ ]?(?:four|4)|ending(?:[ ]+(?:in|with))?|ends?[ ]+(?:in|with))"
    r"|尾号|尾数|后四位|后4位|末四位|末4位|最后四位|最后4位)"
    rf"{FILLER}(?P<last4>[0-9]{{4}})(?![0-9])",
    re.IGNORECASE,
)

_ZIP_VALUE = r"(?P<zip>[0-9]{5}-[0-9]{4}|[0-9]{6}|[0-9]{5})(?![0-9])"
_ZIP_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])(?:zip(?:[ ]?code)?|post[ ]?code|postal[ ]+code)|邮编|邮政编码){FILLER}{_ZIP_VALUE}",
    re.IGNORECASE,
)
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK "
    "OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()
_ZIP_STATE_RE = re.compile(
    rf"(?<![A-Za-z])(?:{'|'.join(_US_STATES)})[ ]*,?[ ]+(?P<zip>[0-9]{{5}}(?:-[0-9]{{4}})?)(?![0-9])"
)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        value = ord(ch) - 48
        if i % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def extract_email(scan: Scan) -> None:
    if "@" not in scan.text:
        return
    for m in _EMAIL_RE.finditer(scan.text):
        if scan.take(m.start(), m.end()) and not scan.email:
            scan.email = m.group().lower()


def extract_prefixed_tracking(scan: Scan) -> None:
    for m in _TRACKING_PREFIXED_RE.finditer(scan.text):
        if scan.take(m.start(), m.end()):
            scan.tracking_numbers.append((m.start(), m.group().upper()))


def extract_imei_with_context(scan: Scan) -> None:
    for m in _IMEI_CONTEXT_RE.finditer(scan.text):
        digits = re.sub(r"[^0-9]", "", m.group("num"))
        if _luhn_ok(digits) and scan.take(m.start("num"), m.end("num")) and not scan.imei:
            scan.imei = digits


def extract_tracking_with_context(scan: Scan) -> None:
    for m in _TRACKING_CONTEXT_RE.finditer(scan.text):
        if scan.take(m.start("id"), m.end("id")):
            scan.tracking_numbers.append((m.start("id"), m.group("id").upper()))


def _order_id(m: re.Match[str]) -> str | None:
    letter, digits = m.group("letter"), m.group("digits")
    if letter:
        return f"#{letter.upper()}{digits}"
    return digits if len(digits) >= 6 else None


def _take_order(scan: Scan, m: re.Match[str]) -> None:
    order_id = _order_id(m)
    if order_id and scan.take(m.start(), m.end()):
        scan.order_ids.append((m.start(), order_id))


def extract_order_ids(scan: Scan) -> None:
    text = scan.text
    for m in _ORDER_CONTEXT_RE.finditer(text):
        match: re.Match[str] | None = m
        while match is not None:
            order_id = _order_id(match)
            if not order_id or not scan.take(match.start("id"), match.end("id")):
                break
            scan.order_ids.append((match.start("id"), order_id))
            match = _ORDER_MORE_RE.match(text, match.end())
    if "#" in text:
        for m in _ORDER_HASH_RE.finditer(text):
            _take_order(scan, m)
    for m in (*_ORDER_BARE_RE.finditer(text), *_ORDER_SHORT_RE.finditer(text)):
        _take_order(scan, m)
    for m in _ORDER_AFTER_RE.finditer(text):
        if scan.take(m.start("letter"), m.end("digits")):  # the id, not the word before it
            scan.order_ids.append((m.start("letter"), f"#{m['letter'].upper()}{m['digits']}"))


def extract_bare_imei(scan: Scan) -> None:
    for m in _IMEI_BARE_RE.finditer(scan.text):
        digits = m.group()
        if len(set(digits)) > 1 and _luhn_ok(digits) and scan.take(m.start(), m.end()) and not scan.imei:
            scan.imei = digits


def extract_phone(scan: Scan) -> None:
    for m in _PHONE_RE.finditer(scan.text):
        raw = m.group()
        digits = re.sub(r"[^0-9]", "", raw)
        if m.group("intl") and not 8 <= len(digits) <= 15:
            continue
        if scan.take(m.start(), m.end()) and not scan.phone:
            scan.phone = ("+" if raw.startswith("+") else "") + digits


def extract_last4(scan: Scan) -> None:
    for m in _LAST4_RE.finditer(scan.text):
        if scan.take(m.start("last4"), m.end("last4")) and not scan.last4:
            scan.last4 = m.group("last4")


def extract_zip(scan: Scan) -> None:
    for regex in (_ZIP_CONTEXT_RE, _ZIP_STATE_RE):
        for m in regex.finditer(scan.text):
            if scan.take(m.start("zip"), m.end("zip")) and not scan.zip:
                scan.zip = m.group("zip")
