"""Finished days' turn figures are counted once and read back the same as counting the rows."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from analytics.models import DayFigure
from analytics.report import Period, analytics_report
from analytics.rollup import ROLLED, day_figures_roll, latency_percentile
from conversations.models import Conversation, IntentRecord

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


def test_a_rolled_up_day_reads_as_its_rows_did_and_today_is_never_rolled(played: dict[str, Conversation]) -> None:
    today = timezone.now().date()
    period = Period(today - timedelta(days=45), today)
    counted = analytics_report(period)

    # at midday: in the first hour after midnight yesterday is not finished yet (late turns), one day fewer
    midday = timezone.now().replace(hour=12, minute=0)
    rolled = day_figures_roll(now=midday)
    again = day_figures_roll(now=midday)

    assert rolled >= 40 and again == 0
    markers = set(DayFigure.objects.filter(figure=ROLLED).values_list("day", flat=True))
    assert today not in markers and today - timedelta(days=40) in markers
    assert analytics_report(period) == counted
    # a rolled-up day is no longer counted from its rows: the figures stay as they were rolled up
    IntentRecord.objects.filter(conversation=played["old"]).delete()
    assert analytics_report(period)["intents"] == counted["intents"]


def test_latency_percentiles_from_the_buckets_are_within_five_percent() -> None:
    import math

    exact = [12.0, 30.0, 45.0, 80.0, 95.0, 120.0, 400.0, 900.0, 1500.0, 2600.0]
    buckets = Counter(math.floor(math.log(ms) / math.log(1.05)) for ms in exact)

    p50, p95 = latency_percentile(buckets, 0.5), latency_percentile(buckets, 0.95)

    assert p50 is not None and abs(p50 - 95.0) / 95.0 < 0.05
    assert p95 is not None and abs(p95 - 2600.0) / 2600.0 < 0.05
    assert latency_percentile(Counter(), 0.5) is None


def test_a_report_that_counts_finished_days_from_their_rows_has_them_rolled_up_soon(
    played: dict[str, Conversation], parked_queue: Any
) -> None:
    today = timezone.now().date()
    roll = ("analytics.tasks.day_figures_roll_task", ())

    analytics_report(Period(today, today))  # today alone: nothing to roll up yet
    assert roll not in parked_queue.sent()
    analytics_report(Period(today - timedelta(days=45), today))  # the old chat's day was counted from its rows
    analytics_report(Period(today - timedelta(days=45), today))

    assert parked_queue.sent().count(roll) == 1  # once, not on every report


def test_a_day_holds_one_value_per_figure_and_zone() -> None:
    from datetime import date

    from tests.constraints import assert_rejected

    DayFigure.objects.create(time_zone="UTC", day=date(2026, 11, 1), figure="intent", key="faq", value=3)
    DayFigure.objects.create(time_zone="Asia/Shanghai", day=date(2026, 11, 1), figure="intent", key="faq", value=2)
    assert_rejected(
        lambda: DayFigure.objects.create(time_zone="UTC", day=date(2026, 11, 1), figure="intent", key="faq", value=1),
        "day_figure_unique",
    )
