"""manage.py ingest_kb at scale: an operator's files are not held to the upload caps, and many files are ingested
by processes side by side, each file whole or not at all."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import Chunk, Document
from knowledge.readers import IngestError
from knowledge.services import document_ingest

ARTICLE_EN = "# {title}\n\n## Delivery\nParcels to zone {n} arrive in {n} working days.\n"
ARTICLE_ZH = "# {title}\n\n## 配送\n寄往 {n} 区的包裹 {n} 个工作日送达。\n"


def _faq(rows: int) -> bytes:
    lines = ["question,answer", *(f"How long does zone {n} take?,Zone {n} takes {n} days." for n in range(rows))]
    return "\n".join(lines).encode()


@pytest.mark.django_db
def test_an_operators_faq_passes_the_upload_cap_that_an_upload_is_held_to(tmp_path: Path, settings: Any) -> None:
    settings.KNOWLEDGE_MAX_CHUNKS_PER_FILE = 10
    (tmp_path / "faq.csv").write_bytes(_faq(25))

    with pytest.raises(IngestError, match="25 passages; at most 10 per file"):
        document_ingest(kb_name="uploads", name="faq.csv", raw=_faq(25))
    call_command("ingest_kb", str(tmp_path / "faq.csv"), "--kb", "big", stdout=io.StringIO(), stderr=io.StringIO())

    assert Chunk.objects.filter(document__knowledge_base__name="big").count() == 25
    assert not Document.objects.filter(knowledge_base__name="uploads").exists()


@pytest.mark.django_db(transaction=True)
def test_processes_side_by_side_store_what_one_process_stores_and_report_a_bad_file(tmp_path: Path) -> None:
    for n in range(8):
        template = ARTICLE_ZH if n % 2 else ARTICLE_EN
        (tmp_path / f"article-{n}.md").write_text(template.format(title=f"Zone {n}", n=n))
    (tmp_path / "broken.md").write_bytes(b"\x00\x01binary")
    out, err = io.StringIO(), io.StringIO()

    with pytest.raises(CommandError, match="1 file"):
        call_command("ingest_kb", str(tmp_path), "--kb", "side", "--jobs", "2", stdout=out, stderr=err)
    with pytest.raises(CommandError, match="1 file"):
        call_command("ingest_kb", str(tmp_path), "--kb", "alone", "--jobs", "1", stdout=io.StringIO(), stderr=err)

    def stored(kb: str) -> list[tuple[str, str, str]]:
        chunks = Chunk.objects.filter(document__knowledge_base__name=kb)
        return sorted(chunks.values_list("document__title", "text", "document__language"))

    assert "side: 9 documents: 8 added, 0 changed, 0 unchanged, 1 failed" in out.getvalue()
    assert "broken.md: binary content" in err.getvalue()
    assert len(stored("side")) == 8 and stored("side") == stored("alone")
    assert ("Zone 3", "寄往 3 区的包裹 3 个工作日送达。", "zh") in stored("side")


@pytest.mark.django_db
def test_jobs_below_one_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--jobs must be at least 1"):
        call_command("ingest_kb", str(tmp_path), "--jobs", "0")
