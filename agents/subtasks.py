"""Running one subtask, and recovering turns whose subtasks or steps never finished."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from functools import partial
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from agents.answers import SpecialistContext, SpecialistError, SpecialistResult
from agents.models import Subtask, TurnRun
from agents.queue import turn_queue
from agents.reading.message import Reading
from agents.services import as_read_back, subtask_record_result
from agents.specialists import Specialist, specialist_get
from agents.states import SubtaskStatus, TurnStatus
from knowledge.cache_tally import cache_tally
from knowledge.pinned import knowledge_pinned
from stores.versions import catalogue_version_pinned

logger = logging.getLogger(__name__)

TRANSIENT_RETRIES = 3
TRANSIENT_BACKOFF_S = 0.25  # then 0.5 s and 1 s: under 2 s of waiting in all


def subtask_execute(*, subtask_id: int, advance: bool = True) -> bool:
    """Run the subtask's specialist (outside any transaction) and record the outcome.

    A subtask that already has a result is not run again. A failing or hanging specialist is
    recorded as failed / timed out, and the other subtasks still answer. `advance=False` leaves
    queueing the reply step to the caller (the agent node running a lone subtask itself).
    """
    subtask = Subtask.objects.select_related("turn__message", "turn__conversation").get(pk=subtask_id)
    with knowledge_pinned(), catalogue_version_pinned():
        return _execute(subtask, advance=advance)


def subtask_run_inline(turn: TurnRun, subtask: Subtask) -> None:
    """The turn's lone subtask, run by the agent node itself (no queue hop); the turn in hand is MERGING after
    it, unless another run of the node got there first (then it is as that one left it). The subtask in hand
    gets its outcome, recorded with the turn's move in one statement (there is no other subtask to wait for)."""
    subtask.turn = turn
    if _execute(subtask, advance=False, alone=True):
        turn.status = TurnStatus.MERGING
    else:
        turn.status = TurnRun.objects.values_list("status", flat=True).get(pk=turn.pk)


def _execute(subtask: Subtask, *, advance: bool, alone: bool = False) -> bool:
    turn = subtask.turn
    if subtask.status != SubtaskStatus.PENDING or turn.status != TurnStatus.FANNED_OUT:
        return False
    ctx = SpecialistContext(
        turn_id=turn.pk,
        subtask_id=subtask.pk,
        conversation_id=turn.conversation_id,
        customer_id=turn.conversation.customer_id,
        language=turn.language,
        intent=subtask.intent,
        text=subtask.text,
        message_text=turn.message.text,
        entities=turn.entities,
        emotion_score=turn.emotion_score if turn.emotion_score is not None else 0.5,
        digression=subtask.digression,
        reading=Reading.from_json(turn.reading, turn.message.text),
    )
    started = time.perf_counter()
    with cache_tally() as tally:  # what the specialist asked of the retrieval and tool caches
        record = partial(_record, subtask, started=started, advance=advance, alone=alone, cache=tally)
        try:
            result = _answer(specialist_get(subtask.specialist), ctx)
        except SoftTimeLimitExceeded:
            # Raised inside the worker by the task's soft_time_limit (SUBTASK_TIMEOUT_S).
            return record(status=SubtaskStatus.TIMED_OUT, error=f"no answer within {settings.SUBTASK_TIMEOUT_S} s")
        except SpecialistError as exc:  # the specialist said why it cannot answer: no traceback to log
            logger.warning("subtask %s (%s) failed: %s", subtask.pk, subtask.specialist, exc)
            return record(status=SubtaskStatus.FAILED, error=str(exc))
        except Exception as exc:  # noqa: BLE001 - one broken specialist must not sink the turn
            logger.exception("subtask %s (%s) failed", subtask.pk, subtask.specialist)
            return record(status=SubtaskStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
    return record(status=SubtaskStatus.DONE, result=result.as_json())


def _record(subtask: Subtask, *, status: str, result: dict[str, Any] | None = None, **outcome: Any) -> bool:
    """subtask_record_result for the subtask in hand, which is updated to match its row."""
    if not subtask_record_result(
        subtask_id=subtask.pk, turn_id=subtask.turn_id, status=status, result=result, **outcome
    ):
        return False
    subtask.status, subtask.result = status, as_read_back(result or {})
    return True


def _answer(specialist: Specialist, ctx: SpecialistContext) -> SpecialistResult:
    """The specialist's answer. A transient SpecialistError (a remote API timing out) is tried again
    TRANSIENT_RETRIES times, backing off, inside the subtask's time limit; the last one is raised."""
    attempt = 0
    while True:
        try:
            return specialist.run(ctx)
        except SpecialistError as exc:
            if exc.permanent or attempt == TRANSIENT_RETRIES:
                raise
        time.sleep(TRANSIENT_BACKOFF_S * 2**attempt)
        attempt += 1


def turn_sweep() -> dict[str, int]:
    """Recover turns a dead worker left behind (run by beat every 30 s).

    1. Subtasks pending for longer than the timeout are recorded as timed out, so their turn
       merges what the others answered.
    2. Turns stuck in a step for over a minute are queued again; the step's compare-and-set makes
       the retry harmless if the first attempt is in fact still running. A turn that never left
       RECEIVED (stored while the broker was out, or lost with a killed worker) is queued after
       20 s already: nothing of it has run, and the customer is waiting.
    """
    now = timezone.now()
    stale_subtasks = Subtask.objects.filter(
        status=SubtaskStatus.PENDING,
        turn__status=TurnStatus.FANNED_OUT,
        created_at__lt=now - timedelta(seconds=settings.SUBTASK_TIMEOUT_S + 10),
    ).values_list("pk", flat=True)
    timed_out = sum(
        subtask_record_result(subtask_id=pk, status=SubtaskStatus.TIMED_OUT, error="no worker finished it")
        for pk in list(stale_subtasks)
    )
    stuck = list(
        TurnRun.objects.filter(
            Q(status=TurnStatus.RECEIVED, created_at__lt=now - timedelta(seconds=20))
            | Q(status__in=[TurnStatus.RECOGNIZED, TurnStatus.MERGING], created_at__lt=now - timedelta(seconds=60)),
            created_at__gt=now - timedelta(hours=1),
        ).values_list("pk", flat=True)
    )
    for pk in stuck:
        turn_queue(pk)
    return {"timed_out_subtasks": timed_out, "requeued_turns": len(stuck)}
