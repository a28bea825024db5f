"""Extractive answers: which sentences of the retrieved passages answer the question (pure)."""

from __future__ import annotations

import pytest

from agents.specialists.knowledge import SECTION_TIE, _quoted_sections, _supporting_sentences
from knowledge.chunking import meaning_terms, word_stem
from knowledge.selectors import ScoredChunk


def _chunk(pk: int, heading: str, text: str, similarity: float, document: str = "help/plan.md") -> ScoredChunk:
    return ScoredChunk(
        chunk_id=pk,
        document=document,
        title="Protection plan",
        heading=f"Protection plan › {heading}",
        text=text,
        language="en",
        score=similarity,
        similarity=similarity,
        keyword_rank=None,
    )


PLANS = _chunk(1, "The plans", "Plan A adds a year of cover. Plan B also covers drops.", 0.880)
PRICES = _chunk(2, "Prices", "You pay once; there is no monthly fee. Phones: Plan A ¥229. Tablets: Plan A ¥189.", 0.866)
FAQ = _chunk(3, "Questions", "**Can I give my points to someone?** No, points stay on your own account.", 0.875)


@pytest.mark.parametrize(
    ("word", "other"), [("selling", "sell"), ("monthly", "month"), ("policies", "policy"), ("discounted", "discounts")]
)
def test_inflections_of_a_word_share_its_stem(word: str, other: str) -> None:
    assert word_stem(word) == word_stem(other)


def test_meaning_terms_pair_chinese_characters_so_differently_cut_words_meet() -> None:
    assert "到账" in meaning_terms("积分多久才到账") & meaning_terms("购物积分在确认收货 7 天后到账")


def test_a_close_passage_adds_the_sentence_that_answers() -> None:
    answer = "Plan A adds a year of cover. Plan B also covers drops. [1]"

    chunk, sentence = _supporting_sentences("do I pay for it every month?", answer, [PLANS, PRICES]) or (None, "")

    assert chunk is PRICES and "no monthly fee" in sentence


def test_a_how_much_question_is_answered_with_an_amount() -> None:
    answer = "Plan A adds a year of cover. Plan B also covers drops. [1]"

    _, sentence = _supporting_sentences("how much does the cover cost?", answer, [PLANS, PRICES]) or (None, "")

    assert "¥" in sentence


def test_a_question_in_a_passage_brings_its_answer() -> None:
    _, sentence = _supporting_sentences(
        "can my points be given to someone else", "Points: earn 1 per ¥1. [1]", [PLANS, FAQ]
    ) or (
        None,
        "",
    )

    assert sentence.endswith("No, points stay on your own account.")


def test_the_answer_an_faq_question_brings_is_not_said_twice() -> None:
    # the question and its answer each share one word with what was asked: both are chosen
    entry = _chunk(5, "How long does a setup take?", "How long does a setup take? Most setups take an hour.", 0.875)

    _, sentence = _supporting_sentences("is a setup quick", "Plan A adds a year of cover. [1]", [PLANS, entry]) or (
        None,
        "",
    )

    assert sentence == "How long does a setup take? Most setups take an hour."


def test_a_distant_passage_or_one_adding_nothing_is_left_out() -> None:
    far = _chunk(4, "Prices", PRICES.text, 0.80)

    assert _supporting_sentences("do I pay every month?", PLANS.text, [PLANS, far]) is None
    assert _supporting_sentences("what is plan B?", PLANS.text, [PLANS, PRICES]) is None


def test_a_category_word_means_the_stores_products_of_that_category() -> None:
    answer = "Plan A adds a year of cover. Plan B also covers drops. [1]"
    prices = _chunk(5, "Prices", "Phones: Plan A ¥229. Pad 3: Plan A ¥189.", 0.866)

    _, sentence = _supporting_sentences("how much for a tablet?", answer, [PLANS, prices], frozenset({"pad"})) or (
        None,
        "",
    )

    assert sentence == "Pad 3: Plan A ¥189."


