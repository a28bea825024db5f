"""Four weeks of the demo store's past chats, so that the dashboard has a story on the first `make run`.

The rows are what the engine, the console and the widget leave behind (conversations with their
messages, turns, subtasks, intent records, escalation cards, ratings and missed questions), written in
bulk and dated in the past. They belong to customers named `demo_history_…` and exist only in the demo:
`seed_demo` writes them once with DEMO_MODE (or --history), and --reset writes them again dated from
today. Fixed seed: every demo shows the same story (resolution climbing as knowledge gaps get answered).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.utils import timezone

from agents.models import Subtask, TurnRun
from agents.states import SubtaskStatus, TurnStatus
from conversations.models import (
    Channel,
    ClosedBy,
    Conversation,
    ConversationStatus,
    Customer,
    IntentLevel,
    IntentRecord,
    Message,
    Rating,
    ResolutionReason,
    Sender,
)
from knowledge.embeddings import EmbeddingsUnavailable, query_vectors
from knowledge.models import MissedQuestion
from tickets.models import EscalationCard, EscalationReason

PREFIX = "demo_history_"
DAYS = 28

# (intent, specialist, en question, en answer, zh question, zh answer)
TOPICS = [
    (
        "policy_inquiry",
        "knowledge_qa",
        "What is your return policy?",
        "You can return items within 7 days of delivery, no reason needed [1].",
        "退货政策是什么？",
        "签收后 7 天内可无理由退货 [1]。",
    ),
    (
        "logistics_query",
        "business_query",
        "Where is my order #D1002?",
        "Order #D1002 is on its way with SF Express and should arrive tomorrow.",
        "我的订单 #D1002 到哪了？",
        "订单 #D1002 已由顺丰发出，预计明天送达。",
    ),
    (
        "faq",
        "knowledge_qa",
        "How do I get an invoice?",
        "Invoices are issued electronically after delivery; ask here and we'll send it [1].",
        "发票怎么开？",
        "签收后可开具电子发票，在这里申请即可 [1]。",
    ),
    (
        "price_query",
        "business_query",
        "How much is the Find X9 with the subsidy?",
        "The Find X9 is ¥3999, ¥3499 with the national subsidy.",
        "Find X9 国补后多少钱？",
        "Find X9 售价 ¥3999，国补后 ¥3499。",
    ),
    (
        "fault_diagnosis",
        "knowledge_qa",
        "One earbud has no sound",
        "Put both earbuds in the case and hold the case button for 15 seconds to reset them [1].",
        "耳机一边没有声音",
        "把两只耳机放回充电盒，长按按键 15 秒重置 [1]。",
    ),
    (
        "usage_tutorial",
        "knowledge_qa",
        "How do I move my data to a new phone?",
        "Use the Clone Phone app on both phones and scan the code [1].",
        "怎么把数据迁移到新手机？",
        "两台手机都打开「手机搬家」，扫码即可 [1]。",
    ),
    (
        "return",
        "ticket",
        "I want to return order #D1003",
        "Your return for #D1003 is registered; a courier will pick it up.",
        "我要退订单 #D1003",
        "订单 #D1003 的退货已登记，快递员会上门取件。",
    ),
    (
        "inventory_check",
        "business_query",
        "Is the tablet in stock?",
        "Yes, the Pad 3 is in stock in both colours.",
        "平板有货吗？",
        "Pad 3 两种颜色都有货。",
    ),
]
MISSES = [
    ("en", "Do you ship to Australia?"),
    ("en", "Can I pay in instalments?"),
    ("zh", "可以分期付款吗？"),
    ("zh", "支持以旧换新吗？"),
    ("en", "Is there a student discount?"),
]
ESCALATIONS = [
    (EscalationReason.REQUESTED, "I want to talk to a person", "转人工"),
    (EscalationReason.EMOTION, "This is the third time I ask, it's ridiculous", "第三次问了，太离谱了"),
    (EscalationReason.REPEATED_FAILURE, "That doesn't answer my question", "你没回答我的问题"),
    (EscalationReason.POLICY, "Can you refund me twice the price?", "能退我两倍的钱吗？"),
]
LEVELS = [IntentLevel.RULE, IntentLevel.CACHE, IntentLevel.CLASSIFIER, IntentLevel.CLASSIFIER, IntentLevel.CACHE]


@dataclass
class _Rows:
    conversations: list[Conversation] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    turns: list[TurnRun] = field(default_factory=list)
    intents: list[IntentRecord] = field(default_factory=list)
    subtasks: list[Subtask] = field(default_factory=list)
    cards: list[EscalationCard] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)
    dates: dict[type[models.Model], list[datetime]] = field(default_factory=dict)


def demo_history_exists() -> bool:
    return Customer.objects.filter(external_id__startswith=PREFIX).exists()


def demo_history_seed(*, reset: bool = False) -> int:
    """Write the history once (again with `reset`); returns how many conversations it wrote."""
    with transaction.atomic():
        if reset:
            MissedQuestion.objects.filter(reference__startswith=PREFIX).delete()
            Customer.objects.filter(external_id__startswith=PREFIX).delete()
        elif demo_history_exists():
            return 0
        staff = get_user_model().objects.filter(username=settings.DEMO_STAFF_USERNAME).first()
        return _write(random.Random(2026), timezone.now(), staff)


def _write(rng: random.Random, now: datetime, staff: Any) -> int:
    customers = Customer.objects.bulk_create(
        Customer(
            external_id=f"{PREFIX}{n:03d}", name=f"Shopper {n}" if n % 2 else f"顾客{n}", locale="en" if n % 2 else "zh"
        )
        for n in range(60)
    )
    plans = []
    for day in range(DAYS, 0, -1):
        date = now - timedelta(days=day)
        busy = 9 if date.weekday() >= 5 else 16  # quieter weekends
        for _ in range(busy + rng.randint(-4, 6)):
            plans.append(date.replace(hour=rng.randint(8, 22), minute=rng.randint(0, 59), second=rng.randint(0, 59)))
    rows = _Rows()
    for started in plans:
        _conversation(rows, rng, started, rng.choice(customers), staff, progress=(now - started).days / DAYS)
    _save(rows)
    _misses(rng, now)
    return len(rows.conversations)


def _conversation(
    rows: _Rows, rng: random.Random, started: datetime, customer: Customer, staff: Any, progress: float
) -> None:
    zh = customer.locale == "zh"
    conversation = Conversation(customer=customer, channel=Channel.WIDGET, language=customer.locale)
    at = started
    messages: list[tuple[Message, datetime]] = []
    # fewer escalations as the weeks went by: strong enough a trend that no weekday pattern of the random draws
    # (they follow the calendar) hides it
    escalate = rng.random() < 0.04 + 0.32 * progress
    topics = rng.sample(TOPICS, rng.choice([1, 1, 2, 2, 3]))
    for position, (intent, specialist, en_q, en_a, zh_q, zh_a) in enumerate(topics):
        question = Message(conversation=conversation, sender=Sender.CUSTOMER, text=zh_q if zh else en_q)
        level = LEVELS[(position + len(rows.turns)) % len(LEVELS)]
        took = timedelta(milliseconds=rng.randint(25, 90) if level != IntentLevel.LLM else rng.randint(600, 1800))
        answer = Message(conversation=conversation, sender=Sender.BOT, text=zh_a if zh else en_a)
        messages += [(question, at), (answer, at + took)]
        turn = TurnRun(
            conversation=conversation,
            message=question,
            status=TurnStatus.DONE,
            language=customer.locale,
            intents=[{"name": intent, "confidence": 0.9, "text": question.text}],
            intent_level=level,
            intent_cache_hit=level == IntentLevel.CACHE,
            retrieval_lookups=2 if level != IntentLevel.RULE else 0,
            retrieval_hits=int(rng.random() < 0.55) if level != IntentLevel.RULE else 0,
            reply_message=answer,
            reply={"text": answer.text},
            finished_at=at + took,
        )
        rows.turns.append(turn)
        rows.dates.setdefault(TurnRun, []).append(at)
        rows.intents.append(
            IntentRecord(conversation=conversation, message=question, name=intent, confidence=0.9, level=level)
        )
        rows.dates.setdefault(IntentRecord, []).append(at)
        rows.subtasks.append(
            Subtask(
                turn=turn,
                position=0,
                specialist=specialist,
                intent=intent,
                text=question.text,
                status=SubtaskStatus.DONE,
                finished_at=at + took,
                latency_ms=took.total_seconds() * 1000,
                retrieval_lookups=1 if specialist == "knowledge_qa" else 0,
                retrieval_hits=1 if specialist == "knowledge_qa" else 0,
                tool_lookups=1 if specialist == "business_query" else 0,
                tool_hits=int(rng.random() < 0.7) if specialist == "business_query" else 0,
            )
        )
        rows.dates.setdefault(Subtask, []).append(at)
        at += timedelta(seconds=rng.randint(20, 120))
    conversation.turn_count = len(topics)
    if escalate:
        reason, en_text, zh_text = rng.choice(ESCALATIONS)
        text = zh_text if zh else en_text
        question = Message(conversation=conversation, sender=Sender.CUSTOMER, text=text)
        messages.append((question, at))
        rows.turns.append(
            TurnRun(
                conversation=conversation,
                message=question,
                status=TurnStatus.ESCALATED,
                language=customer.locale,
                intent_level=IntentLevel.RULE if reason == EscalationReason.REQUESTED else IntentLevel.CLASSIFIER,
                escalation_reason=reason,
                finished_at=at + timedelta(milliseconds=rng.randint(30, 80)),
            )
        )
        rows.dates.setdefault(TurnRun, []).append(at)
        conversation.turn_count += 1
        conversation.escalated_at = at
        rows.cards.append(EscalationCard(conversation=conversation, reason=reason, summary=text))
        rows.dates.setdefault(EscalationCard, []).append(at)
        if staff is not None and rng.random() < 0.85:
            conversation.human_joined_at = at + timedelta(seconds=rng.randint(30, 600))
            conversation.first_human_reply_at = conversation.human_joined_at + timedelta(seconds=rng.randint(10, 90))
            reply = "您好，我来帮您处理。" if zh else "Hi, I'm here to help with this."
            messages.append(
                (
                    Message(conversation=conversation, sender=Sender.AGENT, author=staff, text=reply),
                    conversation.first_human_reply_at,
                )
            )
            at = conversation.first_human_reply_at + timedelta(minutes=rng.randint(3, 25))
            _close(conversation, at, ClosedBy.STAFF, ResolutionReason.ANSWERED)
            _rate(rows, rng, conversation, staff, happy=0.6)
        else:  # nobody was free: a ticket for the follow-up
            _close(conversation, at + timedelta(hours=rng.randint(1, 6)), ClosedBy.STAFF, ResolutionReason.FOLLOW_UP)
    else:
        ending = rng.random()
        if progress < 1 / DAYS and ending < 0.4:
            pass  # yesterday's: the customer left, and the chat waits for the assistant's idle close
        elif ending < 0.45:
            _close(
                conversation, at + timedelta(seconds=rng.randint(20, 200)), ClosedBy.CUSTOMER, ResolutionReason.ENDED
            )
            _rate(rows, rng, conversation, None, happy=0.75 + 0.15 * (1 - progress))
        else:
            _close(conversation, at + timedelta(days=1), ClosedBy.ASSISTANT, ResolutionReason.NO_REPLY)
    conversation.last_message_at = messages[-1][1]
    rows.conversations.append(conversation)
    rows.dates.setdefault(Conversation, []).append(started)
    for message, when in messages:
        rows.messages.append(message)
        rows.dates.setdefault(Message, []).append(when)


def _close(conversation: Conversation, at: datetime, by: str, reason: str) -> None:
    conversation.status, conversation.closed_at, conversation.closed_by, conversation.resolution = (
        ConversationStatus.CLOSED,
        at,
        by,
        reason,
    )


def _rate(rows: _Rows, rng: random.Random, conversation: Conversation, staff: Any, *, happy: float) -> None:
    if rng.random() > 0.4 or conversation.closed_at is None:
        return
    score = rng.choice([4, 5, 5]) if rng.random() < happy else rng.choice([1, 2, 3])
    rows.ratings.append(Rating(conversation=conversation, closed_at=conversation.closed_at, score=score, staff=staff))
    rows.dates.setdefault(Rating, []).append(conversation.closed_at)


def _save(rows: _Rows) -> None:
    """Insert in dependency order (each row's foreign keys are taken from the rows saved before it), then
    date each table's rows in one statement: auto_now_add dates every inserted row today."""
    Conversation.objects.bulk_create(rows.conversations, batch_size=1000)
    Message.objects.bulk_create(rows.messages, batch_size=1000)
    TurnRun.objects.bulk_create(rows.turns, batch_size=1000)
    IntentRecord.objects.bulk_create(rows.intents, batch_size=1000)
    Subtask.objects.bulk_create(rows.subtasks, batch_size=1000)
    EscalationCard.objects.bulk_create(rows.cards, batch_size=1000)
    Rating.objects.bulk_create(rows.ratings, batch_size=1000)
    dated: list[tuple[type[models.Model], Sequence[models.Model]]] = [
        (Conversation, rows.conversations),
        (Message, rows.messages),
        (TurnRun, rows.turns),
        (IntentRecord, rows.intents),
        (Subtask, rows.subtasks),
        (EscalationCard, rows.cards),
        (Rating, rows.ratings),
    ]
    for model, objects in dated:
        _backdate(model, [o.pk for o in objects], rows.dates.get(model, []))


def _backdate(model: type[models.Model], ids: list[Any], dates: list[datetime]) -> None:
    if not ids:
        return
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{table}" SET created_at = d.at FROM unnest(%s::bigint[], %s::timestamptz[]) AS d(id, at) '
            f'WHERE "{table}".id = d.id',
            [ids, dates],
        )


def _misses(rng: random.Random, now: datetime) -> None:
    """Questions the knowledge base missed, fewer in the later weeks (answered as FAQ entries)."""
    try:
        vectors = query_vectors([text for _, text in MISSES])
    except EmbeddingsUnavailable:
        return  # no model to embed them with: the gaps page needs their meaning
    missed, dates = [], []
    for n in range(70):
        day = rng.randint(1, DAYS)
        if day < DAYS / 3 and rng.random() < 0.5:
            continue
        index = rng.randrange(len(MISSES))
        language, text = MISSES[index]
        missed.append(
            MissedQuestion(
                question=text, language=language, embedding=vectors[index].tolist(), reference=f"{PREFIX}{n}"
            )
        )
        dates.append(now - timedelta(days=day, hours=rng.randint(0, 12)))
    MissedQuestion.objects.bulk_create(missed)
    _backdate(MissedQuestion, [m.pk for m in missed], dates)
