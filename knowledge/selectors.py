"""Hybrid retrieval: pgvector cosine + 'simple' full text over rjieba-segmented text, fused by RRF."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.core.cache import cache
from django.db.models import F, QuerySet
from pgvector.django import CosineDistance

from knowledge.chunking import search_text
from knowledge.embeddings import embedder_get
from knowledge.models import Chunk, DocumentStatus, IngestJob, KnowledgeBase
from knowledge.services import kb_version

ARM_DEPTH = 50
RRF_K = 60
# The vector arm ranks well but says little through its compressed e5 cosines; the keyword arm is
# sparse but precise. A keyword hit adds to the vector order instead of competing with it.
VECTOR_WEIGHT = 1.0
KEYWORD_WEIGHT = 0.6
MISS_SIMILARITY = 0.82  # below this best cosine the KB does not know (e5 cosines sit in 0.8–1.0)
CACHE_TTL_S = 3600
_STOP_WORDS = set(
    "the a an my is are was do does did what how when where why who i you your to of in on for and or can could "
    "it its this that with be me we our us if not no yes have has please there any about from by at as".split()
) | set("的 了 吗 呢 吧 啊 是 我 你 他 她 它 我们 你们 怎么 什么 如何 请问 一下 可以 能 有 没有 在 和 与".split())


@dataclass(frozen=True)
class ScoredChunk:
    chunk_id: int
    document: str
    title: str
    heading: str
    text: str
    language: str
    score: float
    similarity: float
    keyword_rank: int | None


def _chunks(kb: str | None, lang: str | None) -> QuerySet[Chunk]:
    chunks = Chunk.objects.filter(document__status=DocumentStatus.READY, embedding__isnull=False)
    if kb:
        chunks = chunks.filter(document__knowledge_base__name=kb)
    if lang:
        chunks = chunks.filter(document__language=lang)
    return chunks


def _version(kb: str | None) -> str:
    ids = (
        KnowledgeBase.objects.filter(name=kb).values_list("pk", flat=True)
        if kb
        else KnowledgeBase.objects.values_list("pk", flat=True)
    )
    return "-".join(f"{pk}.{kb_version(pk)}" for pk in sorted(ids))


def chunk_search_hybrid(
    *, query: str, k: int = 5, kb: str | None = None, lang: str | None = None, mode: str = "hybrid"
) -> tuple[list[ScoredChunk], bool]:
    """The k best chunks and whether it is a knowledge miss. `mode`: hybrid, vector or keyword."""
    key = "kbsearch:" + hashlib.sha256(f"{_version(kb)}|{kb}|{lang}|{mode}|{k}|{query}".encode()).hexdigest()
    cached = cache.get(key)
    if cached is not None:
        return [ScoredChunk(**c) for c in cached["results"]], cached["miss"]
    chunks = _chunks(kb, lang)
    vector_ranked: list[tuple[int, float]] = []
    if mode in ("hybrid", "vector"):
        vector = embedder_get().queries([query])[0]
        vector_ranked = [
            (pk, 1.0 - float(distance))
            for pk, distance in chunks.annotate(distance=CosineDistance("embedding", vector))
            .order_by("distance")
            .values_list("pk", "distance")[:ARM_DEPTH]
        ]
    keyword_ranked: list[int] = []
    terms = [t for t in search_text(query).split() if t not in _STOP_WORDS and (len(t) > 1 or not t.isascii())]
    if mode in ("hybrid", "keyword") and terms:
        tsquery = SearchQuery(" | ".join(dict.fromkeys(terms)), search_type="raw", config="simple")
        keyword_ranked = list(
            chunks.filter(search_vector=tsquery)
            .annotate(rank=SearchRank(F("search_vector"), tsquery))
            .order_by("-rank", "pk")
            .values_list("pk", flat=True)[:ARM_DEPTH]
        )
    scores: dict[int, float] = {}
    for rank, (pk, _) in enumerate(vector_ranked):
        scores[pk] = scores.get(pk, 0.0) + VECTOR_WEIGHT / (RRF_K + rank + 1)
    for rank, pk in enumerate(keyword_ranked):
        scores[pk] = scores.get(pk, 0.0) + KEYWORD_WEIGHT / (RRF_K + rank + 1)
    similarity = dict(vector_ranked)
    keyword_position = {pk: i + 1 for i, pk in enumerate(keyword_ranked)}
    best = sorted(scores, key=lambda pk: -scores[pk])[:k]
    rows = {c.pk: c for c in Chunk.objects.filter(pk__in=best).select_related("document")}
    results = [
        ScoredChunk(
            chunk_id=pk,
            document=rows[pk].document.source,
            title=rows[pk].document.title,
            heading=rows[pk].heading,
            text=rows[pk].text,
            language=rows[pk].document.language,
            score=round(scores[pk], 6),
            similarity=round(similarity.get(pk, 0.0), 4),
            keyword_rank=keyword_position.get(pk),
        )
        for pk in best
    ]
    # A keyword hit alone proves little ("up" in "priced up to"): the vector arm decides a miss.
    top_similarity = max(similarity.values(), default=0.0)
    miss = (
        not results
        or (mode == "keyword" and not keyword_ranked)
        or (mode != "keyword" and top_similarity < MISS_SIMILARITY)
    )
    cache.set(key, {"results": [asdict(r) for r in results], "miss": miss}, timeout=CACHE_TTL_S)
    return results, miss


def ingest_job_json(job: IngestJob) -> dict[str, Any]:
    """An upload job as the API and the admin's progress poll show it."""
    return {
        "job_id": str(job.pk),
        "knowledge_base": job.knowledge_base.name,
        "status": job.status,
        "progress": round(job.progress, 3),
        "current_file": job.current_file,
        "error": job.error,
        "files": [
            {"name": f.name, "size": f.size, "outcome": f.outcome or None, "chunks": f.chunks, "error": f.error or None}
            for f in job.files.order_by("pk").only("name", "size", "outcome", "chunks", "error")
        ],
        "created_at": job.created_at.isoformat(),
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
