"""Ingesting documents into a knowledge base: read, chunk, embed, and swap versions in one transaction."""

from __future__ import annotations

import hashlib
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from knowledge.chunking import TextChunk, search_text
from knowledge.embeddings import (
    EmbeddingsUnavailable,
    dimension_mismatch,
    embedder_get,
    english_passage_vectors,
    passage_vectors,
    query_vectors,
)
from knowledge.extract import CONTAINER_TYPES
from knowledge.injection import chunks_withheld
from knowledge.injection_model import fitted as injection_fitted
from knowledge.models import (
    Audience,
    Chunk,
    Document,
    DocumentStatus,
    IngestFile,
    IngestJob,
    IngestJobStatus,
    KnowledgeBase,
    Language,
    MissedQuestion,
)
from knowledge.pinned import knowledge_pin
from knowledge.readers import (
    IngestError,
    document_check_unread,
    document_read_isolated,
    document_read_precheck,
    suffix_of,
)

EMBED_BATCH = 32
# Rows of one INSERT: a statement holds at most 65,535 parameters, and a 50,000-entry FAQ is one document.
INSERT_BATCH = 1000


@dataclass(frozen=True)
class IngestResult:
    source: str
    outcome: str  # added, changed, unchanged
    chunks: int
    withheld: int = 0  # instruction-like sentences left out (knowledge.injection)


ProgressCallback = Callable[[int, int], None]  # (chunks embedded, chunks in the document)


KNOWLEDGE_VERSION_KEY = "kb:version"


def knowledge_version() -> str:
    """The version of all knowledge bases together: part of the retrieval cache key and of each
    process's list of searchable documents, so any change is seen at once everywhere. A random token
    rather than a counter, so an emptied cache cannot bring back a value that meant other contents.
    Read once inside `knowledge_pinned()`."""
    pin = knowledge_pin()
    if pin is not None and pin.version is not None:
        return pin.version
    version = cache.get(KNOWLEDGE_VERSION_KEY)
    if version is None:
        cache.add(KNOWLEDGE_VERSION_KEY, uuid.uuid4().hex, timeout=None)
        version = cache.get(KNOWLEDGE_VERSION_KEY)
    if pin is not None:
        pin.version = version
    return version


def knowledge_version_renew() -> None:
    """A new knowledge version now, whatever the transaction (knowledge_changed waits for the commit)."""
    cache.set(KNOWLEDGE_VERSION_KEY, uuid.uuid4().hex, timeout=None)


def knowledge_changed(**signal: object) -> None:
    """Receives every save and delete of a knowledge base or document (knowledge.apps), whoever makes
    it: an ingest, a prune, the admin. After the commit, since searches until then see the old rows."""
    transaction.on_commit(knowledge_version_renew)


def chunk_statistics_refresh() -> None:
    """Have Postgres count the chunks' words now, after a batch of ingests or removals.

    The keyword ranking weighs each word by these statistics (knowledge.selectors). Left to
    autovacuum they are refreshed whenever enough rows have changed, so the same question could rank
    differently before and after; refreshed here, an ingest ends with the figures it produced.
    Only the words' column is sampled, not the wide embedding one."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Chunk._meta.db_table)} (search_vector)")
    knowledge_changed()  # searches cached under the old figures are stale


def knowledge_base_audience_set(*, kb_name: str, audience: str) -> KnowledgeBase:
    """Who may read a knowledge base: `public` (the chat quotes it) or `internal` (staff only); the base is
    created when new. A change is searched at once (knowledge_changed on the save)."""
    if audience not in Audience.values:
        raise IngestError(f"audience must be public or internal, not {audience!r}")
    kb, created = KnowledgeBase.objects.get_or_create(name=kb_name, defaults={"audience": audience})
    if not created and kb.audience != audience:
        kb.audience = audience
        kb.save(update_fields=["audience", "updated_at"])
    return kb


def _detect_language(text: str) -> str:
    sample = text[:4000]
    cjk = sum(1 for c in sample if "\u4e00" <= c <= "\u9fff")
    return Language.ZH if cjk > len(sample) * 0.05 else Language.EN


def _embed_checked(
    texts: list[str], on_progress: ProgressCallback | None
) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Passage vectors in batches, each with its English companion vector (None for Chinese text);
    a model of the wrong width stops before anything is written."""
    vectors: list[tuple[np.ndarray, np.ndarray | None]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        texts_batch = texts[start : start + EMBED_BATCH]
        batch = passage_vectors(texts_batch)
        if batch.shape[1] != settings.EMBEDDING_DIMENSIONS:
            raise EmbeddingsUnavailable(dimension_mismatch(embedder_get().name, batch.shape[1]))
        vectors.extend(zip(batch, english_passage_vectors(texts_batch), strict=True))
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
    """Store one document's chunks: the same chunks again are skipped (the checksum is theirs by default, so a
    file that an upgrade reads differently is stored again); new content for a known
    source replaces the old version in one transaction, so searches see the old version until
    the new one is complete."""
    # The injection classifier's version is part of the default checksum: a document ingested before it changed
    # is read again by the next ingest, not left with what an older one let through.
    content = "\n".join(f"{c.heading}\t{c.text}" for c in chunks)
    checksum = checksum or hashlib.sha256(f"{injection_fitted().key}\n{content}".encode()).hexdigest()
    kb, _ = KnowledgeBase.objects.get_or_create(name=kb_name)
    if Document.objects.filter(knowledge_base=kb, checksum=checksum, status=DocumentStatus.READY).exists():
        return IngestResult(source, "unchanged", 0)
    lang = language if language in Language.values else _detect_language(" ".join(c.text for c in chunks))
    # What speaks to the assistant or the staff instead of the customer is never searched, quoted, shown or
    # prompted: the chunks keep the rest (headings and title included), the document lists it for review.
    waiting = (lambda: on_progress(0, 1)) if on_progress else None  # the check is part of reading the file
    chunks, title, withheld = chunks_withheld(chunks, title=title, waiting=waiting)
    title = title or Path(source).stem
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
            withheld=withheld,
        )
        Chunk.objects.bulk_create(
            (
                Chunk(
                    document=document,
                    position=i,
                    heading=c.heading[:300],
                    text=c.text,
                    search_text=search_text(f"{c.heading} {c.text}"),
                    embedding=vector,
                    english_embedding=english,
                )
                for i, (c, (vector, english)) in enumerate(zip(chunks, vectors, strict=True))
            ),
            batch_size=INSERT_BATCH,
        )
    return IngestResult(source, "changed" if previous else "added", len(chunks), len(withheld))