@pytest.mark.parametrize("question", ["do u do discounts for students??", "学生有优惠吗"])
def test_a_discount_question_is_answered_with_an_amount(question: str) -> None:
    intro = _chunk(4, "Students", "Students save on phones all year round with the Campus programme.", 0.880)
    amounts = _chunk(5, "How much", "Phones: 15% off, at most ¥300 off. 手机立减 300 元。", 0.870)
    answer = "Students save on phones all year round with the Campus programme. [1]"

    _, sentence = _supporting_sentences(question, answer, [intro, amounts]) or (None, "")

    assert "300" in sentence


def test_the_amount_asked_for_comes_from_the_best_passages_article_before_a_closer_one_elsewhere() -> None:
    """The article the best passage belongs to is the evidence; the section is only the embedding's guess."""
    intro = _chunk(6, "Overview", "Plan A and Plan B protect your tablet.", 0.880)
    elsewhere = _chunk(7, "Limits", "Price protection pays back at most ¥500 a month.", 0.876, "help/price.md")
    prices = _chunk(8, "Prices", "Pad 3: Plan A ¥189, Plan B ¥449.", 0.848)
    answer = "Plan A and Plan B protect your tablet. [1]"

    chunk, sentence = _supporting_sentences(
        "how much is the protection for a tablet", answer, [intro, elsewhere, prices], frozenset({"pad"})
    ) or (
        None,
        "",
    )

    assert chunk is prices and "¥189" in sentence


def test_a_farther_section_of_the_same_article_is_read_for_what_the_answer_does_not_say_yet() -> None:
    """ "does a renewed phone come with a charger?": the article's overview was nearest, its box contents
    say "charger"; a closer student offer elsewhere says "charger" too, but the article is the evidence."""
    intro = _chunk(6, "Overview", "Renewed phones are inspected customer returns.", 0.880)
    offer = _chunk(14, "Summer offer", "Students get a free charger in July.", 0.870, "help/students.md")
    in_the_box = _chunk(15, "In the box", "A USB-C cable is included; no charger.", 0.848)

    chunk, sentence = _supporting_sentences(
        "does a renewed phone come with a charger",
        "Renewed phones are inspected customer returns. [1]",
        [intro, offer, in_the_box],
    ) or (None, "")

    assert chunk is in_the_box and "no charger" in sentence


def test_a_farther_section_adding_no_asked_word_or_beyond_the_article_margin_is_left_out() -> None:
    intro = _chunk(6, "Overview", "Plan A and Plan B protect your tablet.", 0.880)
    unrelated = _chunk(9, "Opening hours", "Our stores open at ten.", 0.848)
    far = _chunk(16, "Claims", "Claims for a tablet are made in chat.", 0.830)

    assert (
        _supporting_sentences(
            "can I claim for my tablet", "Plan A and Plan B protect your tablet. [1]", [intro, unrelated, far]
        )
        is None
    )


def test_two_sections_of_one_article_the_scores_cannot_tell_apart_are_both_quoted_best_first() -> None:
    tied = _chunk(10, "Picking it up", "Show the pickup code at the counter.", 0.870 - SECTION_TIE / 2)
    best = _chunk(11, "If you cannot make it", "An order not collected in 7 days is refunded.", 0.870)

    assert _quoted_sections([best, tied]) == [best, tied]


@pytest.mark.parametrize(
    "runner_up",
    [
        _chunk(12, "Opening hours", "Stores open from 10:00 to 21:00.", 0.870 - SECTION_TIE * 2),
        _chunk(13, "Gift cards", "A gift card is collected like an order.", 0.869, "help/gift_cards.md"),
    ],
    ids=["farther section", "other article"],
)
def test_a_farther_section_or_another_articles_close_one_is_no_tie(runner_up: ScoredChunk) -> None:
    best = _chunk(10, "Picking it up", "Show the pickup code at the counter.", 0.870)

    assert _quoted_sections([best, runner_up]) == [best]
