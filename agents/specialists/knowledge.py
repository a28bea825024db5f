"""Answers from the knowledge base, cited; a miss is reported as one (seed 000) and remembered as a gap.

Offline the answer is extractive: the sentences of the best passages that share the most words
with the question, in the customer's language when the knowledge base has it. With an LLM the
answer is written from the numbered passages only; a citation of a passage that was not
retrieved is dropped, and an answer left with no valid citation falls back to the extract.
"""

from __future__ import annotations

import re
from collections import Counter

from django.urls import reverse

from agents.answers import SpecialistContext, SpecialistResult
from agents.grounding import ungrounded
from agents.intents.catalogue import catalogue_get
from agents.llm.client import LLMUnavailable, llm_chat, llm_enabled
from agents.llm.prompts import knowledge_answer_messages, revision_messages
from agents.safety import harmful_categories
from agents.specialists import Specialist, register
from conversations.language import say
from knowledge.chunking import meaning_terms, sentences, word_stem
from knowledge.hits import KnowledgeHit
from knowledge.places import region_terms
from knowledge.quantities import numbers_asked, quantity_fits
from knowledge.ranking import ANSWER_KINDS, kinds_asked, kinds_held
from knowledge.selectors import ScoredChunk, chunk_search_answering, chunk_sections
from knowledge.services import missed_question_record

KNOWLEDGE_MISS = "[knowledge base miss]"
NO_ANSWER = "NO_ANSWER"
MAX_ANSWER_CHARS = 400
PASSAGES = 5  # retrieved for an answer (the LLM reads them all)
# Passages this close (cosine) to the best one are read for the answer too: sections of one help
# article sit within hundredths of each other, and the best by the embedding is often the section
# next to the one that answers.
SUPPORT_MARGIN = 0.02
# The other sections of the best passage's article are read further down, for what the question asks
# and the answer does not say yet (the price list of the plan a "how much" question found, the box
# contents of the renewed phone a "charger" question found): the article is the evidence, the section
# only the embedding's guess. Farther, they are reached through a deeper search.
SAME_ARTICLE_MARGIN = 0.04
SUPPORT_DEPTH = 10
# Two sections of one article this close by score (cosine and keyword evidence) are a tie the models
# cannot break: the reply quotes both rather than guess.
SECTION_TIE = 0.01
SUPPORT_CHARS = 240
FITS = "<fits>"  # a sentence's range holds a number the question gives (knowledge.quantities)
_CITATION = re.compile(r"\[(\d{1,2})\]")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _extract(question: str, section: str) -> str:
    """The section, or when it is too long, its sentences that answer the question, in their order.

    A section is written to be read whole, so one that fits is quoted whole. A longer one keeps the
    sentence that says most of what the question asks (its words, each worth less the more sentences
    of the section say it, and the kind of answer it wants: a price for "how much"), the sentence
    after it (help text states a condition, then what follows from it), the opening sentence (a
    heading-led section states its point first), then the other sentences that share words with the
    question, while there is room."""
    # line breaks end list items (knowledge.chunking): kept for splitting, not in the reply
    text = re.sub(r"(?<=[。！？；])\s+", "", re.sub(r"[^\S\n]+", " ", section)).strip()
    if len(text) <= MAX_ANSWER_CHARS:
        return re.sub(r"\s*\n\s*", " ", text)
    parts = sentences(text) or [text]
    asked = _terms(question, question=True) | {FITS}
    numbers = numbers_asked(question)
    fits = [quantity_fits(numbers, s) for s in parts]
    if True in fits:  # the rows whose ranges leave the question's number out answer other cases
        parts = [s for s, fit in zip(parts, fits, strict=True) if fit is not False]
        fits = [fit for fit in fits if fit is not False]
    said = [
        (_terms(s, question=False) | ({FITS} if fit else set())) & asked for s, fit in zip(parts, fits, strict=True)
    ]
    # A word most sentences of the section share (its topic) tells little about which one answers.
    spread = Counter(term for terms in said for term in terms)
    overlap = [sum(1 / spread[term] for term in terms) for terms in said]
    order = sorted(range(len(parts)), key=lambda i: (-overlap[i], i))
    keep: list[int] = []
    length = 0
    after = order[0] + 1
    for i in [order[0], after, 0, *order[1:]]:
        if i >= len(parts) or i in keep or length + len(parts[i]) > MAX_ANSWER_CHARS:
            continue
        if keep and i not in (0, after) and overlap[i] == 0:
            continue
        keep.append(i)
        length += len(parts[i])
    joined = " ".join(parts[i] for i in sorted(keep))
    joined = re.sub(r"(?<=[。！？；])\s+", "", joined)
    return joined if len(joined) <= MAX_ANSWER_CHARS else joined[:MAX_ANSWER_CHARS].rstrip() + "…"


