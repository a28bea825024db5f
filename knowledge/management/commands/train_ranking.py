"""Fit the learned check of whether the knowledge base answers (knowledge.ranking) on knowledge/answer_sets/, and
write knowledge/ranking_model.json and knowledge/common_words.json."""

import json
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand

from knowledge.ranking import (
    COMMON_WORDS,
    FITTED,
    THRESHOLD,
    Question,
    common_words_count,
    fit,
    sets_key,
    training_rows,
)
from knowledge.ranking_training import ranking_candidates
from knowledge.selectors import ScoredChunk

THRESHOLDS = np.round(np.arange(0.1, 0.75, 0.05), 2)


class Command(BaseCommand):
    help = (
        "Fit the learned check of whether the knowledge base answers a question on the help centres and questions "
        "of knowledge/answer_sets/ (ingested into throw-away knowledge bases in one transaction that is rolled "
        "back: the chat never sees them), and write knowledge/ranking_model.json and knowledge/common_words.json, "
        "which are committed. Prints, per threshold, the share of answerable questions kept and of unanswerable "
        "ones missed, with each store held out in turn."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        common = json.dumps(common_words_count(), ensure_ascii=False, indent=0) + "\n"
        if not COMMON_WORDS.exists() or COMMON_WORDS.read_text(encoding="utf-8") != common:
            COMMON_WORDS.write_text(common, encoding="utf-8")
            self.stdout.write(f"wrote {COMMON_WORDS.name}: commit it")
        found = [(question, candidates) for question, candidates in self._candidates() if candidates]
        rows, answerable = training_rows(found)
        stores = np.array([question.store for question, _ in found])
        languages = np.array([question.lang for question, _ in found])
        held_out = np.zeros(len(rows))
        for store in sorted(set(stores)):
            mine = stores == store
            model = fit(rows[~mine], answerable[~mine])
            for index in np.flatnonzero(mine):
                held_out[index] = model.answerable(found[index][0].text, found[index][1])
        self.stdout.write(f"{len(found)} questions ({int(answerable.sum())} answerable), each store held out in turn:")
        for value in THRESHOLDS:
            cells = [
                f"{lang} answerable kept {np.mean(held_out[(languages == lang) & answerable] >= value):.1%}, "
                f"unanswerable missed {np.mean(held_out[(languages == lang) & ~answerable] < value):.1%}"
                for lang in sorted(set(languages))
            ]
            mark = " <- THRESHOLD" if abs(value - THRESHOLD) < 1e-9 else ""
            self.stdout.write(f"  {value:.2f}: " + "  ".join(cells) + mark)
        model = fit(rows, answerable)
        model.save(FITTED)
        self.stdout.write(f"wrote {FITTED.name} (key {model.key}, threshold {model.threshold}): commit it")

    @staticmethod
    def _candidates() -> list[tuple[Question, list[ScoredChunk]]]:
        """Each question's candidates, kept under VAR_DIR by the answer sets' hash (ingesting them takes minutes)."""
        path = Path(settings.VAR_DIR) / f"ranking_candidates-{sets_key()}.json"
        if not path.exists():
            found = ranking_candidates()
            path.write_text(
                json.dumps([[q.__dict__, [c.__dict__ for c in candidates]] for q, candidates in found]),
                encoding="utf-8",
            )
        saved = json.loads(path.read_text(encoding="utf-8"))
        return [
            (Question(**{**q, "facts": tuple(q["facts"])}), [ScoredChunk(**c) for c in candidates])
            for q, candidates in saved
        ]
