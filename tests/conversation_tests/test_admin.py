"""Conversation tests in the admin: a test drafted from a conversation, the console or an answered question, a bad
test refused with the reason, Run all in the real worker with progress and transcripts, the nightly run, the
failure on the admin's home page and the dashboard, and the tests.failed webhook."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from conversation_tests.models import ConversationTest, ConversationTestRun, RunStatus, RunTrigger
from conversation_tests.runner import spec_run
from conversation_tests.services import stored_test_read
from conversation_tests.tasks import conversation_tests_run_task, nightly_conversation_tests_task
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from knowledge.models import SAMPLE_KB
from knowledge.services import gap_answer, missed_question_record
from tests.agents.engine import run_turn
from webhooks.models import WebhookDelivery, WebhookSubscription

ADD = "admin:conversation_tests_conversationtest_add"
PASSING = "turns:\n  - say: 转人工\n    expect: {escalated: {reason: requested}}\n"
FAILING = "turns:\n  - say: I want to talk to a real person\n    expect: {escalated: false}\n"


@pytest.fixture
def owner(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("owner", "owner@example.com", "pw"))
    return client


def _textarea(html: str) -> str:
    start = html.index('name="spec"')
    return html[html.index(">", start) + 1 : html.index("</textarea>", start)].removeprefix("\n")


def _unescape(text: str) -> str:
    return text.replace("&quot;", '"').replace("&#x27;", "'").replace("&gt;", ">").replace("&lt;", "<")


@pytest.mark.usefixtures("demo")
def test_save_as_test_drafts_the_conversation_and_the_saved_test_passes(owner: Client) -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="visitor_1", locale="zh"), language="zh")
    run_turn(chat, "退货政策是什么？")
    run_turn(chat, "转人工")

    page = owner.get(reverse("admin:conversations_conversation_change", args=[chat.pk])).content.decode()
    console = owner.get(reverse("console-chat", args=[chat.pk])).content.decode()
    draft = f"{reverse(ADD)}?from_conversation={chat.pk}"
    assert f'href="{draft}" data-testid="save-as-test"' in page.replace("&amp;", "&")
    assert f'href="{draft}" data-testid="console-save-as-test"' in console.replace("&amp;", "&")

    spec = _unescape(_textarea(owner.get(draft).content.decode()))
    assert "- say: 退货政策是什么？\n" in spec and "intent: policy_inquiry" in spec
    assert "cites:\n    - 退换货政策\n" in spec and "contains:\n    - 商品签收后 7 天内支持无理由退货" in spec
    assert "- say: 转人工\n  expect:\n    intent: human_request" in spec and "reason: requested" in spec

    saved = owner.post(
        reverse(ADD),
        {"suite": "Saved conversations", "name": "退货政策", "spec": spec, "source": f"conversation #{chat.pk}"},
    )
    assert saved.status_code == 302
    test = ConversationTest.objects.get(name="退货政策")
    assert test.source == f"conversation #{chat.pk}"
    outcome = spec_run(stored_test_read(test.spec, suite=test.suite, name=test.name))
    assert outcome.passed, [str(f) for f in outcome.failures]


@pytest.mark.usefixtures("demo")
def test_an_answered_knowledge_gap_offers_a_test_that_passes(owner: Client) -> None:
    question = missed_question_record(question="Do you gift wrap orders?", language="en", reference="T-gift")
    assert question is not None
    gap_answer(
        question="Do you gift wrap orders?",
        answer="Yes, gift wrapping is free: tick the box at checkout.",
        kb_name=SAMPLE_KB,
        language="en",
        missed_ids=[question.pk],
    )

    page = owner.get(reverse("admin:knowledge_missedquestion_changelist")).content.decode().replace("&amp;", "&")
    link = f"{reverse(ADD)}?from_question={question.pk}"
    assert f'href="{link}" data-testid="add-a-test"' in page

    spec = _unescape(_textarea(owner.get(link).content.decode()))
    assert (
        spec
        == "language: en\nshopper: anonymous\nturns:\n- say: Do you gift wrap orders?\n  expect:\n    cites:\n    - Do you gift wrap orders?\n    escalated: false\n"
    )
    outcome = spec_run(stored_test_read(spec, suite="Knowledge gaps", name="gift wrap"))
    assert outcome.passed, [str(f) for f in outcome.failures]


@pytest.mark.django_db
def test_a_test_that_does_not_read_is_refused_with_the_reason_and_nothing_is_saved(owner: Client) -> None:
    response = owner.post(reverse(ADD), {"suite": "mine", "name": "broken", "spec": "turns:\n  - sayy: hi\n"})

    assert response.status_code == 200
    assert "test 'broken', turn 1: a turn needs `say`: what the shopper writes" in _unescape(response.content.decode())
    assert not ConversationTest.objects.exists()
    nothing = owner.get(f"{reverse(ADD)}?from_conversation=999999", follow=True).content.decode()
    assert "There is nothing to draft a test from there." in nothing
    assert owner.get(reverse("admin:conversation_tests_run")).status_code == 302  # a run is started by POST only
    gone = owner.post(reverse("admin:conversation_tests_run"), {"test": "999999"}, follow=True).content.decode()
    assert "That test no longer exists." in gone and not ConversationTestRun.objects.exists()


@pytest.mark.django_db
def test_a_staff_member_without_the_permission_cannot_start_a_run(client: Client) -> None:
    clerk = User.objects.create_user("clerk", password="pw", is_staff=True)
    client.force_login(clerk)

    assert client.post(reverse("admin:conversation_tests_run")).status_code == 403
    assert not ConversationTestRun.objects.exists()


def _run_done(run_id: int, timeout: float = 90) -> ConversationTestRun:
    deadline = time.monotonic() + timeout
    while True:
        run = ConversationTestRun.objects.get(pk=run_id)
        if run.status in (RunStatus.PASSED, RunStatus.FAILED) or time.monotonic() > deadline:
            return run
        time.sleep(0.2)


@pytest.mark.django_db(transaction=True)
def test_run_all_runs_in_the_worker_and_shows_what_failed_everywhere_staff_look(
    owner: Client, celery_worker: Any, exemplars: None
) -> None:
    WebhookSubscription.objects.create(url="http://127.0.0.1:9/hook", events=["tests.failed"], secret="whsec_t")
    ConversationTest.objects.create(suite="people", name="转人工", spec=PASSING)
    ConversationTest.objects.create(suite="people", name="answers itself", spec=FAILING)

    started = owner.post(reverse("admin:conversation_tests_run"))
    run = ConversationTestRun.objects.get()
    assert started["Location"] == reverse("admin:conversation_tests_conversationtestrun_change", args=[run.pk])
    assert (run.trigger, run.total, run.started_by) == (RunTrigger.ADMIN, 2, "owner")
    run = _run_done(run.pk)

    assert (run.status, run.passed, run.failed) == (RunStatus.FAILED, 1, 1)
    page = owner.get(started["Location"]).content.decode()
    assert "2 of 2 tests run" in page and "1 passed, 1 failed" in page
    assert 'data-failed="true"' in page and 'data-testid="test-coverage"' in page
    assert "Turn 1: the assistant should have answered, but the chat went to a person (requested)" in page
    chinese = owner.get(started["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第 1 轮：助手应当自己回答，但对话转给了人工（requested）" in chinese
    listing = owner.get(reverse("admin:conversation_tests_conversationtest_changelist")).content.decode()
    assert listing.count('data-testid="test-passed"') == 1 and listing.count('data-testid="test-failed"') == 1
    for where in (reverse("admin:index"), reverse("analytics")):
        assert "Conversation tests: 1 of 2 failed" in owner.get(where).content.decode()
    [delivery] = WebhookDelivery.objects.filter(event_type="tests.failed")
    event = json.loads(delivery.body)["data"]
    assert event["run_id"] == run.pk and (event["total"], event["failed"]) == (2, 1)
    assert event["failing"] == [
        {
            "suite": "people",
            "name": "answers itself",
            "why": ["Turn 1: the assistant should have answered, but the chat went to a person (requested)"],
        }
    ]
    assert Conversation.objects.count() == 0  # the tests' chats were rolled back in the worker too


@pytest.mark.django_db
@pytest.mark.usefixtures("exemplars", "parked_queue")
def test_the_nightly_run_keeps_its_results_and_a_pass_clears_the_home_page(owner: Client) -> None:
    test = ConversationTest.objects.create(suite="people", name="hand over", spec=FAILING)

    nightly_conversation_tests_task()
    nightly = ConversationTestRun.objects.get()
    assert (nightly.trigger, nightly.status, nightly.failed) == (RunTrigger.NIGHTLY, RunStatus.FAILED, 1)
    assert "Conversation tests: 1 of 1 failed" in owner.get(reverse("admin:index")).content.decode()

    test.spec = PASSING
    test.save()
    nightly_conversation_tests_task()
    assert ConversationTestRun.objects.filter(trigger=RunTrigger.NIGHTLY).count() == 2
    assert "Conversation tests:" not in owner.get(reverse("admin:index")).content.decode()
    page = owner.get(reverse("admin:conversation_tests_conversationtest_change", args=[test.pk])).content.decode()
    assert 'data-testid="test-result" data-passed="true"' in page and 'data-testid="test-run-one"' in page


@pytest.mark.django_db
def test_a_run_left_running_by_a_stopped_worker_is_marked_failed_not_left_running() -> None:
    ConversationTest.objects.create(suite="people", name="hand over", spec=PASSING)
    left = ConversationTestRun.objects.create(trigger=RunTrigger.ADMIN, status=RunStatus.RUNNING, total=1)

    conversation_tests_run_task(left.pk)  # the task delivered again after its worker died

    left.refresh_from_db()
    assert left.status == RunStatus.FAILED and "stopped before the end" in left.error
    assert not left.results.exists() and left.finished_at is not None
