"""Words shops and their customers use for the same thing, zh and en (pure).

A help article is written in the shop's words and a question in the customer's: "refurbished" asks
about the "renewed" phones, "官翻" about 翻新机, "voucher" about a "coupon". Each group below
is one thing said several ways in online retail; a question's word also finds a passage through the
other words of its group (knowledge.selectors). Single words only (the keyword index holds words),
and only words that mean the thing wherever a shop uses them: "used" (used for…), "pick" (pick a
colour) and "protection" (price protection, screen protection) are left out for that reason.
"""

from __future__ import annotations

from functools import cache

from knowledge.chunking import query_words

GROUPS: tuple[tuple[str, ...], ...] = (
    # second-life devices
    ("refurbished", "refurb", "renewed", "reconditioned", "secondhand", "preowned", "翻新", "官翻", "二手"),
    # collecting an order in a store
    ("pickup", "collect", "collection", "自提", "取货"),
    # money back
    ("refund", "reimburse", "reimbursement", "退款", "退钱"),
    # the maker's promise ("guarantee" is left out: a money-back or delivery guarantee is something else)
    ("保修", "质保", "保固"),
    # what is shipped
    ("parcel", "package", "shipment", "包裹", "快递"),
    # sending it out
    ("dispatch", "dispatched", "ship", "shipped", "发货", "寄出"),
    # a discount code
    ("coupon", "voucher", "优惠券", "代金券"),
    # writing on the device ("personalize" is left out: its stem is "person")
    ("engrave", "engraving", "engraved", "personalise", "personalisation", "刻字"),
    ("colour", "color"),
)


@cache
def _group_of() -> dict[str, frozenset[str]]:
    """Each word's indexed form (stemmed) -> the indexed forms of its group in the same script: an
    English question is searched in English words, a Chinese one in Chinese words."""
    groups: dict[str, frozenset[str]] = {}
    for group in GROUPS:
        # A word's indexed form: its one stem, or a Chinese word that the search cut also splits into
        # its parts (优惠券 → 优惠, 优惠券).
        forms = [
            word if word in terms else terms[0]
            for word in group
            if len(terms := query_words(word)) == 1 or word in terms
        ]
        for script in (True, False):
            same = frozenset(form for form in forms if form.isascii() is script)
            for form in same:
                groups[form] = groups.get(form, frozenset()) | same
    return groups


def synonyms(term: str) -> frozenset[str]:
    """The other indexed forms that say what `term` says (empty when it is in no group)."""
    return _group_of().get(term, frozenset()) - {term}


def with_synonyms(terms: list[str]) -> list[str]:
    """`terms` followed by their synonyms, in order and once each. A group's word written as two
    ("second hand", "pre owned", "re furbished") counts as the one word."""
    joined = [a + b for a, b in zip(terms, terms[1:], strict=False) if a.isascii() and a + b in _group_of()]
    return list(dict.fromkeys([*terms, *joined, *(s for t in [*terms, *joined] for s in sorted(synonyms(t)))]))
