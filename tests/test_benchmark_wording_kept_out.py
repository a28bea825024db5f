"""No sentence of a benchmark's wording bank is written into the product: a rule or a comment that quotes one
fixes that sentence and tells nothing about the next, and a figure measured on it no longer says how the
product reads wordings it has not seen. Checked on every fragment of at least MIN_WORDS words (MIN_CJK Chinese
characters) of the benchmarks' customer wordings (bench/taubench_wordings.py and every JSON set under bench/),
against the product's Python source, its comments included; and the learned decisions' example files against
their blind sets (bench/decision_sets/)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
APPS = ("agents", "analytics", "conversations", "cs_project", "knowledge", "tickets", "webhooks")
MIN_WORDS, MIN_CJK = 6, 8
# What the bot itself asked in a set's situation (its own prompts, quoted to set the scene): product wording, not
# the customer's.
BOT_WORDS = frozenset({"question"})


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in BOT_WORDS:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _json_strings(path: Path) -> Iterator[str]:
    if path.suffix == ".jsonl":
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield from _strings(json.loads(line))
    else:
        yield from _strings(json.loads(path.read_text(encoding="utf-8")))


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def fragments(texts: Iterator[str]) -> set[str]:
    """The long enough pieces of each text between its placeholders and sentence ends."""
    found = set()
    for text in texts:
        for part in re.split(r"\{[^}]*\}|[.!?。！？;；\n]", text):
            part = _plain(part).strip(" ,，:：-\"'")
            if len(re.findall(r"[a-z']+", part)) >= MIN_WORDS or len(re.findall(r"[\u4e00-\u9fff]", part)) >= MIN_CJK:
                found.add(part)
    return found


def _bank() -> set[str]:
    texts = []
    for path in sorted(ROOT.glob("bench/taubench_wordings*.py")):
        wordings = ast.parse(path.read_text(encoding="utf-8"))
        texts += [n.value for n in ast.walk(wordings) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for path in sorted([*ROOT.glob("bench/**/*.json"), *ROOT.glob("bench/**/*.jsonl")]):
        texts += _json_strings(path)
    return fragments(iter(texts))


def _source(path: Path) -> str:
    """A module's text with its comment marks taken out, so a quote wrapped over comment lines reads whole."""
    return _plain(re.sub(r"(?m)^\s*#\s?", " ", path.read_text(encoding="utf-8")))


def test_no_benchmark_wording_is_quoted_in_product_code_or_its_comments() -> None:
    bank = _bank()
    assert len(bank) > 1000  # the bank was read
    sources = {path: _source(path) for app in APPS for path in sorted((ROOT / app).rglob("*.py"))}
    quoted = [
        f"{path.relative_to(ROOT)}: {fragment}"
        for fragment in sorted(bank)
        for path, text in sources.items()
        if fragment in text
    ]
    assert quoted == []


def test_no_blind_decision_set_sentence_is_among_the_decisions_examples() -> None:
    blind = fragments(t for path in sorted(ROOT.glob("bench/decision_sets/*.json")) for t in _json_strings(path))
    examples = {
        _plain(json.loads(line)["text"])
        for path in sorted((ROOT / "agents" / "reading" / "examples").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    assert sorted(fragment for fragment in blind if any(fragment in example for example in examples)) == []
