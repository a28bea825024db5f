"""English questions are also read by all-MiniLM-L6-v2 (run in numpy), beside e5.

The encoder must give what the PyTorch model gives; English passages get its vector at ingest (and
by the migration for older chunks), Chinese ones none; and searching English with both models finds
passages that e5 alone ranks below another article.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from django.apps import apps
from django.test import override_settings

from knowledge import selectors
from knowledge.embeddings import english_encoder, english_query_vector
from knowledge.models import Chunk
from knowledge.selectors import chunk_search_hybrid
from knowledge.services import file_ingest

pytestmark = pytest.mark.django_db

# Written for this test: short help sections of a store on different topics.
HELP_EN = """# Help

## Collecting for someone else
Someone else can collect your parcel. Forward them the pickup code; they show it with their own ID.

## How long we keep it
We keep your order at the counter for 7 days. After that it is cancelled and refunded.

## Batteries
Batteries are covered for 12 months from delivery when capacity falls below 80%.

## Gift notes
Add a printed note of up to 100 characters. Prices are never printed on the packing slip.

## Late payments
We charge no late fee on instalments; your bank's card rules apply.
"""
HELP_ZH = "# 帮助\n\n## 门店自提\n可以让家人代取，转发取件码即可。\n"


def _cosine(a: str, b: str) -> float:
    encoder = english_encoder()
    assert encoder is not None
    first, second = encoder.vectors([a, b])
    return float(first @ second)


def test_the_numpy_encoder_gives_what_the_pytorch_model_gives() -> None:
    encoder = english_encoder()
    assert encoder is not None
    # Reference figures from sentence-transformers with the same model files, PyTorch on the CPU.
    vector = encoder.vectors(["Where is my parcel?"])[0]
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    assert np.allclose(vector[:4], [0.03395, -0.01403, 0.04374, -0.02395], atol=2e-5)
    question = "Can my brother pick up the order for me?"
    assert _cosine(question, "Someone else can collect your parcel: forward them the pickup code.") == pytest.approx(
        0.37473, abs=1e-4
    )
    assert _cosine(question, "Refunds reach your card within 5 business days.") == pytest.approx(0.17879, abs=1e-4)
    assert _cosine("how long is the battery warranty", "Batteries are covered for 12 months from delivery.") == (
        pytest.approx(0.54117, abs=1e-4)
    )


def test_english_passages_get_a_companion_vector_and_chinese_ones_none(tmp_path: Path) -> None:
    (tmp_path / "help_en.md").write_text(HELP_EN)
    (tmp_path / "help_zh.md").write_text(HELP_ZH)
    file_ingest(kb_name="help", path=tmp_path / "help_en.md")
    file_ingest(kb_name="help", path=tmp_path / "help_zh.md")

    english = Chunk.objects.filter(document__language="en")
    assert english.count() == 5 and not english.filter(english_embedding__isnull=True).exists()
    assert Chunk.objects.get(document__language="zh").english_embedding is None
    assert english_query_vector("可以代取吗") is None


def test_the_migration_gives_older_english_chunks_their_vector(tmp_path: Path) -> None:
    (tmp_path / "help_en.md").write_text(HELP_EN)
    file_ingest(kb_name="help", path=tmp_path / "help_en.md")
    before = {c.pk: c.english_embedding for c in Chunk.objects.all()}
    Chunk.objects.update(english_embedding=None)
    migration = importlib.import_module("knowledge.migrations.0004_english_embedding")

    migration.embed_english(apps, None)

    after = {c.pk: c.english_embedding for c in Chunk.objects.all()}
    assert after.keys() == before.keys()
    assert all(np.allclose(after[pk], before[pk], atol=1e-6) for pk in before)


@pytest.mark.parametrize(
    ("question", "heading"),
    [
        ("Can my brother grab the package for me?", "Collecting for someone else"),
        ("what happens if I miss a monthly repayment", "Late payments"),
        ("what if I never turn up to get my order", "How long we keep it"),
        ("my battery only lasts half a day now, is that covered", "Batteries"),
    ],
)
def test_an_english_paraphrase_finds_its_section_with_both_models(tmp_path: Path, question: str, heading: str) -> None:
    (tmp_path / "help_en.md").write_text(HELP_EN)
    file_ingest(kb_name="help", path=tmp_path / "help_en.md")

    results, miss = chunk_search_hybrid(query=question, kb="help", mode="vector")

    assert not miss and results[0].heading == f"Help › {heading}"


def test_e5_alone_ranks_another_section_first_for_a_paraphrase(tmp_path: Path, monkeypatch) -> None:
    """What the second model is for: without it, the first two questions above go elsewhere."""
    (tmp_path / "help_en.md").write_text(HELP_EN)
    file_ingest(kb_name="help", path=tmp_path / "help_en.md")
    monkeypatch.setattr(selectors, "ENGLISH_WEIGHT", 0.0)

    first = [
        chunk_search_hybrid(query=q, kb="help", mode="vector", k=1)[0][0].heading
        for q in ("Can my brother grab the package for me?", "what happens if I miss a monthly repayment")
    ]

    assert first != ["Help › Collecting for someone else", "Help › Late payments"]


@override_settings(EMBEDDINGS_BASE_URL="http://127.0.0.1:9/v1")
def test_an_embeddings_server_is_used_alone() -> None:
    """The fusion is scaled to e5's cosines: another model chosen by the operator is not mixed."""
    assert english_encoder() is None
    assert english_query_vector("where is my parcel") is None
