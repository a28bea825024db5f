"""The wing that reads customer text stays readable: no function in it above cyclomatic complexity 20 as radon
counts it (boolean operators included). bench/rule_budget.py prints the wing's figures in full."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
WING = ("agents/intents", "agents/workflows", "agents/reading", "agents/route.py", "agents/requests.py")
MOST_COMPLEX = 20


def _wing_files() -> list[Path]:
    found: list[Path] = []
    for part in WING:
        path = ROOT / part
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def test_no_function_of_the_reading_wing_is_above_the_complexity_budget() -> None:
    too_complex = [
        f"{path.relative_to(ROOT)}:{block.lineno} {block.name} ({block.complexity})"
        for path in _wing_files()
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > MOST_COMPLEX
    ]

    assert len(_wing_files()) > 30  # the wing is where it is said to be
    assert too_complex == []
