"""Celery tasks of the analytics: thin wrappers over its services."""

from __future__ import annotations

from celery import shared_task

from analytics.rollup import day_figures_roll


@shared_task
def day_figures_roll_task() -> int:
    return day_figures_roll()
