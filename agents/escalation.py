"""The escalate node: an escalation card with everything a person needs, the chat queued for staff,
and a callback ticket instead of a dead end when nobody is online."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

from agents.dialog import INTENT_LABELS
from agents.models import TurnRun
from agents.pii import mask_pii
from conversations.language import say
from conversations.models import Conversation, Customer, Message, WorkflowState, WorkflowStatus
from tickets.models import EscalationCard, EscalationReason

LAST_MESSAGES = 8
TRAJECTORY_TURNS = 10

_REASON_LINES = {
    EscalationReason.REQUESTED: "asked for a human",
    EscalationReason.EMOTION: "is upset",
    EscalationReason.REPEATED_FAILURE: "was not helped by the bot twice in a row",
    EscalationReason.LOW_CONFIDENCE: "could not be understood by the bot",
    EscalationReason.POLICY: "needs something outside the bot's policy",
    EscalationReason.ERROR: "hit a system error",
}


# The first reply suggested to the person taking over, written for the reason, in the customer's language.
_SUGGESTED_REPLIES: dict[str, str] = {
    EscalationReason.REQUESTED: gettext_noop(
        "%(greeting)s, I'm from the support team and I've read our conversation so far, so you won't need to "
        "repeat anything. How can I help?"
    ),
    EscalationReason.EMOTION: gettext_noop(
        "%(greeting)s, I'm really sorry about this. I'm from the support team, I've read what happened and I'll "
        "sort it out with you personally."
    ),
    EscalationReason.REPEATED_FAILURE: gettext_noop(
        "%(greeting)s, sorry the assistant couldn't help. I'm from the support team and I've read the conversation; "
        "I'll take it from here."
    ),
    EscalationReason.LOW_CONFIDENCE: gettext_noop(
        "%(greeting)s, I'm from the support team. I want to be sure I get this right: could you tell me in a few "
        "words what you need?"
    ),
    EscalationReason.POLICY: gettext_noop(
        "%(greeting)s, I'm from the support team. This needs a decision from a person, so I'm looking into it now."
    ),
    EscalationReason.ERROR: gettext_noop(
        "%(greeting)s, sorry, something went wrong on our side. I'm from the support team and I'll help you from here."
    ),
}
_ABOUT_ORDER = gettext_noop("I'm looking at order %(order_id)s now.")


def _suggested_reply(*, reason: str, language: str, name: str, order_id: str) -> str:
    greeting = say(language, "Hi %(name)s", name=name) if name else say(language, "Hi")
    reply = say(language, _SUGGESTED_REPLIES[reason], greeting=greeting)
    if order_id and reason != EscalationReason.LOW_CONFIDENCE:
        reply += (" " if language == "en" else "") + say(language, _ABOUT_ORDER, order_id=order_id)
    return reply


def escalation_card_data(
    *, turn: TurnRun, conversation: Conversation, customer: Customer, reason: str
) -> dict[str, Any]:
    """The card's fields, built from the conversation's recent turns and messages; PII masked."""
    turns = list(
        TurnRun.objects.filter(conversation=conversation, id__lte=turn.pk)
        .order_by("-id")
        .values("id", "intents", "entities", "emotion_score", "created_at")[:TRAJECTORY_TURNS]
    )[::-1]
    intents = [
        {
            "turn_id": t["id"],
            "intents": [i["name"] for i in t["intents"]],
            "labels": {  # for the console, in either language
                language: [_intent_label(i["name"], language) for i in t["intents"]] for language in ("en", "zh")
            },
            "at": t["created_at"].isoformat(),
        }
        for t in turns
    ]
    emotion_trajectory = [round(t["emotion_score"], 3) for t in turns if t["emotion_score"] is not None]
    order_ids: list[str] = []
    for t in turns:
        order_ids.extend(o for o in t["entities"].get("order_ids", []) if o not in order_ids)
    workflow = WorkflowState.objects.filter(conversation=conversation).order_by("-updated_at").first()
    slots: dict[str, Any] = {}
    if workflow is not None and workflow.status in (WorkflowStatus.ACTIVE, WorkflowStatus.CANCELLED):
        slots = {"workflow": workflow.kind, "status": workflow.status, **workflow.slots}
        if isinstance(workflow.slots.get("order_id"), str) and workflow.slots["order_id"] not in order_ids:
            order_ids.append(workflow.slots["order_id"])
    messages = list(
        Message.objects.filter(conversation=conversation, internal=False)
        .order_by("-id")
        .values("sender", "text", "created_at")[:LAST_MESSAGES]
    )[::-1]
    last_messages = [
        {"sender": m["sender"], "text": mask_pii(m["text"]), "at": m["created_at"].isoformat()} for m in messages
    ]
    # "Hi Ada", but "李伟您好": a Chinese greeting takes the whole name
    named = customer.name or customer.first_name
    name = (customer.first_name if turn.language == "en" else "") or customer.display_name if named else ""
    seen_intents = list(dict.fromkeys(i["name"] for t in turns for i in t["intents"]))
    summary = (
        f"{customer.display_name} ({customer.external_id}{', verified' if customer.verified else ''}) "
        f"{_REASON_LINES[EscalationReason(reason)]}. "
        f"Topics: {', '.join(seen_intents) or 'none recognised'}. "
        + (f"Orders: {', '.join(order_ids)}. " if order_ids else "")
        + (f"Emotion: {emotion_trajectory[-1]:.2f} (0 = very negative). " if emotion_trajectory else "")
        + f'Last message: "{mask_pii(turn.message.text)[:300]}"'
    )
    return {
        "reason": reason,
        "summary": summary,
        "intents": intents,
        "emotion_trajectory": emotion_trajectory,
        "slots": slots,
        "order_ids": order_ids,
        "last_messages": last_messages,
        "suggested_reply": _suggested_reply(
            reason=reason, language=turn.language, name=name, order_id=order_ids[-1] if order_ids else ""
        ),
    }


def _intent_label(name: str, language: str) -> str:
    label = INTENT_LABELS.get(name)
    return label[language] if label else name.replace("_", " ").capitalize()


def escalated_event(card: EscalationCard) -> dict[str, Any]:
    return {
        "type": "escalated",
        "conversation_id": card.conversation_id,
        "card_id": card.pk,
        "reason": card.reason,
        "summary": card.summary,
    }
