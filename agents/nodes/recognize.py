"""The intent node: recognise the message's intents, entities and emotion while the knowledge base is
searched, and record them with the RECEIVED → RECOGNIZED transition."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from agents.intents.catalogue import catalogue_get
from agents.intents.offline.classify import IntentScore
from agents.intents.offline.clauses import split_clauses
from agents.intents.recognize import Recognition, recognize
from agents.intents.rules import rule_fast_path
from agents.llm.client import LLMResult, llm_enabled
from agents.models import TurnRun
from agents.reading.message import Reading, message_read
from agents.services import TURN_MOVED, turn_move
from agents.specialists.knowledge import knowledge_hits
from agents.states import TurnStatus
from agents.taxonomy import WORKFLOW_INTENTS, Intent
from agents.verification import verified_customer
from agents.workflows.definitions import WORKFLOWS
from agents.workflows.progress import Progress, said_before
from agents.workflows.runner import workflow_active, workflows_queued_cancel
from agents.workflows.switch import is_slot_answer, leaves_the_question
from conversations.models import (
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.prepared import connection_kept
from conversations.services import RecognisedIntent, intents_record_writes, workflow_save
from knowledge.cache_tally import cache_tally
from knowledge.embeddings import EmbeddingsUnavailable, query_vectors
from knowledge.hits import KnowledgeHit
from stores.backend import store_backend


def usage_fields(usage: list[LLMResult]) -> dict[str, Any]:
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
    connection_kept()  # this thread keeps its own connection between turns
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
    # In the step's context, so that the step's cache tally counts the search's lookups too.
    future = _lookup_pool[1].submit(contextvars.copy_context().run, _knowledge_in_thread, texts, language)

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
        for order in store_backend().orders(customer.external_id, limit=5):
            if order.customer_id == customer.external_id:  # the store's answer is checked again
                items = ", ".join(line.name for line in order.items)
                lines.append(f"Customer's order {order.order_id}: {order.status} ({items})")
    return "\n".join(lines)


def step_recognize(turn: TurnRun) -> bool:
    text = turn.message.text
    with cache_tally() as tally:  # the retrieval cache's lookups of this step
        # Greetings, thanks and explicit human requests need no search (the rule fast path).
        lookup = _knowledge_lookup_start(text, turn.language) if rule_fast_path(text) is None else (lambda more: [])
        context = ""
        if llm_enabled():  # the model classifies knowing the matching passages and the customer's orders
            context = _llm_context(turn, lookup([]))
        recognition = recognize(text, catalogue=catalogue_get(), context=context)
        hits = lookup([score.text for score in recognition.intents])
    workflow = workflow_active(turn.conversation_id) if getattr(turn, "workflow_open", True) else None
    reading = message_read(text, [score.text for score in recognition.intents], workflow.kind if workflow else "")
    flags = list(recognition.flags)
    with transaction.atomic():
        switched = workflow is not None and _is_intent_switch(workflow, recognition, reading)
        if not turn_move(
            turn,
            from_=TurnStatus.RECEIVED,
            to=TurnStatus.RECOGNIZED,
            reason=f"{recognition.level}: {recognition.top.intent.value} {recognition.top.confidence:.2f}",
            intents=recognition.as_json(),
            entities=recognition.entities,
            emotion_score=recognition.emotion_score,
            intent_level=recognition.level,
            intent_cache_hit=recognition.cache_hit,
            flags=[*flags, "intent_switch"] if switched else flags,
            reading=reading.as_json(),
            knowledge=[hit.as_json() for hit in hits],
            retrieval_lookups=tally.lookups["retrieval"],
            retrieval_hits=tally.hits["retrieval"],
            along=intents_record_writes(
                conversation_id=turn.conversation_id,
                message_id=turn.message_id,
                intents=[RecognisedIntent(score.intent.value, score.confidence) for score in recognition.intents],
                level=recognition.level,
                entities=recognition.entities,
                emotion_score=recognition.emotion_score,
                only_if=TURN_MOVED,
            ),
            **usage_fields(recognition.llm_usage),
        ):
            return False
        turn.active_workflow = None if switched else workflow  # the route step's to read
        if switched and workflow is not None:
            # The abandoned topic's slots are reset (and what was queued behind it); the rows stay as
            # history of what was collected.
            workflow_save(workflow.pk, only_if=WorkflowStatus.ACTIVE, status=WorkflowStatus.CANCELLED, step="")
            workflows_queued_cancel(turn.conversation_id)
    return True


# How sure a request of another kind must be to leave the workflow waiting on a slot; less sure when the reply
# reads as leaving the question for another request (two readings agree).
SWITCH_AT = 0.7
SWITCH_WHEN_LEFT_AT = 0.5


def _is_intent_switch(workflow: WorkflowState, recognition: Recognition, reading: Reading) -> bool:
    """Another workflow, confidently asked for, and not an answer to the awaited slot.

    Questions in the middle of a workflow are digressions instead: answered, then the workflow
    prompt is repeated (see fan_out).
    """
    # The first request of the message counts, not its first clause: "ugh, the boots were a
    # disappointment. returning them, order #W1" asks for a return after a feeling. When the learned reading of
    # the reply says the question is left for another request, a later request of another kind counts, and a
    # less sure one: "Wall Clock（白色那款）不要了，退款吧" leaves "which new version?" for a return.
    requests = [s for s in recognition.intents if s.intent in WORKFLOW_INTENTS]
    leaves = leaves_the_question(workflow.step, reading.message)
    asked = next((s for s in requests if not _same_request(s.intent, workflow)), None)
    if asked is None or (asked is not requests[0] and not leaves):
        return False
    if asked.confidence < (SWITCH_WHEN_LEFT_AT if leaves else SWITCH_AT):
        return False
    if (
        workflow.step == "new_item_ids"
        and asked.intent in (Intent.RETURN, Intent.CANCEL_ORDER)
        and (asked.confidence >= 0.85 or leaves)
        and not _another_version_asked(asked, recognition, reading)
        and not (asked is not requests[0] and reading.of(requests[0].text).asks_the_store)
    ):
        # "what should it become?" is not answered by "I'd like to return the camera and the kit", sure of the
        # return or said where the learned reading is sure the question is left, but it is by "退一个大号的Desk
        # Lamp，换个小号的", and by a message that opens with a new version asked ("把Smart Watch换成…；另外…的那个
        # 退回去，…")
        return True
    answer = reading.of(asked.text)
    return not is_slot_answer(
        workflow.step,
        asked.text,
        answer,
        recognition.entities,
        other_intent_confidence=asked.confidence,
        before=said_before(workflow.slots, Progress.load(workflow.progress)),
    )


def _another_version_asked(given_up: IntentScore, recognition: Recognition, reading: Reading) -> bool:
    """After the item given up, a clause asks for another version of it: the exchange goes on."""
    later = recognition.intents[recognition.intents.index(given_up) + 1 :]
    return any(s.intent.value in _ITEM_CHANGES and reading.of(s.text).asks_the_store for s in later)


# An exchange and an item change are one request whose name depends on the order's status.
_ITEM_CHANGES = frozenset({Intent.EXCHANGE.value, Intent.MODIFY_ORDER.value})


def _same_request(intent: Intent, workflow: WorkflowState) -> bool:
    own = workflow_intent(workflow)
    return intent.value == own or {intent.value, own} <= _ITEM_CHANGES


def workflow_intent(workflow: WorkflowState) -> str:
    if workflow.kind == WorkflowKind.VERIFY:
        return str(workflow.slots.get("intent", ""))
    return WORKFLOWS[workflow.kind].intent.value
