"""The knowledge admin in a real browser: an upload followed live to the end, and knowledge gaps answered."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import FilePayload, Page, Route, expect

from knowledge.models import Document, IngestJob, IngestJobStatus, KnowledgeBase, MissedQuestion
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import missed_question_record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INVOICES_MD = "# 发票\n\n## 增值税专用发票\n开具增值税专用发票需要提供公司名称和税号。\n\n## 电子发票\n订单完成后七天内可在订单页下载电子发票。\n"
SHIPPING_FAQ_CSV = (
    "question,answer\n"
    "Do you ship abroad?,Yes: UPS delivers to 40 countries in 5 to 8 days.\n"
    "Can I change my delivery address?,Yes: until the order ships; write to us with the order number.\n"
)
CANADA = ["Do you ship to Canada?", "Can you deliver to Canada?", "Is shipping to Canada available?"]
HUABEI = "支持花呗分期付款吗？"


def test_an_upload_is_followed_live_to_succeeded_with_each_files_outcome(
    page: Page, page_problems: list[str], staff_login: Callable[..., Any], ingest_worker: subprocess.Popen[bytes]
) -> None:
    kb = KnowledgeBase.objects.create(name="help")
    staff_login(page)
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/upload/")
    expect(page.get_by_test_id("kb-upload-form")).to_be_visible()
    files: list[FilePayload] = [
        {"name": "invoices.md", "mimeType": "text/markdown", "buffer": INVOICES_MD.encode()},
        {"name": "shipping-faq.csv", "mimeType": "text/csv", "buffer": SHIPPING_FAQ_CSV.encode()},
    ]
    page.set_input_files('input[name="files"]', files)

    # The uploads' worker is held until the job page shows, so the page's own polling has to bring the result.
    os.killpg(ingest_worker.pid, signal.SIGSTOP)
    try:
        page.get_by_role("button", name="Upload and ingest").click()
        expect(page.get_by_test_id("ingest-progress")).to_be_visible()
        job = IngestJob.objects.get()
        assert page.url.endswith(f"/admin/knowledge/ingestjob/{job.pk}/change/")
        expect(page.get_by_test_id("ingest-status")).to_have_text("Queued")
        with page.expect_response(re.compile(r"/progress/$")) as poll:
            pass
        assert poll.value.ok and poll.value.json()["status"] == "queued"
    finally:
        os.killpg(ingest_worker.pid, signal.SIGCONT)

    expect(page.get_by_test_id("ingest-status")).to_have_text("Succeeded", timeout=60_000)
    expect(page.get_by_test_id("ingest-percent")).to_have_text("100%")
    expect(page.locator("td.field-name")).to_have_text(["invoices.md", "shipping-faq.csv"])
    expect(page.locator("td.field-outcome")).to_have_text(["added", "added"])
    assert sorted(Document.objects.filter(knowledge_base=kb).values_list("source", flat=True)) == [
        "invoices.md",
        "shipping-faq.csv",
    ]
    assert page_problems == []


def test_the_progress_page_keeps_polling_after_a_failed_request(
    page: Page, page_problems: list[str], staff_login: Callable[..., Any]
) -> None:
    job = IngestJob.objects.create(knowledge_base=KnowledgeBase.objects.create(name="help"))
    polls: list[int] = []

    def first_poll_fails(route: Route) -> None:
        polls.append(len(polls))
        if len(polls) == 1:
            route.fulfill(status=503, body="restarting")
        else:
            route.continue_()

    staff_login(page)
    page.route(re.compile(r"/progress/$"), first_poll_fails)
    with page.expect_response(lambda response: response.status == 503):
        page.goto(f"/admin/knowledge/ingestjob/{job.pk}/change/")
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJobStatus.RUNNING, progress=0.5, current_file="a.md")

    expect(page.get_by_test_id("ingest-status")).to_have_text("Running")
    expect(page.get_by_test_id("ingest-percent")).to_have_text("50%")
    expect(page.get_by_test_id("ingest-current")).to_have_text("a.md")
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJobStatus.SUCCEEDED, progress=1.0, current_file="")
    expect(page.get_by_test_id("ingest-status")).to_have_text("Succeeded")
    assert [problem.split(":")[0] for problem in page_problems] == ["503"]


def test_a_knowledge_gap_answered_in_the_browser_becomes_a_searchable_faq_entry(
    page: Page, page_problems: list[str], staff_login: Callable[..., Any], tmp_path: Path
) -> None:
    KnowledgeBase.objects.create(name="help")
    for index, question in enumerate(CANADA):
        missed_question_record(question=question, language="en", reference=f"subtask:{index}")
    missed_question_record(question=HUABEI, language="zh", reference="subtask:9")
    staff_login(page)

    page.goto("/admin/knowledge/missedquestion/")

    gaps = page.get_by_test_id("knowledge-gap")
    expect(gaps).to_have_count(2)
    canada, huabei = gaps.nth(0), gaps.nth(1)
    expect(canada.get_by_test_id("gap-count")).to_have_text("3")
    assert sorted(canada.locator('[data-testid="gap-examples"] li').all_inner_texts()) == sorted(CANADA)
    expect(huabei.get_by_test_id("gap-count")).to_have_text("1")
    expect(huabei.locator("h2")).to_contain_text(f"“{HUABEI}”")
    expect(huabei.locator('[data-testid="gap-examples"] li')).to_have_text([HUABEI])
    page.screenshot(path=tmp_path / "knowledge_gaps.png", full_page=True)

    form = canada.get_by_test_id("gap-answer-form")
    offered = form.locator('input[name$="-question"]').input_value()
    assert offered in CANADA
    form.locator("textarea").fill("Yes: UPS delivers to Canada in 5 to 8 working days; duties are included.")
    form.get_by_role("button", name="Create FAQ entry").click()

    expect(page.locator(".messagelist .success")).to_have_text(f"FAQ entry “{offered}” added to help.")
    expect(gaps).to_have_count(1)
    expect(gaps.get_by_test_id("gap-count")).to_have_text("1")
    expect(gaps.locator("h2")).to_contain_text(HUABEI)
    assert MissedQuestion.objects.filter(answered_at__isnull=False).count() == 3
    results, miss = chunk_search_hybrid(query="Do you deliver orders to Canada?", kb="help")
    assert not miss and results[0].title == offered and "duties are included" in results[0].text
    assert page_problems == []
