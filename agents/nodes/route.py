"""The route node and its edges: escalate, clarify, or fan out to the specialists (parallel subtasks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from agents import dialog
from agents.intents.catalogue import catalogue_get
from agents.intents.emotion import is_offensive
from agents.intents.entities.extract import extract_entities
from agents.llm.client import llm_enabled
from agents.models import RouteDecision, Subtask, TurnRun
from agents.nodes.escalate import callback_collect, escalate, escalate_locked
from agents.nodes.recognize import workflow_intent
from agents.nodes.reply import step_reply
from agents.nodes.say import send_reply
from agents.queue import subtask_queue_on_commit
from agents.reading.message import Reading
from agents.requests import requests_in_order
from agents.route import PRIVATE_QUERIES, PlannedPart, clarify_picked, route_plan
from agents.services import SubtaskPlan, subtasks_writes, turn_entities_set, turn_move
from agents.specialists import specialist_get
from agents.states import TurnStatus
from agents.subtasks import subtask_run_inline
from agents.taxonomy import KNOWLEDGE_INTENTS, WORKFLOW_INTENTS, Intent, Specialist, specialists_for
from agents.workflows.definitions import FREE_TEXT_SLOTS, WORKFLOW_FOR_INTENT
from agents.workflows.progress import Progress, Said, said_before
from agents.workflows.runner import order_typo_fix, workflow_active
from agents.workflows.switch import is_slot_answer
from conversations.models import (
    ConversationStatus,
    IntentLevel,
    WorkflowState,
    WorkflowStatus,
)
from conversations.services import conversation_failed_attempts_set, conversation_lock, workflow_open
from knowledge.hits import KnowledgeHit
from tickets.models import EscalationReason


@dataclass(frozen=True)
class RouteChoice:
    route: RouteDecision
    reason: str = ""  # EscalationReason for ESCALATE


# Anger beyond this emotion score (several strong cues with emphasis: "气死我了！！！太过分了") goes to a
# person even beside a request; disappointment, even intensified ("really disappointed", ≈0.08), does not.
HOSTILE_BELOW = 0.01


# What the bot can do for an upset customer at once: carry out a request or look up their order.
_ACTIONABLE = WORKFLOW_INTENTS | PRIVATE_QUERIES


def route_decide(
    *,
    parts: list[PlannedPart],
    failed_attempts: int,
    emotion_score: float = 0.5,
    offensive: bool = False,
    workflow_paused: bool = False,
) -> RouteChoice:
    """The conditional edge after `route` (seed 000), by priority: human request > emotion_sensitive >
    failed_attempts ≥ threshold > nothing to answer (clarify) > agent. `parts` is the route plan
    (agents.route), in which a human request is only an explicit or confident one.

    An upset customer is handed to a person when there is nothing the bot can do for them now, or
    when they are hostile (insults, or fury below HOSTILE_BELOW). One who asks for something the bot
    can do ("really disappointed with the mouse, I want to exchange it"), or who is in the middle of
    a request, gets it done, opened with a soothing line: a handover, often to nobody online, would
    only delay the fix; a failure after that still escalates."""
    names = [part.intent for part in parts]
    if Intent.HUMAN_REQUEST in names:
        return RouteChoice(RouteDecision.ESCALATE, EscalationReason.REQUESTED)
    if Intent.EMOTION_SENSITIVE in names:
        can_help = workflow_paused or any(name in _ACTIONABLE for name in names)
        if offensive or emotion_score < HOSTILE_BELOW or not can_help:
            return RouteChoice(RouteDecision.ESCALATE, EscalationReason.EMOTION)
    if failed_attempts >= settings.ESCALATE_FAILED_THRESHOLD:
        return RouteChoice(RouteDecision.ESCALATE, EscalationReason.REPEATED_FAILURE)
    if not parts:
        return RouteChoice(RouteDecision.CLARIFY)
    return RouteChoice(RouteDecision.AGENT)


def _plan(turn: TurnRun, reading: Reading) -> list[PlannedPart]:
    return route_plan(
        intents=turn.intents,
        knowledge=[KnowledgeHit.from_json(hit) for hit in turn.knowledge],
        entities=turn.entities,
        rule_human=turn.intent_level == IntentLevel.RULE,
        reading=reading,
    )


def _clarified(turn: TurnRun, reading: Reading) -> list[PlannedPart]:
    """An answer to the clarifying question just asked ("Cancel an order", "the first one", "yes"):
    the intent it picks, applied to the unclear message, whose order ids and products it inherits."""
    if getattr(turn, "previous_route", RouteDecision.CLARIFY) != RouteDecision.CLARIFY:
        return []  # known from reading the turn (agents.selectors.turn_to_advance): nothing was asked
    before = (
        TurnRun.objects.filter(conversation_id=turn.conversation_id, pk__lt=turn.pk)
        .select_related("message")
        .order_by("-pk")
        .first()
    )
    if before is None or before.route != RouteDecision.CLARIFY or "prompt_injection" in before.flags:
        return []
    offered = dialog.clarify_choices([i["name"] for i in before.intents if i["name"] != Intent.OUT_OF_SCOPE])
    picked = clarify_picked(
        turn.message.text, reading.whole, [(c, tuple(dialog.INTENT_LABELS[c].values())) for c in offered]
    )
    if picked is None:
        return []
    turn_entities_set(turn, {**before.entities, **turn.entities})
    return [PlannedPart(Intent(picked), before.message.text, 1.0, "intent")]


def step_route(turn: TurnRun) -> bool:
    conversation = turn.conversation
    if conversation.status == ConversationStatus.WAITING_HUMAN:
        return callback_collect(turn)
    reading = Reading.from_json(turn.reading, turn.message.text)
    parts = _clarified(turn, reading) or _plan(turn, reading)
    # the recognize step of this run has just read it
    workflow = turn.active_workflow if hasattr(turn, "active_workflow") else workflow_active(conversation.pk)
    choice = route_decide(
        parts=parts,
        failed_attempts=conversation.failed_attempts,
        emotion_score=turn.emotion_score if turn.emotion_score is not None else 0.5,
        offensive=is_offensive(turn.message.text),
        workflow_paused=workflow is not None,
    )
    if choice.route == RouteDecision.ESCALATE:
        return escalate(turn, from_=TurnStatus.RECOGNIZED, reason=choice.reason)
    if workflow is not None:
        # A paused workflow takes the message (a slot answer, a yes/no, a correction), whatever
        # its classified intent; a question beside it is answered too (a digression).
        asides = _digressions(turn, workflow, parts, reading)
        return fan_out(
            turn, parts=asides, reading=reading, workflow_intent=workflow_intent(workflow), digression=bool(asides)
        )
    if choice.route == RouteDecision.CLARIFY:
        return clarify(turn)
    return fan_out(turn, parts=parts, reading=reading)


def _digressions(
    turn: TurnRun, workflow: WorkflowState, parts: list[PlannedPart], reading: Reading
) -> list[PlannedPart]:
    """The questions to answer beside a paused workflow: none when the message is for the workflow."""
    own = workflow_intent(workflow)
    if workflow.step in FREE_TEXT_SLOTS:  # "describe the fault": whatever comes next is the answer
        return []
    if order_typo_fix(workflow, turn.entities) is not None:  # "the correct order number is #W…": no question
        return []
    top = turn.intents[0] if turn.intents else None
    if top is not None and is_slot_answer(
        workflow.step,
        turn.message.text,
        reading.whole,
        turn.entities,
        other_intent_confidence=top["confidence"],
        before=said_before(workflow.slots, Progress.load(workflow.progress)),
    ):
        return []
    return [
        part
        for part in parts
        if part.intent.value != own
        and part.intent not in WORKFLOW_INTENTS
        and part.intent not in (Intent.CHITCHAT, Intent.OUT_OF_SCOPE, Intent.EMOTION_SENSITIVE)
        # a knowledge question the knowledge base cannot answer would only add "I couldn't find that"
        and (part.via == "knowledge" or (part.confidence >= 0.7 and part.intent not in KNOWLEDGE_INTENTS))
    ]


def _answers_in_transaction(subtask: Subtask) -> bool:
    return not llm_enabled() and specialist_get(subtask.specialist).answers_in_transaction


def fan_out(
    turn: TurnRun,
    *,
    parts: list[PlannedPart],
    reading: Reading,
    workflow_intent: str = "",
    digression: bool = False,
) -> bool:
    """One subtask per (intent, specialist); each runs as its own Celery task.

    A lone subtask runs right here instead (seed 000: "a single subtask runs synchronously,
    avoiding thread pool overhead"): the same rows and compare-and-set steps, minus two queue hops.
    """
    queued: list[PlannedPart] = []
    if not workflow_intent:
        parts, queued = requests_in_order(turn.message.text, parts, reading)
        # an upset customer's request opens with the soothing line, wherever the feeling was said
        parts.sort(key=lambda part: part.intent != Intent.EMOTION_SENSITIVE)
    plan = [(part.intent.value, part.text, specialists_for(part.intent)) for part in parts]
    if workflow_intent:  # the paused workflow gets the message last, so its prompt ends the reply
        plan.append((workflow_intent, turn.message.text, [Specialist.TICKET]))
    created, subtask_writes = subtasks_writes(
        turn,
        [
            SubtaskPlan(
                specialist=specialist.value,
                intent=intent,
                text=text or turn.message.text,
                digression=digression and intent == workflow_intent and specialist == Specialist.TICKET,
            )
            for intent, text, specialists in plan
            for specialist in specialists
        ],
    )
    with transaction.atomic():
        if not turn_move(
            turn, from_=TurnStatus.RECOGNIZED, to=TurnStatus.FANNED_OUT, route=RouteDecision.AGENT, along=subtask_writes
        ):
            return False
        if queued:
            _queue_requests(turn, queued)
        if len(created) > 1:
            for subtask in created:
                subtask_queue_on_commit(subtask.pk)
            return False  # stays FANNED_OUT: the last subtask to finish moves the turn on
        if _answers_in_transaction(created[0]):
            # One transaction from the route to the stored reply: nothing of the turn is seen half done,
            # and a worker dying midway leaves it RECOGNIZED for the sweep to run again.
            return _lone_subtask_answered(turn, created)
    return _lone_subtask_answered(turn, created)


def _lone_subtask_answered(turn: TurnRun, created: list[Subtask]) -> bool:
    """Run the turn's one subtask here, then its reply in this same run, from the subtask in hand."""
    subtask_run_inline(turn, created[0])
    return turn.status == TurnStatus.MERGING and step_reply(turn, subtasks=created)  # else another run got there


# Queued requests wait for the ones before them, each of which may take several messages.
QUEUED_TIMEOUT = timedelta(hours=1)


def _queue_requests(turn: TurnRun, requests: list[PlannedPart]) -> None:
    """Keep the later requests of a message; each starts when the one before it ends (inside atomic())."""
    catalogue = catalogue_get()
    for request in requests:
        workflow_open(
            conversation_id=turn.conversation_id,
            kind=WORKFLOW_FOR_INTENT[request.intent.value],
            status=WorkflowStatus.QUEUED,
            progress=Progress(
                pending=[Said(text=request.text, entities=extract_entities(request.text, catalogue))]
            ).dump(),
            expires_at=turn.created_at + QUEUED_TIMEOUT,
        )


def clarify(turn: TurnRun) -> bool:
    """Ask one clarifying question; it counts as an unresolved turn."""
    reply = dialog.clarify_reply(
        language=turn.language,
        candidates=[i["name"] for i in turn.intents if i["name"] != Intent.OUT_OF_SCOPE],
        injection="prompt_injection" in turn.flags,
    )
    with transaction.atomic():
        conversation = conversation_lock(turn.conversation_id)
        failed = conversation.failed_attempts + 1
        if failed >= settings.ESCALATE_FAILED_THRESHOLD:
            conversation_failed_attempts_set(conversation_id=conversation.pk, count=failed)
            return escalate_locked(
                turn, conversation, from_=TurnStatus.RECOGNIZED, reason=EscalationReason.LOW_CONFIDENCE
            )
        return send_reply(turn, reply, from_=TurnStatus.RECOGNIZED, route=RouteDecision.CLARIFY, failed_attempts=failed)
