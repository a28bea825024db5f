"""An upload job's limits (total size, PDF pages, passages per file, time) and cancelling it, run in
the test process step by step as the worker would."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from knowledge.models import Document, IngestJob
from knowledge.readers import IngestError
from knowledge.services import ingest_job_cancel, ingest_job_create, ingest_job_run
from tests.knowledge.documents import MB, docx_bomb, pdf_drawing
from tickets.staff import support_group_ensure

pytestmark = pytest.mark.django_db

SHORT_EN = b"# Warranty\n\n## Period\nPhones have a one-year warranty.\n"
SHORT_ZH = "# 保修\n\n## 保修期\n手机整机保修一年。\n".encode()


@pytest.fixture(autouse=True)
def no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The job runs here, so the session's worker must not take it first."""
    from knowledge import services

    monkeypatch.setattr(services.current_app, "send_task", lambda *args, **kwargs: None)


def job_of(*files: tuple[str, bytes]) -> IngestJob:
    return ingest_job_create(kb_name="limits", files=[SimpleUploadedFile(name, raw) for name, raw in files])


def sections(count: int) -> bytes:
    return "\n".join(
        f"# Part {i}\n\nPart {i} of the guide says something about topic {i}.\n" for i in range(count)
    ).encode()


def test_an_upload_over_the_job_size_limit_is_refused_before_anything_is_stored(settings: Any) -> None:
    settings.KNOWLEDGE_MAX_JOB_BYTES = 100

    with pytest.raises(IngestError, match="KNOWLEDGE_MAX_JOB_BYTES"):
        job_of(("a.md", SHORT_EN), ("b.md", SHORT_ZH))
    assert not IngestJob.objects.exists()


def test_a_file_with_too_many_passages_fails_alone(settings: Any) -> None:
    settings.KNOWLEDGE_MAX_CHUNKS_PER_FILE = 3
    job = job_of(("huge.md", sections(10)), ("small.md", SHORT_ZH))

    status = ingest_job_run(str(job.pk))

    huge, small = job.files.order_by("pk")
    assert status == "partial"
    assert huge.outcome == "failed" and "10 passages" in huge.error and "KNOWLEDGE_MAX_CHUNKS_PER_FILE" in huge.error
    assert small.outcome == "added"


def test_a_pdf_with_too_many_pages_is_refused_before_its_text_is_read(settings: Any) -> None:
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer)
    for page in range(3):
        pdf.drawString(72, 720, f"Warranty page {page}: phones have a one-year warranty.")
        pdf.showPage()
    pdf.save()
    settings.KNOWLEDGE_MAX_PDF_PAGES = 2
    job = job_of(("manual.pdf", buffer.getvalue()))

    assert ingest_job_run(str(job.pk)) == "failed"
    assert "3 pages; at most 2" in job.files.get().error


def test_bombs_in_an_upload_are_refused_alone_with_their_reason_and_the_rest_is_ingested() -> None:
    # given: the security re-run's two files, beside an ordinary one
    job = job_of(
        ("bomb.docx", docx_bomb(unpacked_mb=300)),
        ("bomb.pdf", pdf_drawing(pages=450, drawn_bytes=8 * MB)),
        ("warranty.md", SHORT_EN),
    )
    started = time.monotonic()

    status = ingest_job_run(str(job.pk))

    seconds = time.monotonic() - started
    docx_file, pdf_file, markdown = job.files.order_by("pk")
    assert status == "partial"
    assert docx_file.outcome == "failed" and docx_file.error.startswith("bomb.docx: too large when unpacked")
    assert pdf_file.outcome == "failed" and pdf_file.error.startswith("bomb.pdf: too large when unpacked")
    assert markdown.outcome == "added"
    assert seconds < 10  # read as they come, each held a worker for minutes


def test_a_file_past_the_readers_processor_time_is_stopped_and_the_job_goes_on(settings: Any) -> None:
    # given: a PDF that passes every check but takes pypdf some 10 s to parse, and a second of reading
    settings.KNOWLEDGE_PARSE_MAX_CPU_S = 1
    job = job_of(("slow.pdf", pdf_drawing(pages=5, drawn_bytes=900_000)), ("warranty.md", SHORT_EN))

    status = ingest_job_run(str(job.pk))

    slow, markdown = job.files.order_by("pk")
    assert status == "partial"
    assert (slow.outcome, slow.error) == (
        "failed",
        "slow.pdf: took too long to read: stopped after 1 s (KNOWLEDGE_PARSE_MAX_CPU_S)",
    )
    assert markdown.outcome == "added" and Document.objects.get().source == "warranty.md"


def test_a_job_out_of_time_stops_between_batches_and_says_so(settings: Any) -> None:
    settings.KNOWLEDGE_JOB_TIME_LIMIT_S = 0  # out of time at its first embedding batch
    job = job_of(("first.md", SHORT_EN), ("second.md", sections(5)))

    status = ingest_job_run(str(job.pk))

    job.refresh_from_db()
    assert status == "failed" and "KNOWLEDGE_JOB_TIME_LIMIT_S" in job.error and job.finished_at
    assert [(f.outcome, "stopped after 0 s" in f.error) for f in job.files.order_by("pk")] == [("skipped", True)] * 2
    assert not Document.objects.exists()


def test_a_cancelled_queued_job_ingests_nothing_when_a_worker_picks_it_up() -> None:
    job = job_of(("a.md", SHORT_EN))

    ingest_job_cancel(job.pk)
    status = ingest_job_run(str(job.pk))

    assert status == "cancelled" and not Document.objects.exists()
    assert job.files.get().outcome == "skipped"
    with pytest.raises(IngestError, match="cancelled already"):
        ingest_job_cancel(job.pk)


def test_support_staff_cancel_a_job_in_the_admin(client: Client) -> None:
    user = User.objects.create_user("mei", password="pw-mei-1", is_staff=True)
    user.groups.add(support_group_ensure())
    client.force_login(user)
    job = job_of(("a.md", SHORT_EN))
    page = client.get(reverse("admin:knowledge_ingestjob_change", args=[job.pk]))

    response = client.post(reverse("admin:knowledge_ingestjob_cancel", args=[job.pk]))

    assert 'data-testid="ingest-cancel"' in page.content.decode()
    assert response.status_code == 302
    assert IngestJob.objects.get(pk=job.pk).status == "cancelled"

    other = job_of(("b.md", SHORT_ZH))
    client.post(reverse("admin:knowledge_ingestjob_changelist"), {"action": "cancel", "_selected_action": [other.pk]})
    assert IngestJob.objects.get(pk=other.pk).status == "cancelled"
