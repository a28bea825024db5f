"""The learned check of whether the knowledge base answers (knowledge.ranking): the hybrid search's signals per
candidate, the answer sets it learns from, the committed model, and an honest miss for what the help articles
do not say while what they say is answered, zh and en."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings

from agents.demo import demo_seed
from knowledge.ranking import (
    COMMON_WORDS,
    FITTED,
    READ,
    SIGNALS,
    Ranking,
    answer_sets,
    candidate_rows,
    common_words_count,
    fitted,
    questions,
    training_key,
)
from knowledge.selectors import chunk_search_answering, chunk_search_hybrid


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
    assert (signals["article_lacks_common"] == 0.0) is answered
    assert (signals["article_words"] >= 0.99) is answered


def test_the_committed_model_comes_from_the_current_answer_sets() -> None:
    """Stale when an answer set, the common words or a setting changed: run manage.py train_ranking and commit
    knowledge/ranking_model.json and knowledge/common_words.json."""
    assert Ranking.load(FITTED).key == training_key() and fitted() is not None


def test_the_committed_word_shares_come_from_the_current_written_texts() -> None:
    """The rarities the check reads count the answer sets, the injection documents and the demo's articles: when
    one of them changed, run manage.py train_ranking and commit both files."""
    assert json.loads(COMMON_WORDS.read_text(encoding="utf-8")) == common_words_count()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "language", "answered"),
    [
        ("What is your return policy?", "en", True),
        ("How long does shipping take?", "en", True),
        ("退货政策是什么？", "zh", True),
        ("保修多久", "zh", True),
        ("Do you offer gift wrapping?", "en", False),
        ("can I pay with Apple Pay?", "en", False),
        ("你们有线下门店吗？在上海哪里？", "zh", False),
        ("你们提供礼品包装吗？", "zh", False),
    ],
)
def test_what_the_help_articles_do_not_say_is_a_miss_and_what_they_say_is_answered(
    question: str, language: str, answered: bool
) -> None:
    demo_seed()

    results, miss = chunk_search_answering(query=question, k=5, lang=language)

    assert results and miss is not answered


@dataclass(frozen=True)
class _Passage:
    heading: str
    text: str
    signals: dict[str, float] = field(default_factory=dict)


@pytest.mark.parametrize(
    ("question", "answering", "other"),
    [
        (
            "can I spread a £450 phone over 24 months?",
            _Passage("Instalments", "Term: 24 months, Interest: 9.9% APR, Minimum order value: £500."),
            _Passage("Returns", "Delivered items can be returned for any reason within the return window."),
        ),
        (
            "800块的耳机能分6期吗",
            _Passage("分期付款", "期数：6 期，手续费：3.5%，订单最低金额：¥1000。"),
            _Passage("退货", "签收后可以无理由退货，请保持包装完整。"),
        ),
    ],
)
def test_the_check_reads_whether_a_passage_states_figures_in_the_units_the_question_gives(
    question: str, answering: _Passage, other: _Passage
) -> None:
    rows = candidate_rows(question, [answering, other])

    assert rows[:, READ.index("unit_held")].tolist() == [1.0, 0.0]
    assert rows[:, READ.index("unit_missing")].tolist() == [0.0, 1.0]
    assert candidate_rows("do you offer gift wrapping?", [answering])[0, READ.index("unit_missing")] == 0.0
