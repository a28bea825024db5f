"""Running the store's conversation tests and keeping their results; drafting a test from a conversation or an
answered question.

A run is a `ConversationTestRun` row: queued from the admin (run in the worker), by the nightly beat, or by
`manage.py test_conversations`. Each test's result is written as soon as the test ends, so the admin shows the
run's progress; a run that ends with failures sends the `tests.failed` webhook.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from agents.intents.exemplar_index import exemplars_ensure
from agents.models import TurnRun
from agents.queue import task_send
from agents.states import TurnStatus
from conversation_tests.coverage import coverage_of
from conversation_tests.failures import Failure
from conversation_tests.models import (
    ConversationTest,
    ConversationTestResult,
    ConversationTestRun,
    RunStatus,
    RunTrigger,
)
from conversation_tests.runner import Outcome, TurnSeen, spec_run
from conversation_tests.spec import (
    AwaitExpect,
    Expect,
    Shopper,
    Spec,
    SpecError,
    Turn,
    spec_read,
    stored_text,
    suite_read,
    yaml_load,
)
from conversations.models import Conversation, Sender
from knowledge.models import MissedQuestion
from webhooks.models import WebhookEventType
from webhooks.services import webhook_event_emit

DEMO_SUITE = Path(__file__).resolve().parent / "demo_suite"
RUN_TASK = "conversation_tests.tasks.conversation_tests_run_task"
CODE_TYPED = re.compile(r"^\s*\d{6}\s*$")  # a verification code the shopper typed: {code} when replayed
REPLY_QUOTED = 60  # characters of a reply a drafted test expects to see again


@dataclass(frozen=True)
class LoadedTest:
    case: Spec | None  # None: the stored test no longer reads (`unreadable` says why)
    suite: str
    name: str
    test_id: int | None = None
    unreadable: str = ""


# --- where tests come from --------------------------------------------------------------------------------


def cases_from_paths(paths: Sequence[Path]) -> list[LoadedTest]:
    """Every test of these YAML files, and of the .yaml/.yml files in these folders. SpecError names the file."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        elif path.is_file():
            files.append(path)
        else:
            raise SpecError(f"{path}: no such file or folder")
    loaded = []
    for file in files:
        try:
            cases = suite_read(file.read_text(encoding="utf-8"), default_name=file.stem)
        except (SpecError, UnicodeDecodeError) as exc:
            raise SpecError(f"{file}: {exc}") from None
        loaded += [LoadedTest(case, case.suite, case.name) for case in cases]
    return loaded


def cases_stored(ids: Iterable[int] | None = None) -> list[LoadedTest]:
    """The store's tests (the admin's), each read again now; one that no longer reads is kept, to fail."""
    rows = ConversationTest.objects.order_by("suite", "name")
    if ids is not None:
        rows = rows.filter(pk__in=list(ids))
    loaded = []
    for row in rows:
        try:
            case = stored_test_read(row.spec, suite=row.suite, name=row.name)
        except SpecError as exc:
            loaded.append(LoadedTest(None, row.suite, row.name, row.pk, unreadable=str(exc)))
        else:
            loaded.append(LoadedTest(case, row.suite, row.name, row.pk))
    return loaded


def stored_test_read(spec: str, *, suite: str, name: str) -> Spec:
    """A stored test's YAML, its name being the row's (a `name` in the YAML is ignored)."""
    data = yaml_load(spec)
    if not isinstance(data, dict):
        raise SpecError("a test is a mapping with `turns` (docs/testing.md)")
    return spec_read({**data, "name": name}, suite=suite, where="the test")


def demo_tests_seed(*, reset: bool = False) -> int:
    """Store the demo's suite (conversation_tests/demo_suite), adding the tests that are missing: an owner's edit
    of a demo test is kept, unless `reset` puts the shipped one back. Returns how many were added or reset."""
    written = 0
    for loaded in cases_from_paths([DEMO_SUITE]):
        assert loaded.case is not None
        fields = {"spec": stored_text(loaded.case), "source": "demo"}
        if reset:
            ConversationTest.objects.update_or_create(suite=loaded.suite, name=loaded.name, defaults=fields)
            written += 1
        else:
            written += ConversationTest.objects.get_or_create(suite=loaded.suite, name=loaded.name, defaults=fields)[1]
    return written


