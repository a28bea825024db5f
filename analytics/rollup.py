"""Finished days' turn figures, counted once: a report over 90 days reads a few hundred DayFigure rows
instead of every turn, intent record and subtask (bench/analytics_speed.py measures both).

Only what no longer changes once its day is over is rolled up: turns per recognition level, their
latency in buckets 5 % wide, the safety gate's decisions, intent records per intent, and the retrieval and
tool caches' lookups.
A day is rolled up an hour after it ended (its last turns have finished by then), by a beat task every
hour. Days not rolled up yet (today, or all of them before the first run) are counted from the rows
themselves, the same way, so a report reads the same either way. Latency percentiles come from the
buckets, so they are within 5 % of the exact value."""

from __future__ import annotations

import math
import zoneinfo
from collections import Counter
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, F, Func, IntegerField, Q, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import TruncDate
from django.utils import timezone

from agents.models import Subtask, TurnRun
from agents.queue import task_send
from agents.states import TurnStatus
from analytics.models import DayFigure
from conversations.models import IntentRecord

LATENCY_GROWTH = 1.05  # each latency bucket is 5 % wider than the one before
ROLL_AFTER = timedelta(hours=1)
ROLL_AT_MOST_DAYS = 400  # a first run rolls up this many days back, oldest first, over several runs
ROLL_DAYS_PER_RUN = 60
ROLLED = "rolled"  # the marker row: this day's figures are all in DayFigure
ROLL_TASK = "analytics.tasks.day_figures_roll_task"
ROLL_SOON_EVERY_S = 600

Figures = Counter[tuple[str, str]]  # (figure, key) -> value


class LatencyBucket(Func):
    """The bucket of a turn's time from its message to its end: floor(log base 1.05 of the milliseconds)."""

    template = (
        "GREATEST(0, FLOOR(LN(GREATEST(EXTRACT(EPOCH FROM (%(expressions)s)) * 1000, 1)) / "
        f"LN({LATENCY_GROWTH})))::integer"
    )
    arg_joiner = " - "
    output_field = IntegerField()

    def __init__(self) -> None:
        super().__init__(F("finished_at"), F("created_at"))


def latency_of_bucket(bucket: int) -> float:
    """The bucket's middle, in milliseconds (geometric, as the buckets grow by a factor)."""
    return LATENCY_GROWTH ** (bucket + 0.5)


def latency_percentile(buckets: Counter[int], fraction: float) -> float | None:
    total = sum(buckets.values())
    if not total:
        return None
    rank = max(1, math.ceil(fraction * total))
    seen = 0
    for bucket in sorted(buckets):
        seen += buckets[bucket]
        if seen >= rank:
            return round(latency_of_bucket(bucket), 1)
    return None  # not reached: rank <= total


def _zone() -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(settings.ANALYTICS_TIME_ZONE)


def _window(days: Iterable[date], zone: zoneinfo.ZoneInfo) -> Q:
    """created_at within any of the days (consecutive days as one range)."""
    window, ordered = Q(pk__in=[]), sorted(days)
    start = end = None
    for day in [*ordered, None]:
        if day is not None and end is not None and day == end:
            end = day + timedelta(days=1)
            continue
        if start is not None and end is not None:
            window |= Q(
                created_at__gte=datetime.combine(start, time.min, tzinfo=zone),
                created_at__lt=datetime.combine(end, time.min, tzinfo=zone),
            )
        if day is not None:
            start, end = day, day + timedelta(days=1)
    return window


