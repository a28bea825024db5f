"""Celery tasks: thin wrappers over agents.pipeline / agents.subtasks, ids in, safe to run twice."""

from __future__ import annotations

from celery import Task, shared_task
from django.conf import settings

from agents.pipeline import turn_advance
from agents.reading.staff import decision_refit
from agents.subtasks import subtask_execute, turn_sweep
from conversations.outage import service_outage
from conversations.services import workflows_expire_idle

# Postgres or Redis out mid-turn: try again every few seconds for about two minutes, then leave the
# turn to turn_sweep. The turn is not failed: nothing is wrong with the customer's message.
OUTAGE_RETRIES = 24
OUTAGE_RETRY_S = 5


# A lone subtask runs inside this task (see agents.nodes.route.fan_out), so the soft limit covers it too.
@shared_task(
    bind=True,
    acks_late=True,
    soft_time_limit=settings.TURN_STEP_TIMEOUT_S,
    time_limit=settings.TURN_STEP_TIMEOUT_S + 10,
)
def turn_advance_task(self: Task, turn_id: int) -> str:
    try:
        return turn_advance(turn_id)
    except Exception as exc:
        if service_outage(exc) and self.request.retries < OUTAGE_RETRIES:
            raise self.retry(exc=exc, countdown=OUTAGE_RETRY_S) from exc
        raise


@shared_task(acks_late=True, soft_time_limit=settings.SUBTASK_TIMEOUT_S, time_limit=settings.SUBTASK_TIMEOUT_S + 10)
def subtask_execute_task(subtask_id: int) -> None:
    subtask_execute(subtask_id=subtask_id)


@shared_task
def turn_sweep_task() -> dict[str, int]:
    return turn_sweep()


@shared_task
def workflows_expire_task() -> int:
    return workflows_expire_idle()


@shared_task(acks_late=True)
def decision_refit_task(name: str) -> str:
    return decision_refit(name)
