"""A store owner's conversation test, from a real chat to a caught regression, in a real browser with the real worker.

The owner opens a chat in which the assistant said returns are accepted within 7 days, saves it as a test, narrows
the drafted reply check to the fact that matters ("7 days") and runs it: it passes. Then the returns article is
changed to 14 days, and the same test, run again, fails on that turn, saying it wanted “7 days” and heard 14.
"""

from __future__ import annotations

import re
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db.models import Q
from django.test import override_settings
from playwright.sync_api import Page, expect

from agents.demo import DEMO_KB
from conversation_tests.models import ConversationTest
from conversation_tests.services import stored_test_read
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from knowledge.models import SAMPLE_KB
from knowledge.services import file_ingest
from tests.agents.engine import run_turn
from tests.browser.conftest import SCREENSHOTS
from tests.conftest import ParkedQueue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "How many days do I have to return something?"
TEST_NAME = "Returns are accepted within 7 days"
RUN_TIMEOUT_MS = 90_000  # the worker replays the chat on a 2-core machine shared with chromium and Postgres
OWNER_PERMISSIONS = Q(content_type__app_label="conversations", codename="view_conversation") | Q(
    content_type__app_label="conversation_tests",
    codename__in=[
        "view_conversationtest",
        "add_conversationtest",
        "change_conversationtest",
        "view_conversationtestrun",
        "add_conversationtestrun",
    ],
)


def _shopper_asks_about_returns() -> Conversation:
    """A real chat with the demo's assistant, its turn driven here step by step. The turn's tasks go to a queue no
    worker reads: the session's worker must not race this turn, yet it must get the runs the owner starts later,
    so the queue is parked for this turn only (the parked_queue fixture would park it for the whole test)."""
    parked = ParkedQueue(f"cs-test-parked-{uuid.uuid4().hex[:8]}")
    try:
        with override_settings(CELERY_TASK_DEFAULT_QUEUE=parked.name):
            # An anonymous shopper asking about a policy: nothing to verify, whatever CHAT_VERIFICATION says.
            chat = conversation_start(customer=Customer.objects.create(external_id="visitor_en", locale="en"))
            turn = run_turn(chat, QUESTION)
    finally:
        parked.delete()
    reply = turn.reply or {}
    assert "7 days" in str(reply.get("text")), reply
    assert any(s.get("title", "").startswith("Returns and exchanges") for s in reply.get("sources") or []), reply
    return chat


def _returns_article_changed_to_14_days(tmp_path: Path) -> None:
    changed = tmp_path / "returns_en.md"
    text = (DEMO_KB / "returns_en.md").read_text(encoding="utf-8")
    changed.write_text(text.replace("7-day", "14-day").replace("7 days", "14 days"), encoding="utf-8")
    # The same source: the article is replaced, as an owner's re-ingest of the help centre would do. The knowledge
    # version is not renewed by hand: the ingest's commit must do it, or the worker would answer from its cache.
    file_ingest(kb_name=SAMPLE_KB, path=changed, source="demo_kb/returns_en.md")


def _run_this_test_and_wait(page: Page, status: str) -> None:
    page.get_by_test_id("test-run-one").click()
    expect(page).to_have_url(re.compile(r"/admin/conversation_tests/conversationtestrun/\d+/change/$"))
    run = page.get_by_test_id("test-run")
    # The run page reloads itself every 2 s while the worker runs the test; expect() waits across the reloads,
    # for the run to end either way, so that a wrong outcome fails at once rather than at the timeout.
    expect(run).to_have_attribute("data-status", re.compile(r"^(passed|failed)$"), timeout=RUN_TIMEOUT_MS)
    expect(run).to_have_attribute("data-status", status)


def test_a_saved_conversation_passes_then_fails_when_its_article_changes(
    page: Page,
    page_problems: list[str],
    staff_login: Callable[..., Any],
    celery_worker: subprocess.Popen[bytes],
    exemplars: None,
    tmp_path: Path,
) -> None:
    call_command("seed_demo", verbosity=0)
    chat = _shopper_asks_about_returns()
    owner = staff_login(page, username="owner", actions=("view",))
    owner.user_permissions.add(*Permission.objects.filter(OWNER_PERMISSIONS))

    # Saved as a test from the conversation's page: the draft replays the shopper's message.
    page.goto(f"/admin/conversations/conversation/{chat.pk}/change/")
    page.get_by_test_id("save-as-test").click()
    expect(page).to_have_url(re.compile(rf"/conversationtest/add/\?from_conversation={chat.pk}$"))
    spec_box = page.locator('textarea[name="spec"]')
    drafted = spec_box.input_value()
    assert f"- say: {QUESTION}\n" in drafted and "- Returns and exchanges\n" in drafted, drafted

    # The drafted check quotes the reply's first words; the owner keeps only the fact that matters.
    edited, checks_changed = re.subn(r"(contains:\n\s*- ).*", r"\g<1>7 days", drafted)
    assert checks_changed == 1, drafted
    spec_box.fill(edited)
    page.locator('input[name="name"]').fill(TEST_NAME)
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".messagelist .success")).to_contain_text(TEST_NAME)
    test = ConversationTest.objects.get(name=TEST_NAME)
    assert (test.suite, test.source) == ("Saved conversations", f"conversation #{chat.pk}")
    [turn] = stored_test_read(test.spec, suite=test.suite, name=test.name).turns
    assert (turn.say, turn.expect.contains, turn.expect.cites) == (QUESTION, ("7 days",), ("Returns and exchanges",))
    listed = page.locator("#result_list tbody tr").filter(has_text=TEST_NAME)
    expect(listed).to_contain_text("not run yet")
    listed.get_by_role("link", name=TEST_NAME, exact=True).click()
    expect(page.get_by_test_id("test-never-run")).to_be_visible()

    _run_this_test_and_wait(page, "passed")
    expect(page.get_by_test_id("test-run-counts")).to_have_text("1 passed, 0 failed")
    expect(page.get_by_test_id("test-result")).to_have_attribute("data-passed", "true")
    expect(page.get_by_test_id("test-failure")).to_have_count(0)

    _returns_article_changed_to_14_days(tmp_path)

    page.goto(f"/admin/conversation_tests/conversationtest/{test.pk}/change/")
    expect(page.get_by_test_id("test-result")).to_have_attribute("data-passed", "true")  # the last result
    _run_this_test_and_wait(page, "failed")
    expect(page.get_by_test_id("test-run-counts")).to_have_text("0 passed, 1 failed")
    result = page.get_by_test_id("test-result")
    expect(result).to_have_attribute("data-passed", "false")
    expect(result.get_by_test_id("test-turn")).to_have_count(1)
    failed_turn = result.get_by_test_id("test-turn")
    expect(failed_turn).to_have_attribute("data-failed", "true")
    expect(failed_turn.get_by_test_id("test-reply")).to_contain_text("14 days")
    failure = failed_turn.get_by_test_id("test-failure")
    expect(failure).to_have_count(1)
    expect(failure).to_have_text(re.compile(r"^Turn 1: the reply should mention “7 days”, but it said: “.*14 days"))

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "conversation-test-failed.png"), full_page=True)
    assert page_problems == []