def _terms(text: str, *, question: bool) -> set[str]:
    """meaning_terms, plus the kinds of answer a question asks for or a sentence holds; a question's place also
    says the regions it lies in (a table lists 新疆, the shopper names 乌鲁木齐)."""
    if question:
        return meaning_terms(text) | kinds_asked(text) | region_terms(text)
    return meaning_terms(text) | kinds_held(text)


def _products_meant(question: str) -> frozenset[str]:
    """The words of the store's products a question means by their category: "a tablet" is the
    Pad 3 in this store, so a passage that names the Pad 3 answers it."""
    asked = meaning_terms(question)
    meant: set[str] = set()
    for category, names in catalogue_get().names_by_category().items():
        if word_stem(category) in asked or category in asked:
            for name in names:
                meant |= meaning_terms(name)
    return frozenset(meant)


def _supporting_sentences(
    question: str, answer: str, results: list[ScoredChunk], meant: frozenset[str] = frozenset(), quoted: str = ""
) -> tuple[ScoredChunk, str] | None:
    """From the passages nearly as close as the best one (and the best one's article further down), the
    sentences that say most about what the question asks and the answer so far does not; None when no
    sentence adds anything. A question in the passage (an FAQ entry) brings the sentence that answers
    it. `meant` are the words of the products the question means by their category; passages inside
    `quoted` (the sections the answer quotes from) add nothing new."""
    asked = _terms(question, question=True) | meant
    said = _terms(answer, question=False)
    # The kind of answer asked for and not yet given comes first: a price for "how much".
    wanted = {term for term in asked - said if term in ANSWER_KINDS}
    best = results[0]
    # (gain, same article, -rank, chunk, position, sentence)
    candidates: list[tuple[int, bool, int, ScoredChunk, int, str]] = []
    for rank, chunk in enumerate(results[1:], start=1):
        same_article = chunk.document == best.document
        margin = SAME_ARTICLE_MARGIN if same_article else SUPPORT_MARGIN
        if chunk.similarity < best.similarity - margin or chunk.text in best.text or chunk.text in quoted:
            continue
        close = chunk.similarity >= best.similarity - SUPPORT_MARGIN
        parts = sentences(re.sub(r"[^\S\n]+", " ", chunk.text)) or [chunk.text]
        for position, sentence in enumerate(parts):
            found = (asked & _terms(sentence, question=False)) - said
            if not close and not same_article:
                continue
            gain = len(found) + (10 if wanted & found else 0)
            if gain and sentence.rstrip("*").endswith(("?", "？")) and position + 1 < len(parts):
                sentence = f"{sentence} {parts[position + 1]}"
            if gain:
                candidates.append((gain, same_article, -rank, chunk, position, sentence))
    if not candidates:
        return None
    gain, _, _, chunk, _, _ = max(candidates, key=lambda c: (c[0], c[1], c[2], -c[4]))
    chosen = sorted((c for c in candidates if c[3] is chunk and c[0] == gain), key=lambda c: c[4])
    text = ""
    for *_, sentence in chosen:
        if sentence in text:  # the answer after an FAQ question came with it
            continue
        if len(text) + len(sentence) > SUPPORT_CHARS and text:
            break
        text = f"{text} {sentence}".strip() if not _CJK.search(sentence) else f"{text}{sentence}"
    return chunk, text[:SUPPORT_CHARS]


