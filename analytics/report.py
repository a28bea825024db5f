"""The figures of a period, as docs/analytics.md defines them: each one a SQL aggregate over the
tables the engine, the console and the widget already write (nothing is counted twice at run time).

A conversation belongs to the day it started; turns, intent records, escalation cards, ratings and
missed questions to the day they were written. Days are the store's (ANALYTICS_TIME_ZONE)."""

from __future__ import annotations

import zoneinfo
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Avg, Count, Exists, F, Func, Max, OuterRef, Q, QuerySet, Sum
from django.db.models.aggregates import Aggregate
from django.db.models.fields import FloatField
from django.db.models.functions import Lower, Trim, TruncDate

from agents.safety import BLOCK, PASS, REVISE
from analytics.rollup import Figures, day_figures_read, latency_percentile
from conversations.models import ClosedBy, Conversation, IntentLevel, Rating, ResolutionReason
from knowledge.models import MissedQuestion
from tickets.models import EscalationCard

MAX_DAYS = 366
DEFAULT_DAYS = 30
TOP_INTENTS = 15
TOP_MISSES = 10
SATISFIED = 4  # a rating of 4 or 5 counts as satisfied (CSAT %)
UNHAPPY = 2  # a rating of 1 or 2 says the chat was not resolved, whoever closed it


class PeriodError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Period:
    """Whole days, both ends included, in the store's time zone."""

    first: date
    last: date

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(settings.ANALYTICS_TIME_ZONE)

    @property
    def start(self) -> datetime:
        return datetime.combine(self.first, time.min, tzinfo=self.zone)

    @property
    def end(self) -> datetime:
        """The first moment after the period."""
        return datetime.combine(self.last + timedelta(days=1), time.min, tzinfo=self.zone)

    def days(self) -> list[date]:
        return [self.first + timedelta(days=n) for n in range((self.last - self.first).days + 1)]

    def within(self, field: str = "created_at") -> Q:
        return Q(**{f"{field}__gte": self.start, f"{field}__lt": self.end})


def period_parse(first: str | None, last: str | None, *, today: date | None = None) -> Period:
    """`from` and `to` as YYYY-MM-DD (both included); without them, the last 30 days up to today."""
    today = today or datetime.now(zoneinfo.ZoneInfo(settings.ANALYTICS_TIME_ZONE)).date()
    parsed: dict[str, date | None] = {}
    for field, raw in (("from", first), ("to", last)):
        if raw is None or raw.strip() == "":
            parsed[field] = None
            continue
        try:
            parsed[field] = date.fromisoformat(raw.strip())
        except ValueError:
            raise PeriodError(field, f"'{field}' must be a date written YYYY-MM-DD.") from None
    end = parsed["to"] or today
    start = parsed["from"] or end - timedelta(days=DEFAULT_DAYS - 1)
    if start > end:
        raise PeriodError("from", "'from' must not be after 'to'.")
    if (end - start).days + 1 > MAX_DAYS:
        raise PeriodError("from", f"A period is at most {MAX_DAYS} days.")
    return Period(start, end)


# --- SQL building blocks -------------------------------------------------------------------------


class Percentile(Aggregate):
    """percentile_cont: the value below which `fraction` of the rows fall (interpolated)."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: Any, fraction: float, **extra: Any) -> None:
        super().__init__(expression, fraction=float(fraction), **extra)


class SecondsBetween(Func):
    """Seconds from `start` to `end` (two timestamps)."""

    template = "EXTRACT(EPOCH FROM (%(expressions)s))"
    arg_joiner = " - "
    output_field = FloatField()

    def __init__(self, end: str, start: str) -> None:
        super().__init__(F(end), F(start))


# A person took part: the chat went to the staff queue, somebody joined it, or staff closed it.
HUMAN_INVOLVED = Q(escalated_at__isnull=False) | Q(human_joined_at__isnull=False) | Q(closed_by=ClosedBy.STAFF)
SATISFIED_RATING = Exists(Rating.objects.filter(conversation=OuterRef("pk"), score__gte=SATISFIED))
UNHAPPY_RATING = Exists(Rating.objects.filter(conversation=OuterRef("pk"), score__lte=UNHAPPY))
# Resolved: nobody from the staff took part, no rating of 1-2 says otherwise, and the customer confirmed
# (ended it, or rated it 4-5; the store's backend closing it as answered or sorted out) or did not come back
# for a day after the last reply (the assistant closed it: conversations_close_idle).
RESOLVED = (
    ~HUMAN_INVOLVED
    & Q(unhappy=False)
    & (
        Q(closed_by__in=[ClosedBy.CUSTOMER, ClosedBy.ASSISTANT])
        | Q(
            closed_by=ClosedBy.STORE,
            resolution__in=[ResolutionReason.ANSWERED, ResolutionReason.ORDER_FIXED, ResolutionReason.REFUND],
        )
        | Q(satisfied=True)
    )
)
FIGURES = {
    "conversations": Q(),
    "resolved": RESOLVED,
    "contained": ~HUMAN_INVOLVED,
    "escalated": Q(escalated_at__isnull=False),
    "human": HUMAN_INVOLVED,
}


def conversations_in(period: Period) -> QuerySet[Conversation]:
    """The period's conversations in which the customer wrote at least once."""
    return Conversation.objects.filter(period.within(), turn_count__gt=0).annotate(
        satisfied=SATISFIED_RATING, unhappy=UNHAPPY_RATING
    )


