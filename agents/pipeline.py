"""The flow of a turn (seed 000), in one place:

    intent ─► route ─┬─► escalate ────────────────► end
                     ├─► clarify (confidence < 0.5) ─► end
                     └─► agent (parallel subtasks) ─┬─► escalate ─► end
                                                    └─► dialog ───► end

`turn_advance` runs the step for the turn's current status and continues until the turn waits for
its subtasks or ends. Each node lives in agents/nodes/: `recognize` (intent), `route` (route, its
edges, clarify and the fan-out), `reply` (dialog), `escalate`, `fail` (the apology), and `say`, the one
way a reply reaches the customer. Subtasks run in agents.subtasks, on the queue (agents.queue).

Each step does its slow work (models, specialists) outside any transaction,
then commits its rows together with a compare-and-set transition, so running a step twice writes
nothing the second time: no second reply, subtask, ticket or card.
"""

from __future__ import annotations

import logging

from agents.models import Subtask, TurnRun
from agents.nodes.fail import fail
from agents.nodes.recognize import step_recognize
from agents.nodes.reply import step_reply
from agents.nodes.route import step_route
from agents.selectors import turn_to_advance
from agents.states import SubtaskStatus, TurnStatus
from agents.subtasks import subtask_execute
from conversations.outage import service_outage
from knowledge.pinned import knowledge_pinned
from stores.versions import catalogue_version_pinned

logger = logging.getLogger(__name__)

# Which node runs in which status; FANNED_OUT waits for its subtasks, the last of which moves the
# turn to MERGING (agents.services.subtask_record_result), and the terminal statuses run nothing.
STEPS = {
    TurnStatus.RECEIVED: step_recognize,  # → RECOGNIZED
    # → FANNED_OUT, MERGING (a lone subtask), DONE (clarify, or a lone subtask answered in the route's own
    # transaction, with the reply: nodes.route.fan_out), ESCALATED
    TurnStatus.RECOGNIZED: step_route,
    TurnStatus.MERGING: step_reply,  # → DONE, ESCALATED
}


def turn_advance(turn_id: int) -> str:
    """Run steps until the turn waits for subtasks or ends; return the status it stopped in. The knowledge's
    and the catalogue's versions are read once for the run (knowledge.pinned, stores.versions)."""
    with knowledge_pinned(), catalogue_version_pinned():
        return _steps_run(turn_id)


def _steps_run(turn_id: int) -> str:
    turn = turn_to_advance(turn_id)
    if turn.status == TurnStatus.RECEIVED and turn.earlier_unfinished:
        return turn.status  # the earlier turn starts this one when it ends (services.turn_transition)
    # Each step moves the turn in hand along with its row (services.turn_move): it is read once.
    while True:
        step = STEPS.get(TurnStatus(turn.status))
        if step is None:
            return turn.status
        status = turn.status
        try:
            moved = step(turn)
        except Exception as exc:  # noqa: BLE001 - any bug must end in an apology, never silence
            if service_outage(exc):
                raise  # not the turn's fault: the task tries again (agents.tasks)
            logger.exception("turn %s failed in %s", turn_id, turn.status)
            fail(turn, exc)
            return TurnStatus.FAILED
        if not moved:  # another run of this step won the race; it carries on from here
            return TurnRun.objects.values_list("status", flat=True).get(pk=turn_id)
        if turn.status == status:  # moved by a path that left the turn in hand behind: read it again
            turn = turn_to_advance(turn_id)


def turn_run_here(turn_id: int) -> str:
    """Run the turn to its end in this process, its subtasks too, without the queue: the same steps the worker
    runs, for a conversation test (conversation_tests) and the engine's own tests. Returns its last status."""
    status = turn_advance(turn_id)
    if status != TurnStatus.FANNED_OUT:
        return status
    pending = Subtask.objects.filter(turn_id=turn_id, status=SubtaskStatus.PENDING).values_list("pk", flat=True)
    for subtask_id in pending:
        subtask_execute(subtask_id=subtask_id)
    return turn_advance(turn_id)
