"""The knowledge admin: upload → background ingest with progress, the chunk browser, knowledge gaps → FAQ."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from knowledge.chunking import TextChunk
from knowledge.models import Chunk, Document, IngestJob, KnowledgeBase, MissedQuestion
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import chunks_store, missed_question_record


def staff_client(client: Client, *, actions: tuple[str, ...] = ("view", "change", "add")) -> Client:
    user = User.objects.create_user("kb_staff", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="knowledge", codename__regex=rf"^({'|'.join(actions)})_")
    )
    client.force_login(user)
    return client


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("celery_worker")
def test_an_admin_upload_is_ingested_by_the_worker_with_progress_to_follow(client: Client) -> None:
    kb = KnowledgeBase.objects.create(name="help")
    before, _ = chunk_search_hybrid(query="专票需要税号吗", kb="help")  # this process now holds the empty base
    staff = staff_client(client)
    form = staff.get(f"/admin/knowledge/knowledgebase/{kb.pk}/upload/")
    assert form.status_code == 200 and b'data-testid="kb-upload-form"' in form.content

    response = staff.post(
        f"/admin/knowledge/knowledgebase/{kb.pk}/upload/",
        {
            "files": [
                SimpleUploadedFile("invoices.md", "# 发票\n\n## 专票\n增值税专用发票需要税号。\n".encode()),
                SimpleUploadedFile("faq.csv", b"question,answer\nDo you ship abroad?,Yes with UPS.\n"),
            ],
            "language": "auto",
        },
    )

    job = IngestJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/admin/knowledge/ingestjob/{job.pk}/change/"
    assert job.requested_by == "kb_staff"
    deadline = time.monotonic() + 60
    while (progress := staff.get(f"/admin/knowledge/ingestjob/{job.pk}/progress/").json())["status"] != "succeeded":
        assert progress["status"] in ("queued", "running") and time.monotonic() < deadline
        time.sleep(0.2)
    assert progress["progress"] == 1.0 and [f["outcome"] for f in progress["files"]] == ["added", "added"]
    page = staff.get(f"/admin/knowledge/ingestjob/{job.pk}/change/")
    assert b'data-testid="ingest-progress"' in page.content and b"Succeeded" in page.content
    assert Document.objects.filter(knowledge_base=kb).count() == 2
    after, _ = chunk_search_hybrid(query="专票需要税号吗", kb="help")  # the worker's ingest is seen here at once
    assert before == [] and "增值税专用发票需要税号。" in after[0].text


@pytest.mark.django_db
def test_a_bad_admin_upload_shows_the_reason_and_queues_nothing(client: Client) -> None:
    kb = KnowledgeBase.objects.create(name="help")

    response = staff_client(client).post(
        f"/admin/knowledge/knowledgebase/{kb.pk}/upload/",
        {"files": [SimpleUploadedFile("deck.pptx", b"PK")], "language": "auto"},
    )

    assert response.status_code == 200 and "unsupported type .pptx" in response.content.decode()
    assert not IngestJob.objects.exists()


@pytest.mark.django_db
def test_view_only_staff_cannot_upload(client: Client) -> None:
    kb = KnowledgeBase.objects.create(name="help")

    response = staff_client(client, actions=("view",)).post(
        f"/admin/knowledge/knowledgebase/{kb.pk}/upload/", {"files": [SimpleUploadedFile("a.md", b"# A\nB.")]}
    )

    assert response.status_code == 403 and not IngestJob.objects.exists()


@pytest.mark.django_db
def test_the_chunk_browser_lists_a_documents_chunks_with_their_headings(client: Client) -> None:
    chunks_store(
        kb_name="help",
        source="returns.md",
        title="Returns",
        chunks=[
            TextChunk("Returns › Seven days", "Any reason within 7 days."),
            TextChunk("Returns › Refunds", "5 days."),
        ],
    )
    document = Document.objects.get()

    page = staff_client(client).get(f"/admin/knowledge/document/{document.pk}/change/").content.decode()

    assert "Returns › Seven days" in page and "Any reason within 7 days." in page and "Returns › Refunds" in page


@pytest.mark.django_db
def test_chunks_are_read_only_and_a_documents_ingested_fields_cannot_be_edited(client: Client) -> None:
    chunks_store(kb_name="help", source="returns.md", title="Returns", chunks=[TextChunk("Returns", "7 days.")])
    document, chunk = Document.objects.get(), Chunk.objects.get()
    staff = staff_client(client, actions=("view", "change", "add", "delete"))

    refused = staff.post(f"/admin/knowledge/chunk/{chunk.pk}/change/", {"document": document.pk, "text": "30 days."})
    staff.post(
        f"/admin/knowledge/document/{document.pk}/change/",
        {
            "title": "Returns policy",
            "language": "zh",
            "status": "failed",
            "chunks-TOTAL_FORMS": "0",
            "chunks-INITIAL_FORMS": "1",
            "chunks-MIN_NUM_FORMS": "0",
            "chunks-MAX_NUM_FORMS": "1000",
        },
    )

    chunk.refresh_from_db()
    document.refresh_from_db()
    assert refused.status_code == 403 and chunk.text == "7 days."
    assert staff.get(f"/admin/knowledge/chunk/{chunk.pk}/delete/").status_code == 403
    assert (document.title, document.language, document.status) == ("Returns policy", "en", "ready")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "query"),
    [("Returns are accepted within 7 days.", "how many days to return"), ("七天无理由退货。", "几天可以退货")],
)
def test_a_document_deleted_in_the_admin_is_no_longer_found(
    client: Client, django_capture_on_commit_callbacks: Any, text: str, query: str
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        chunks_store(kb_name="help", source="returns.md", title="Returns", chunks=[TextChunk("Returns", text)])
    found, _ = chunk_search_hybrid(query=query, kb="help")
    document = Document.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        staff_client(client, actions=("view", "delete")).post(
            f"/admin/knowledge/document/{document.pk}/delete/", {"post": "yes"}
        )

    assert [r.text for r in found] == [text]
    assert chunk_search_hybrid(query=query, kb="help") == ([], True)


@pytest.mark.django_db
def test_the_gaps_page_groups_questions_and_one_post_creates_a_searchable_faq_entry(client: Client) -> None:
    KnowledgeBase.objects.create(name="help")
    for index, text in enumerate(["Do you ship to Canada?", "Can you deliver to Canada?", "Do you ship to Canada?"]):
        missed_question_record(question=text, language="en", reference=f"subtask:{index}")
    missed_question_record(question="支持花呗分期吗", language="zh", reference="subtask:9")
    staff = staff_client(client)

    page = staff.get("/admin/knowledge/missedquestion/").content.decode()

    assert page.count('data-testid="knowledge-gap"') == 2
    assert '<span data-testid="gap-count">3</span>× “Do you ship to Canada?”' in page
    assert "<li>Can you deliver to Canada?</li>" in page and "支持花呗分期吗" in page

    canada_ids = ",".join(
        str(pk) for pk in MissedQuestion.objects.filter(question__contains="Canada").values_list("pk", flat=True)
    )
    response = staff.post(
        "/admin/knowledge/missedquestion/",
        {
            "prefix": "gap0",
            "gap0-question": "Do you ship to Canada?",
            "gap0-answer": "Yes, with UPS in 5 to 8 days.",
            "gap0-knowledge_base": KnowledgeBase.objects.get().pk,
            "gap0-language": "en",
            "gap0-missed_ids": canada_ids,
        },
        follow=True,
    )

    assert "FAQ entry “Do you ship to Canada?” added to help." in response.content.decode()
    assert response.content.decode().count('data-testid="knowledge-gap"') == 1
    document: Any = Document.objects.get(knowledge_base__name="help")
    assert document.chunks.get().text == "Do you ship to Canada? Yes, with UPS in 5 to 8 days."
    assert MissedQuestion.objects.filter(answered_by=document).count() == 3


@pytest.mark.django_db
def test_an_empty_answer_creates_nothing_and_says_why(client: Client) -> None:
    KnowledgeBase.objects.create(name="help")
    missed_question_record(question="支持花呗分期吗", language="zh", reference="subtask:1")

    response = staff_client(client).post(
        "/admin/knowledge/missedquestion/",
        {
            "prefix": "gap0",
            "gap0-question": "支持花呗分期吗",
            "gap0-answer": "",
            "gap0-knowledge_base": KnowledgeBase.objects.get().pk,
            "gap0-language": "zh",
            "gap0-missed_ids": str(MissedQuestion.objects.get().pk),
        },
        follow=True,
    )

    assert "The FAQ entry was not created (answer: This field is required.)" in response.content.decode()
    assert not Document.objects.exists() and MissedQuestion.objects.get().answered_at is None