def conversations_behind(figure: str, period: Period) -> QuerySet[Conversation]:
    """The conversations a figure counts (the dashboard's drill-down); KeyError for an unknown figure."""
    return conversations_in(period).filter(FIGURES[figure]).order_by("-created_at")


def _durations(name: str, end: str, start: str) -> dict[str, Aggregate]:
    """The median and mean seconds from `start` to `end`, over the rows that have both."""
    seconds, both = SecondsBetween(end, start), Q(**{f"{end}__isnull": False, f"{start}__isnull": False})
    return {f"{name}_p50": Percentile(seconds, 0.5, filter=both), f"{name}_mean": Avg(seconds, filter=both)}


def _rate(part: int | None, whole: int | None) -> float | None:
    return round(part / whole, 4) if whole and part is not None else None


def _round(value: float | None, digits: int = 1) -> float | None:
    return round(value, digits) if value is not None else None


# --- the report ----------------------------------------------------------------------------------


def analytics_report(period: Period) -> dict[str, Any]:
    """Every figure of docs/analytics.md for the period, and a series of them per day."""
    counted = {name: Count("pk", filter=condition) for name, condition in FIGURES.items()}
    totals = conversations_in(period).aggregate(
        **counted,
        turns=Sum("turn_count"),
        **_durations("first_response", "first_human_reply_at", "escalated_at"),
        **_durations("handling", "closed_at", "human_joined_at"),
    )
    conversations = totals["conversations"]
    figures = day_figures_read(period.first, period.last)
    return {
        "period": {
            "from": period.first.isoformat(),
            "to": period.last.isoformat(),
            "time_zone": settings.ANALYTICS_TIME_ZONE,
        },
        "conversations": conversations,
        "resolved": totals["resolved"],
        "resolution_rate": _rate(totals["resolved"], conversations),
        "containment_rate": _rate(totals["contained"], conversations),
        "escalation_rate": _rate(totals["escalated"], conversations),
        "escalations_by_reason": _escalations_by_reason(period),
        "turns_per_conversation": _round(_rate(totals["turns"], conversations), 2),
        "staff": {
            "conversations": totals["human"],
            "first_response_s": {
                "p50": _round(totals["first_response_p50"]),
                "mean": _round(totals["first_response_mean"]),
            },
            "handling_s": {"p50": _round(totals["handling_p50"]), "mean": _round(totals["handling_mean"])},
        },
        "csat": _csat(period),
        "intents": _intents(figures),
        **_turns(figures),
        "knowledge_misses": _knowledge_misses(period),
        "series": _series(period),
    }


def _escalations_by_reason(period: Period) -> dict[str, int]:
    rows = EscalationCard.objects.filter(period.within()).values("reason").annotate(n=Count("pk")).order_by("-n")
    return {row["reason"]: row["n"] for row in rows}


def _csat_of(ratings: QuerySet[Rating]) -> dict[str, Any]:
    figures = ratings.aggregate(n=Count("pk"), mean=Avg("score"), satisfied=Count("pk", filter=Q(score__gte=SATISFIED)))
    return {
        "ratings": figures["n"],
        "mean": _round(figures["mean"], 2),
        "satisfied_rate": _rate(figures["satisfied"], figures["n"]),
    }


def _csat(period: Period) -> dict[str, Any]:
    ratings = Rating.objects.filter(period.within())
    by_staff = (
        ratings.filter(staff__isnull=False)
        .values("staff__username")
        .annotate(n=Count("pk"), mean=Avg("score"))
        .order_by("-n", "staff__username")
    )
    return {
        **_csat_of(ratings),
        "assistant": _csat_of(ratings.filter(staff__isnull=True)),
        "staff": _csat_of(ratings.filter(staff__isnull=False)),
        "by_staff": [
            {"staff": row["staff__username"], "ratings": row["n"], "mean": _round(row["mean"], 2)} for row in by_staff
        ],
    }


