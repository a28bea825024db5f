"""Answers from the knowledge base, cited; a miss is reported as one (seed 000) and remembered as a gap.

Offline the answer is extractive: the sentences of the best passages that share the most words
with the question, in the customer's language when the knowledge base has it. With an LLM the
answer is written from the numbered passages only; a citation of a passage that was not
retrieved is dropped, and an answer left with no valid citation falls back to the extract.
"""

from __future__ import annotations

import re

from django.urls import reverse

from agents.llm.client import LLMUnavailable, llm_chat, llm_enabled
from agents.llm.prompts import knowledge_answer_messages
from agents.route import KnowledgeHit
from agents.specialists import register
from agents.specialists.base import Specialist, SpecialistContext, SpecialistResult, localized
from knowledge.chunking import query_words, sentences
from knowledge.selectors import ScoredChunk, chunk_search_answering
from knowledge.services import missed_question_record

KNOWLEDGE_MISS = "[knowledge base miss]"
NO_ANSWER = "NO_ANSWER"
MAX_ANSWER_CHARS = 400
PASSAGES = 3
_CITATION = re.compile(r"\[(\d{1,2})\]")


def _words(text: str) -> set[str]:
    return set(query_words(text))


def _extract(question: str, chunk: ScoredChunk) -> str:
    """The passage, or when it is too long, its sentences that answer the question, in their order.

    A passage is written to be read whole, so one that fits is quoted whole. A longer one keeps the
    sentences that share the most words with the question, and its opening sentence when there is
    room, since a heading-led passage states its point first."""
    text = re.sub(r"(?<=[。！？；])\s+", "", re.sub(r"\s+", " ", chunk.text)).strip()
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    parts = sentences(text) or [text]
    asked = _words(question)
    overlap = [len(asked & _words(s)) for s in parts]
    order = sorted(range(len(parts)), key=lambda i: (-overlap[i], i))
    keep: list[int] = []
    length = 0
    for i in [order[0], 0, *order[1:]]:
        if i in keep or (keep and i != 0 and overlap[i] == 0) or length + len(parts[i]) > MAX_ANSWER_CHARS:
            continue
        keep.append(i)
        length += len(parts[i])
    joined = " ".join(parts[i] for i in sorted(keep))
    joined = re.sub(r"(?<=[。！？；])\s+", "", joined)
    return joined if len(joined) <= MAX_ANSWER_CHARS else joined[:MAX_ANSWER_CHARS].rstrip() + "…"


def _source(chunk: ScoredChunk) -> dict[str, object]:
    return {"title": chunk.label, "url": reverse("kb-source", args=[chunk.chunk_id]), "chunk_id": chunk.chunk_id}


def grounded_citations(text: str, passages: int) -> tuple[str, list[int]]:
    """Keep only citations of passages 1..`passages`, renumbered by first use; returns the text and
    the 0-based passage indexes in citation order."""
    cited: list[int] = []
    for match in _CITATION.finditer(text):
        n = int(match.group(1))
        if 1 <= n <= passages and n - 1 not in cited:
            cited.append(n - 1)

    def renumber(match: re.Match[str]) -> str:
        n = int(match.group(1)) - 1
        return f"[{cited.index(n) + 1}]" if n in cited else ""

    cleaned = re.sub(r"\s+([。，,.!?！？])", r"\1", _CITATION.sub(renumber, text))
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip(), cited


def knowledge_hits(texts: list[str], *, language: str) -> list[KnowledgeHit]:
    """What the knowledge base knows about each text: the same search the answer will use (cached),
    so the route sees exactly the passage the knowledge specialist would cite."""
    hits = []
    for text in dict.fromkeys(t for t in texts if t.strip()):
        results, miss = chunk_search_answering(query=text, k=PASSAGES, lang=language)
        best = results[0] if results else None
        hits.append(
            KnowledgeHit(
                text=text,
                matched=not miss,
                similarity=best.similarity if best else 0.0,
                document=best.document if best else "",
                chunk_id=best.chunk_id if best else None,
            )
        )
    return hits


@register
class Knowledge(Specialist):
    name = "knowledge_qa"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        results, miss = chunk_search_answering(query=ctx.text, k=PASSAGES, lang=ctx.language)
        if miss:
            return self._miss(ctx)
        if llm_enabled():
            grounded = self._grounded(ctx, results)
            if grounded is not None:
                return grounded
        return self._extractive(ctx, results)

    def _miss(self, ctx: SpecialistContext) -> SpecialistResult:
        missed_question_record(question=ctx.text, language=ctx.language, reference=f"subtask:{ctx.subtask_id}")
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

    def _extractive(self, ctx: SpecialistContext, results: list[ScoredChunk]) -> SpecialistResult:
        best = results[0]
        parts = [f"{_extract(ctx.text, best)} [1]"]
        sources = [_source(best)]
        # A second passage joins only when it says something the first does not and is as close a match.
        runner_up = results[1] if len(results) > 1 else None
        if (
            runner_up is not None
            and runner_up.document != best.document
            and runner_up.similarity >= best.similarity - 0.01
            and _words(ctx.text) & _words(runner_up.text) - _words(best.text)
        ):
            parts.append(f"{_extract(ctx.text, runner_up)} [2]")
            sources.append(_source(runner_up))
        return SpecialistResult(
            text="\n".join(parts),
            sources=tuple(sources),
            knowledge=True,
            data={"chunk_ids": [r.chunk_id for r in results], "mode": "extractive"},
        )

    def _grounded(self, ctx: SpecialistContext, results: list[ScoredChunk]) -> SpecialistResult | None:
        messages = knowledge_answer_messages(
            question=ctx.text,
            language=ctx.language,
            passages=[(r.label, r.text) for r in results],
            history=ctx.history,
        )
        try:
            answer = llm_chat(messages, tier="main").text.strip()
        except LLMUnavailable:
            return None
        if answer.startswith(NO_ANSWER):
            return self._miss(ctx)
        text, cited = grounded_citations(answer, len(results))
        if not cited:  # an answer that cites nothing retrieved is not grounded: use the extract
            return None
        return SpecialistResult(
            text=text,
            sources=tuple(_source(results[i]) for i in cited),
            knowledge=True,
            data={"chunk_ids": [r.chunk_id for r in results], "mode": "grounded"},
        )
