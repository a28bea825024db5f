"""The owner's analytics in a real browser: cards and charts from the demo's four weeks, a date range,
a card drilling down to its conversations, the CSV exports, in English and in Chinese."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from analytics.report import Period, analytics_report
from tests.browser.conftest import STAFF_PASSWORD
from tickets.staff import support_group_ensure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def history(settings: Any) -> None:
    call_command("seed_demo", "--history", verbosity=0)


def _owner_page(browser: Browser, live_server: Any, locale: str) -> Page:
    user = User.objects.create_user(f"owner_{locale}", password=STAFF_PASSWORD, is_staff=True)
    user.groups.add(support_group_ensure())
    context = browser.new_context(base_url=live_server.url, locale=locale, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", STAFF_PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#user-tools")).to_contain_text(user.username)
    return page


def test_the_owner_reads_the_outcomes_picks_a_range_and_drills_down(
    history: None, browser: Browser, live_server: Any
) -> None:
    page = _owner_page(browser, live_server, "en-US")
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"JS error: {error}"))
    page.on(
        "response",
        lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 and "favicon" not in r.url else None,
    )

    page.get_by_test_id("analytics-open").click()  # from the admin home page

    today = timezone.now().date()
    shown = analytics_report(Period(today - timedelta(days=29), today))
    cards = page.get_by_test_id("analytics-card")
    expect(cards).to_have_count(8)
    expect(cards.nth(0)).to_contain_text(f"Conversations{shown['conversations']}")
    expect(cards.nth(1)).to_contain_text(f"{shown['resolution_rate'] * 100:.0f}%")
    expect(page.get_by_test_id("analytics-chart")).to_have_count(5)
    expect(page.locator("[data-testid=analytics-chart] svg polyline").first).to_be_visible()
    expect(page.get_by_test_id("analytics-misses")).to_contain_text("Do you ship to Australia?")

    # a range of one week
    week = (today - timedelta(days=6)).isoformat()
    page.get_by_test_id("analytics-from").fill(week)
    page.get_by_test_id("analytics-apply").click()
    expect(page).to_have_url(f"{live_server.url}/admin/analytics/?from={week}&to={today.isoformat()}")
    narrowed = analytics_report(Period(today - timedelta(days=6), today))
    expect(cards.nth(0)).to_contain_text(f"Conversations{narrowed['conversations']}")

    # the resolution card opens the conversations it counts
    cards.nth(1).click()
    expect(page.get_by_test_id("analytics-drilldown-count")).to_have_text(f"{narrowed['resolved']} conversations")
    expect(page.get_by_test_id("analytics-figure")).to_have_value("resolved")
    expect(page.get_by_test_id("analytics-drilldown-row")).to_have_count(min(narrowed["resolved"], 50))

    with page.expect_download() as download:
        page.get_by_test_id("analytics-drilldown-csv").click()
    rows = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert len(rows) == narrowed["resolved"] + 1 and rows[0][0] == "id"
    assert problems == []


def test_the_dashboard_speaks_chinese(history: None, browser: Browser, live_server: Any) -> None:
    page = _owner_page(browser, live_server, "zh-CN")

    page.goto("/admin/analytics/")

    expect(page.get_by_test_id("analytics-card").nth(1)).to_contain_text("解决率")
    expect(page.get_by_test_id("analytics-csat")).to_contain_text("智能助手")
    expect(page.locator("[data-testid=analytics-chart] svg").nth(3)).to_contain_text("转人工原因")
    with page.expect_download() as download:
        page.get_by_test_id("analytics-export").click()
    rows = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert len(rows) == 31 and rows[0][:2] == ["date", "conversations"]
