"""The dialog node: merge the subtasks' answers into one reply, or escalate when they could not help."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from agents import dialog
from agents.models import RouteDecision, Subtask, TurnRun
from agents.nodes.escalate import escalate, escalate_locked
from agents.nodes.recognize import usage_fields
from agents.nodes.say import apology, delta_sender, send_reply
from agents.safety import BLOCK, REVISE, SafetyVerdict, safety_check
from agents.states import SubtaskStatus, TurnStatus
from agents.verification import verified_customer_now
from conversations.selectors import conversation_internal_notes
from conversations.services import conversation_failed_attempts_set, conversation_lock
from tickets.models import EscalationReason


def step_reply(turn: TurnRun, *, subtasks: list[Subtask] | None = None) -> bool:
    """`subtasks`: the turn's, in hand with their outcomes (a lone subtask the fan-out answered itself)."""
    if subtasks is None:
        subtasks = list(turn.subtasks.order_by("position"))
    results = [s.result if s.status == SubtaskStatus.DONE else {} for s in subtasks]
    # Unresolved: a placeholder or knowledge-miss result, a failure or a timeout (seed 000).
    unresolved = any(s.status != SubtaskStatus.DONE or not s.result.get("resolved", False) for s in subtasks)
    failed = turn.conversation.failed_attempts + 1 if unresolved else 0
    asked = next((r["data"]["escalate"] for r in results if r and (r.get("data") or {}).get("escalate")), None)
    if asked is not None:
        # A specialist found the request outside its policy (e.g. verification failed three times).
        return escalate(turn, from_=TurnStatus.MERGING, reason=asked)
    if failed >= settings.ESCALATE_FAILED_THRESHOLD:
        with transaction.atomic(savepoint=False):
            conversation = conversation_lock(turn.conversation_id)
            conversation_failed_attempts_set(conversation_id=conversation.pk, count=failed)
            return escalate_locked(
                turn, conversation, from_=TurnStatus.MERGING, reason=EscalationReason.REPEATED_FAILURE
            )
    notes = conversation_internal_notes(turn.conversation_id)  # which no reply may repeat (stream and gate)
    reply = dialog.reply_merge([r for r in results if r])
    if not reply.text:
        reply.text = apology(turn.language)
    history_tokens: dict[str, int] = {}
    if dialog.polish_wanted(reply):
        history = dialog.history_context(conversation_id=turn.conversation_id, before_message_id=turn.message_id)
        history_tokens = {"history_tokens_full": history.tokens_full, "history_tokens_used": history.tokens_used}
        reply = dialog.reply_polish(
            reply,
            language=turn.language,
            history=history.text,
            customer_text=turn.message.text,
            on_delta=delta_sender(
                turn, evidence=dialog.polish_evidence(reply.text, turn.message.text), internal_notes=notes
            ),
        )
    verdict = reply_gated(turn, reply, internal_notes=notes)
    if verdict.decision == BLOCK:
        return escalate(turn, from_=TurnStatus.MERGING, reason=EscalationReason.POLICY, safety=verdict.as_json())
    reply.text = verdict.text
    with transaction.atomic(savepoint=False):  # also inside fan_out's, for a subtask answered there
        return send_reply(
            turn,
            reply,
            from_=TurnStatus.MERGING,
            route=RouteDecision.AGENT,
            failed_attempts=failed,
            safety=verdict.as_json(),
            **history_tokens,
            **usage_fields(reply.llm_usage),
        )


def reply_gated(turn: TurnRun, reply: dialog.Reply, *, internal_notes: list[str]) -> SafetyVerdict:
    """The gate's verdict on the reply (agents.safety), its text then what may be said. A harmful reply an LLM
    rewrote gets one revision with the reasons, then the engine's draft; what is harmful still is never said
    (BLOCK: the chat goes to a person, reason policy)."""

    def check() -> SafetyVerdict:
        return safety_check(
            reply.text,
            language=turn.language,
            customer=lambda: verified_customer_now(turn.conversation_id),
            internal_notes=internal_notes,
            customer_text=turn.message.text,
        )

    verdict = check()
    if verdict.decision == BLOCK and reply.draft:
        reply.revisions.append(f"harmful: {', '.join(verdict.categories)}")
        reasons = [f"it contains harmful content ({', '.join(verdict.categories)})"]
        if not dialog.reply_revise(reply, reasons=reasons) or (verdict := check()).decision == BLOCK:
            dialog.reply_keep_draft(reply)
            verdict = check()
    verdict.revisions = reply.revisions
    if verdict.decision != BLOCK and reply.revisions:
        verdict.decision = REVISE
    return verdict
