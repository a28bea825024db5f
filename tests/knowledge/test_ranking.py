"""The learned abstention check's material (knowledge.ranking): the hybrid search's signals per candidate, and the
answer sets it learns from, zh and en."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from agents.demo import demo_seed
from knowledge.ranking import SIGNALS, answer_sets, questions
from knowledge.selectors import chunk_search_hybrid


def _normalised(text: str) -> str:
    return re.sub(r"\W+", "", text.lower())


def test_every_answer_set_question_names_a_fact_its_article_states_and_none_is_from_the_benchmark() -> None:
    benchmark = {
        _normalised(q["question"])
        for path in (Path(settings.BASE_DIR) / "bench").rglob("questions.json")
        for q in json.loads(path.read_text())
        if isinstance(q, dict) and "question" in q
    }
    stores = answer_sets()
    asked = [(store, q) for store in stores for q in questions(store)]

    assert len(stores) >= 6 and {q.lang for _, q in asked} == {"en", "zh"}
    assert sum(q.document is None for _, q in asked) >= 100
    for store, question in asked:
        if question.document is not None:
            article = (store / "docs" / question.document).read_text()
            assert question.facts and question.facts[0] in article, question.id
    assert not [q.text for _, q in asked if _normalised(q.text) in benchmark]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "language", "answered"),
    [
        ("What is your return policy?", "en", True),
        ("退货政策是什么？", "zh", True),
        ("Do you offer gift wrapping?", "en", False),
        ("你们提供礼品包装吗？", "zh", False),
    ],
)
def test_the_search_says_how_much_of_the_question_the_best_article_holds(
    question: str, language: str, answered: bool
) -> None:
    demo_seed()

    results, _ = chunk_search_hybrid(query=question, k=5, lang=language)
    signals = results[0].signals

    assert set(signals) == set(SIGNALS)
    assert (signals["article_lacks"] == 0.0) is answered
    assert (signals["article_words"] >= 0.99) is answered
