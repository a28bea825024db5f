"""Answers from the knowledge base: the best passage, cited; a miss is reported as one (seed 000)."""

from __future__ import annotations

import re

from agents.specialists import register
from agents.specialists.base import Specialist, SpecialistContext, SpecialistResult, localized
from knowledge.selectors import ScoredChunk, chunk_search_hybrid

KNOWLEDGE_MISS = "[knowledge base miss]"
MAX_ANSWER_CHARS = 400


def _trim(chunk: ScoredChunk) -> str:
    """The passage without its repeated heading, cut at a sentence end near MAX_ANSWER_CHARS."""
    text = chunk.text.strip()
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    cut = max(text.rfind(mark, 0, MAX_ANSWER_CHARS) for mark in ("。", "！", "？", ". ", "; ", "；"))
    return text[: cut + 1] if cut > MAX_ANSWER_CHARS // 2 else text[:MAX_ANSWER_CHARS] + "…"


@register
class Knowledge(Specialist):
    name = "knowledge_qa"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        results, miss = chunk_search_hybrid(query=ctx.text, k=3, lang=ctx.language)
        if not results and ctx.language:  # a KB written in the other language still beats nothing
            results, miss = chunk_search_hybrid(query=ctx.text, k=3)
        if miss or not results:
            return SpecialistResult(
                text=localized(
                    ctx.language,
                    en="I couldn't find that in our help articles.",
                    zh="抱歉，帮助中心里没有找到相关内容。",
                ),
                resolved=False,
                data={"marker": KNOWLEDGE_MISS},
                knowledge=True,
            )
        best = results[0]
        sources = tuple(
            {
                "title": r.title + (f" › {r.heading}" if r.heading and r.heading != r.title else ""),
                "chunk_id": r.chunk_id,
            }
            for r in results[:2]
        )
        answer = re.sub(r"\s+", " ", _trim(best))
        return SpecialistResult(
            text=f"{answer} [1]", sources=sources, knowledge=True, data={"chunk_ids": [r.chunk_id for r in results]}
        )
