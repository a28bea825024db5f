from __future__ import annotations

from django.db import models


class DayFigure(models.Model):
    """A finished day's count of something that no longer changes once the day is over (turns, their
    latency buckets, intents, cache lookups), so that a report over many days reads a few rows per day
    instead of every turn (analytics.rollup). Conversation outcomes are never rolled up: a chat started on
    a day can still be closed or rated later."""

    time_zone = models.CharField(max_length=64, help_text="The zone the day is a day of (ANALYTICS_TIME_ZONE).")
    day = models.DateField()
    figure = models.CharField(max_length=32)
    key = models.CharField(max_length=100, blank=True)
    value = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["time_zone", "day", "figure", "key"], name="day_figure_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.figure}[{self.key}] = {self.value}"
