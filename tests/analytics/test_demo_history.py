"""seed_demo's four weeks of past chats: the dashboard has something to show on the first run."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from analytics.report import Period, analytics_report
from conversations.models import Conversation, Customer

pytestmark = pytest.mark.django_db


def test_demo_mode_writes_four_weeks_once_and_reset_writes_them_again(settings: Any) -> None:
    settings.DEMO_MODE = True
    call_command("seed_demo", verbosity=0)
    written = Conversation.objects.count()
    call_command("seed_demo", verbosity=0)
    again = Conversation.objects.count()
    call_command("seed_demo", "--reset", verbosity=0)

    assert 250 <= written == again == Conversation.objects.count()
    oldest = Conversation.objects.order_by("created_at").first()
    assert oldest is not None and oldest.created_at < timezone.now() - timedelta(days=27)


def test_the_history_tells_a_story_the_dashboard_can_show(settings: Any) -> None:
    settings.DEMO_MODE = True
    call_command("seed_demo", verbosity=0)
    today = timezone.now().date()

    report = analytics_report(Period(today - timedelta(days=28), today))
    first_week = analytics_report(Period(today - timedelta(days=28), today - timedelta(days=22)))
    last_week = analytics_report(Period(today - timedelta(days=7), today))

    assert sum(1 for row in report["series"] if row["conversations"]) >= 27
    assert 0.3 < report["resolution_rate"] < 0.9 and report["escalations_by_reason"]
    assert report["csat"]["assistant"]["ratings"] and report["csat"]["staff"]["ratings"]
    assert report["staff"]["first_response_s"]["p50"] and report["knowledge_misses"]["top"]
    assert report["cache_hit_rates"]["intent"]["rate"] and report["cache_hit_rates"]["tools"]["rate"]
    assert last_week["resolution_rate"] > first_week["resolution_rate"]  # gaps answered, fewer escalations


def test_without_demo_mode_there_is_no_history_unless_asked() -> None:
    call_command("seed_demo", verbosity=0)
    assert not Customer.objects.filter(external_id__startswith="demo_history_").exists()

    call_command("seed_demo", "--history", verbosity=0)
    assert Customer.objects.filter(external_id__startswith="demo_history_").exists()
