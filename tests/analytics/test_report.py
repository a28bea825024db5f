"""The analytics follow what happened: conversations played through the engine, the console and the
widget's services (zh and en), then every figure of docs/analytics.md checked against them."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from typing import Any

import pytest
from django.utils import timezone

from agents.models import TurnRun
from analytics.report import Period, analytics_report, conversations_behind, period_parse
from conversations.models import Conversation, IntentRecord
from knowledge.models import MissedQuestion
from tests.agents.engine import run_turn
from tests.analytics.conftest import chat_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


def _today() -> Period:
    return period_parse(None, None)


def test_the_outcomes_count_what_happened(played: dict[str, Conversation]) -> None:
    report = analytics_report(_today())

    assert report["conversations"] == 4  # the old one is out of the period
    assert report["resolved"] == 2  # ended by the customer; quiet for a day after the answer
    assert report["resolution_rate"] == 0.5
    assert report["containment_rate"] == 0.75  # only the escalated chat had a person in it
    assert report["escalation_rate"] == 0.25
    assert report["escalations_by_reason"] == {"requested": 1}
    turns = sum(c.turn_count for c in Conversation.objects.exclude(pk=played["old"].pk))
    assert report["turns_per_conversation"] == round(turns / 4, 2)
    assert {c.pk for c in conversations_behind("resolved", _today())} == {played["ended"].pk, played["quiet"].pk}
    assert [c.pk for c in conversations_behind("escalated", _today())] == [played["escalated"].pk]


def test_csat_is_split_between_the_assistant_and_the_staff(played: dict[str, Conversation]) -> None:
    csat = analytics_report(_today())["csat"]

    assert (csat["ratings"], csat["mean"], csat["satisfied_rate"]) == (2, 3.5, 0.5)
    assert csat["assistant"] == {"ratings": 1, "mean": 5.0, "satisfied_rate": 1.0}
    assert csat["staff"] == {"ratings": 1, "mean": 2.0, "satisfied_rate": 0.0}
    assert csat["by_staff"] == [{"staff": "bob", "ratings": 1, "mean": 2.0}]


def test_staff_speed_is_measured_from_the_escalation(played: dict[str, Conversation]) -> None:
    escalated = Conversation.objects.get(pk=played["escalated"].pk)
    staff = analytics_report(_today())["staff"]

    assert escalated.escalated_at and escalated.human_joined_at and escalated.first_human_reply_at
    assert escalated.closed_at is not None
    expected_first = (escalated.first_human_reply_at - escalated.escalated_at).total_seconds()
    expected_handling = (escalated.closed_at - escalated.human_joined_at).total_seconds()
    assert staff["conversations"] == 1
    assert staff["first_response_s"]["p50"] == pytest.approx(expected_first, abs=0.1)
    assert staff["handling_s"]["mean"] == pytest.approx(expected_handling, abs=0.1)


def test_intents_latency_and_caches_follow_the_turns(played: dict[str, Conversation]) -> None:
    report = analytics_report(_today())
    turns = TurnRun.objects.exclude(conversation=played["old"])

    recorded = IntentRecord.objects.exclude(conversation=played["old"])
    for name, count in report["intents"].items():
        assert recorded.filter(name=name).count() == count
    assert sum(report["intents"].values()) == recorded.count()
    answered = turns.filter(status__in=["done", "escalated"])
    assert report["latency_ms"]["all"]["turns"] == answered.count()
    for level, figures in report["latency_ms"].items():
        assert figures["p50"] <= figures["p95"]
        if level != "all":
            assert figures["turns"] == answered.filter(intent_level=level).count()
    decisions = Counter(turn.safety["decision"] for turn in turns if turn.safety)
    assert report["safety"] == {d: decisions.get(d, 0) for d in ("pass", "revise", "block")}
    assert report["safety"]["pass"] >= 4  # every answered turn passed the gate
    caches = report["cache_hit_rates"]
    asked = turns.exclude(intent_level="rule").count()
    assert (
        caches["intent"]["lookups"] == asked and caches["intent"]["hits"] == turns.filter(intent_level="cache").count()
    )
    assert caches["intent"]["hits"] >= 1  # the question asked twice
    assert caches["retrieval"]["hits"] >= 1 and caches["retrieval"]["lookups"] > caches["retrieval"]["hits"]


def test_knowledge_misses_are_the_questions_it_could_not_answer(played: dict[str, Conversation]) -> None:
    run_turn(chat_started("f-miss", "en"), "How do I set up the fingerprint sensor for bank apps?")
    run_turn(chat_started("g-miss", "en"), "how do I set up the fingerprint sensor for bank apps? ")

    misses = analytics_report(_today())["knowledge_misses"]

    assert misses["total"] == MissedQuestion.objects.count() >= 2
    assert misses["top"][0] == {
        "question": "How do I set up the fingerprint sensor for bank apps",  # the clause, as it was searched
        "count": 2,
        "unanswered": 2,
    }


def test_each_day_of_the_period_has_its_row(played: dict[str, Conversation]) -> None:
    today = timezone.now().date()
    series = analytics_report(Period(today - timedelta(days=45), today))["series"]

    assert len(series) == 46 and series[-1]["date"] == today.isoformat()
    assert (series[-1]["conversations"], series[-1]["resolved"], series[-1]["ratings"]) == (4, 2, 2)
    assert series[-1]["csat"] == 3.5
    forty_days_ago = next(row for row in series if row["date"] == (today - timedelta(days=40)).isoformat())
    assert forty_days_ago["conversations"] == 1
    assert sum(row["conversations"] for row in series) == 5


@pytest.mark.parametrize(
    ("first", "last", "field"),
    [
        ("2026-13-01", None, "from"),
        (None, "yesterday", "to"),
        ("2026-05-02", "2026-05-01", "from"),
        ("2024-01-01", "2026-01-01", "from"),
    ],
)
def test_a_bad_period_names_the_field(first: Any, last: Any, field: str) -> None:
    from analytics.report import PeriodError

    with pytest.raises(PeriodError) as refused:
        period_parse(first, last)
    assert refused.value.field == field


def test_a_period_defaults_to_the_last_thirty_days() -> None:
    period = period_parse(None, "2026-03-31")
    assert (period.first, period.last) == (date(2026, 3, 2), date(2026, 3, 31))


def test_a_rating_of_one_or_two_says_the_chat_was_not_resolved(played: dict[str, Conversation]) -> None:
    from conversations.services import conversation_end_by_customer, conversation_rate

    chat = chat_started("h-unhappy", "zh")
    run_turn(chat, "退货政策是什么？")
    conversation_end_by_customer(conversation_id=chat.pk)
    conversation_rate(conversation_id=chat.pk, score=1, comment="没用")

    report = analytics_report(_today())

    assert (report["conversations"], report["resolved"]) == (5, 2)
    assert report["containment_rate"] == 0.8  # still no person in it
