"""Mask personal data before it reaches logs, LLM prompts or escalation summaries (seed 001)."""

from __future__ import annotations

import re

_EMAIL = re.compile(r"([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*(@[A-Za-z0-9.-]+\.[A-Za-z]{2,})")
_CN_ID = re.compile(r"\b(\d{6})\d{8}(\d{3}[\dXx])\b")
_CARD = re.compile(r"\b(?:\d[ -]?){12,15}(\d{4})\b")
_CN_MOBILE = re.compile(r"(?<!\d)(1[3-9]\d)\d{4}(\d{4})(?!\d)")
_INTL_PHONE = re.compile(r"\+\d[\d\s-]{6,}(\d{2})")


def mask_pii(text: str) -> str:
    text = _EMAIL.sub(r"\1***\2", text)
    text = _CN_ID.sub(r"\1********\2", text)
    text = _CARD.sub(r"**** **** **** \1", text)
    text = _CN_MOBILE.sub(r"\1****\2", text)
    return _INTL_PHONE.sub(r"+*** *** **\1", text)
