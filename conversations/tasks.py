"""Celery tasks of conversations: thin wrappers over its services."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from conversations.services import conversations_close_idle


@shared_task
def conversations_close_idle_task() -> int:
    return conversations_close_idle(idle_for=timedelta(hours=settings.CONVERSATION_IDLE_CLOSE_HOURS))
