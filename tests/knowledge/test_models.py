import pytest
from django.db import DataError, connection, transaction

from knowledge.models import Chunk, Document, IngestJob, KnowledgeBase, MissedQuestion
from tests.constraints import assert_rejected
from tests.factories import DocumentFactory, KnowledgeBaseFactory

pytestmark = pytest.mark.django_db


def test_document_checksum_is_unique_per_knowledge_base() -> None:
    document = DocumentFactory.create(checksum="a" * 64)
    DocumentFactory.create(checksum="a" * 64)  # another knowledge base may hold the same content

    assert_rejected(
        lambda: DocumentFactory.create(knowledge_base=document.knowledge_base, checksum="a" * 64),
        "document_checksum_unique_per_kb",
    )


def test_document_rejects_unknown_status_language_and_version_zero() -> None:
    kb = KnowledgeBaseFactory.create()

    assert_rejected(lambda: DocumentFactory.create(knowledge_base=kb, status="lost"), "document_status_valid")
    assert_rejected(lambda: DocumentFactory.create(knowledge_base=kb, language="fr"), "document_language_valid")
    assert_rejected(lambda: DocumentFactory.create(knowledge_base=kb, version=0), "document_version_gte_1")
    Document.objects.create(knowledge_base=kb, source="a.md", title="A", checksum="1", version=1)
    assert_rejected(
        lambda: Document.objects.create(knowledge_base=kb, source="a.md", title="A", checksum="2", version=1),
        "document_source_version_unique",
    )


def test_knowledge_base_rejects_an_unknown_audience() -> None:
    assert_rejected(
        lambda: KnowledgeBase.objects.create(name="staff", audience="staff"), "knowledge_base_audience_valid"
    )


def test_chunk_search_vector_is_generated_from_segmented_text() -> None:
    document = DocumentFactory.create()
    chunk = Chunk.objects.create(document=document, position=0, text="退货政策", search_text="退货 政策")

    found = Chunk.objects.filter(search_vector="退货").values_list("pk", flat=True)

    assert list(found) == [chunk.pk]


def test_chunk_position_is_unique_per_document() -> None:
    document = DocumentFactory.create()
    Chunk.objects.create(document=document, position=0, text="a", search_text="a")

    assert_rejected(
        lambda: Chunk.objects.create(document=document, position=0, text="b", search_text="b"),
        "chunk_position_unique_per_document",
    )


def test_chunk_indexes_are_gin_and_hnsw_cosine() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'knowledge_chunk'")
        indexes = dict(cursor.fetchall())

    assert "USING gin (search_vector)" in indexes["chunk_search_vector_gin"]
    assert "USING hnsw (embedding vector_cosine_ops)" in indexes["chunk_embedding_hnsw"]


def test_chunk_embedding_has_384_dimensions() -> None:
    document = DocumentFactory.create()

    with pytest.raises(DataError, match="expected 384 dimensions"), transaction.atomic():
        Chunk.objects.create(document=document, position=0, text="x", search_text="x", embedding=[0.1] * 3)
    assert not Chunk.objects.exists()


def test_ingest_job_rejects_unknown_status_language_and_progress_outside_0_1() -> None:
    kb = KnowledgeBaseFactory.create()

    assert_rejected(lambda: IngestJob.objects.create(knowledge_base=kb, status="lost"), "ingest_job_status_valid")
    assert_rejected(lambda: IngestJob.objects.create(knowledge_base=kb, language="fr"), "ingest_job_lang_valid")
    assert_rejected(lambda: IngestJob.objects.create(knowledge_base=kb, progress=1.5), "ingest_job_progress_0_1")
    assert_rejected(lambda: IngestJob.objects.create(knowledge_base=kb, progress=-0.1), "ingest_job_progress_0_1")


def test_missed_question_rejects_an_unknown_language_and_a_second_row_for_one_reference() -> None:
    fields = {"question": "x", "embedding": [0.1] * 384, "reference": "subtask:1"}
    assert_rejected(lambda: MissedQuestion.objects.create(language="fr", **fields), "missed_question_language_valid")
    MissedQuestion.objects.create(language="en", **fields)
    assert_rejected(lambda: MissedQuestion.objects.create(language="en", **fields), "reference")
