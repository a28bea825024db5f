from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from conversation_tests.models import ConversationTestResult


@pytest.fixture
def demo(db: None, exemplars: None, parked_queue: object, settings: Any) -> None:
    """The demo store, its help articles and its suite of conversation tests, stored; shoppers prove who they are
    with an emailed code, as in the demo."""
    settings.CHAT_VERIFICATION = "code"
    call_command("seed_demo", verbosity=0)


CommandRun = Callable[..., tuple[int, str]]


@pytest.fixture
def command() -> CommandRun:
    """`manage.py test_conversations` with these arguments: (exit status, what it printed)."""

    def run(*arguments: str | Path) -> tuple[int, str]:
        out = StringIO()
        try:
            call_command("test_conversations", *map(str, arguments), stdout=out)
        except SystemExit as exit_:
            return int(exit_.code or 0), out.getvalue()
        return 0, out.getvalue()

    return run


def failing(run_id: int) -> dict[str, list[str]]:
    """{test name: its failures as said} of a run's failed tests."""
    from conversation_tests.failures import Failure

    results = ConversationTestResult.objects.filter(run_id=run_id, passed=False)
    return {r.name: [str(Failure.from_json(f)) for f in r.failures] for r in results}
