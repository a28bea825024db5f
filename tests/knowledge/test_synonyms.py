"""Words beside the passage: a customer's word finds the shop's word for the same thing (in the same
language only), and a section is read with the rest of its article."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge.chunking import TextChunk, query_words
from knowledge.selectors import _article, _article_coverage, chunk_search_hybrid
from knowledge.services import chunks_store, knowledge_version
from knowledge.synonyms import synonyms, with_synonyms


@pytest.mark.parametrize(
    ("word", "shop_word"),
    [("refurbished", "renewed"), ("voucher", "coupon"), ("colour", "color"), ("官翻", "翻新"), ("质保", "保修")],
)
def test_a_word_brings_the_other_words_of_its_group(word: str, shop_word: str) -> None:
    assert query_words(shop_word)[0] in synonyms(query_words(word)[0])


def test_a_chinese_word_the_search_cut_splits_is_grouped_whole() -> None:
    assert "代金券" in synonyms("优惠券") and "优惠" not in synonyms("代金券")


def test_a_question_is_expanded_in_its_own_script_and_keeps_its_own_words_first() -> None:
    asked = query_words("do you sell refurbished phones")

    expanded = with_synonyms(asked)

    assert expanded[: len(asked)] == asked and "renew" in expanded
    assert all(term.isascii() for term in expanded)


@pytest.mark.parametrize("question", ["are your second hand phones any good", "do you sell pre owned phones"])
def test_a_groups_word_written_as_two_brings_its_group(question: str) -> None:
    assert query_words("renewed")[0] in with_synonyms(query_words(question))


@pytest.mark.parametrize("word", ["used", "pick", "protection", "person", "guarante", "机"])
def test_words_that_mean_other_things_in_a_shop_bring_nothing(word: str) -> None:
    assert synonyms(word) == frozenset()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "question", "heading", "text"),
    [
        ("en", "do you sell refurbished phones?", "Renewed phones", "Renewed phones are inspected returns."),
        ("zh", "有没有官翻的手机", "翻新机", "翻新机是经过检测的退货手机。"),
    ],
)
def test_the_keyword_arm_finds_a_passage_in_the_shops_words(
    language: str, question: str, heading: str, text: str
) -> None:
    # given: the passage never uses the customer's word
    chunks_store(kb_name="svc", source=heading, title=heading, chunks=[TextChunk(heading, text)], language=language)
    chunks_store(
        kb_name="svc",
        source="other",
        title="Other",
        chunks=[TextChunk("Other", "Gift cards never expire. 礼品卡永久有效。")],
        language=language,
    )

    # when
    results, _ = chunk_search_hybrid(query=question, k=2, kb="svc", mode="keyword")

    # then
    assert [r.heading for r in results] == [heading]


@pytest.mark.parametrize(
    ("written", "compound"),
    [("how much to set up my phone", "setup"), ("Back up your photos first", "backup"), ("can I log in", "login")],
)
def test_a_verb_and_its_particle_are_also_their_one_word_noun(written: str, compound: str) -> None:
    assert compound in query_words(written)


def test_only_a_particle_after_a_word_makes_a_compound() -> None:
    # "in the box" is no "inthe", and a stop word before a particle is no verb
    assert not {"inthe", "itup", "toup"} & set(query_words("what is in the box? pick it up to go up"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "heading", "text"),
    [
        ("how much is it to set up a new phone?", "Setup service", "Our setup service costs 149 yuan."),
        ("and the setup?", "Getting started", "We set up your phone for free."),
    ],
)
def test_a_compound_finds_its_open_form_and_the_open_form_its_compound(question: str, heading: str, text: str) -> None:
    chunks_store(kb_name="svc", source=heading, title=heading, chunks=[TextChunk(heading, text)], language="en")
    chunks_store(
        kb_name="svc",
        source="other",
        title="Other",
        chunks=[TextChunk("Other", "Gift cards never expire.")],
        language="en",
    )

    results, _ = chunk_search_hybrid(query=question, k=2, kb="svc", mode="keyword")

    assert [r.heading for r in results] == [heading]


@pytest.mark.parametrize(
    ("heading", "article"),
    [
        ("Returns › 7-day rule", "Returns"),
        ("Returns", "Returns"),
        ("Can I add a gift message?", "Can I add a gift message?"),
        ("退货政策 › 七天无理由", "退货政策"),
    ],
)
def test_a_sections_article_is_its_heading_root_and_an_faq_entry_is_its_own(heading: str, article: str) -> None:
    assert _article(heading) == article


@pytest.mark.django_db
def test_chunks_stored_without_a_heading_lend_each_other_no_words() -> None:
    # given: one document of unrelated entries with no headings, and one help article of two sections
    chunks_store(
        kb_name="svc",
        source="entries",
        title="entries",
        chunks=[TextChunk("", "Gift cards never expire."), TextChunk("", "Return shipping is free.")],
        language="en",
    )
    chunks_store(
        kb_name="svc",
        source="article",
        title="Gift cards",
        chunks=[
            TextChunk("Gift cards › Expiry", "They never expire."),
            TextChunk("Gift cards › Returns", "Return shipping is free."),
        ],
        language="en",
    )
    rows = {r.text: r for r in _rows("gift card return shipping")}
    terms = query_words("gift card return shipping")

    # when
    coverage = _article_coverage(terms, dict.fromkeys(terms, 0.1), list(rows.values()), knowledge_version(), {})

    # then: the bare entry holds half the words, the article's section all of them
    assert coverage[rows["Gift cards never expire."].pk] == pytest.approx(0.5)
    assert coverage[rows["They never expire."].pk] == pytest.approx(1.0)


def _rows(query: str) -> list[Any]:
    from knowledge.selectors import _arm_rows, _document_ids

    return _arm_rows(
        None, None, " | ".join(query_words(query)), _document_ids(knowledge_version(), "svc", None, None), exact=True
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "title", "entry", "question"),
    [
        ("en", "setup service", ("How much is it?", "It costs ¥149 per device."), "setup cost per device"),
        ("zh", "贴膜服务", ("多少钱？", "每张 69 元。"), "贴膜 每张 多少钱"),
    ],
)
def test_an_faq_entry_is_also_about_its_files_title(
    language: str, title: str, entry: tuple[str, str], question: str
) -> None:
    # given: an FAQ file named for its topic, whose entry never says the topic's word
    chunks_store(
        kb_name="svc", source=title, title=title, chunks=[TextChunk(entry[0], " ".join(entry))], language=language
    )
    rows = _rows(question)
    terms = query_words(question)

    # when
    coverage = _article_coverage(terms, dict.fromkeys(terms, 0.1), rows, knowledge_version(), {})

    # then: the title's word counts for the entry as its article's
    assert coverage[rows[0].pk] == pytest.approx(1.0)