def document_ingest(
    *,
    kb_name: str,
    name: str,
    raw: bytes,
    language: str = "auto",
    source: str = "",
    on_progress: ProgressCallback | None = None,
    capped: bool = True,
) -> IngestResult:
    """Ingest one file's bytes (any supported format); `source` names it for updates and pruning. `capped`: held
    to KNOWLEDGE_MAX_FILE_BYTES and KNOWLEDGE_MAX_CHUNKS_PER_FILE, as an upload is; an operator's file from the
    disk (ingest_kb) is not (a 50,000-row FAQ), though a PDF or DOCX keeps its unpacking limits."""
    # While the file is read its progress is 0 of its passages; the report is also where a job notices
    # it was cancelled or is out of time, and then the child process reading the file is killed.
    waiting = (lambda: on_progress(0, 1)) if on_progress else None
    max_bytes = settings.KNOWLEDGE_MAX_FILE_BYTES if capped or suffix_of(name) in CONTAINER_TYPES else sys.maxsize
    document = document_read_isolated(name, raw, max_bytes=max_bytes, waiting=waiting)
    limit = settings.KNOWLEDGE_MAX_CHUNKS_PER_FILE if capped else sys.maxsize
    if len(document.chunks) > limit:
        raise IngestError(
            f"{name}: {len(document.chunks)} passages; at most {limit} per file (KNOWLEDGE_MAX_CHUNKS_PER_FILE):"
            " split it into smaller files"
        )
    return chunks_store(
        kb_name=kb_name,
        source=source or name,
        title=document.title,
        chunks=document.chunks,
        language=language,
        on_progress=on_progress,
    )


def file_ingest(
    *,
    kb_name: str,
    path: Path,
    language: str = "auto",
    source: str = "",
    on_progress: ProgressCallback | None = None,
    capped: bool = True,
) -> IngestResult:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: {exc.strerror or exc}") from None
    return document_ingest(
        kb_name=kb_name,
        name=str(path),
        raw=raw,
        language=language,
        source=source,
        on_progress=on_progress,
        capped=capped,
    )


def kb_prune(*, kb_name: str, keep_sources: set[str], under: list[str]) -> int:
    """Remove the documents whose source lies under one of `under` (folders or files that were
    ingested) but is no longer among `keep_sources`; uploads and staff FAQ entries live elsewhere
    and are never pruned by a folder's ingest."""
    kb = KnowledgeBase.objects.filter(name=kb_name).first()
    if kb is None or not under:
        return 0
    scope = Q()
    for root in under:
        scope |= Q(source=root) | Q(source__startswith=root.rstrip("/") + "/")
    with transaction.atomic():
        gone = Document.objects.filter(scope, knowledge_base=kb).exclude(source__in=keep_sources)
        count = gone.values("source").distinct().count()
        gone.delete()
    return count


# --- upload jobs ------------------------------------------------------------------------------


