"""The demo's help articles are a sample store's: the chat quotes them until the store has public knowledge of its
own, then they step aside (a sample policy is no fact of the store's), while staff still find them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from conversations.models import Customer
from conversations.services import conversation_start
from knowledge.models import SAMPLE_KB, Chunk
from knowledge.selectors import chunk_search_hybrid
from tests.agents.engine import run_turn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]

QUESTIONS = {"en": ("What payment methods do you accept?", "PayPal"), "zh": ("你们支持哪些支付方式？", "PayPal")}
# The store's own help centre says nothing of payment methods.
STORE_ARTICLE = (
    "# Gift wrapping\n\nEvery order can be gift wrapped at checkout for £3.50. The wrapped parcel carries no price.\n\n"
    "# 礼品包装\n\n下单时可选择礼品包装，每单 ¥15，包装内不附价格单。\n"
)


@pytest.fixture
def demo() -> set[int]:
    call_command("seed_demo", verbosity=0)
    return set(Chunk.objects.filter(document__knowledge_base__name=SAMPLE_KB).values_list("pk", flat=True))


def _ask(language: str, question: str) -> dict:
    chat = conversation_start(customer=Customer.objects.create(external_id=f"guest-{Customer.objects.count()}"))
    return run_turn(chat, question).reply


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_demo_answers_until_the_store_has_its_own_public_knowledge(
    demo: set[int], language: str, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    question, fact = QUESTIONS[language]
    before = _ask(language, question)
    (tmp_path / "gift-wrapping.md").write_text(STORE_ARTICLE)
    with django_capture_on_commit_callbacks(execute=True):  # a new knowledge version once the ingest commits
        call_command("ingest_kb", str(tmp_path), "--kb", "help", verbosity=0)

    after = _ask(language, question)

    assert fact in before["text"] and {s["chunk_id"] for s in before["sources"]} & demo
    assert fact not in after["text"] and not {s.get("chunk_id") for s in after["sources"]} & demo
    staff = chunk_search_hybrid(query=question, k=3)[0]  # every base, as the console searches
    assert {result.chunk_id for result in staff} & demo


def test_internal_procedures_of_the_store_leave_the_demo_answering(
    demo: set[int], tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    (tmp_path / "gift-wrapping.md").write_text(STORE_ARTICLE)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("ingest_kb", str(tmp_path), "--kb", "procedures", "--audience", "internal", verbosity=0)

    reply = _ask("en", QUESTIONS["en"][0])

    assert "PayPal" in reply["text"] and {s["chunk_id"] for s in reply["sources"]} & demo
