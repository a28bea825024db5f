"""Run the store's conversation tests (docs/testing.md): one line per test, then `N passed, M failed` and what
the tests covered; exits 1 when a test failed, so a store can run it in its own CI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from conversation_tests.coverage import KINDS
from conversation_tests.failures import Failure
from conversation_tests.models import ConversationTestResult, ConversationTestRun, RunTrigger
from conversation_tests.services import LoadedTest, cases_from_paths, cases_stored, run_execute
from conversation_tests.spec import SpecError


class Command(BaseCommand):
    help = (
        "Run conversation tests against the live engine, each in a fresh chat whose writes are rolled back. "
        "PATH: YAML files or folders of them; none runs every test stored in the admin (the demo's included)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
        parser.add_argument(
            "--repeat", type=int, default=1, metavar="K", help="Run each test K times and report pass^k."
        )

    def handle(self, *args: Any, paths: list[Path], repeat: int, **options: Any) -> None:
        if repeat < 1:
            raise CommandError("--repeat is 1 or more")
        try:
            tests = cases_from_paths(paths) if paths else cases_stored()
        except SpecError as exc:
            raise CommandError(str(exc)) from None
        if not tests:
            raise CommandError("no conversation test to run: write one (docs/testing.md) or seed the demo's")
        with translation.override(settings.LANGUAGE_CODE):
            run = ConversationTestRun.objects.create(trigger=RunTrigger.COMMAND)
            run = run_execute(run, tests, repeat=repeat, each=self._line)
            self._summary(run, repeat)
        if run.failed:
            raise SystemExit(1)

    def _line(self, test: LoadedTest, result: ConversationTestResult) -> None:
        mark = self.style.SUCCESS("PASS") if result.passed else self.style.ERROR("FAIL")
        self.stdout.write(f"{mark} {test.suite} › {test.name} ({result.duration_ms:.0f} ms)")
        for failure in result.failures:
            self.stdout.write(f"     {Failure.from_json(failure)}")

    def _summary(self, run: ConversationTestRun, repeat: int) -> None:
        self.stdout.write(f"{run.passed} passed, {run.failed} failed")
        if repeat > 1:
            results = run.results.all()
            attempts = sum(r.attempts for r in results)
            passed = sum(r.attempts_passed for r in results)
            self.stdout.write(
                f"pass^{repeat}: {run.passed / max(run.total, 1):.2f} (each attempt: {passed / max(attempts, 1):.2f})"
            )
        for kind in KINDS:
            covered = run.coverage.get(kind, {})
            exercised, untouched = covered.get("exercised", []), covered.get("untouched", [])
            self.stdout.write(f"{kind}: {len(exercised)} of {len(exercised) + len(untouched)} exercised")
            if untouched:
                self.stdout.write(f"     never touched: {', '.join(untouched)}")
