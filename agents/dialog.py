"""The dialog node: merge subtask results into one reply, polish it with the LLM when configured,
and give the LLM a layered summary of the history instead of the whole transcript."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from agents.grounding import ungrounded
from agents.llm.client import LLMResult, LLMUnavailable, llm_chat, llm_enabled
from agents.llm.prompts import reply_polish_messages, revision_messages
from agents.models import TurnRun
from agents.pii import mask_pii
from agents.taxonomy import Intent
from conversations.language import InEachLanguage, say, say_in_context
from conversations.models import Message, Sender

logger = logging.getLogger(__name__)

RECENT_MESSAGES = 6
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9]+")
_CITATION = re.compile(r"\[(\d{1,2})\]")

INTENT_LABELS: dict[str, InEachLanguage] = {
    Intent.ORDER_QUERY: InEachLanguage(gettext_noop("Check an order")),
    Intent.LOGISTICS_QUERY: InEachLanguage(gettext_noop("Track a delivery")),
    Intent.INVENTORY_CHECK: InEachLanguage(gettext_noop("Check stock")),
    Intent.PRICE_QUERY: InEachLanguage(gettext_noop("Ask a price")),
    Intent.PARAMS_QUERY: InEachLanguage(gettext_noop("Product specs")),
    Intent.PRODUCT_COMPARE: InEachLanguage(gettext_noop("Compare products")),
    Intent.PRODUCT_RECOMMEND: InEachLanguage(gettext_noop("Get a recommendation")),
    Intent.RETURN: InEachLanguage(gettext_noop("Return an item")),
    Intent.EXCHANGE: InEachLanguage(gettext_noop("Exchange an item")),
    Intent.REPAIR: InEachLanguage(gettext_noop("Repair a device")),
    Intent.INVOICE: InEachLanguage(gettext_noop("Get an invoice")),
    Intent.CANCEL_ORDER: InEachLanguage(gettext_noop("Cancel an order")),
    Intent.MODIFY_ORDER: InEachLanguage(gettext_noop("Change an order")),
    Intent.USAGE_TUTORIAL: InEachLanguage(gettext_noop("How do I…")),
    Intent.FAULT_DIAGNOSIS: InEachLanguage(gettext_noop("Something isn't working")),
    Intent.POLICY_INQUIRY: InEachLanguage(gettext_noop("Store policies")),
    Intent.FAQ: InEachLanguage(gettext_noop("Common questions")),
    Intent.COMPLAINT: InEachLanguage(gettext_noop("Make a complaint")),
    Intent.HUMAN_REQUEST: InEachLanguage(gettext_noop("Talk to a person")),
}
DEFAULT_CHOICES = [Intent.ORDER_QUERY, Intent.LOGISTICS_QUERY, Intent.RETURN, Intent.HUMAN_REQUEST]


def estimate_tokens(text: str) -> int:
    """Rough token count: one per Chinese character, 1.3 per English word (for budgeting only)."""
    return len(_CJK.findall(text)) + round(len(_WORD.findall(text)) * 1.3)


@dataclass(frozen=True)
class HistoryContext:
    text: str
    tokens_full: int
    tokens_used: int


def history_context(*, conversation_id: int, before_message_id: int) -> HistoryContext:
    """Recent messages verbatim, older turns reduced to one line each (intent and key entities)."""
    messages = list(
        Message.objects.filter(conversation_id=conversation_id, id__lt=before_message_id, internal=False)
        .order_by("-id")
        .values("id", "sender", "text")[:200]
    )[::-1]
    full = "\n".join(f"{m['sender']}: {m['text']}" for m in messages)
    recent, older = messages[-RECENT_MESSAGES:], messages[:-RECENT_MESSAGES]
    lines: list[str] = []
    if older:
        older_ids = [m["id"] for m in older if m["sender"] == Sender.CUSTOMER]
        topics = []
        for intents, entities in (
            TurnRun.objects.filter(message_id__in=older_ids).order_by("id").values_list("intents", "entities")
        ):
            names = ",".join(i["name"] for i in intents[:2]) or "unclear"
            keys = [*entities.get("order_ids", []), *entities.get("products", [])][:3]
            topics.append(f"{names}({', '.join(keys)})" if keys else names)
        lines.append(f"Earlier ({len(older)} messages): " + "; ".join(topics or ["small talk"]))
    lines.extend(
        f"{'Customer' if m['sender'] == Sender.CUSTOMER else m['sender'].title()}: {m['text']}" for m in recent
    )
    text = mask_pii("\n".join(lines))
    return HistoryContext(text=text, tokens_full=estimate_tokens(full), tokens_used=estimate_tokens(text))


@dataclass
class Reply:
    text: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    awaiting: dict[str, Any] | None = None
    quick_replies: list[str] = field(default_factory=list)
    knowledge: bool = False
    llm_usage: list[LLMResult] = field(default_factory=list)
    streamed: bool = False  # its text already went out as reply.delta events (the LLM streamed it)
    # An LLM's rewrite: the engine's draft it started from and the request that wrote it (for one revision),
    # and why it was revised or set aside for the draft (agents.safety's verdict keeps them).
    draft: str = ""
    prompt: list[dict[str, Any]] = field(default_factory=list)
    revisions: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "sources": self.sources,
            "awaiting": self.awaiting,
            "quick_replies": self.quick_replies,
        }


def _renumbered(text: str, numbers: dict[int, int]) -> str:
    return _CITATION.sub(lambda m: f"[{numbers.get(int(m.group(1)), int(m.group(1)))}]", text)


def reply_merge(results: list[dict[str, Any]]) -> Reply:
    """One reply from the subtasks' results, in subtask order, citations de-duplicated."""
    texts: list[str] = []
    sources: list[dict[str, Any]] = []
    quick: list[str] = []
    awaiting = None
    seen_sources: dict[tuple[Any, ...], int] = {}
    for result in results:
        # Each result numbers its citations from [1]; in the merged reply they point into one list.
        numbers: dict[int, int] = {}
        for local, source in enumerate(result.get("sources") or [], 1):
            key = (source.get("title"), source.get("url"), source.get("chunk_id"))
            if key not in seen_sources:
                sources.append(source)
                seen_sources[key] = len(sources)
            numbers[local] = seen_sources[key]
        if result.get("text"):
            text = result["text"].strip()
            if numbers:
                text = _renumbered(text, numbers)
            texts.append(text)
        awaiting = awaiting or result.get("awaiting")
        quick.extend(q for q in result.get("quick_replies") or [] if q not in quick)
    return Reply(
        text="\n\n".join(dict.fromkeys(texts)),
        sources=sources,
        awaiting=awaiting,
        quick_replies=quick[:4],
        knowledge=any(r.get("knowledge") for r in results),
        # a specialist's own revision of what its LLM wrote (a knowledge answer's) counts as the reply's
        revisions=[revision for r in results for revision in (r.get("data") or {}).get("revisions") or []],
    )