def _intents(figures: Figures) -> dict[str, int]:
    counted = sorted(
        ((key, n) for (figure, key), n in figures.items() if figure == "intent"), key=lambda kn: (-kn[1], kn[0])
    )
    return dict(counted[:TOP_INTENTS])


def _turns(figures: Figures) -> dict[str, Any]:
    """Latency per recognition level (the reply's turn, from the message stored to the turn's end) and the
    three caches' hit rates, from the period's day figures (analytics.rollup)."""
    buckets: dict[str, Counter[int]] = defaultdict(Counter)
    for (figure, key), n in figures.items():
        if figure == "latency":
            level, bucket = key.rsplit("|", 1)
            buckets[level][int(bucket)] += n
    latency = {level: _latency(counted) for level, counted in sorted(buckets.items()) if level}
    latency["all"] = _latency(sum(buckets.values(), Counter()))

    def rate(hits: int, lookups: int) -> dict[str, Any]:
        return {"lookups": lookups, "hits": hits, "rate": _rate(hits, lookups)}

    # The intent cache is asked for every message the rules do not decide; the retrieval cache by the
    # recognition step's search and by the specialists, the tool cache by the specialists' reads.
    asked = [IntentLevel.CACHE, IntentLevel.LLM, IntentLevel.CLASSIFIER]
    decisions = {key: n for (figure, key), n in figures.items() if figure == "safety"}
    return {
        "latency_ms": latency,
        "safety": {decision: decisions.get(decision, 0) for decision in (PASS, REVISE, BLOCK)},
        "cache_hit_rates": {
            "intent": rate(figures[("turns", IntentLevel.CACHE)], sum(figures[("turns", level)] for level in asked)),
            "retrieval": rate(
                figures[("retrieval_hits", "")] + figures[("subtask_retrieval_hits", "")],
                figures[("retrieval_lookups", "")] + figures[("subtask_retrieval_lookups", "")],
            ),
            "tools": rate(figures[("subtask_tool_hits", "")], figures[("subtask_tool_lookups", "")]),
        },
    }


def _latency(buckets: Counter[int]) -> dict[str, Any]:
    return {
        "turns": sum(buckets.values()),
        "p50": latency_percentile(buckets, 0.5),
        "p95": latency_percentile(buckets, 0.95),
    }


def _knowledge_misses(period: Period) -> dict[str, Any]:
    """The questions the knowledge base could not answer, the same wording (case and spaces aside) counted
    together; the admin's knowledge gaps also group them by meaning."""
    missed = MissedQuestion.objects.filter(period.within())
    top = (
        missed.annotate(wording=Lower(Trim("question")))
        .values("wording")
        .annotate(shown=Max("question"), n=Count("pk"), unanswered=Count("pk", filter=Q(answered_at__isnull=True)))
        .order_by("-n", "wording")[:TOP_MISSES]
    )
    totals = missed.aggregate(n=Count("pk"), unanswered=Count("pk", filter=Q(answered_at__isnull=True)))
    return {
        "total": totals["n"],
        "unanswered": totals["unanswered"],
        "top": [{"question": row["shown"].strip(), "count": row["n"], "unanswered": row["unanswered"]} for row in top],
    }


def _series(period: Period) -> list[dict[str, Any]]:
    """One row per day of the period (days without conversations included, as zeros)."""
    day = TruncDate("created_at", tzinfo=period.zone)
    counted = {name: Count("pk", filter=condition) for name, condition in FIGURES.items() if name != "human"}
    chats = {row["day"]: row for row in conversations_in(period).annotate(day=day).values("day").annotate(**counted)}
    rated = {
        row["day"]: row
        for row in Rating.objects.filter(period.within())
        .annotate(day=day)
        .values("day")
        .annotate(ratings=Count("pk"), mean=Avg("score"))
    }
    series = []
    for each in period.days():
        row, rating = chats.get(each, {}), rated.get(each, {})
        conversations = row.get("conversations", 0)
        series.append(
            {
                "date": each.isoformat(),
                "conversations": conversations,
                "resolved": row.get("resolved", 0),
                "escalated": row.get("escalated", 0),
                "resolution_rate": _rate(row.get("resolved", 0), conversations),
                "containment_rate": _rate(row.get("contained", 0), conversations),
                "ratings": rating.get("ratings", 0),
                "csat": _round(rating.get("mean"), 2),
            }
        )
    return series
