"""Which language a message is in: Chinese when it has enough Chinese characters, else English."""

from __future__ import annotations

import re

from conversations.models import Language

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Letters only: an order number (#D1002) or a payment id (credit_card_7815826) says nothing of the language.
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{2,}(?![A-Za-z0-9_])")


def detect_language(text: str, *, default: str = Language.EN) -> str:
    """zh if Chinese characters carry the message (product names like "Find X9" don't count), else en."""
    cjk = len(_CJK.findall(text))
    if cjk == 0:
        return Language.EN if _LATIN_WORD.search(text) else default
    latin_words = len(_LATIN_WORD.findall(text))
    return Language.ZH if cjk >= 2 or cjk >= latin_words else Language.EN
