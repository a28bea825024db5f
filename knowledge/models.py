from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from pgvector.django import HnswIndex, VectorField


class Language(models.TextChoices):
    # Same values as conversations' Language; knowledge is a leaf app and imports no other app.
    EN = "en", "English"
    ZH = "zh", "中文"


class Audience(models.TextChoices):
    PUBLIC = "public", "Public: the chat may quote it"
    INTERNAL = "internal", "Internal: staff only"


# The demo's help articles (agents.demo): a sample store's policies, which the chat quotes only until the store
# ingests public knowledge of its own (knowledge.selectors).
SAMPLE_KB = "demo"


class KnowledgeBase(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    # Stores keep internal procedures beside their help centre: staff search them in the console, the
    # chat and the public source pages never see them.
    audience = models.CharField(max_length=16, choices=Audience.choices, default=Audience.PUBLIC)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(audience__in=Audience.values), name="knowledge_base_audience_valid"),
        ]

    def __str__(self) -> str:
        return self.title or self.name


class DocumentStatus(models.TextChoices):
    PENDING = "pending", "Pending"  # registered, not yet chunked
    PROCESSING = "processing", "Processing"
    READY = "ready", "Ready"  # chunks and embeddings stored, searchable
    FAILED = "failed", "Failed"
    SUPERSEDED = "superseded", "Superseded"  # a newer version of the same source replaced it


class Document(models.Model):
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="documents")
    source = models.CharField(max_length=500, help_text="File path or URL it was ingested from.")
    title = models.CharField(max_length=300)
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the content, for deduplication.")
    version = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.PENDING)
    error = models.TextField(blank=True)
    # Sentences that gave the assistant instructions (knowledge.injection): left out of the chunks, kept here
    # for the operator to see.
    withheld = models.JSONField(default=list, blank=True, help_text="Instruction-like sentences left out of answers.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["knowledge_base", "source", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["knowledge_base", "source", "version"], name="document_source_version_unique"
            ),
            models.UniqueConstraint(fields=["knowledge_base", "checksum"], name="document_checksum_unique_per_kb"),
            models.CheckConstraint(condition=Q(status__in=DocumentStatus.values), name="document_status_valid"),
            models.CheckConstraint(condition=Q(language__in=Language.values), name="document_language_valid"),
            models.CheckConstraint(condition=Q(version__gte=1), name="document_version_gte_1"),
        ]

    def __str__(self) -> str:
        return f"{self.title} (v{self.version})"


class Chunk(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    position = models.PositiveIntegerField()
    heading = models.CharField(max_length=300, blank=True)
    text = models.TextField()
    # The text cut into words by rjieba and joined with spaces, so Postgres' 'simple' parser
    # finds Chinese words (it would otherwise see a whole sentence as one token); English words
    # are stemmed (knowledge.chunking.search_text).
    search_text = models.TextField()
    search_vector = models.GeneratedField(
        expression=SearchVector("search_text", config="simple"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True)
    # English passages only: the English companion model's vector (knowledge.embeddings).
    english_embedding = VectorField(dimensions=384, null=True, blank=True)

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(fields=["document", "position"], name="chunk_position_unique_per_document"),
        ]
        indexes = [
            GinIndex(fields=["search_vector"], name="chunk_search_vector_gin"),
            HnswIndex(
                name="chunk_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            HnswIndex(
                name="chunk_english_embedding_hnsw",
                fields=["english_embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document.title} #{self.position}"


class IngestJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"  # every file ingested (or unchanged)
    PARTIAL = "partial", "Partly failed"  # some files were refused; the rest are in
    FAILED = "failed", "Failed"  # nothing could be ingested
    CANCELLED = "cancelled", "Cancelled"  # stopped by staff or the API; files done before are kept


class IngestJob(models.Model):
    """Files uploaded in the admin or through the API, ingested by a worker; progress is polled."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="ingest_jobs")
    language = models.CharField(max_length=8, default="auto")
    status = models.CharField(max_length=16, choices=IngestJobStatus.choices, default=IngestJobStatus.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0–1: files done plus the share of the current file.")
    current_file = models.CharField(max_length=300, blank=True)
    requested_by = models.CharField(max_length=150, blank=True, help_text="Staff user or API key name.")
    error = models.TextField(blank=True, help_text="Why the whole job failed (per-file errors are on the files).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=IngestJobStatus.values), name="ingest_job_status_valid"),
            models.CheckConstraint(condition=Q(progress__gte=0, progress__lte=1), name="ingest_job_progress_0_1"),
            models.CheckConstraint(condition=Q(language__in=[*Language.values, "auto"]), name="ingest_job_lang_valid"),
        ]

    def __str__(self) -> str:
        return f"Ingest into {self.knowledge_base} ({self.get_status_display()})"


class IngestFile(models.Model):
    """One uploaded file of a job. Its bytes live here until ingested, so any worker can read them."""

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=300)
    size = models.PositiveIntegerField()
    content = models.BinaryField(editable=False)
    outcome = models.CharField(max_length=16, blank=True, help_text="added, changed, unchanged, failed or skipped")
    chunks = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["job", "pk"]

    def __str__(self) -> str:
        return self.name


class MissedQuestion(models.Model):
    """A customer question the knowledge base could not answer: the raw material of knowledge gaps."""

    question = models.TextField()
    language = models.CharField(max_length=8, choices=Language.choices)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS)
    # Where it was asked (e.g. "subtask:812"); unique, so a retried subtask records it once.
    reference = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    answered_by = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="answered_questions"
    )
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "knowledge gaps"  # the admin shows them grouped by meaning
        constraints = [
            models.CheckConstraint(condition=Q(language__in=Language.values), name="missed_question_language_valid"),
        ]

    def __str__(self) -> str:
        return self.question[:80]