MAX_FILES_PER_JOB = 50
INGEST_JOB_RUN = "knowledge.tasks.ingest_job_run_task"
_PROGRESS_EVERY_S = 0.3


def ingest_job_create(
    *,
    kb_name: str,
    files: Sequence[UploadedFile],
    language: str = "auto",
    requested_by: str = "",
    audience: str | None = None,
) -> IngestJob:
    """Check what can be checked at once (type, size, emptiness), store the files, queue the job.
    Type and size are checked before any file is read, so an oversized upload is never loaded into
    memory. Content problems (binary, undecodable, an unreadable PDF) are found by the worker and
    reported on the job, file by file."""
    if not files:
        raise IngestError("no file uploaded")
    if len(files) > MAX_FILES_PER_JOB:
        raise IngestError(f"{len(files)} files: at most {MAX_FILES_PER_JOB} per upload")
    if language not in [*Language.values, "auto"]:
        raise IngestError(f"language must be zh, en or auto, not {language!r}")
    if audience is not None and audience not in Audience.values:
        raise IngestError(f"audience must be public or internal, not {audience!r}")
    # In memory, or in a temporary file when large: sizes are known before anything is read.
    for file in files:
        document_check_unread(file.name or "", file.size or 0, max_bytes=settings.KNOWLEDGE_MAX_FILE_BYTES)
    total, limit = sum(file.size or 0 for file in files), settings.KNOWLEDGE_MAX_JOB_BYTES
    if total > limit:
        raise IngestError(
            f"{total / 1048576:.1f} MB in all; at most {limit // 1048576} MB per upload (KNOWLEDGE_MAX_JOB_BYTES)"
        )
    contents = [(file.name or "", file.read()) for file in files]
    for name, content in contents:
        document_read_precheck(name, content, max_bytes=settings.KNOWLEDGE_MAX_FILE_BYTES)
    with transaction.atomic():
        if audience is None:
            kb, _ = KnowledgeBase.objects.get_or_create(name=kb_name)
        else:
            kb = knowledge_base_audience_set(kb_name=kb_name, audience=audience)
        job = IngestJob.objects.create(knowledge_base=kb, language=language, requested_by=requested_by[:150])
        IngestFile.objects.bulk_create(
            IngestFile(job=job, name=name[:300], size=len(content), content=content) for name, content in contents
        )
        # By name: the task calls down into this module, which never imports the tasks. On the ingest
        # queue, whose worker is not the one answering chats.
        transaction.on_commit(
            lambda: current_app.send_task(INGEST_JOB_RUN, args=[str(job.pk)], queue=settings.CELERY_INGEST_QUEUE)
        )
    return job


class IngestStopped(Exception):
    """The job was cancelled, or ran out of KNOWLEDGE_JOB_TIME_LIMIT_S; `str()` says which."""


def _job_progress(job: IngestJob, index: int, total: int, deadline: float) -> ProgressCallback:
    """Reports progress between embedding batches, and is where a running job notices that it was
    cancelled (its status moved away from running) or that its time is up."""
    last = [0.0]

    def report(done: int, of: int) -> None:
        now = time.monotonic()
        if now > deadline:
            raise IngestStopped(f"stopped after {settings.KNOWLEDGE_JOB_TIME_LIMIT_S} s (KNOWLEDGE_JOB_TIME_LIMIT_S)")
        if now - last[0] >= _PROGRESS_EVERY_S or done == of:
            last[0] = now
            progress = min(1.0, (index + done / max(of, 1)) / total)
            if not IngestJob.objects.filter(pk=job.pk, status=IngestJobStatus.RUNNING).update(progress=progress):
                raise IngestStopped("the job was cancelled")

    return report


def ingest_job_cancel(job_id: uuid.UUID | str) -> IngestJob:
    """Stop a queued or running job. A file being embedded is dropped whole (nothing of it is
    written); files finished before stay in the knowledge base. IngestError if it already ended."""
    stopped = IngestJob.objects.filter(pk=job_id, status__in=[IngestJobStatus.QUEUED, IngestJobStatus.RUNNING]).update(
        status=IngestJobStatus.CANCELLED, finished_at=timezone.now(), current_file=""
    )
    job = IngestJob.objects.select_related("knowledge_base").get(pk=job_id)
    if not stopped:
        raise IngestError(f"the job is {job.status} already; only a queued or running job can be cancelled")
    IngestFile.objects.filter(job=job, outcome="").update(outcome="skipped", error="the job was cancelled", content=b"")
    return job


