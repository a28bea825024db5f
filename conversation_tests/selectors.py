"""Reading the conversation tests' results for the admin, the dashboard and the admin's home page."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from conversation_tests.failures import Failure
from conversation_tests.models import ConversationTest, ConversationTestResult, ConversationTestRun, RunStatus


def latest_result(test_id: int) -> ConversationTestResult | None:
    """The test's latest result (None: never run)."""
    return ConversationTestResult.objects.filter(test_id=test_id).order_by("-created_at", "-pk").first()


def with_latest_result(tests: QuerySet[ConversationTest]) -> QuerySet[ConversationTest]:
    """The tests with their latest result's `latest_passed` (None: never run) and `latest_failures`."""
    latest = ConversationTestResult.objects.filter(test=OuterRef("pk")).order_by("-created_at", "-pk")
    return tests.annotate(
        latest_passed=Subquery(latest.values("passed")[:1]), latest_failures=Subquery(latest.values("failures")[:1])
    )


def latest_full_run() -> ConversationTestRun | None:
    """The last finished run of every stored test (from the admin or the nightly beat): what the home page and the
    dashboard report."""
    return (
        ConversationTestRun.objects.filter(status__in=[RunStatus.PASSED, RunStatus.FAILED], only=[])
        .exclude(trigger="command")
        .order_by("-finished_at", "-pk")
        .first()
    )


def result_shown(result: ConversationTestResult) -> dict[str, Any]:
    """A result as a page shows it: its failures said in the reader's language, each under the turn it belongs to."""
    failures = [Failure.from_json(failure) for failure in result.failures]
    turns = [
        {**turn, "number": number, "failures": [str(f) for f in failures if f.turn == number]}
        for number, turn in enumerate(result.transcript, 1)
    ]
    return {
        "result": result,
        "failures": [str(failure) for failure in failures],
        "before": [str(failure) for failure in failures if failure.turn == 0],
        "turns": turns,
    }
