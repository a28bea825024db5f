"""A test fails for the right reason: the store breaks its help centre, a policy and its catalogue, and exactly the
demo tests that depend on each change fail, each saying what it expected and what it heard instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db.models import F

from agents.demo import DEMO_KB
from conversation_tests.models import ConversationTestRun, RunTrigger
from conversation_tests.services import run_execute
from knowledge.models import SAMPLE_KB, Document
from knowledge.services import file_ingest, knowledge_version_renew
from stores.builtin.models import Variant
from tests.conversation_tests.conftest import failing

pytestmark = pytest.mark.usefixtures("demo")


def _failing_after_the_change() -> dict[str, list[str]]:
    knowledge_version_renew()  # what the change's commit does (knowledge.services.knowledge_changed)
    run = run_execute(ConversationTestRun.objects.create(trigger=RunTrigger.COMMAND))
    assert run.total == 35
    return failing(run.pk)


def test_an_article_deleted_fails_the_test_that_cites_it_and_no_other() -> None:
    Document.objects.filter(knowledge_base__name=SAMPLE_KB, source="demo_kb/warranty_en.md").delete()

    failed = _failing_after_the_change()

    assert list(failed) == ["The warranty periods"]
    assert "Turn 1: the reply should cite the article “Warranty and repairs”, but it cited: " in " ".join(
        failed["The warranty periods"]
    )
    # The Chinese warranty article is still there: its tests still pass.


def test_a_return_window_changed_fails_the_test_that_quotes_it_and_no_other(tmp_path: Path) -> None:
    changed = tmp_path / "returns_en.md"
    text = (DEMO_KB / "returns_en.md").read_text(encoding="utf-8")
    changed.write_text(text.replace("7-day", "14-day").replace("7 days", "14 days"), encoding="utf-8")
    file_ingest(kb_name=SAMPLE_KB, path=changed, source="demo_kb/returns_en.md")

    failed = _failing_after_the_change()

    assert list(failed) == ["The return window is 7 days"]
    [why] = failed["The return window is 7 days"]
    assert why.startswith(
        "Turn 1: the reply should mention “7 days”, but it said: “Delivered items can be returned within 14 days"
    )


def test_a_price_changed_fails_the_price_tests_in_both_languages_and_no_other() -> None:
    Variant.objects.filter(product__name="Find X8").update(price=F("price") + 100)

    failed = _failing_after_the_change()

    assert sorted(failed) == ["A price after the national subsidy", "国补后的价格"]
    [english] = failed["A price after the national subsidy"]
    assert english.startswith("Turn 1: the reply should mention “¥2,549.15”, but it said: “Find X8: ¥3,099;")
    [chinese] = failed["国补后的价格"]
    assert chinese.startswith("Turn 1: the reply should mention “到手价 ¥2,549.15”, but it said: “Find X8售价 ¥3,099")
