"""Ingest (formats, dedup, versions, prune, bad files), hybrid search and the knowledge specialist."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from knowledge.chunking import TextChunk, chunk_markdown, search_text, sentences
from knowledge.embeddings import EmbeddingsUnavailable
from knowledge.models import Chunk, Document
from knowledge.pinned import knowledge_pinned
from knowledge.selectors import _chunk_stats, chunk_search_hybrid, chunk_sections
from knowledge.services import IngestError, chunks_store, file_ingest, knowledge_version
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

RETURNS_ZH = "# 退换货政策\n\n## 七天无理由退货\n商品签收后 7 天内支持无理由退货。请保持包装完整！\n\n## 退款时效\n礼品卡退款即时到账。\n"
RETURNS_EN = "# Returns\n\n## Seven days\nDelivered items can be returned within 7 days for any reason.\n"


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_chunks_keep_their_heading_path_and_cut_chinese_sentences() -> None:
    chunks = chunk_markdown(RETURNS_ZH, title="退换货政策")

    assert [c.heading for c in chunks] == ["退换货政策 › 七天无理由退货", "退换货政策 › 退款时效"]
    assert chunks[0].text == "商品签收后 7 天内支持无理由退货。请保持包装完整！"
    assert "退货" in search_text("七天无理由退货").split()


@pytest.mark.parametrize("chinese", [False, True], ids=["en", "zh"])
def test_a_chunk_starts_where_a_sentence_starts_and_repeats_the_short_sentence_before_it(chinese: bool) -> None:
    # the cut falls near a long sentence of two clauses: the chunk after the cut still starts where a
    # sentence does (in Chinese the cut may fall after "；": the chunk starts with the first clause)
    if chinese:
        pieces = [
            f"第{i}条规定说明了配送时效和运费的计算方式，请仔细阅读后下单，如有疑问请随时联系在线客服。"
            for i in range(12)
        ]
        split = ("已缴纳的关税和进口税不由我们退还；", "您可以向当地海关申请退税。")
        body = "".join([*pieces[:10], *split, *pieces[10:]])
    else:
        pieces = [f"Rule {i} says how the shipping fee is worked out for orders sent abroad." for i in range(12)]
        split = (
            "Duties and taxes paid to customs are not refunded by us;",
            "you may reclaim them from your customs office.",
        )
        body = " ".join([*pieces[:6], *split, *pieces[6:]])

    chunks = chunk_markdown(f"# Shipping\n\n{body}\n")

    assert len(chunks) > 1
    assert all(chunk.text.startswith(("第", "Rule", split[0])) for chunk in chunks)  # never a sentence's tail
    whole = ("" if chinese else " ").join(split)
    assert any(whole in chunk.text for chunk in chunks)  # never cut inside
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.text[:20] in before.text  # the overlap: the sentence cut off repeats whole


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        (
            "# Prices\n\nSome examples:\n- Find X9: ¥3,199\n- Pad 3: ¥1,799\n\nStock is limited; we do not restock.\n",
            ["Some examples:", "- Find X9: ¥3,199", "- Pad 3: ¥1,799", "Stock is limited; we do not restock."],
        ),
        (
            "# 价格\n\n例如：\n1. 香港 45 元\n2. 日本 60 元\n\n库存有限。\n",
            ["例如：", "1. 香港 45 元", "2. 日本 60 元", "库存有限。"],
        ),
        (
            "# Shipping\n\nWe ship:\n- phones;\n- tablets;\n- earbuds.\n",
            ["We ship:", "- phones;", "- tablets;", "- earbuds."],
        ),
    ],
    ids=["en", "zh", "en-semicolons"],
)
def test_list_items_stay_sentences_of_their_own(markdown: str, expected: list[str]) -> None:
    # a list item without a full stop would otherwise run into the next one, and a reply quote both
    (chunk,) = chunk_markdown(markdown)

    assert sentences(chunk.text) == expected


def test_each_format_is_ingested(tmp_path: Path) -> None:
    files = [
        _write(tmp_path, "returns.md", RETURNS_ZH),
        _write(tmp_path, "notes.txt", "Plain text about warranty. It lasts one year."),
        _write(tmp_path, "faq.csv", "question,answer\nDo you ship abroad?,Yes with UPS.\n"),
        _write(
            tmp_path,
            "faq.json",
            json.dumps([{"question": "怎么开发票？", "answer": "发货后在聊天中申请。"}], ensure_ascii=False),
        ),
    ]

    outcomes = [file_ingest(kb_name="help", path=f).outcome for f in files]

    assert outcomes == ["added"] * 4
    assert Document.objects.get(source=str(files[0])).language == "zh"
    assert Chunk.objects.get(document__source=str(files[2])).text == "Do you ship abroad? Yes with UPS."


def test_re_ingest_unchanged_and_a_changed_file_replaces_its_chunks(tmp_path: Path) -> None:
    path = _write(tmp_path, "returns.md", RETURNS_EN)
    file_ingest(kb_name="help", path=path)

    assert file_ingest(kb_name="help", path=path).outcome == "unchanged"
    path.write_text(RETURNS_EN + "\n## Refunds\nRefunds take 5 to 7 business days.\n")
    assert file_ingest(kb_name="help", path=path).outcome == "changed"

    document = Document.objects.get(source=str(path))
    assert document.version == 2 and document.chunks.count() == 2


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.md", "   ", "empty"),
        ("binary.txt", b"\x00\x01\x02PNG", "binary"),
        ("slides.pptx", "x", "unsupported"),
        ("faq.csv", "q,a\nx,y\n", "question,answer header"),
        ("faq.json", "{not json", "invalid JSON"),
    ],
)
def test_bad_files_are_refused_with_a_reason(tmp_path: Path, name: str, content: str | bytes, message: str) -> None:
    with pytest.raises(IngestError, match=message):
        file_ingest(kb_name="help", path=_write(tmp_path, name, content))
    assert not Document.objects.exists()


def test_gbk_encoded_chinese_is_read_correctly(tmp_path: Path) -> None:
    path = _write(tmp_path, "gbk.txt", "保修期为一年。".encode("gbk"))

    file_ingest(kb_name="help", path=path)

    assert Chunk.objects.get().text == "保修期为一年。"


def test_ingest_command_reports_and_fails_on_bad_files_and_prunes(tmp_path: Path) -> None:
    good = _write(tmp_path, "returns.md", RETURNS_EN)
    _write(tmp_path, "empty.md", "")
    with pytest.raises(CommandError, match="1 file"):
        call_command("ingest_kb", str(tmp_path), "--kb", "help")
    assert Document.objects.filter(source=str(good)).exists()

    good.unlink()
    _write(tmp_path, "warranty.md", "# Warranty\nOne year.")
    (tmp_path / "empty.md").unlink()
    call_command("ingest_kb", str(tmp_path), "--kb", "help", "--prune")
    assert not Document.objects.filter(source=str(good)).exists()


def test_an_ingest_ends_with_fresh_word_statistics_for_the_keyword_ranking(tmp_path: Path) -> None:
    """The keyword arm weighs words by Postgres' statistics: an ingest refreshes them itself, so
    how a question ranks never waits for autovacuum."""
    _write(
        tmp_path,
        "warranty.md",
        "# Warranty\n\n## Phones\nPhones: one year warranty.\n\n## Tablets\nTablets: two years warranty.\n",
    )
    _write(tmp_path, "shipping.md", "# Shipping\nParcels leave within a day.\n")

    call_command("ingest_kb", str(tmp_path), "--kb", "help", stdout=io.StringIO(), stderr=io.StringIO())

    rows, shares = _chunk_stats(knowledge_version())
    assert rows == Chunk.objects.count() == 3
    assert shares[search_text("warranty")] == pytest.approx(2 / 3, abs=0.01)


def test_chinese_keywords_match_and_a_far_question_is_a_miss(tmp_path: Path) -> None:
    file_ingest(kb_name="help", path=_write(tmp_path, "returns.md", RETURNS_ZH))
    file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))

    results, miss = chunk_search_hybrid(query="礼品卡退款多久到账", kb="help")
    keyword_only, _ = chunk_search_hybrid(query="礼品卡", kb="help", mode="keyword")

    assert not miss and results[0].heading.endswith("退款时效")
    assert keyword_only and keyword_only[0].heading.endswith("退款时效")
    _, far = chunk_search_hybrid(query="how do I bake sourdough bread at home", kb="help")
    assert far is True


def test_an_english_keyword_finds_its_other_inflections(tmp_path: Path) -> None:
    file_ingest(kb_name="help", path=_write(tmp_path, "campus.md", "# Campus\n\n## Prices\nStudents get a discount.\n"))
    file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))

    results, _ = chunk_search_hybrid(query="discounted prices for a student", kb="help", mode="keyword")

    assert results and results[0].heading == "Campus › Prices"


def test_the_search_cache_is_invalidated_by_an_ingest(
    tmp_path: Path, django_capture_on_commit_callbacks: object
) -> None:
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))
    before, _ = chunk_search_hybrid(query="warranty period for phones", kb="help")

    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        file_ingest(
            kb_name="help", path=_write(tmp_path, "w.md", "# Warranty\nPhones have a warranty period of one year.")
        )
    after, _ = chunk_search_hybrid(query="warranty period for phones", kb="help")

    assert [r.title for r in after][0] == "Warranty" and before[0].title != "Warranty"


def test_a_pinned_block_reads_the_knowledge_once_and_searches_one_set_of_contents(
    tmp_path: Path, django_capture_on_commit_callbacks: object
) -> None:
    # given: a knowledge base, and a block (a turn's run) that has searched it
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))
    with knowledge_pinned() as pin:
        before, _ = chunk_search_hybrid(query="warranty period for phones", kb="help")
        # when: an article is added meanwhile, and the block searches again
        with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
            file_ingest(
                kb_name="help", path=_write(tmp_path, "w.md", "# Warranty\nPhones have a warranty period of one year.")
            )
        again, _ = chunk_search_hybrid(query="warranty period for phones", kb="help")
        version_within = knowledge_version()
    after, _ = chunk_search_hybrid(query="warranty period for phones", kb="help")

    # then: the block read one version and one answer; the next block finds the new article
    assert again == before and before[0].title != "Warranty" and version_within == pin.version
    assert after[0].title == "Warranty" and knowledge_version() != pin.version


def test_kb_search_api_returns_results_and_refuses_bad_input(tmp_path: Path, client: object) -> None:
    from conversations.api_keys import api_key_create

    file_ingest(kb_name="help", path=_write(tmp_path, "returns.md", RETURNS_ZH))
    _, key = api_key_create(name="kb")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}

    ok = client.get("/api/v1/kb/search", {"q": "礼品卡退款", "kb": "help", "k": 2}, **auth)  # type: ignore[attr-defined]
    bad = client.get("/api/v1/kb/search", {"q": "x", "k": 0}, **auth)  # type: ignore[attr-defined]
    missing = client.get("/api/v1/kb/search", {}, **auth)  # type: ignore[attr-defined]

    assert (
        ok.status_code == 200 and ok.json()["results"][0]["heading"].endswith("退款时效") and ok.json()["miss"] is False
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "k"
    assert missing.status_code == 400 and missing.json()["error"]["field"] == "q"


SERVICES_ZH = {
    "增值服务": "本店提供多项增值服务。新机购买后可以预约免费贴膜，每台手机限一次。延保服务可以把保修期延长到两年，价格 199 元。"
    "碎屏险可以在下单时勾选购买，价格 99 元，一年内屏幕意外碎裂可免费更换一次。数据迁移服务由门店工作人员协助完成。"
    "以旧换新估价在线完成，旧机由快递上门取件。企业客户可以申请批量采购报价。",
    "屏幕维修": "屏幕碎裂不在保修范围内，更换屏幕约 899 元，维修时间约三个工作日。",
    "保修": "手机和平板整机保修一年，耳机保修六个月。",
    "配送": "订单在 48 小时内发货，支持顺丰和京东物流，偏远地区可能延迟。",
    "退货": "签收后七天内可以无理由退货，商品需保持完好。",
}


@pytest.fixture
def services_kb() -> None:
    for heading, text in SERVICES_ZH.items():
        chunks_store(kb_name="svc", source=heading, title=heading, chunks=[TextChunk(heading, text)], language="zh")


def _top(query: str, mode: str) -> str | None:
    results, _ = chunk_search_hybrid(query=query, k=3, kb="svc", mode=mode)
    return results[0].heading if results else None


def test_a_chinese_keyword_the_vector_arm_misses_is_found_by_hybrid(services_kb: None) -> None:
    # "批量采购" is one clause deep inside a long passage; by meaning alone it looks like delivery.
    assert _top("批量采购", "vector") == "配送"
    assert _top("批量采购", "keyword") == "增值服务"
    assert _top("批量采购", "hybrid") == "增值服务"


def test_a_paraphrase_with_no_shared_word_is_found_by_the_vector_arm(services_kb: None) -> None:
    assert _top("多久能收到", "keyword") is None
    assert _top("多久能收到", "vector") == "配送"
    assert _top("多久能收到", "hybrid") == "配送"


@pytest.mark.parametrize("query", ["怎么做红烧肉", "how do I bake sourdough bread at home"])
def test_a_question_the_kb_cannot_answer_is_a_miss_in_both_languages(services_kb: None, query: str) -> None:
    results, miss = chunk_search_hybrid(query=query, kb="svc")
    assert miss is True and results  # ranked passages are still returned, flagged as a miss


def test_search_filters_by_knowledge_base_and_language(tmp_path: Path) -> None:
    file_ingest(kb_name="help", path=_write(tmp_path, "returns.md", RETURNS_ZH))
    file_ingest(kb_name="other", path=_write(tmp_path, "en.md", RETURNS_EN))

    english, _ = chunk_search_hybrid(query="return within 7 days", lang="en")
    scoped, _ = chunk_search_hybrid(query="return within 7 days", kb="help")

    assert {r.language for r in english} == {"en"}
    assert {r.document for r in scoped} == {str(tmp_path / "returns.md")}


def test_a_failed_new_version_leaves_the_old_one_searchable(tmp_path: Path, fake_openai: Any, settings: Any) -> None:
    path = _write(tmp_path, "returns.md", RETURNS_EN)
    file_ingest(kb_name="help", path=path)
    path.write_text(RETURNS_EN + "\n## Refunds\nRefunds take 5 to 7 business days.\n")
    settings.EMBEDDINGS_BASE_URL = fake_openai.base_url
    fake_openai.embedding_dimensions = 768

    with pytest.raises(EmbeddingsUnavailable, match="768-d"):
        file_ingest(kb_name="help", path=path)

    document = Document.objects.get(source=str(path))
    assert document.version == 1 and document.status == "ready" and document.chunks.count() == 1


def test_an_openai_compatible_embeddings_server_is_used_with_e5_prefixes(
    tmp_path: Path, fake_openai: Any, settings: Any
) -> None:
    settings.EMBEDDINGS_BASE_URL = fake_openai.base_url
    settings.EMBEDDINGS_MODEL = "e5-server"

    file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))
    results, _ = chunk_search_hybrid(query="Delivered items can be returned", kb="help", mode="vector")

    inputs = [r["body"]["input"] for r in fake_openai.requests if r["path"].endswith("/embeddings")]
    assert inputs[0] == ["passage: Returns › Seven days: Delivered items can be returned within 7 days for any reason."]
    assert inputs[-1] == ["query: Delivered items can be returned"]
    assert results[0].heading == "Returns › Seven days"


def test_a_wrong_width_embeddings_model_stops_ingest_before_anything_is_read(
    tmp_path: Path, fake_openai: Any, settings: Any
) -> None:
    settings.EMBEDDINGS_BASE_URL = fake_openai.base_url
    fake_openai.embedding_dimensions = 768
    _write(tmp_path, "en.md", RETURNS_EN)

    with pytest.raises(CommandError, match="returns 768-d vectors but the knowledge index stores 384-d"):
        call_command("ingest_kb", str(tmp_path), "--kb", "help")

    assert not Document.objects.exists()


def test_ingest_command_shows_progress_and_a_summary_then_changes_nothing_the_second_time(tmp_path: Path) -> None:
    _write(tmp_path, "returns.md", RETURNS_ZH)
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", "faq.csv", "question,answer\nDo you ship abroad?,Yes with UPS.\n")
    _write(tmp_path, "photo.png", b"\x89PNG")  # not a knowledge format: folders skip it
    out, err = io.StringIO(), io.StringIO()

    call_command("ingest_kb", str(tmp_path), "--kb", "help", stdout=out, stderr=err)
    again = io.StringIO()
    call_command("ingest_kb", str(tmp_path), "--kb", "help", stdout=again, stderr=io.StringIO())

    assert re.fullmatch(
        r"help: 2 documents: 2 added, 0 changed, 0 unchanged, 0 failed, 0 pruned; 3 chunks in \d+\.\d s\n",
        out.getvalue(),
    )
    assert re.search(r"^\[\.{24}\] 0/2 .*returns\.md$", err.getvalue(), re.M)
    assert re.search(r"^\[#{12}\.{12}\] 1/2 .*faq\.csv$", err.getvalue(), re.M)
    assert "2 unchanged" in again.getvalue() and Document.objects.count() == 2


def test_a_selective_filter_still_finds_its_passages_through_the_hnsw_index() -> None:
    # Another knowledge base holds 500 passages nearer to the question than anything in "help": the
    # index's first candidates all belong to it, and the filter must not leave "help" with nothing.
    import numpy as np

    from knowledge.embeddings import embedder_get
    from tests.factories import DocumentFactory

    question = embedder_get().queries(["how long is the warranty"])[0]
    noise = np.random.default_rng(7).normal(scale=0.01, size=(500, len(question)))
    crowd = DocumentFactory.create(knowledge_base__name="crowd", status="ready")
    Chunk.objects.bulk_create(
        Chunk(document=crowd, position=i, text=f"near {i}", search_text=f"near {i}", embedding=v / np.linalg.norm(v))
        for i, v in enumerate(question + noise)
    )
    chunks_store(
        kb_name="help",
        source="w.md",
        title="Warranty",
        chunks=[TextChunk("Warranty", "Phones have a one-year warranty.")],
    )
    with connection.cursor() as cursor:
        # The plan a large table gets: walk the HNSW index in distance order, filter after (undone by the rollback).
        cursor.execute("SET enable_sort = off")

    results, _ = chunk_search_hybrid(query="how long is the warranty", kb="help", mode="vector")

    assert [r.text for r in results] == ["Phones have a one-year warranty."]


def test_a_cited_chunk_is_read_with_its_whole_section_and_no_other() -> None:
    """The run of chunks next to it under its heading, in its own document, joined without the overlap."""
    manual, other = DocumentFactory.create(), DocumentFactory.create()

    def chunk(document: Document, position: int, heading: str, text: str) -> Chunk:
        return Chunk.objects.create(document=document, position=position, heading=heading, text=text, search_text=text)

    chunk(manual, 0, "Returns", "Send it back within 30 days. Keep the box.")
    cited = chunk(manual, 1, "Returns", "Keep the box. Refunds take 5 days.")
    chunk(manual, 2, "Shipping", "We ship in 2 days.")
    chunk(manual, 4, "Returns", "A later part under the same heading, after a gap.")
    chunk(other, 1, "Returns", "Another document's returns.")
    alone = chunk(other, 7, "退货", "七天无理由退货。")

    sections = chunk_sections([cited.pk, alone.pk])

    assert sections == {
        cited.pk: "Send it back within 30 days. Keep the box. Refunds take 5 days.",
        alone.pk: "七天无理由退货。",
    }
    assert chunk_sections([]) == {}
