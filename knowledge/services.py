"""Ingesting documents into a knowledge base: read, chunk, embed, and swap versions in one transaction."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from django.core.cache import cache
from django.db import transaction

from knowledge.chunking import TextChunk, chunk_markdown, search_text
from knowledge.embeddings import embedder_get
from knowledge.models import Chunk, Document, DocumentStatus, KnowledgeBase, Language

TEXT_TYPES = {".md", ".markdown", ".txt"}
FAQ_TYPES = {".csv", ".json"}
MAX_BYTES = 5 * 1024 * 1024
EMBED_BATCH = 32


class IngestError(Exception):
    """A file that cannot be ingested; the message says why."""


@dataclass(frozen=True)
class IngestResult:
    source: str
    outcome: str  # added, changed, unchanged
    chunks: int


def kb_version(kb_id: int) -> int:
    """Bumped by every ingest: part of the retrieval cache key, so a change is seen at once."""
    return int(cache.get(f"kb:version:{kb_id}") or 0)


def _kb_touch(kb_id: int) -> None:
    cache.add(f"kb:version:{kb_id}", 0, timeout=None)
    cache.incr(f"kb:version:{kb_id}")


def _decode(raw: bytes, source: str) -> str:
    if b"\x00" in raw[:4096]:
        raise IngestError(f"{source}: binary content")
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise IngestError(f"{source}: not UTF-8 or GBK text")


def _detect_language(text: str) -> str:
    cjk = sum(1 for c in text[:4000] if "\u4e00" <= c <= "\u9fff")
    return Language.ZH if cjk > len(text[:4000]) * 0.05 else Language.EN


def read_chunks(path: Path, raw: bytes) -> tuple[str, list[TextChunk]]:
    """The document title and its chunks; an FAQ entry is one chunk (question + answer)."""
    suffix = path.suffix.lower()
    if suffix not in TEXT_TYPES | FAQ_TYPES:
        raise IngestError(f"{path}: unsupported type {suffix or '(none)'}")
    if len(raw) > MAX_BYTES:
        raise IngestError(f"{path}: larger than {MAX_BYTES // 1024 // 1024} MB")
    text = _decode(raw, str(path)).strip()
    if not text:
        raise IngestError(f"{path}: empty")
    title = path.stem.replace("_", " ").replace("-", " ")
    if suffix in TEXT_TYPES:
        first = text.splitlines()[0].lstrip("# ").strip()
        return (first or title), chunk_markdown(text, title=first or title)
    if suffix == ".csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        if not rows or not {"question", "answer"} <= set(rows[0]):
            raise IngestError(f"{path}: an FAQ CSV needs a question,answer header")
        entries = [(r["question"], r["answer"]) for r in rows]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise IngestError(f"{path}: invalid JSON ({exc.msg})") from None
        if not isinstance(data, list) or not all(
            isinstance(e, dict) and "question" in e and "answer" in e for e in data
        ):
            raise IngestError(f"{path}: an FAQ JSON must be a list of {{question, answer}}")
        entries = [(str(e["question"]), str(e["answer"])) for e in data]
    chunks = [TextChunk(q.strip(), f"{q.strip()} {a.strip()}") for q, a in entries if q.strip() and a.strip()]
    if not chunks:
        raise IngestError(f"{path}: no question/answer entries")
    return title, chunks


def document_ingest(*, kb_name: str, path: Path, language: str = "auto", source: str = "") -> IngestResult:
    """Ingest one file: unchanged content is skipped; changed content replaces the old version's
    chunks in one transaction, so searches see the old version until the new one is complete."""
    source = source or str(path)
    raw = path.read_bytes()
    title, chunks = read_chunks(path, raw)
    checksum = hashlib.sha256(raw).hexdigest()
    kb, _ = KnowledgeBase.objects.get_or_create(name=kb_name)
    if Document.objects.filter(knowledge_base=kb, checksum=checksum, status=DocumentStatus.READY).exists():
        return IngestResult(source, "unchanged", 0)
    lang = language if language in Language.values else _detect_language(" ".join(c.text for c in chunks))
    vectors = []
    embedder = embedder_get()
    for start in range(0, len(chunks), EMBED_BATCH):
        vectors.extend(embedder.passages([f"{c.heading}: {c.text}" for c in chunks[start : start + EMBED_BATCH]]))
    with transaction.atomic():
        previous = list(
            Document.objects.select_for_update().filter(knowledge_base=kb, source=source).order_by("-version")
        )
        # Readers keep seeing the old version until this transaction commits.
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
