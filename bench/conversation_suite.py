"""How long the demo's conversation tests take, per test, on this machine (the target: under 1 s each, median).

Runs the demo's suite (conversation_tests/demo_suite, 35 tests in zh and en) through `manage.py test_conversations`'
own path (`run_execute`: each test a fresh chat on the live engine in a rolled-back transaction) on a scratch
database with the demo seeded, `--rounds` times after one warm-up round, and prints the median and p95 per test,
per turn, and a whole run's time.

    .venv/bin/python bench/conversation_suite.py --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from harness import django_setup, percentile, scratch_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="measured runs of the whole suite")
    args = parser.parse_args()
    # The demo's verification: a shopper proves an email with the code it is sent (the harness's default is
    # account details, for the τ-bench shoppers).
    django_setup(CHAT_VERIFICATION="code")
    from django.core.management import call_command

    from conversation_tests.models import ConversationTestRun, RunTrigger
    from conversation_tests.services import DEMO_SUITE, cases_from_paths, run_execute

    with scratch_database():
        call_command("seed_demo", verbosity=0)
        call_command("sync_exemplars", verbosity=0)
        tests = cases_from_paths([DEMO_SUITE])
        turns = {test.name: len(test.case.turns) for test in tests if test.case}
        per_test: list[float] = []
        per_turn: list[float] = []
        runs: list[float] = []
        failed = 0
        for round_ in range(args.rounds + 1):
            started = time.perf_counter()
            run = run_execute(ConversationTestRun.objects.create(trigger=RunTrigger.COMMAND), tests)
            elapsed = time.perf_counter() - started
            if round_ == 0:
                continue  # the warm-up: models and the engine's process caches load once
            runs.append(elapsed)
            failed += run.failed
            for result in run.results.all():
                per_test.append(result.duration_ms)
                per_turn.append(result.duration_ms / turns[result.name])
    print(f"demo suite: {len(tests)} tests, {sum(turns.values())} turns; {args.rounds} rounds after a warm-up round")
    print(f"  per test  median {statistics.median(per_test):6.0f} ms   p95 {percentile(per_test, 95):6.0f} ms")
    print(f"  per turn  median {statistics.median(per_turn):6.0f} ms   p95 {percentile(per_turn, 95):6.0f} ms")
    print(f"  whole run median {statistics.median(runs):6.1f} s    failed across the rounds: {failed}")


if __name__ == "__main__":
    main()