def day_figures_count(days: Iterable[date]) -> Counter[tuple[date, str, str]]:
    """(day, figure, key) -> value for these days, counted from the turns, intent records and subtasks."""
    zone = _zone()
    days = list(days)
    counts: Counter[tuple[date, str, str]] = Counter()
    if not days:
        return counts
    window, day = _window(days, zone), TruncDate("created_at", tzinfo=zone)
    turns = TurnRun.objects.filter(window).annotate(day=day)
    for row in turns.values("day", "intent_level").annotate(
        n=Count("pk"), lookups=Sum("retrieval_lookups"), hits=Sum("retrieval_hits")
    ):
        counts[(row["day"], "turns", row["intent_level"])] += row["n"]
        counts[(row["day"], "retrieval_lookups", "")] += row["lookups"] or 0
        counts[(row["day"], "retrieval_hits", "")] += row["hits"] or 0
    answered = turns.filter(finished_at__isnull=False, status__in=[TurnStatus.DONE, TurnStatus.ESCALATED])
    for row in (
        answered.annotate(bucket=LatencyBucket()).values("day", "intent_level", "bucket").annotate(n=Count("pk"))
    ):
        counts[(row["day"], "latency", f"{row['intent_level']}|{row['bucket']}")] += row["n"]
    gated = turns.exclude(safety={}).annotate(decision=KeyTextTransform("decision", "safety"))
    for row in gated.values("day", "decision").annotate(n=Count("pk")):
        counts[(row["day"], "safety", row["decision"])] += row["n"]
    intents = IntentRecord.objects.filter(window).annotate(day=day)
    for row in intents.values("day", "name").annotate(n=Count("pk")):
        counts[(row["day"], "intent", row["name"])] += row["n"]
    subtasks = Subtask.objects.filter(window).annotate(day=day)
    fields = ("retrieval_lookups", "retrieval_hits", "tool_lookups", "tool_hits")
    for row in subtasks.values("day").annotate(**{f"s_{f}": Sum(f) for f in fields}):
        for name in fields:
            counts[(row["day"], f"subtask_{name}", "")] += row[f"s_{name}"] or 0
    return Counter({k: v for k, v in counts.items() if v})


def day_figures_read(first: date, last: date) -> Figures:
    """(figure, key) -> value over the days from `first` to `last`: rolled-up days from DayFigure, the others
    counted from the rows. Finished days that had to be counted here are rolled up soon, not an hour later."""
    zone_name = settings.ANALYTICS_TIME_ZONE
    stored = DayFigure.objects.filter(time_zone=zone_name, day__gte=first, day__lte=last)
    rolled = set(stored.filter(figure=ROLLED).values_list("day", flat=True))
    figures: Figures = Counter()
    for row in stored.exclude(figure=ROLLED).values("figure", "key").annotate(total=Sum("value")):
        figures[(row["figure"], row["key"])] += row["total"]
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    counted = day_figures_count(d for d in days if d not in rolled)
    for (_, figure, key), value in counted.items():
        figures[(figure, key)] += value
    if any(day <= _last_finished_day(timezone.now()) for day, _, _ in counted):
        _roll_soon()
    return figures


def _last_finished_day(now: datetime) -> date:
    return (now - ROLL_AFTER).astimezone(_zone()).date() - timedelta(days=1)


def _roll_soon() -> None:
    """Queue a roll-up now, at most one in ROLL_SOON_EVERY_S: a store whose beat has not rolled its days up
    yet (a first start, a changed time zone) is slow only until then."""
    if cache.add("analytics:roll-soon", 1, timeout=ROLL_SOON_EVERY_S):
        task_send(ROLL_TASK)


def day_figures_roll(*, now: datetime | None = None) -> int:
    """Roll up the finished days not rolled up yet (the oldest first, a bounded number per run); returns how
    many days were rolled up."""
    zone = _zone()
    now = now or timezone.now()
    last = _last_finished_day(now)
    oldest = TurnRun.objects.order_by("created_at").values_list("created_at", flat=True).first()
    if oldest is None:
        return 0
    first = max(oldest.astimezone(zone).date(), last - timedelta(days=ROLL_AT_MOST_DAYS))
    rolled = set(
        DayFigure.objects.filter(time_zone=zone.key, figure=ROLLED, day__gte=first, day__lte=last).values_list(
            "day", flat=True
        )
    )
    missing = [d for d in (first + timedelta(days=n) for n in range((last - first).days + 1)) if d not in rolled]
    missing = missing[:ROLL_DAYS_PER_RUN]
    counts = day_figures_count(missing)
    with transaction.atomic():
        DayFigure.objects.bulk_create(
            [
                *(
                    DayFigure(time_zone=zone.key, day=day, figure=figure, key=key[:100], value=value)
                    for (day, figure, key), value in counts.items()
                ),
                *(DayFigure(time_zone=zone.key, day=day, figure=ROLLED, key="", value=1) for day in missing),
            ],
            ignore_conflicts=True,  # another run rolled the same day up meanwhile, with the same counts
            batch_size=2000,
        )
    return len(missing)
