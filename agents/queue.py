"""The one place the engine puts work on the Celery queue, always after the commit that made it.

Tasks are sent by name, so the services and steps below `agents.tasks` never import it: the tasks
call down into the engine, the engine sends work up by name, and there is no import circle. With
the broker out, a turn stays stored and `turn_sweep` queues it once the broker is back; the request
that stored it succeeds all the same.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db import transaction

from conversations.outage import service_outage

logger = logging.getLogger(__name__)

TURN_ADVANCE = "agents.tasks.turn_advance_task"
SUBTASK_EXECUTE = "agents.tasks.subtask_execute_task"
DECISION_REFIT = "agents.tasks.decision_refit_task"


class _Sent:
    """What send_task returns for a task whose result nobody reads (the engine's tasks keep theirs on their
    rows): Celery's AsyncResult would make the thread's result backend, which under ASGI is once per request."""

    def __init__(self, task_id: str) -> None:
        self.id = task_id


def task_send(name: str, *args: object) -> None:
    """Queue task `name` now on the project's queue; an unreachable broker is logged, not raised (the sweep
    recovers)."""
    try:
        current_app.send_task(
            name, args=args, queue=settings.CELERY_TASK_DEFAULT_QUEUE, ignore_result=True, result_cls=_Sent
        )
    except Exception as exc:
        if not service_outage(exc):
            raise
        logger.warning("%s%s not queued (broker unavailable); the sweep will queue it", name, args)


def turn_queue(turn_id: int) -> None:
    task_send(TURN_ADVANCE, turn_id)


def turn_queue_on_commit(turn_id: int) -> None:
    transaction.on_commit(lambda: task_send(TURN_ADVANCE, turn_id))


def subtask_queue_on_commit(subtask_id: int) -> None:
    transaction.on_commit(lambda: task_send(SUBTASK_EXECUTE, subtask_id))


def decision_refit_queue_on_commit(name: str) -> None:
    transaction.on_commit(lambda: task_send(DECISION_REFIT, name))