def _quoted_sections(results: list[ScoredChunk]) -> list[ScoredChunk]:
    """The best passage, then another section of its article that scores within SECTION_TIE of it."""
    best = results[0]
    tied = next(
        (
            r
            for r in results[1:]
            if r.document == best.document and r.heading != best.heading and r.score >= best.score - SECTION_TIE
        ),
        None,
    )
    return [best] if tied is None else [best, tied]


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
        results, miss = chunk_search_answering(query=text, k=SUPPORT_DEPTH, lang=language)
        best = results[0] if results else None
        hits.append(
            KnowledgeHit(
                text=text,
                matched=not miss,
                similarity=best.similarity if best else 0.0,
                document=best.document if best else "",
                chunk_id=best.chunk_id if best else None,
                passage=f"{best.label}: {best.text[:200]}" if best else "",
            )
        )
    return hits


@register
class Knowledge(Specialist):
    name = "knowledge_qa"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        results, miss = chunk_search_answering(query=ctx.text, k=SUPPORT_DEPTH, lang=ctx.language)
        if miss:
            return self._miss(ctx)
        revisions: list[str] = []
        if llm_enabled():
            grounded = self._grounded(ctx, results[:PASSAGES], revisions)
            if grounded is not None:
                return grounded
        extract = self._extractive(ctx, results)
        if revisions:  # what the LLM wrote was set aside: the turn's verdict says so
            extract.data["revisions"] = [*revisions, "extract said"]
        return extract

    def _miss(self, ctx: SpecialistContext) -> SpecialistResult:
        missed_question_record(question=ctx.text, language=ctx.language, reference=f"subtask:{ctx.subtask_id}")
        return SpecialistResult(
            # Never a dead end: say how to go on (a second miss in a row hands over by itself).
            text=say(
                ctx.language,
                "I couldn't find that in our help articles. You can ask it another way, or ask for a colleague.",
            ),
            resolved=False,
            data={"marker": KNOWLEDGE_MISS},
            knowledge=True,
        )

    def _extractive(self, ctx: SpecialistContext, results: list[ScoredChunk]) -> SpecialistResult:
        cited = _quoted_sections(results)
        sections = chunk_sections([chunk.chunk_id for chunk in cited])
        parts = [_extract(ctx.text, sections[chunk.chunk_id]) for chunk in cited]
        quoted = " ".join(sections.values())
        support = _supporting_sentences(ctx.text, " ".join(parts), results, _products_meant(ctx.text), quoted)
        if support is not None and support[0] not in cited:
            parts.append(support[1])
            cited.append(support[0])
        parts = [f"{part} [{n}]" for n, part in enumerate(parts, start=1)]
        sources = [_source(chunk) for chunk in cited]
        return SpecialistResult(
            text="\n".join(parts),
            sources=tuple(sources),
            knowledge=True,
            data={"chunk_ids": [r.chunk_id for r in results], "mode": "extractive"},
        )

    def _grounded(
        self, ctx: SpecialistContext, results: list[ScoredChunk], revisions: list[str]
    ) -> SpecialistResult | None:
        """The LLM's answer from the passages, revised once when it cannot be sent (the reasons are added to
        `revisions`); None when the extract is to be said instead."""
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
        faults = _answer_faults(text, cited, results, ctx.text)
        if faults:  # one revision with the reasons, then the extract
            revisions.append("; ".join(faults))
            try:
                answer = llm_chat(revision_messages(messages, answer=answer, reasons=faults), tier="main").text.strip()
            except LLMUnavailable:
                return None
            text, cited = grounded_citations(answer, len(results))
            if answer.startswith(NO_ANSWER) or _answer_faults(text, cited, results, ctx.text):
                return None
        return SpecialistResult(
            text=text,
            sources=tuple(_source(results[i]) for i in cited),
            knowledge=True,
            data={"chunk_ids": [r.chunk_id for r in results], "mode": "grounded"}
            | ({"revisions": revisions} if revisions else {}),
        )


def _answer_faults(text: str, cited: list[int], results: list[ScoredChunk], question: str) -> list[str]:
    """Why a written answer cannot be sent: it cites no retrieved passage, states a figure or a promise the
    passages it cites do not (nor the question), or is harmful."""
    if not cited:
        return ["it cites none of the passages"]
    faults = []
    missing = ungrounded(text, "\n".join([question, *(f"{results[i].label} {results[i].text}" for i in cited)]))
    if missing:
        faults.append(f"it states {', '.join(missing)}, which the passages it cites do not")
    harmful = harmful_categories(text)
    if harmful:
        faults.append(f"it contains harmful content ({', '.join(harmful)})")
    return faults