# --- running ------------------------------------------------------------------------------------------------


def run_queue(*, started_by: str = "", only: Sequence[int] = ()) -> ConversationTestRun:
    """A run of every stored test (the admin's "Run all"), or of `only` these, for the worker: a test changes the
    process's settings and cache for its length, which a web process serving others must not do."""
    tests = ConversationTest.objects.filter(pk__in=only) if only else ConversationTest.objects.all()
    run = ConversationTestRun.objects.create(
        trigger=RunTrigger.ADMIN, started_by=started_by, only=list(only), total=tests.count()
    )
    transaction.on_commit(lambda: task_send(RUN_TASK, run.pk))
    return run


def run_claim(run_id: int) -> ConversationTestRun | None:
    """The queued run, now running; None when it is not queued. A run found running was left by a worker that
    stopped in it (the task comes back only then: acks late): it is marked failed, to be run again, never left
    running."""
    if ConversationTestRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(status=RunStatus.RUNNING):
        return ConversationTestRun.objects.get(pk=run_id)
    left = ConversationTestRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).first()
    if left is not None:
        run_abandon(left, "The worker running these tests stopped before the end; run them again.")
    return None


def run_nightly() -> ConversationTestRun | None:
    """The nightly run of every stored test (none when the store has no test)."""
    if not ConversationTest.objects.exists():
        return None
    run = ConversationTestRun.objects.create(trigger=RunTrigger.NIGHTLY, status=RunStatus.RUNNING)
    return run_execute(run)


def run_execute(
    run: ConversationTestRun,
    tests: list[LoadedTest] | None = None,
    *,
    repeat: int = 1,
    each: Callable[[LoadedTest, ConversationTestResult], None] | None = None,
) -> ConversationTestRun:
    """Run `tests` (the stored ones by default) `repeat` times each, writing each test's result as it ends; a
    test passes when every repetition passed. `each` hears of every result (the command prints it)."""
    tests = cases_stored(run.only or None) if tests is None else tests
    ConversationTestRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, total=len(tests))
    exemplars_ensure()  # once, for good: inside a test it would be done again and rolled back each time
    seen: list[TurnSeen] = []
    try:
        for test in tests:
            outcomes = [spec_run(test.case) for _ in range(repeat)] if test.case else []
            result = _result_write(run, test, outcomes)
            seen += [turn for outcome in outcomes[:1] for turn in outcome.turns]
            if each is not None:
                each(test, result)
    except Exception as exc:
        run_abandon(run, f"{type(exc).__name__}: {exc}")
        raise
    return _run_finish(run, seen)


def _result_write(run: ConversationTestRun, test: LoadedTest, outcomes: list[Outcome]) -> ConversationTestResult:
    failing = next((outcome for outcome in outcomes if not outcome.passed), None)
    shown = failing or (outcomes[0] if outcomes else None)
    failures = [Failure("unreadable", got=test.unreadable)] if shown is None else shown.failures
    with transaction.atomic():
        result = ConversationTestResult.objects.create(
            run=run,
            test_id=test.test_id,
            suite=test.suite,
            name=test.name,
            passed=not failures,
            attempts=len(outcomes),
            attempts_passed=sum(outcome.passed for outcome in outcomes),
            failures=[failure.as_json() for failure in failures],
            transcript=shown.transcript() if shown is not None else [],
            duration_ms=sum(outcome.duration_ms for outcome in outcomes) / max(len(outcomes), 1),
        )
        counter = "passed" if result.passed else "failed"
        ConversationTestRun.objects.filter(pk=run.pk).update(**{counter: F(counter) + 1})
    return result