def polish_wanted(reply: Reply) -> bool:
    """Knowledge answers stay extractive and slot prompts stay exact; the rest is polished when an LLM is on."""
    return bool(reply.text) and not reply.knowledge and not reply.awaiting and llm_enabled()


def reply_polish(reply: Reply, *, language: str, history: str, customer_text: str, on_delta: Any = None) -> Reply:
    """Rewrite the merged reply with the LLM, streaming deltas; falls back to it when the call fails."""
    if not polish_wanted(reply):
        return reply
    messages = reply_polish_messages(
        draft=reply.text, language=language, context=history, customer_text=mask_pii(customer_text)
    )
    try:
        result = llm_chat(messages, tier="main", on_delta=on_delta, temperature=0.3)
    except LLMUnavailable as exc:
        logger.info("reply polish skipped: %s", exc)
        return reply
    reply.llm_usage.append(result)
    if not result.text.strip():
        return reply
    reply.streamed = on_delta is not None  # what went out of it is replaced by reply.done's text
    reply.draft, reply.prompt, reply.text = reply.text, messages, result.text.strip()
    # Every figure and promise of the rewrite must be the draft's (built from the turn's tool results) or
    # the customer's own; else one revision, then the draft as it was.
    evidence = polish_evidence(reply.draft, customer_text)
    missing = ungrounded(reply.text, evidence)
    if missing:
        reply.revisions.append(f"ungrounded: {', '.join(missing)}")
        if not reply_revise(reply, reasons=[f"it states {', '.join(missing)}, which the draft does not"]) or (
            ungrounded(reply.text, evidence)
        ):
            reply_keep_draft(reply)
    return reply


def polish_evidence(draft: str, customer_text: str) -> str:
    return f"{draft}\n{customer_text}"


def reply_revise(reply: Reply, *, reasons: list[str]) -> bool:
    """One rewrite of an LLM's reply by the same model, told why the gate turned it down; False when it could
    not be had (the reply is then as it was)."""
    try:
        result = llm_chat(revision_messages(reply.prompt, answer=reply.text, reasons=reasons), tier="main")
    except LLMUnavailable as exc:
        logger.info("reply revision skipped: %s", exc)
        return False
    reply.llm_usage.append(result)
    if not result.text.strip():
        return False
    reply.text = result.text.strip()
    return True


def reply_keep_draft(reply: Reply) -> None:
    """The LLM's rewrite set aside for the engine's own draft."""
    reply.text = reply.draft
    reply.revisions.append("draft kept")


_PIECE_END = re.compile(r"(?<=[\s，。！？；：、,.!?;:])")
PIECE_CHARS = 48


def reply_pieces(text: str) -> list[str]:
    """A finished reply cut the way a model streams it — a few words or a clause at a time — so an
    offline reply reaches the widget as reply.delta events too and both modes look the same."""
    pieces: list[str] = []
    for part in _PIECE_END.split(text):
        while len(part) > PIECE_CHARS * 2:  # Chinese without punctuation, a long URL
            pieces.append(part[:PIECE_CHARS])
            part = part[PIECE_CHARS:]
        if pieces and len(pieces[-1]) + len(part) <= PIECE_CHARS:
            pieces[-1] += part
        elif part:
            pieces.append(part)
    return pieces


def clarify_choices(candidates: list[str]) -> list[str]:
    """The intents a clarifying question offers: the likely ones, else the most asked-for."""
    return [c for c in candidates if c in INTENT_LABELS][:3] or [c.value for c in DEFAULT_CHOICES]


def clarify_reply(*, language: str, candidates: list[str], injection: bool) -> Reply:
    """One clarifying question with the likely intents, in the text (for channels without buttons)
    and as quick replies (confidence < 0.5). The answer picks one (agents.route.clarify_picked)."""
    choices = clarify_choices(candidates)
    labels = [INTENT_LABELS[c][language] for c in choices]
    if injection:
        text = say(
            language, "I can only help with our products, your orders and after-sales service. What can I do for you?"
        )
    else:
        listed = labels[0]
        if len(labels) > 1:
            some = say_in_context("list separator", language, ", ").join(labels[:-1])
            listed = say(language, "%(some)s or %(last)s", some=some, last=labels[-1])
        text = say(language, "Sorry, I'm not sure I understood. Did you mean: %(choices)s?", choices=listed)
    return Reply(text=text, quick_replies=labels)
