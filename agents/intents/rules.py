"""Level 1 of intent recognition: phrases so clear that no model is asked (seed 000's fast path)."""

from __future__ import annotations

import re
import unicodedata

from agents.intents.small_talk import is_greeting
from agents.taxonomy import Intent

HUMAN_REQUEST = re.compile(
    r"转人工|人工客服|联系人工|找人工|人工服务|真人客服|要人工|接人工|人工坐席|"
    r"\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a\s+|an\s+|some\s*one\s+|your\s+)?"
    r"(?:human|person|agent|representative|operator|someone|real\s+person|manager|supervisor)\b|"
    r"\breal\s+(?:person|human)\b|\bhuman\s+(?:agent|being|support|please)\b|"
    r"\b(?:live|human)\s+(?:agent|chat|support)\b|\bcustomer\s+service\s+(?:agent|representative|rep)\b|"
    r"\bconnect\s+me\s+(?:to|with)\s+(?:a\s+|an\s+)?(?:human|person|agent|representative)\b|"
    r"\btransfer\s+me\b|\bget\s+me\s+a\s+(?:human|person|agent)\b",
    re.IGNORECASE,
)

# Attempts to re-instruct the bot: recorded as a flag, and the text stays data, never instructions.
PROMPT_INJECTION = re.compile(
    r"ignore\s+(?:all\s+|the\s+|your\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts?|rules)|"
    r"disregard\s+(?:all\s+|the\s+|your\s+)?(?:previous|prior|above)|system\s+prompt|you\s+are\s+now\s+|"
    r"act\s+as\s+(?:a|an)\s+|pretend\s+(?:to\s+be|you\s+are)|jailbreak|"
    r"你现在是|忽略(?:之前|以上|上面|前面)的?(?:所有)?(?:指令|提示|规则|设定)|无视(?:之前|以上)|系统提示词?|扮演",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    """NFKC (full-width → half-width), lower case, single spaces: the key of the intent cache."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"\s+", " ", text).strip()


def rule_fast_path(text: str) -> Intent | None:
    """HUMAN_REQUEST or CHITCHAT when the message is unmistakably that, else None."""
    clean = normalise(text)
    if HUMAN_REQUEST.search(clean):
        return Intent.HUMAN_REQUEST
    if len(clean) <= 40 and is_greeting(clean):
        return Intent.CHITCHAT
    return None


def is_prompt_injection(text: str) -> bool:
    return bool(PROMPT_INJECTION.search(normalise(text)))
