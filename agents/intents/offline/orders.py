"""How a message names an order: its ids as customers write them ("#W2912646", "order 1001234", "D1001").

Also the clauses that do nothing but name one, or put a mistyped id right ("not #W1, sorry - #W2"): they
say what the clauses around them are about and ask nothing of their own.
"""

from __future__ import annotations

import re

from agents.intents.offline.clauses import CJK

# An order id as customers write it: "#W2912646", "# 1001", "W2912646".
_ORDER_ID_TEXT = r"#\s*[A-Za-z]?\d{4,}|(?<![\w#])[A-Za-z]\d{6,12}\b"
_ORDER_REFERENCE = re.compile(
    _ORDER_ID_TEXT + r"|\border\s+(?:number\s+|no\.?\s*|id\s+)?[A-Za-z]?\d{5,}|"
    # "D1001 寄到…": a short id beside Chinese or alone
    rf"(?:^|(?<=[{CJK}\s]))(?<![A-Za-z0-9#])[A-Z]\d{{4,5}}(?=\s*[{CJK}]|\s*$|\s*[,，。.!！?？])",
    re.I,
)

# An order id with the word "order" before it, which would otherwise be read twice ("order #W1").
ORDER_ID_WORDS = re.compile(rf"(?:\border\s+)?(?:{_ORDER_ID_TEXT})", re.IGNORECASE)


def names_an_order(text: str) -> bool:
    """The text names an order by its id ("#W2912646", "order 1001234")."""
    return bool(_ORDER_REFERENCE.search(text))


def order_ids(text: str) -> list[str]:
    """The order ids the text names, as written without "#" and spaces, upper case."""
    return [
        re.sub(r"[#\s]|order|number|no\.?|id", "", m.group(0), flags=re.I).upper()
        for m in _ORDER_REFERENCE.finditer(text)
    ]


_ORDER_ONLY = re.compile(
    r"^\W*(?:(?:my|the|its?|it'?s|this|that|order|number|no|ref|reference|id|is|was|for|on|from)\W+)*"
    r"(?:#\s*[A-Za-z]?\d{4,}|[A-Za-z]\d{6,12})\W*$|^\W*(?:订单号?|单号)?\s*(?:是|为)?\s*#?[A-Za-z]?\d{4,}\W*$",
    re.IGNORECASE,
)


# An order id put right, with nothing asked: "not #W1, sorry - #W2", "one correction: #W2, not #W1", "不是 #W1，是 #W2".
_CORRECTING = {"not", "sorry", "oops", "mean", "meant", "correction", "typo", "wrong", "actually", "mistake"}
_CORRECTION_FILLER = _CORRECTING | set(
    "no i it its it's i'm was is should be the order number id that one my bad instead rather than please a "
    "made".split()
)
_ZH_ORDER_CORRECTION = re.compile(
    r"^(?:不是|是|我|刚才|说错了|写错了|打错了|输错了|抱歉|不好意思|应该是|订单号?|单号|[，,。.\s:：-])*$"
)


def _corrects_an_order_id(clause: str) -> bool:
    ids = order_ids(clause)
    if not ids:
        return False
    rest = ORDER_ID_WORDS.sub(" ", clause)
    if re.search(rf"[{CJK}]", rest):
        return len(ids) > 1 and bool(_ZH_ORDER_CORRECTION.match(rest))
    words = re.findall(r"[a-z']+", rest.lower())
    return all(w in _CORRECTION_FILLER for w in words) and (len(ids) > 1 or bool(_CORRECTING & set(words)))


def only_names_an_order(clause: str) -> bool:
    """The clause names an order, or corrects an order id, and asks nothing else."""
    return bool(_ORDER_ONLY.match(clause)) or _corrects_an_order_id(clause)


# An order described by its state rather than its id: "my pending order", "the one that hasn't shipped".
_NOT_SHIPPED = re.compile(
    r"\b(?:pending|unshipped|not (?:yet )?(?:been )?(?:shipped|sent|dispatched)|"
    r"(?:hasn'?t|has not) (?:yet )?(?:shipped|gone out|been sent|left)|(?:isn'?t|is not) out the door|"
    r"yet to (?:ship|be shipped|go out)|"
    r"(?:before|until) (?:it|they|the order|my order|the package|the parcel) (?:ships|goes out|go out|leaves|"
    r"(?:is|are|gets?) (?:shipped|sent|dispatched)))\b|未发货|还没发货|没发货|待发货|发货前|发货之前|还没寄出|未寄出",
    re.IGNORECASE,
)
_DELIVERED = re.compile(r"\b(?:delivered|arrived|received)\b|已签收|收到的|到货的|收到了", re.IGNORECASE)


def order_state_said(text: str) -> str | None:
    """The state the text describes its order in: "pending" ("it hasn't shipped", 还没发货), "delivered"
    ("the one I received", 已签收), or None."""
    if _NOT_SHIPPED.search(text):
        return "pending"
    return "delivered" if _DELIVERED.search(text) else None
