"""The wing that reads customer text stays readable: at most 1,500 alternatives in its regular expressions (its
shop language is in example files and word lists) and no function in it above cyclomatic complexity 20 as radon
counts it (boolean operators included), counted by bench/rule_budget.py, which prints the wing's figures in full."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
MOST_COMPLEX = 20
MOST_ALTERNATIVES = 1500


def _rule_budget() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_budget", ROOT / "bench" / "rule_budget.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_no_function_of_the_reading_wing_is_above_the_complexity_budget() -> None:
    budget = _rule_budget()
    files = budget.wing_files(ROOT)
    too_complex = [where for complexity, where in budget.complexities(files, ROOT) if complexity > MOST_COMPLEX]

    assert len(files) > 30  # the wing is where it is said to be
    assert too_complex == []


def test_the_reading_wings_regular_expressions_stay_within_their_budget() -> None:
    budget = _rule_budget()
    tally = budget.wing_tally(budget.wing_files(ROOT))

    assert tally.patterns > 100  # the patterns are found where they are
    assert tally.alternatives <= MOST_ALTERNATIVES
