"""The shipped intent exemplars: hand-written example utterances, English and Chinese, for the offline kNN classifier.

Written for this project (an online store for phones, earbuds and tablets: Find X8 / Find X9, Enco X3,
Pad 3); none is taken from a third-party data set. Each intent has a few dozen phrasings per language:
short and long, polite and curt, with and without order numbers or product names, some with typos.
OUT_OF_SCOPE gets a short list of clearly off-topic requests so that they have somewhere to land.

They live in `data/exemplars.jsonl`, one exemplar a line (`{"intent", "language", "text"}`), grouped
by intent and then by language, so that adding or rewording one is a one-line diff.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agents.taxonomy import Intent

EXEMPLARS_FILE = Path(__file__).parent / "data" / "exemplars.jsonl"


@dataclass(frozen=True)
class Exemplar:
    intent: Intent
    language: str  # "en" or "zh"
    text: str


@cache
def exemplars_load() -> tuple[Exemplar, ...]:
    """Every shipped exemplar, in the file's order; an unknown intent name raises ValueError."""
    with EXEMPLARS_FILE.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return tuple(Exemplar(intent=Intent(row["intent"]), language=row["language"], text=row["text"]) for row in rows)
