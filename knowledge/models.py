from __future__ import annotations

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


class KnowledgeBase(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

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
    # finds Chinese words (it would otherwise see a whole sentence as one token).
    search_text = models.TextField()
    search_vector = models.GeneratedField(
        expression=SearchVector("search_text", config="simple"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True)

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
        ]

    def __str__(self) -> str:
        return f"{self.document.title} #{self.position}"
