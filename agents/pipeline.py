"""The flow of a turn (seed 000), in one place:

    intent ─► route ─┬─► escalate ────────────────► end
                     ├─► clarify (confidence < 0.5) ─► end
                     └─► agent (parallel subtasks) ─┬─► escalate ─► end
                                                    └─► dialog ───► end

`turn_advance` runs the step for the turn's current status and continues until the turn waits for
its subtasks or ends. Each step does its slow work (models, specialists) outside any transaction,
then commits its rows together with a compare-and-set transition, so running a step twice writes
nothing the second time: no second reply, subtask, ticket or card.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F

from agents import dialog
from agents.escalation import escalated_event, escalation_card_data
from agents.intents.catalogue import catalogue_get
from agents.intents.emotion import is_offensive
from agents.intents.entities import extract_entities
from agents.intents.offline import split_clauses
from agents.intents.recognize import Recognition, recognize
from agents.intents.rules import rule_fast_path
from agents.intents.switch import is_slot_answer
from agents.intents.taxonomy import KNOWLEDGE_INTENTS, WORKFLOW_INTENTS, Intent, Specialist, specialists_for
from agents.llm.client import LLMResult, llm_enabled
from agents.models import RouteDecision, Subtask, TurnRun
from agents.pii import mask_pii
from agents.route import PRIVATE_QUERIES, KnowledgeHit, PlannedPart, clarify_picked, requests_in_order, route_plan
from agents.selectors import turn_earlier_unfinished
from agents.services import bot_message_send, turn_transition
from agents.specialists.emotion import soothing_line
from agents.specialists.human import callback_confirmed_line, handoff_line, nobody_online_line
from agents.specialists.knowledge import knowledge_hits
from agents.states import SubtaskStatus, TurnStatus
from agents.store.models import Order
from agents.verification import verified_customer
from agents.workflows.definitions import FREE_TEXT_SLOTS, WORKFLOW_FOR_INTENT, WORKFLOWS
from agents.workflows.runner import order_typo_fix, workflow_active, workflows_queued_cancel
from conversations.models import (
    Conversation,
    ConversationStatus,
    IntentLevel,
    IntentRecord,
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.outage import service_outage
from conversations.realtime import (
    send_conversation_event_now,
    send_conversation_event_on_commit,
    send_conversation_events_now,
    send_staff_event_on_commit,
)
from conversations.services import conversation_lock, conversation_wait_for_human
from knowledge.embeddings import EmbeddingsUnavailable, query_vectors
from tickets.models import EscalationReason, Ticket, TicketKind, TicketPriority
from tickets.presence import staff_online_count
from tickets.services import escalation_card_create, ticket_create

logger = logging.getLogger(__name__)

# A contact request stays open for a day: the customer may come back to the tab much later.
CALLBACK_TIMEOUT = timedelta(days=1)


def turn_advance(turn_id: int) -> str:
    """Run steps until the turn waits for subtasks or ends; return the status it stopped in."""
    steps = {
        TurnStatus.RECEIVED: _step_recognize,
        TurnStatus.RECOGNIZED: _step_route,
        TurnStatus.MERGING: _step_reply,
    }
    while True:
        turn = TurnRun.objects.select_related("message", "conversation__customer").get(pk=turn_id)
        step = steps.get(TurnStatus(turn.status))
        if step is None:
            return turn.status
        if turn.status == TurnStatus.RECEIVED and turn_earlier_unfinished(turn):
            return turn.status  # the earlier turn starts this one when it ends (services.turn_transition)
        try:
            moved = step(turn)
        except Exception as exc:  # noqa: BLE001 - any bug must end in an apology, never silence
            if service_outage(exc):
                raise  # not the turn's fault: the task tries again (agents.tasks)
            logger.exception("turn %s failed in %s", turn_id, turn.status)
            _fail(turn, exc)
            return TurnStatus.FAILED
        if not moved:  # another run of this step won the race; it carries on from here
            return TurnRun.objects.values_list("status", flat=True).get(pk=turn_id)


# --- intent --------------------------------------------------------------------------------


def _usage_fields(usage: list[LLMResult]) -> dict[str, Any]:
    if not usage:
        return {}
    return {
        "llm_calls": F("llm_calls") + len(usage),
        "llm_prompt_tokens": F("llm_prompt_tokens") + sum(u.prompt_tokens for u in usage),
        "llm_completion_tokens": F("llm_completion_tokens") + sum(u.completion_tokens for u in usage),
        "llm_cost": F("llm_cost") + sum((u.cost for u in usage), Decimal("0")),
    }


_lookup_pool: tuple[int, ThreadPoolExecutor] | None = None


def _knowledge_in_thread(texts: list[str], language: str) -> list[KnowledgeHit]:
    close_old_connections()  # this thread keeps its own connection between turns
    return knowledge_hits(texts, language=language)


def _knowledge_lookup_start(text: str, language: str) -> Callable[[list[str]], list[KnowledgeHit]]:
    """Search the knowledge base for the message and its clauses while intents are recognised.

    Returns a function that waits for the hits and adds any other texts (an LLM's clauses). The
    query embeddings are computed first, in one batch that the intent classifier reuses from the
    cache, so the two searches overlap only on the database. Inside a transaction the search runs
    when asked for instead: another connection would not see this transaction's rows.
    """
    global _lookup_pool
    texts = list(dict.fromkeys([text, *split_clauses(text)]))
    try:
        query_vectors(texts)
    except EmbeddingsUnavailable:
        return lambda more: []
    if connection.in_atomic_block:
        return lambda more: knowledge_hits([*texts, *more], language=language)
    if _lookup_pool is None or _lookup_pool[0] != os.getpid():  # a worker child forked after it was made
        _lookup_pool = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="knowledge"))
    future = _lookup_pool[1].submit(_knowledge_in_thread, texts, language)

    def wait(more: list[str]) -> list[KnowledgeHit]:
        hits = future.result()
        extra = [t for t in more if t not in texts]
        return hits + (knowledge_hits(extra, language=language) if extra else [])

    return wait


def _llm_context(turn: TurnRun, hits: list[KnowledgeHit]) -> str:
    """What the LLM classifier is told besides the message: matching passages, the customer's orders."""
    lines = [f"Help-centre passage that matches: {hit.passage}" for hit in hits if hit.matched and hit.passage][:3]
    customer = verified_customer(turn.conversation)
    if customer is not None:
        for order in Order.objects.filter(customer=customer).prefetch_related("items").order_by("-placed_at")[:5]:
            items = ", ".join(item.name for item in order.items.all())
            lines.append(f"Customer's order {order.external_id}: {order.status} ({items})")
    return "\n".join(lines)


def _step_recognize(turn: TurnRun) -> bool:
    text = turn.message.text
    # Greetings, thanks and explicit human requests need no search (the rule fast path).
    lookup = _knowledge_lookup_start(text, turn.language) if rule_fast_path(text) is None else (lambda more: [])
    context = ""
    if llm_enabled():  # the model classifies knowing the matching passages and the customer's orders
        context = _llm_context(turn, lookup([]))
    recognition = recognize(text, catalogue=catalogue_get(), context=context)
    hits = lookup([score.text for score in recognition.intents])
    flags = list(recognition.flags)
    with transaction.atomic():
        workflow = workflow_active(turn.conversation_id)
        switched = workflow is not None and _is_intent_switch(workflow, recognition)
        if not turn_transition(
            turn_id=turn.pk,
            from_=TurnStatus.RECEIVED,
            to=TurnStatus.RECOGNIZED,
            reason=f"{recognition.level}: {recognition.top.intent.value} {recognition.top.confidence:.2f}",
            intents=recognition.as_json(),
            entities=recognition.entities,
            emotion_score=recognition.emotion_score,
            intent_level=recognition.level,
            intent_cache_hit=recognition.cache_hit,
            flags=[*flags, "intent_switch"] if switched else flags,
            knowledge=[hit.as_json() for hit in hits],
            **_usage_fields(recognition.llm_usage),
        ):
            return False
        if switched:
            # The abandoned topic's slots are reset (and what was queued behind it); the rows stay as
            # history of what was collected.
            WorkflowState.objects.filter(pk=workflow.pk, status=WorkflowStatus.ACTIVE).update(
                status=WorkflowStatus.CANCELLED, step=""
            )
            workflows_queued_cancel(turn.conversation_id)
        IntentRecord.objects.bulk_create(
            IntentRecord(
                conversation_id=turn.conversation_id,
                message_id=turn.message_id,
                name=score.intent.value,
                confidence=round(min(max(score.confidence, 0.0), 1.0), 4),
                level=recognition.level,
                entities=recognition.entities,
                emotion_score=min(max(recognition.emotion_score, 0.0), 1.0),
            )
            for score in recognition.intents
        )
        Conversation.objects.filter(pk=turn.conversation_id).update(current_intent=recognition.top.intent.value)
    return True


def _is_intent_switch(workflow: WorkflowState, recognition: Recognition) -> bool:
    """Another workflow, confidently asked for, and not an answer to the awaited slot.

    Questions in the middle of a workflow are digressions instead: answered, then the workflow
    prompt is repeated (see _fan_out).
    """
    # The first request of the message counts, not its first clause: "ugh, the boots were a
    # disappointment. returning them, order #W1" asks for a return after a feeling.
    asked = next((s for s in recognition.intents if s.intent in WORKFLOW_INTENTS), None)
    if asked is None or asked.confidence < 0.7 or _same_request(asked.intent, workflow):
        return False
    if (
        workflow.step == "new_item_ids"
        and asked.intent in (Intent.RETURN, Intent.CANCEL_ORDER)
        and asked.confidence >= 0.85
    ):
        return True  # "what should it become?" is not answered by "I'd like to return the camera and the kit"
    return not is_slot_answer(workflow.step, asked.text, recognition.entities, other_intent_confidence=asked.confidence)


# An exchange and an item change are one request whose name depends on the order's status.
_ITEM_CHANGES = frozenset({Intent.EXCHANGE.value, Intent.MODIFY_ORDER.value})


def _same_request(intent: Intent, workflow: WorkflowState) -> bool:
    own = _workflow_intent(workflow)
    return intent.value == own or {intent.value, own} <= _ITEM_CHANGES


def _workflow_intent(workflow: WorkflowState) -> str:
    if workflow.kind == WorkflowKind.VERIFY:
        return str(workflow.slots.get("intent", ""))
    return WORKFLOWS[workflow.kind].intent.value


# --- route ---------------------------------------------------------------------------------


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


def _plan(turn: TurnRun) -> list[PlannedPart]:
    return route_plan(
        intents=turn.intents,
        knowledge=[KnowledgeHit.from_json(hit) for hit in turn.knowledge],
        entities=turn.entities,
        rule_human=turn.intent_level == IntentLevel.RULE,
    )


def _clarified(turn: TurnRun) -> list[PlannedPart]:
    """An answer to the clarifying question just asked ("Cancel an order", "the first one", "yes"):
    the intent it picks, applied to the unclear message, whose order ids and products it inherits."""
    before = (
        TurnRun.objects.filter(conversation_id=turn.conversation_id, pk__lt=turn.pk)
        .select_related("message")
        .order_by("-pk")
        .first()
    )
    if before is None or before.route != RouteDecision.CLARIFY or "prompt_injection" in before.flags:
        return []
    offered = dialog.clarify_choices([i["name"] for i in before.intents if i["name"] != Intent.OUT_OF_SCOPE])
    picked = clarify_picked(turn.message.text, [(c, tuple(dialog.INTENT_LABELS[c].values())) for c in offered])
    if picked is None:
        return []
    turn.entities = {**before.entities, **turn.entities}
    TurnRun.objects.filter(pk=turn.pk).update(entities=turn.entities)
    return [PlannedPart(Intent(picked), before.message.text, 1.0, "intent")]


def _step_route(turn: TurnRun) -> bool:
    conversation = turn.conversation
    if conversation.status == ConversationStatus.WAITING_HUMAN:
        return _callback_collect(turn)
    parts = _clarified(turn) or _plan(turn)
    workflow = workflow_active(conversation.pk)
    choice = route_decide(
        parts=parts,
        failed_attempts=conversation.failed_attempts,
        emotion_score=turn.emotion_score if turn.emotion_score is not None else 0.5,
        offensive=is_offensive(turn.message.text),
        workflow_paused=workflow is not None,
    )
    if choice.route == RouteDecision.ESCALATE:
        return _escalate(turn, from_=TurnStatus.RECOGNIZED, reason=choice.reason)
    if workflow is not None:
        # A paused workflow takes the message (a slot answer, a yes/no, a correction), whatever
        # its classified intent; a question beside it is answered too (a digression).
        asides = _digressions(turn, workflow, parts)
        return _fan_out(turn, parts=asides, workflow_intent=_workflow_intent(workflow), digression=bool(asides))
    if choice.route == RouteDecision.CLARIFY:
        return _clarify(turn)
    return _fan_out(turn, parts=parts)


def _digressions(turn: TurnRun, workflow: WorkflowState, parts: list[PlannedPart]) -> list[PlannedPart]:
    """The questions to answer beside a paused workflow: none when the message is for the workflow."""
    own = _workflow_intent(workflow)
    if workflow.step in FREE_TEXT_SLOTS:  # "describe the fault": whatever comes next is the answer
        return []
    if order_typo_fix(workflow, turn.entities) is not None:  # "the correct order number is #W…": no question
        return []
    top = turn.intents[0] if turn.intents else None
    if top is not None and is_slot_answer(
        workflow.step, turn.message.text, turn.entities, other_intent_confidence=top["confidence"]
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


def _fan_out(turn: TurnRun, *, parts: list[PlannedPart], workflow_intent: str = "", digression: bool = False) -> bool:
    """One subtask per (intent, specialist); each runs as its own Celery task.

    A lone subtask runs right here instead (seed 000: "a single subtask runs synchronously,
    avoiding thread pool overhead"): the same rows and compare-and-set steps, minus two queue hops.
    """
    from agents.subtasks import subtask_execute
    from agents.tasks import subtask_execute_task

    queued: list[PlannedPart] = []
    if not workflow_intent:
        parts, queued = requests_in_order(turn.message.text, parts)
        # an upset customer's request opens with the soothing line, wherever the feeling was said
        parts.sort(key=lambda part: part.intent != Intent.EMOTION_SENSITIVE)
    with transaction.atomic():
        if not turn_transition(
            turn_id=turn.pk, from_=TurnStatus.RECOGNIZED, to=TurnStatus.FANNED_OUT, route=RouteDecision.AGENT
        ):
            return False
        if queued:
            _queue_requests(turn, queued)
        plan = [(part.intent.value, part.text, specialists_for(part.intent)) for part in parts]
        if workflow_intent:  # the paused workflow gets the message last, so its prompt ends the reply
            plan.append((workflow_intent, turn.message.text, [Specialist.TICKET]))
        subtasks = []
        for intent, text, specialists in plan:
            for specialist in specialists:
                subtasks.append(
                    Subtask(
                        turn=turn,
                        position=len(subtasks),
                        specialist=specialist.value,
                        intent=intent,
                        text=text or turn.message.text,
                        digression=digression and intent == workflow_intent and specialist == Specialist.TICKET,
                    )
                )
        created = Subtask.objects.bulk_create(subtasks)
        if len(created) > 1:
            for subtask in created:
                subtask_execute_task.delay_on_commit(subtask.pk)
    if len(created) == 1:
        subtask_execute(subtask_id=created[0].pk, advance=False)
        return True  # MERGING now: carry on to the reply in this same run
    # Stays FANNED_OUT: the last subtask to finish moves the turn on.
    return False


# Queued requests wait for the ones before them, each of which may take several messages.
QUEUED_TIMEOUT = timedelta(hours=1)


def _queue_requests(turn: TurnRun, requests: list[PlannedPart]) -> None:
    """Keep the later requests of a message; each starts when the one before it ends (inside atomic())."""
    catalogue = catalogue_get()
    for request in requests:
        WorkflowState.objects.create(
            conversation_id=turn.conversation_id,
            kind=WORKFLOW_FOR_INTENT[request.intent.value],
            status=WorkflowStatus.QUEUED,
            slots={"_pending": [{"text": request.text, "entities": extract_entities(request.text, catalogue)}]},
            expires_at=turn.created_at + QUEUED_TIMEOUT,
        )


def _clarify(turn: TurnRun) -> bool:
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
            Conversation.objects.filter(pk=conversation.pk).update(failed_attempts=failed)
            return _escalate_locked(
                turn, conversation, from_=TurnStatus.RECOGNIZED, reason=EscalationReason.LOW_CONFIDENCE
            )
        return _send_reply(
            turn, reply, from_=TurnStatus.RECOGNIZED, route=RouteDecision.CLARIFY, failed_attempts=failed
        )


# --- agent → dialog | escalate ----------------------------------------------------------------


def _step_reply(turn: TurnRun) -> bool:
    subtasks = list(turn.subtasks.order_by("position"))
    results = [s.result if s.status == SubtaskStatus.DONE else {} for s in subtasks]
    # Unresolved: a placeholder or knowledge-miss result, a failure or a timeout (seed 000).
    unresolved = any(s.status != SubtaskStatus.DONE or not s.result.get("resolved", False) for s in subtasks)
    failed = turn.conversation.failed_attempts + 1 if unresolved else 0
    asked = next((r["data"]["escalate"] for r in results if r and (r.get("data") or {}).get("escalate")), None)
    if asked is not None:
        # A specialist found the request outside its policy (e.g. verification failed three times).
        return _escalate(turn, from_=TurnStatus.MERGING, reason=asked)
    if failed >= settings.ESCALATE_FAILED_THRESHOLD:
        with transaction.atomic():
            conversation = conversation_lock(turn.conversation_id)
            Conversation.objects.filter(pk=conversation.pk).update(failed_attempts=failed)
            return _escalate_locked(
                turn, conversation, from_=TurnStatus.MERGING, reason=EscalationReason.REPEATED_FAILURE
            )
    reply = dialog.reply_merge([r for r in results if r])
    if not reply.text:
        reply.text = _apology(turn.language)
    history_tokens: dict[str, int] = {}
    if dialog.polish_wanted(reply):
        history = dialog.history_context(conversation_id=turn.conversation_id, before_message_id=turn.message_id)
        history_tokens = {"history_tokens_full": history.tokens_full, "history_tokens_used": history.tokens_used}
        reply = dialog.reply_polish(
            reply,
            language=turn.language,
            history=history.text,
            customer_text=turn.message.text,
            on_delta=lambda delta: send_conversation_event_now(
                turn.conversation_id, {"type": "reply.delta", "turn_id": turn.pk, "delta": delta}
            ),
        )
    with transaction.atomic():
        return _send_reply(
            turn,
            reply,
            from_=TurnStatus.MERGING,
            route=RouteDecision.AGENT,
            failed_attempts=failed,
            **history_tokens,
            **_usage_fields(reply.llm_usage),
        )


def _send_reply(
    turn: TurnRun, reply: dialog.Reply, *, from_: str, route: str, failed_attempts: int, **fields: Any
) -> bool:
    """Write the bot message and end the turn (inside atomic()); SKIPPED if a human took over."""
    message = bot_message_send(
        conversation_id=turn.conversation_id,
        text=reply.text,
        sources=reply.sources,
        metadata={"turn_id": turn.pk, "awaiting": reply.awaiting, "quick_replies": reply.quick_replies},
    )
    if message is None:
        return turn_transition(turn_id=turn.pk, from_=from_, to=TurnStatus.SKIPPED, reason="a human took over")
    _stream(turn, reply)
    if not turn_transition(
        turn_id=turn.pk,
        from_=from_,
        to=TurnStatus.DONE,
        reason=route,
        route=route,
        reply=reply.as_json(),
        reply_message=message,
        **fields,
    ):
        transaction.set_rollback(True)  # lost the race: the message above must not stay
        return False
    Conversation.objects.filter(pk=turn.conversation_id).update(failed_attempts=failed_attempts)
    send_conversation_event_on_commit(turn.conversation_id, _reply_done(turn.pk, message.pk, reply))
    return True


def _stream(turn: TurnRun, reply: dialog.Reply) -> None:
    """Send a reply the LLM did not stream as reply.delta events. Called once the bot message is
    written under the conversation lock, so nothing streams into a chat a human has taken."""
    if not reply.streamed:
        send_conversation_events_now(
            turn.conversation_id,
            [{"type": "reply.delta", "turn_id": turn.pk, "delta": piece} for piece in dialog.reply_pieces(reply.text)],
        )


def _reply_done(turn_id: int, message_id: int | None, reply: dialog.Reply) -> dict[str, Any]:
    return {"type": "reply.done", "turn_id": turn_id, "message_id": message_id, **reply.as_json()}


# --- escalate ----------------------------------------------------------------------------------


def _escalate(turn: TurnRun, *, from_: str, reason: str) -> bool:
    with transaction.atomic():
        conversation = conversation_lock(turn.conversation_id)
        return _escalate_locked(turn, conversation, from_=from_, reason=reason)


def _escalate_locked(turn: TurnRun, conversation: Conversation, *, from_: str, reason: str) -> bool:
    """Card, queue, customer-facing line, and a callback when nobody is online (inside atomic())."""
    if conversation.status == ConversationStatus.HUMAN:
        return turn_transition(turn_id=turn.pk, from_=from_, to=TurnStatus.SKIPPED, reason="a human owns the chat")
    language = turn.language
    lines = [soothing_line(language, turn.emotion_score or 0.5)] if reason == EscalationReason.EMOTION else []
    awaiting = None
    callback_ticket = None
    if staff_online_count() > 0:
        lines.append(handoff_line(language))
    else:
        customer = conversation.customer
        contact = customer.email or customer.phone
        if contact:
            callback_ticket = _callback_ticket(conversation, contact=contact, source_key=f"turn:{turn.pk}:callback")
            lines.append(callback_confirmed_line(language, mask_pii(contact), callback_ticket.reference))
        else:
            lines.append(nobody_online_line(language))
            awaiting = {"slot": "contact", "prompt": lines[-1], "choices": []}
    data = escalation_card_data(turn=turn, conversation=conversation, customer=conversation.customer, reason=reason)
    reply = dialog.Reply(text="\n\n".join(lines), awaiting=awaiting)
    message = bot_message_send(
        conversation_id=conversation.pk, text=reply.text, metadata={"turn_id": turn.pk, "awaiting": awaiting}
    )
    if message is not None:
        _stream(turn, reply)
    if not turn_transition(
        turn_id=turn.pk,
        from_=from_,
        to=TurnStatus.ESCALATED,
        reason=reason,
        route=RouteDecision.ESCALATE,
        escalation_reason=reason,
        reply=reply.as_json(),
        reply_message=message,
    ):
        transaction.set_rollback(True)
        return False
    card = escalation_card_create(conversation=conversation, ticket=callback_ticket, **data)
    conversation_wait_for_human(conversation=conversation)
    if awaiting is not None:
        WorkflowState.objects.filter(conversation=conversation, status=WorkflowStatus.ACTIVE).update(
            status=WorkflowStatus.CANCELLED
        )
        WorkflowState.objects.create(
            conversation=conversation,
            kind=WorkflowKind.CALLBACK,
            step="contact",
            slots={"card_id": card.pk},
            expires_at=turn.created_at + CALLBACK_TIMEOUT,
        )
    send_staff_event_on_commit(escalated_event(card))
    send_conversation_event_on_commit(conversation.pk, _reply_done(turn.pk, message.pk if message else None, reply))
    return True


def _callback_ticket(conversation: Conversation, *, contact: str, source_key: str) -> Ticket:
    return ticket_create(
        kind=TicketKind.CALLBACK,
        subject=f"Call back {conversation.customer.display_name}",
        customer=conversation.customer,
        conversation=conversation,
        payload={"contact": contact},
        priority=TicketPriority.HIGH,
        source_key=source_key,
    )


def _callback_collect(turn: TurnRun) -> bool:
    """Waiting for a human with nobody online: take the email or phone the customer leaves."""
    entities = turn.entities
    contact = entities.get("email") or entities.get("phone")
    language = turn.language
    with transaction.atomic():
        conversation = conversation_lock(turn.conversation_id)
        workflow = WorkflowState.objects.filter(
            conversation_id=conversation.pk, kind=WorkflowKind.CALLBACK, status=WorkflowStatus.ACTIVE
        ).first()
        if workflow is None:
            return turn_transition(
                turn_id=turn.pk, from_=TurnStatus.RECOGNIZED, to=TurnStatus.SKIPPED, reason="waiting for a human"
            )
        if not contact:
            reply = dialog.Reply(
                text=nobody_online_line(language),
                awaiting={"slot": "contact", "prompt": nobody_online_line(language), "choices": []},
            )
            return _send_reply(
                turn,
                reply,
                from_=TurnStatus.RECOGNIZED,
                route=RouteDecision.CALLBACK,
                failed_attempts=conversation.failed_attempts,
            )
        ticket = _callback_ticket(conversation, contact=contact, source_key=f"workflow:{workflow.pk}:callback")
        WorkflowState.objects.filter(pk=workflow.pk).update(
            status=WorkflowStatus.COMPLETED, slots={**workflow.slots, "contact": contact, "ticket_id": ticket.pk}
        )
        reply = dialog.Reply(text=callback_confirmed_line(language, mask_pii(contact), ticket.reference))
        return _send_reply(
            turn,
            reply,
            from_=TurnStatus.RECOGNIZED,
            route=RouteDecision.CALLBACK,
            failed_attempts=conversation.failed_attempts,
        )


# --- failure ----------------------------------------------------------------------------------


def _apology(language: str) -> str:
    return (
        "抱歉，系统出了点问题，没能处理您的消息。请稍后再试，或回复“转人工”。"
        if language == "zh"
        else "Sorry, something went wrong on our side and I couldn't handle that. Please try again, or say "
        '"human" to reach a person.'
    )


def _fail(turn: TurnRun, exc: Exception) -> None:
    """End the turn with an apology (flagged for staff) whatever step it was in."""
    status = TurnRun.objects.values_list("status", flat=True).get(pk=turn.pk)
    if status not in (TurnStatus.RECEIVED, TurnStatus.RECOGNIZED, TurnStatus.FANNED_OUT, TurnStatus.MERGING):
        return
    reply = dialog.Reply(text=_apology(turn.language))
    with transaction.atomic():
        message = bot_message_send(
            conversation_id=turn.conversation_id, text=reply.text, metadata={"turn_id": turn.pk, "error": True}
        )
        if message is not None:
            _stream(turn, reply)
        if turn_transition(
            turn_id=turn.pk,
            from_=status,
            to=TurnStatus.FAILED,
            reason=type(exc).__name__,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            reply=reply.as_json(),
            reply_message=message,
        ):
            send_conversation_event_on_commit(
                turn.conversation_id, _reply_done(turn.pk, message.pk if message else None, reply)
            )
        else:
            transaction.set_rollback(True)
