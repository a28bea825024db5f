"""Pick the small or the main model by how complex a message looks (seed 000's ModelRouter)."""

from __future__ import annotations

import re

from agents.llm.client import Tier

_CLAUSE_BREAK = re.compile(r"[，,。.;；？?！!]|\b(?:and|also|but|then)\b|并且|而且|另外|还有|然后|同时|顺便")
_COMPLEX_WORDS = re.compile(
    r"compare|difference|versus|\bvs\b|recommend|why|explain|policy|warranty|对比|区别|比较|推荐|为什么|政策|保修",
    re.IGNORECASE,
)
COMPLEX_THRESHOLD = 0.5


def complexity_score(text: str) -> float:
    """0 (a greeting, a short lookup) to 1 (long, several requests, comparisons, reasoning)."""
    score = min(len(text) / 200, 0.4)
    clauses = len([part for part in _CLAUSE_BREAK.split(text) if part and part.strip()])
    score += min(max(clauses - 1, 0) * 0.15, 0.3)
    if _COMPLEX_WORDS.search(text):
        score += 0.3
    return min(score, 1.0)


def tier_for(text: str) -> Tier:
    return "main" if complexity_score(text) >= COMPLEX_THRESHOLD else "small"