def ingest_job_run(job_id: str) -> str:
    """Ingest a job's files one by one, recording each outcome; safe to run again after a crash
    (files already done are skipped). Returns the job's final status."""
    claimed = IngestJob.objects.filter(pk=job_id, status__in=[IngestJobStatus.QUEUED, IngestJobStatus.RUNNING]).update(
        status=IngestJobStatus.RUNNING, started_at=timezone.now()
    )
    job = IngestJob.objects.select_related("knowledge_base").get(pk=job_id)
    if not claimed:
        return job.status
    deadline = time.monotonic() + settings.KNOWLEDGE_JOB_TIME_LIMIT_S
    files = list(job.files.order_by("pk"))
    for index, file in enumerate(files):
        if file.outcome:
            continue
        running = IngestJob.objects.filter(pk=job.pk, status=IngestJobStatus.RUNNING)
        if not running.update(current_file=file.name, progress=index / len(files)):
            return IngestJob.objects.values_list("status", flat=True).get(pk=job.pk)  # cancelled meanwhile
        try:
            result = document_ingest(
                kb_name=job.knowledge_base.name,
                name=file.name,
                raw=bytes(file.content),
                language=job.language,
                on_progress=_job_progress(job, index, len(files), deadline),
            )
        except IngestError as exc:
            IngestFile.objects.filter(pk=file.pk).update(outcome="failed", error=str(exc), content=b"")
            continue
        except IngestStopped as exc:
            return _job_stopped(job, str(exc))
        except EmbeddingsUnavailable as exc:
            # Every other file would fail the same way: stop, and say why on the job.
            IngestFile.objects.filter(job=job, outcome="").update(outcome="failed", error=str(exc))
            IngestJob.objects.filter(pk=job.pk).update(
                status=IngestJobStatus.FAILED, error=str(exc), finished_at=timezone.now(), current_file=""
            )
            return IngestJobStatus.FAILED
        IngestFile.objects.filter(pk=file.pk).update(outcome=result.outcome, chunks=result.chunks, content=b"")
    if job.files.filter(outcome__in=["added", "changed"]).exists():
        chunk_statistics_refresh()
    failed = job.files.filter(outcome="failed").count()
    status = (
        IngestJobStatus.SUCCEEDED
        if not failed
        else IngestJobStatus.FAILED
        if failed == len(files)
        else IngestJobStatus.PARTIAL
    )
    IngestJob.objects.filter(pk=job.pk, status=IngestJobStatus.RUNNING).update(
        status=status, progress=1.0, current_file="", finished_at=timezone.now()
    )
    return status


def _job_stopped(job: IngestJob, reason: str) -> str:
    """A job cancelled or out of time: what was not ingested says why; what was stays."""
    if job.files.filter(outcome__in=["added", "changed"]).exists():
        chunk_statistics_refresh()
    IngestFile.objects.filter(job=job, outcome="").update(outcome="skipped", error=reason, content=b"")
    # Out of time: the job failed, unless some files made it in. Cancelled: it stays cancelled.
    done = job.files.filter(outcome__in=["added", "changed", "unchanged"]).exists()
    IngestJob.objects.filter(pk=job.pk, status=IngestJobStatus.RUNNING).update(
        status=IngestJobStatus.PARTIAL if done else IngestJobStatus.FAILED,
        error=reason,
        current_file="",
        finished_at=timezone.now(),
    )
    return IngestJob.objects.values_list("status", flat=True).get(pk=job.pk)


# --- knowledge gaps ---------------------------------------------------------------------------


def missed_question_record(*, question: str, language: str, reference: str) -> MissedQuestion | None:
    """Remember a question the knowledge base missed, for the knowledge-gaps page. Best effort:
    a failing embedder must not cost the customer their reply, so it returns None then."""
    question = question.strip()[:2000]
    if not question:
        return None
    try:
        vector = query_vectors([question])[0]
    except EmbeddingsUnavailable:
        return None
    missed, _ = MissedQuestion.objects.get_or_create(
        reference=reference[:100],
        defaults={
            "question": question,
            "language": language if language in Language.values else _detect_language(question),
            "embedding": vector,
        },
    )
    return missed


def gap_answer(
    *, question: str, answer: str, kb_name: str, language: str = "auto", missed_ids: Sequence[int] = ()
) -> Document:
    """Answer a knowledge gap with one FAQ entry, searchable at once; the grouped questions are marked answered."""
    question, answer = question.strip(), answer.strip()
    if not question or not answer:
        raise IngestError("an FAQ entry needs both a question and an answer")
    source = "faq/" + hashlib.sha256(question.encode()).hexdigest()[:16]
    result = chunks_store(
        kb_name=kb_name,
        source=source,
        title=question[:300],
        chunks=[TextChunk(question[:300], f"{question} {answer}")],
        language=language,
    )
    document = Document.objects.get(knowledge_base__name=kb_name, source=result.source)
    MissedQuestion.objects.filter(pk__in=list(missed_ids), answered_at__isnull=True).update(
        answered_by=document, answered_at=timezone.now()
    )
    return document
