"""The live console's knowledge search in a real browser: staff find the store's internal procedures beside the
help centre, marked as never quoted to customers, in English and Chinese."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from knowledge.chunking import TextChunk
from knowledge.services import chunks_store, knowledge_base_audience_set
from tests.browser.conftest import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STAFF_PASSWORD = "console-kb-pw-1"


def _console(widget_pages: Any) -> Page:
    user = User.objects.create_user(username="mei", password=STAFF_PASSWORD, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    return console_login(widget_pages(), "mei", STAFF_PASSWORD)


def _search(page: Page, query: str) -> Any:
    page.get_by_test_id("staff-knowledge-query").fill(query)
    page.get_by_test_id("staff-knowledge-query").press("Enter")
    return page.get_by_test_id("staff-knowledge-result")


def test_staff_search_internal_procedures_and_help_articles_from_the_console(widget_pages: Any) -> None:
    knowledge_base_audience_set(kb_name="procedures", audience="internal")
    chunks_store(
        kb_name="procedures",
        source="locks.md",
        title="Gift card locks",
        chunks=[TextChunk("Gift card locks › Unlocking", "A locked gift card is unlocked in the fraud console.")],
    )
    chunks_store(
        kb_name="procedures",
        source="locks-zh.md",
        title="礼品卡冻结",
        chunks=[TextChunk("礼品卡冻结 › 解冻", "冻结满 48 小时后在风控后台解冻礼品卡。")],
    )
    chunks_store(
        kb_name="help",
        source="gift-cards.md",
        title="Gift cards",
        chunks=[TextChunk("Gift cards › Validity", "Gift cards never expire and can be used online.")],
    )
    page = _console(widget_pages)

    english = _search(page, "unlock a locked gift card")
    expect(english.first).to_contain_text("fraud console")
    expect(english.first.get_by_test_id("staff-knowledge-internal")).to_be_visible()
    public = english.filter(has_text="never expire")
    expect(public).to_have_count(1)
    expect(public.get_by_test_id("staff-knowledge-internal")).to_have_count(0)

    chinese = _search(page, "礼品卡怎么解冻")
    expect(chinese.first).to_contain_text("风控后台")
    expect(chinese.first).to_have_attribute("data-audience", "internal")