def _run_finish(run: ConversationTestRun, seen: list[TurnSeen]) -> ConversationTestRun:
    with transaction.atomic():
        run = ConversationTestRun.objects.select_for_update().get(pk=run.pk)
        run.status = RunStatus.FAILED if run.failed else RunStatus.PASSED
        run.coverage = coverage_of(seen)
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "coverage", "finished_at"])
        if run.failed:
            webhook_event_emit(WebhookEventType.TESTS_FAILED, _failed_event(run))
    return run


def run_abandon(run: ConversationTestRun, error: str) -> None:
    """A run that could not finish (the worker's task raised): said on the run, never left running."""
    ConversationTestRun.objects.filter(pk=run.pk).update(
        status=RunStatus.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def _failed_event(run: ConversationTestRun) -> dict[str, Any]:
    failing = run.results.filter(passed=False).order_by("suite", "name")
    return {
        "run_id": run.pk,
        "trigger": run.trigger,
        "total": run.total,
        "passed": run.passed,
        "failed": run.failed,
        "failing": [
            {"suite": r.suite, "name": r.name, "why": [str(Failure.from_json(f)) for f in r.failures]}
            for r in failing[:50]
        ],
    }


# --- drafting a test from what happened ----------------------------------------------------------------------


def draft_from_conversation(conversation_id: int) -> tuple[str, str]:
    """(name, YAML) of a test that replays the shopper's turns and expects what the assistant did: its reading of
    each message, the start of each reply, the articles cited, what it waited for, a hand-over. The owner edits
    it before saving (a reply's wording is rarely what matters)."""
    conversation = Conversation.objects.select_related("customer").get(pk=conversation_id)
    turns = TurnRun.objects.filter(conversation=conversation, message__sender=Sender.CUSTOMER)
    drafted = [
        Turn(say="{code}" if CODE_TYPED.match(run.message.text) else run.message.text, expect=_expect_of(run))
        for run in turns.select_related("message").order_by("message__created_at", "pk")
    ]
    if not drafted:
        raise SpecError("this conversation has no message from the shopper to replay")
    customer = conversation.customer
    shopper = Shopper("signed", customer.external_id) if customer.verified else Shopper()
    name = f"{drafted[0].say[:60]} (#{conversation.pk})"
    case = Spec(suite="", name=name, turns=tuple(drafted), shopper=shopper, language=conversation.language)
    return name, stored_text(case)


def _expect_of(run: TurnRun) -> Expect:
    reply = run.reply or {}
    text = " ".join(str(reply.get("text") or "").split())
    awaiting = reply.get("awaiting") or {}
    escalated = run.escalation_reason != "" or run.status == TurnStatus.ESCALATED
    return Expect(
        contains=(_reply_start(text),) if text and not escalated else (),
        cites=tuple(dict.fromkeys(str(s.get("title", "")).split(" › ")[0] for s in reply.get("sources") or [])),
        intent=run.intents[0]["name"] if run.intents else "",
        awaits=AwaitExpect(slot=awaiting["slot"]) if awaiting.get("slot") else None,
        escalated=True if escalated else None,
        escalation_reason=run.escalation_reason,
    )


def _reply_start(text: str) -> str:
    """The reply's first sentence, or its first words: what a drafted test expects to hear again."""
    first = re.split(r"(?<=[.!?。！？])\s*", text, maxsplit=1)[0]
    if len(first) <= REPLY_QUOTED:
        return first
    cut = first[:REPLY_QUOTED]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def draft_from_question(question_id: int) -> tuple[str, str]:
    """(name, YAML) of a test that asks a knowledge gap's question again and expects the article that answered it
    to be cited, with no hand-over."""
    question = MissedQuestion.objects.select_related("answered_by").get(pk=question_id)
    if question.answered_by is None:
        raise SpecError("this question has no answer yet: answer it first")
    expect = Expect(cites=(question.answered_by.title,), escalated=False)
    case = Spec(suite="", name="", turns=(Turn(say=question.question, expect=expect),), language=question.language)
    return question.question[:80], stored_text(case)
