"""Retrieval quality and speed of `chunk_search_hybrid` on a Chinese and an English corpus.

In a scratch database, ingests through the real services (`chunks_store`, `document_ingest`,
embedding included), then for each corpus and each mode (hybrid, vector, keyword) prints
Recall@1/5/10 and MRR@10, then pads the Chinese knowledge base to --pad-to chunks and times
uncached hybrid searches.

- zh: BQ (bank customer questions) paraphrase retrieval, `zh_retrieval/bq_retrieval_dev.json`.
  Every corpus question is one chunk (documents of ZH_GROUP chunks); a query's `exclude` ids (its
  own text) are dropped from the ranking before scoring.
- en: τ²-bench banking knowledge, `tau2_banking_knowledge/`. Every document is ingested as Markdown
  and chunked; relevance is per document, so ranked chunks are reduced to distinct documents (a
  document ranks where its first chunk does) from EN_DEPTH chunks.

Recall@k is the share of a query's relevant items in its top k, averaged over queries.
The padding rows are synthetic (embedding texts at ~100/s on two cores would take a quarter of
an hour): each joins halves of two corpus questions, segmented like real chunks, with the first
one's stored embedding plus noise, renormalised. Each timed search runs after the benchmark's own
cache database is flushed (outside the timed region), so nothing comes from the result cache.

    .venv/bin/python bench/retrieval.py --data ../shared/data
    .venv/bin/python bench/retrieval.py --data ../shared/data --limit-queries 300 --pad-to 20000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from harness import django_setup, percentile, scratch_database, summary

KB_ZH, KB_EN = "bench-bq", "bench-banking"
ZH_GROUP = 64  # corpus questions per stored document: embedded in full batches, like a real FAQ file
EN_DEPTH = 50  # chunks retrieved per English query, enough for ten distinct documents
MODES = ("hybrid", "vector", "keyword")
CUTOFFS = (1, 5, 10)
# Its own Redis database (the demo uses 1, the tests 11), so flushing it between timed searches
# drops only the benchmark's cached results.
CACHE_DB = 13
PAD_BATCH = 5000
PAD_NOISE = 0.3  # norm of the noise added to a unit embedding: cosine ≈ 0.96 to the original


@dataclass(frozen=True)
class Query:
    qid: str
    text: str
    relevant: frozenset
    exclude: frozenset


@dataclass
class Corpus:
    name: str
    kb: str
    lang: str
    queries: list[Query]
    depth: int  # chunks asked for
    item_of: Callable  # ScoredChunk -> corpus item id
    chunks: int = 0
    ingest_s: float = 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--limit-queries", type=int, default=0, help="evaluate only the first N queries per corpus")
    parser.add_argument("--pad-to", type=int, default=100_000, help="chunks in the Chinese KB for the latency run")
    parser.add_argument("--latency-queries", type=int, default=300, help="timed hybrid searches")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    django_setup()
    from django.conf import settings
    from django.test import override_settings

    from cs_project.config import redis_db_url

    cache = {**settings.CACHES["default"], "LOCATION": redis_db_url(settings.REDIS_URL, CACHE_DB), "KEY_PREFIX": "cs-bench"}
    with override_settings(CACHES={"default": cache}), scratch_database():
        _run(args)
    print(f"wall time {time.perf_counter() - started:.0f} s")


def _run(args: argparse.Namespace) -> None:
    from django.core.cache import cache

    cache.clear()
    rng = random.Random(args.seed)
    zh = _ingest_zh(args.data / "zh_retrieval" / "bq_retrieval_dev.json")
    en = _ingest_en(args.data / "tau2_banking_knowledge")
    for corpus in (zh, en):
        print(
            f"ingest {corpus.lang}: {corpus.chunks} chunks in {corpus.ingest_s:.1f} s = "
            f"{corpus.chunks / corpus.ingest_s:.1f} chunks/s (chunking, embedding, storing)"
        )
    for corpus in (zh, en):
        queries = corpus.queries[: args.limit_queries] if args.limit_queries else corpus.queries
        print(f"\n{corpus.name}: {len(queries)} queries, {corpus.chunks} chunks")
        print(f"  {'mode':8s} " + "  ".join(f"R@{k:<3d}" for k in CUTOFFS) + "  MRR@10")
        for mode in MODES:
            figures = _evaluate(corpus, queries, mode)
            print(f"  {mode:8s} " + "  ".join(f"{figures[f'R@{k}']:.3f}" for k in CUTOFFS) + f"  {figures['MRR@10']:.3f}")
    total = _pad(KB_ZH, args.pad_to, rng)
    texts = [q.text for q in zh.queries]
    rng.shuffle(texts)
    for mode in MODES:
        values = _latency(texts[: args.latency_queries], kb=KB_ZH, lang="zh", mode=mode)
        print(f"  {mode:8s} {summary(values)}")
    del total


def _ingest_zh(path: Path) -> Corpus:
    from knowledge.chunking import TextChunk
    from knowledge.models import Chunk
    from knowledge.services import chunks_store

    data = json.loads(path.read_text())
    items = data["corpus"]
    groups = {f"bq/{start:05d}": items[start : start + ZH_GROUP] for start in range(0, len(items), ZH_GROUP)}
    started = time.perf_counter()
    for source, group in groups.items():
        chunks_store(
            kb_name=KB_ZH,
            source=source,
            title=f"BQ {source}",
            chunks=[TextChunk("", item["text"]) for item in group],
            language="zh",
        )
    elapsed = time.perf_counter() - started
    corpus_id = {
        pk: groups[source][position]["id"]
        for pk, source, position in Chunk.objects.filter(document__knowledge_base__name=KB_ZH).values_list(
            "pk", "document__source", "position"
        )
    }
    queries = [
        Query(q["qid"], q["text"], frozenset(q["relevant"]), frozenset(q["exclude"])) for q in data["queries"]
    ]
    return Corpus(
        name="zh  BQ paraphrase questions",
        kb=KB_ZH,
        lang="zh",
        queries=queries,
        depth=10,
        item_of=lambda hit: corpus_id[hit.chunk_id],
        chunks=len(corpus_id),
        ingest_s=elapsed,
    )


def _ingest_en(folder: Path) -> Corpus:
    from knowledge.models import Chunk
    from knowledge.services import document_ingest

    documents = json.loads((folder / "documents.json").read_text())
    started = time.perf_counter()
    for document in documents:
        raw = f"# {document['title']}\n\n{document['content']}\n".encode()
        document_ingest(kb_name=KB_EN, name=f"{document['id']}.md", source=document["id"], raw=raw, language="en")
    elapsed = time.perf_counter() - started
    data = json.loads((folder / "retrieval_queries_dev.json").read_text())
    queries = [Query(q["qid"], q["text"], frozenset(q["relevant"]), frozenset()) for q in data["queries"]]
    return Corpus(
        name="en  τ²-bench banking documents",
        kb=KB_EN,
        lang="en",
        queries=queries,
        depth=EN_DEPTH,
        item_of=lambda hit: hit.document,
        chunks=Chunk.objects.filter(document__knowledge_base__name=KB_EN).count(),
        ingest_s=elapsed,
    )


def ranked_items(hits: Iterable, item_of: Callable, exclude: frozenset) -> list:
    """Distinct corpus items in rank order, without the excluded ones."""
    seen: dict = {}
    for hit in hits:
        item = item_of(hit)
        if item not in exclude:
            seen.setdefault(item, None)
    return list(seen)


def scores(ranked: list, relevant: frozenset) -> dict[str, float]:
    figures = {f"R@{k}": len(relevant.intersection(ranked[:k])) / len(relevant) for k in CUTOFFS}
    first = next((i for i, item in enumerate(ranked[:10]) if item in relevant), None)
    figures["MRR@10"] = 0.0 if first is None else 1.0 / (first + 1)
    return figures


def _evaluate(corpus: Corpus, queries: list[Query], mode: str) -> dict[str, float]:
    from knowledge.selectors import chunk_search_hybrid

    totals: dict[str, float] = {}
    for query in queries:
        hits, _ = chunk_search_hybrid(
            query=query.text, k=corpus.depth + len(query.exclude), kb=corpus.kb, lang=corpus.lang, mode=mode
        )
        for name, value in scores(ranked_items(hits, corpus.item_of, query.exclude), query.relevant).items():
            totals[name] = totals.get(name, 0.0) + value
    return {name: value / len(queries) for name, value in totals.items()}


def _pad(kb_name: str, target: int, rng: random.Random) -> int:
    """Synthetic chunks until the KB holds `target`; the HNSW index is rebuilt after the load, as
    for any bulk load (inserting into a live HNSW index is several times slower)."""
    import numpy as np
    from django.db import connection, transaction

    from knowledge.chunking import search_text
    from knowledge.models import Chunk, Document, DocumentStatus, KnowledgeBase

    kb = KnowledgeBase.objects.get(name=kb_name)
    real = list(Chunk.objects.filter(document__knowledge_base=kb).values_list("text", "embedding"))
    missing = target - len(real)
    if missing <= 0:
        return len(real)
    started = time.perf_counter()
    hnsw = next(index for index in Chunk._meta.indexes if index.name == "chunk_embedding_hnsw")
    noise = np.random.default_rng(rng.randrange(2**32))
    with transaction.atomic():
        with connection.schema_editor() as editor:
            editor.remove_index(Chunk, hnsw)
        for start in range(0, missing, PAD_BATCH):
            count = min(PAD_BATCH, missing - start)
            document = Document.objects.create(
                knowledge_base=kb,
                source=f"padding/{start:06d}",
                title="padding",
                language="zh",
                checksum=f"padding-{start}",
                status=DocumentStatus.READY,
            )
            rows = []
            for position in range(count):
                (text_a, vector_a), (text_b, _) = rng.choice(real), rng.choice(real)
                text = text_a[: max(1, len(text_a) // 2)] + text_b[len(text_b) // 2 :]
                jitter = noise.normal(size=vector_a.shape).astype(np.float32)
                vector = vector_a + jitter * (PAD_NOISE / np.linalg.norm(jitter))
                rows.append(
                    Chunk(
                        document=document,
                        position=position,
                        heading="",
                        text=text,
                        search_text=search_text(text),
                        embedding=vector / np.linalg.norm(vector),
                    )
                )
            Chunk.objects.bulk_create(rows, batch_size=1000)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL maintenance_work_mem = '1GB'")
        with connection.schema_editor() as editor:
            editor.add_index(Chunk, hnsw)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    total = Chunk.objects.filter(document__knowledge_base=kb).count()
    print(
        f"\nlatency: padded {kb_name} with {missing} synthetic chunks to {total} "
        f"(loaded and indexed in {time.perf_counter() - started:.0f} s; synthetic, not embedded)"
    )
    return total


def _latency(texts: list[str], *, kb: str, lang: str, mode: str) -> list[float]:
    """Milliseconds per uncached search, the query's embedding included."""
    from django.core.cache import cache

    from knowledge.selectors import chunk_search_hybrid

    values = []
    for i, text in enumerate(texts):
        cache.clear()
        started = time.perf_counter()
        chunk_search_hybrid(query=text, k=5, kb=kb, lang=lang, mode=mode)
        if i >= 5:  # warm-up: connections, the model and the first index pages
            values.append((time.perf_counter() - started) * 1000)
    return values


if __name__ == "__main__":
    main()
