"""Ingesting documents into a knowledge base: read, chunk, embed, and swap versions in one transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from knowledge.chunking import TextChunk, search_text
from knowledge.embeddings import EmbeddingsUnavailable, dimension_mismatch, embedder_get
from knowledge.models import Chunk, Document, DocumentStatus, KnowledgeBase, Language
from knowledge.readers import IngestError, document_read

EMBED_BATCH = 32


@dataclass(frozen=True)
class IngestResult:
    source: str
    outcome: str  # added, changed, unchanged
    chunks: int


ProgressCallback = Callable[[int, int], None]  # (chunks embedded, chunks in the document)


def kb_version(kb_id: int) -> int:
    """Bumped by every ingest: part of the retrieval cache key, so a change is seen at once."""
    return int(cache.get(f"kb:version:{kb_id}") or 0)


def _kb_touch(kb_id: int) -> None:
    cache.add(f"kb:version:{kb_id}", 0, timeout=None)
    cache.incr(f"kb:version:{kb_id}")


def _detect_language(text: str) -> str:
    sample = text[:4000]
    cjk = sum(1 for c in sample if "\u4e00" <= c <= "\u9fff")
    return Language.ZH if cjk > len(sample) * 0.05 else Language.EN


def _embed_checked(texts: list[str], on_progress: ProgressCallback | None) -> list[np.ndarray]:
    """Passage vectors in batches; a model of the wrong width stops before anything is written."""
    embedder = embedder_get()
    vectors: list[np.ndarray] = []
    for start in range(0, len(texts), EMBED_BATCH):
        batch = embedder.passages(texts[start : start + EMBED_BATCH])
        if batch.shape[1] != settings.EMBEDDING_DIMENSIONS:
            raise EmbeddingsUnavailable(dimension_mismatch(embedder.name, batch.shape[1]))
        vectors.extend(batch)
        if on_progress:
            on_progress(len(vectors), len(texts))
    return vectors


def chunks_store(
    *,
    kb_name: str,
    source: str,
    title: str,
    chunks: list[TextChunk],
    language: str = "auto",
    checksum: str = "",
    on_progress: ProgressCallback | None = None,
) -> IngestResult:
    """Store one document's chunks: the same content again is skipped; new content for a known
    source replaces the old version in one transaction, so searches see the old version until
    the new one is complete."""
    checksum = checksum or hashlib.sha256("\n".join(f"{c.heading}\t{c.text}" for c in chunks).encode()).hexdigest()
    kb, _ = KnowledgeBase.objects.get_or_create(name=kb_name)
    if Document.objects.filter(knowledge_base=kb, checksum=checksum, status=DocumentStatus.READY).exists():
        return IngestResult(source, "unchanged", 0)
    lang = language if language in Language.values else _detect_language(" ".join(c.text for c in chunks))
    vectors = _embed_checked([f"{c.heading}: {c.text}" for c in chunks], on_progress)
    with transaction.atomic():
        previous = list(
            Document.objects.select_for_update().filter(knowledge_base=kb, source=source).order_by("-version")
        )
        Document.objects.filter(pk__in=[d.pk for d in previous]).delete()
        document = Document.objects.create(
            knowledge_base=kb,
            source=source,
            title=title[:300],
            language=lang,
            checksum=checksum,
            version=(previous[0].version + 1) if previous else 1,
            status=DocumentStatus.READY,
        )
        Chunk.objects.bulk_create(
            Chunk(
                document=document,
                position=i,
                heading=c.heading[:300],
                text=c.text,
                search_text=search_text(f"{c.heading} {c.text}"),
                embedding=v,
            )
            for i, (c, v) in enumerate(zip(chunks, vectors, strict=True))
        )
        transaction.on_commit(lambda: _kb_touch(kb.pk))
    return IngestResult(source, "changed" if previous else "added", len(chunks))


def document_ingest(
    *,
    kb_name: str,
    name: str,
    raw: bytes,
    language: str = "auto",
    source: str = "",
    on_progress: ProgressCallback | None = None,
) -> IngestResult:
    """Ingest one file's bytes (any supported format); `source` names it for updates and pruning."""
    document = document_read(name, raw, max_bytes=settings.KNOWLEDGE_MAX_FILE_BYTES)
    return chunks_store(
        kb_name=kb_name,
        source=source or name,
        title=document.title,
        chunks=document.chunks,
        language=language,
        checksum=hashlib.sha256(raw).hexdigest(),
        on_progress=on_progress,
    )


def file_ingest(
    *, kb_name: str, path: Path, language: str = "auto", source: str = "", on_progress: ProgressCallback | None = None
) -> IngestResult:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: {exc.strerror or exc}") from None
    return document_ingest(
        kb_name=kb_name, name=str(path), raw=raw, language=language, source=source, on_progress=on_progress
    )


def kb_prune(*, kb_name: str, keep_sources: set[str]) -> int:
    """Remove the documents whose source is no longer among `keep_sources`."""
    kb = KnowledgeBase.objects.filter(name=kb_name).first()
    if kb is None:
        return 0
    with transaction.atomic():
        gone = Document.objects.filter(knowledge_base=kb).exclude(source__in=keep_sources)
        count = gone.values("source").distinct().count()
        gone.delete()
        transaction.on_commit(lambda: _kb_touch(kb.pk))
    return count
