"""/kb/sources/<chunk id>: where a citation in the chat links to."""

from __future__ import annotations

import pytest
from django.test import Client

from knowledge.models import Chunk, Document, DocumentStatus
from knowledge.services import document_ingest

pytestmark = pytest.mark.django_db

WARRANTY_ZH = "# 保修\n\n## 保修期\n手机整机保修一年。<script>alert(1)</script>\n".encode()


def test_a_cited_passage_has_a_public_page_in_its_language(client: Client) -> None:
    document_ingest(kb_name="help", name="warranty_zh.md", source="warranty_zh.md", raw=WARRANTY_ZH, language="zh")
    chunk = Chunk.objects.get()

    page = client.get(f"/kb/sources/{chunk.pk}")

    html = page.content.decode()
    assert page.status_code == 200 and 'lang="zh-CN"' in html
    assert "保修 › 保修期" in html and "手机整机保修一年。" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html


def test_unknown_and_unpublished_passages_are_not_found(client: Client) -> None:
    document_ingest(kb_name="help", name="warranty_zh.md", source="warranty_zh.md", raw=WARRANTY_ZH, language="zh")
    chunk = Chunk.objects.get()
    Document.objects.update(status=DocumentStatus.FAILED)

    assert client.get(f"/kb/sources/{chunk.pk}").status_code == 404
    assert client.get("/kb/sources/999999").status_code == 404
    assert client.post(f"/kb/sources/{chunk.pk}").status_code == 405
