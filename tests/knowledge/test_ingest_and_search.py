"""Ingest (formats, dedup, versions, prune, bad files), hybrid search and the knowledge specialist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from knowledge.chunking import chunk_markdown, search_text
from knowledge.models import Chunk, Document
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import IngestError, file_ingest

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


def test_chinese_keywords_match_and_a_far_question_is_a_miss(tmp_path: Path) -> None:
    file_ingest(kb_name="help", path=_write(tmp_path, "returns.md", RETURNS_ZH))
    file_ingest(kb_name="help", path=_write(tmp_path, "en.md", RETURNS_EN))

    results, miss = chunk_search_hybrid(query="礼品卡退款多久到账", kb="help")
    keyword_only, _ = chunk_search_hybrid(query="礼品卡", kb="help", mode="keyword")

    assert not miss and results[0].heading.endswith("退款时效")
    assert keyword_only and keyword_only[0].heading.endswith("退款时效")
    _, far = chunk_search_hybrid(query="how do I bake sourdough bread at home", kb="help")
    assert far is True


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
