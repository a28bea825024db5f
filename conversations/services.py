"""State changes of customers, conversations, messages and the conversation's engine state (recognised
intents, workflows): every write to conversations' tables is made here. Changes a client sees publish their
event on commit."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from conversations.json_input import text_unreadable_removed
from conversations.language import say
from conversations.models import (
    WORKFLOW_MOVES,
    Channel,
    ClosedBy,
    Conversation,
    ConversationStatus,
    Customer,
    IntentRecord,
    Language,
    Message,
    Rating,
    ResolutionReason,
    Sender,
    WorkflowState,
    WorkflowStatus,
)
from conversations.prepared import PreparedRead
from conversations.realtime import (
    message_payload,
    send_conversation_event_now,
    send_conversation_event_on_commit,
    send_staff_event_on_commit,
    staff_display_name,
)
from conversations.selectors import conversation_json
from conversations.writes import Write, insert, update, writes_run, written
from webhooks.models import WebhookEventType
from webhooks.services import webhook_event_emit


class ConversationStateError(Exception):
    """The conversation is not in a state that allows this action."""


class ConversationTaken(ConversationStateError):
    """Another staff member owns the conversation."""

    def __init__(self, owner: str) -> None:
        super().__init__(_("%(owner)s has already taken this conversation over") % {"owner": owner})
        self.owner = owner


@dataclass(frozen=True)
class MessageRejected(Exception):
    """A message the engine will not process; `reply` is the polite answer in the customer's language."""

    code: str
    reply: str

    def __str__(self) -> str:
        return self.code


def customer_upsert(*, external_id: str, locale: str = Language.EN, **fields: Any) -> Customer:
    """The one way a customer is written: created with `fields` (and `locale`, the language of their first
    contact), or, when the external id is known, `fields` written over what is stored. Empty values are left
    out, so an identity naming no email keeps the stored one; callers only ever turn `verified` on."""
    fields = {name: value for name, value in fields.items() if value not in ("", None)}
    with transaction.atomic():
        customer, created = Customer.objects.get_or_create(
            external_id=external_id, defaults={"locale": locale, **fields}
        )
        if not created and fields:
            Customer.objects.filter(pk=customer.pk).update(**fields)
            customer.refresh_from_db()
    return customer


def conversation_start_for_visitor(*, locale: str = Language.EN, client_key: str = "") -> Conversation:
    """A new anonymous visitor and their first widget conversation, in one statement: the visitor's id is one
    nobody has (so nothing to look up first, unlike customer_upsert), their language the one of this first
    contact."""
    customer = Customer(external_id=f"visitor-{uuid.uuid4().hex}", locale=locale)
    conversation = Conversation(
        customer_id=written("customer"), channel=Channel.WIDGET, language=locale, client_key=client_key
    )
    writes_run(customer=insert(customer), conversation=insert(conversation))
    conversation.customer = customer
    return conversation


def customer_details_change(*, customer_id: int, **fields: Any) -> None:
    """Staff put a customer's contact details right (an empty value clears it, unlike customer_upsert)."""
    allowed = {"name", "first_name", "last_name", "email", "phone", "locale"}
    if set(fields) - allowed:
        raise ValueError(f"not a contact detail: {sorted(set(fields) - allowed)}")
    if fields:
        Customer.objects.filter(pk=customer_id).update(updated_at=timezone.now(), **fields)


def conversation_start(
    *, customer: Customer, channel: str = Channel.WIDGET, language: str = "", client_key: str = ""
) -> Conversation:
    return Conversation.objects.create(
        customer=customer, channel=channel, language=language or customer.locale, client_key=client_key
    )


def message_create(
    *,
    conversation: Conversation,
    sender: str,
    text: str,
    sources: list[dict[str, Any]] | None = None,
    metadata: dict[str, Any] | None = None,
    author: AbstractBaseUser | None = None,
    client_id: str = "",
    internal: bool = False,
    language: str = "",
    conversation_changes: dict[str, Any] | None = None,
    along: dict[str, Write] | None = None,
) -> Message:
    """Store a message and announce it (internal notes only to staff) once the transaction commits. A
    customer's message counts a turn and sets the conversation's language to the one it was written in;
    `conversation_changes` are written to the conversation with it. One statement: `along` are the caller's
    writes that go with it (its turn, whose message is `written("message")`, only_if="message").

    A `client_id` the conversation already has (a client sending again) stores nothing: the message comes
    back without an id."""
    message = Message(
        conversation=conversation,
        sender=sender,
        text=text,
        sources=sources or [],
        metadata=metadata or {},
        author=author,  # type: ignore[misc]
        client_id=client_id,
        internal=internal,
    )
    stored = insert(message, unless_duplicate=bool(client_id))  # sets created_at
    counted: dict[str, Any] = dict(conversation_changes or {})
    if sender == Sender.CUSTOMER:
        counted = {"turn_count": F("turn_count") + 1, "updated_at": message.created_at}
        if language:
            counted["language"] = language
    writes_run(
        message=stored,
        conversation=update(
            Conversation,
            where={"pk": conversation.pk},
            only_if="message",
            last_message_at=message.created_at,
            **counted,
        ),
        **(along or {}),
    )
    if message.pk is not None:
        message_announce(message)
    return message


def bot_message_writes(
    *,
    conversation_id: int,
    text: str,
    sources: list[dict[str, Any]] | None = None,
    metadata: dict[str, Any] | None = None,
    conversation_changes: dict[str, Any] | None = None,
) -> tuple[Message, dict[str, Write]]:
    """A bot message as the writes of a statement the caller runs with its own (conversations.writes), unless
    a person has the chat: the conversation's UPDATE checks that and writes the conversation's changes, and
    the message (named "message") is inserted only if it did. Inside atomic(): the UPDATE holds the
    conversation's row until the commit, so a take-over waits for this message or comes first. Once run, the
    message has an id if it was written; message_announce it then."""
    message = Message(
        conversation_id=conversation_id, sender=Sender.BOT, text=text, sources=sources or [], metadata=metadata or {}
    )
    stored = insert(message, only_if="conversation")  # sets created_at
    return message, {
        "conversation": update(
            Conversation,
            where={"pk": conversation_id},
            unless={"status": ConversationStatus.HUMAN},
            last_message_at=message.created_at,
            **(conversation_changes or {}),
        ),
        "message": stored,
    }


def bot_message_create(
    *,
    conversation_id: int,
    text: str,
    metadata: dict[str, Any] | None = None,
) -> Message | None:
    """A bot message, unless a person has the chat: None then, and nothing written (inside atomic())."""
    message, writes = bot_message_writes(conversation_id=conversation_id, text=text, metadata=metadata)
    writes_run(**writes)
    if message.pk is None:
        return None
    message_announce(message)
    return message


def message_announce(message: Message) -> None:
    """message.created once committed: to the conversation and to webhooks, and to staff (internal notes
    only to staff)."""
    event = {"type": "message.created", "message": message_payload(message)}
    if not message.internal:
        send_conversation_event_on_commit(message.conversation_id, event)
        webhook_event_emit(WebhookEventType.MESSAGE_CREATED, {"message": event["message"]})
    send_staff_event_on_commit(event)


def _status_change(
    conversation: Conversation, status: str, *, told: dict[str, Any] | None = None, **fields: Any
) -> None:
    """`told`: what the status.changed event says besides the status."""
    Conversation.objects.filter(pk=conversation.pk).update(status=status, updated_at=timezone.now(), **fields)
    conversation.status = status
    for name, value in fields.items():
        setattr(conversation, name, value)
    event = {"type": "status.changed", "conversation_id": conversation.pk, "status": status, **(told or {})}
    send_conversation_event_on_commit(conversation.pk, event)
    send_staff_event_on_commit(event)


def conversation_lock(conversation_id: int) -> Conversation:
    """The conversation row, locked until the surrounding transaction ends (which must be open)."""
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("conversation_lock outside a transaction locks nothing")
    return _CONVERSATION_LOCKED.one(conversation_id=conversation_id)


# Compiled once: every customer message and most turns take this lock.
_CONVERSATION_LOCKED = PreparedRead(
    lambda conversation_id: Conversation.objects.select_for_update().filter(pk=conversation_id)
)


def conversation_wait_for_human(*, conversation: Conversation, staff_online: bool = True) -> None:
    """Hand the chat to the staff queue. Must be called inside atomic() with the row locked. The event says
    whether anyone is online, so the widget's banner says what the bot said (a person joins, or we get back
    to you)."""
    if conversation.status in (ConversationStatus.BOT, ConversationStatus.CLOSED):
        _status_change(
            conversation,
            ConversationStatus.WAITING_HUMAN,
            told={"staff_online": staff_online},
            closed_at=None,
            closed_by="",
            escalated_at=conversation.escalated_at or timezone.now(),
        )


def conversation_reopen(*, conversation: Conversation) -> None:
    """A closed chat the customer writes to again goes back to the bot (inside atomic(), row locked)."""
    if conversation.status == ConversationStatus.CLOSED:
        _status_change(conversation, ConversationStatus.BOT, closed_at=None, closed_by="")


def conversation_take_over(*, conversation_id: int, staff: AbstractBaseUser) -> Conversation:
    """A staff member owns the chat from now on; the bot stays silent until hand-back.

    Race-safe: under the row lock, a chat another staff member already owns is refused with
    ConversationTaken naming them, so the second of two clicks learns who was first."""
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status == ConversationStatus.HUMAN:
            if conversation.assigned_staff_id == staff.pk:
                return conversation
            raise ConversationTaken(staff_display_name(conversation.assigned_staff))
        if conversation.status == ConversationStatus.CLOSED:
            raise ConversationStateError(_("A closed conversation cannot be taken over."))
        _owner_joins(conversation, staff, event="taken_over")
    return conversation


def conversation_transfer(*, conversation_id: int, staff: AbstractBaseUser, to: AbstractBaseUser) -> Conversation:
    """Give the chat to a colleague (Chatwoot's assign, Intercom's reassign), who owns it from then on as if
    they had taken it over; the customer is told who joined. A chat waiting for a person may be given by
    anyone at the console; one a person owns, only by its owner (others learn who owns it)."""
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff_id != staff.pk:
            raise ConversationTaken(staff_display_name(conversation.assigned_staff))
        if conversation.status not in (ConversationStatus.HUMAN, ConversationStatus.WAITING_HUMAN):
            raise ConversationStateError(_("Only a conversation waiting for or owned by a person can be transferred."))
        if conversation.assigned_staff_id == to.pk:
            return conversation
        _owner_joins(conversation, to, event="transferred", by_staff_id=staff.pk)
    return conversation


def _owner_joins(conversation: Conversation, owner: AbstractBaseUser, **metadata: Any) -> None:
    """The chat is the person's from now on, and the customer is told who joined (row locked)."""
    _status_change(
        conversation,
        ConversationStatus.HUMAN,
        assigned_staff=owner,
        human_joined_at=conversation.human_joined_at or timezone.now(),
    )
    name = staff_display_name(owner)
    message_create(
        conversation=conversation,
        sender=Sender.SYSTEM,
        text=say(conversation.language, "%(name)s joined the conversation.", name=name),
        metadata={**metadata, "staff_id": owner.pk, "agent_name": name},
    )


def conversation_hand_back(*, conversation_id: int, staff: AbstractBaseUser) -> Conversation:
    """Give the chat back to the bot, which resumes with the whole history and a fresh failure count. A chat
    waiting for a person may be handed back by anyone at the console; one a person owns, only by its owner,
    as transfer, resolve and replies (else a colleague could hand it back and take it over)."""
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff_id != staff.pk:
            raise ConversationTaken(staff_display_name(conversation.assigned_staff))
        if conversation.status not in (ConversationStatus.HUMAN, ConversationStatus.WAITING_HUMAN):
            raise ConversationStateError(_("Only a conversation waiting for or owned by a person can be handed back."))
        _status_change(conversation, ConversationStatus.BOT, assigned_staff=None, failed_attempts=0)
        message_create(
            conversation=conversation,
            sender=Sender.SYSTEM,
            text=say(conversation.language, "The assistant is back in the conversation."),
            metadata={"event": "handed_back", "staff_id": staff.pk},
        )
    return conversation


def staff_message_send(*, conversation_id: int, staff: AbstractBaseUser, text: str, internal: bool = False) -> Message:
    """A staff reply to the customer, or an internal note only staff ever see.

    A reply needs the chat to be theirs (taken over), so the customer never hears two voices at once;
    a note can be left on any chat."""
    text = text.strip()
    if not text:
        raise ConversationStateError(_("The message is empty."))
    if len(text) > settings.MAX_MESSAGE_CHARS:
        raise ConversationStateError(
            _("The message is longer than %(limit)s characters.") % {"limit": settings.MAX_MESSAGE_CHARS}
        )
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if not internal and not (
            conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff_id == staff.pk
        ):
            raise ConversationStateError(_("Take the conversation over before replying to the customer."))
        message = message_create(
            conversation=conversation,
            sender=Sender.AGENT,
            text=text,
            author=staff,
            internal=internal,
        )
        if not internal and conversation.first_human_reply_at is None:
            Conversation.objects.filter(pk=conversation.pk).update(first_human_reply_at=message.created_at)
        return message


def conversation_resolve(
    *,
    conversation_id: int,
    reason: str,
    note: str = "",
    staff: AbstractBaseUser | None = None,
    closed_by: str = "",
    rating: int | None = None,
    comment: str = "",
) -> Conversation:
    """Close the chat with why; the customer is told (and asked to rate it), and writing again reopens it
    with the bot.

    `staff` is the console user (who may not close a colleague's chat); None is the store's own backend
    through the API, which may close any chat, or `closed_by` the customer or the assistant. A `rating`
    (1–5) the store collected itself is stored with the closing (conversation_rate)."""
    if reason not in ResolutionReason.values:
        raise ConversationStateError(_("Unknown resolution reason %(reason)r.") % {"reason": reason})
    closed_by = closed_by or (ClosedBy.STAFF if staff is not None else ClosedBy.STORE)
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status == ConversationStatus.CLOSED:
            raise ConversationStateError(_("The conversation is already closed."))
        if (
            staff is not None
            and conversation.status == ConversationStatus.HUMAN
            and conversation.assigned_staff_id != staff.pk
        ):
            raise ConversationTaken(staff_display_name(conversation.assigned_staff))
        _status_change(
            conversation,
            ConversationStatus.CLOSED,
            told={"rating_wanted": rating is None},
            assigned_staff=None,
            closed_at=timezone.now(),
            closed_by=closed_by,
            resolution=reason,
            resolution_note=note.strip()[:500],
            failed_attempts=0,
        )
        message_create(
            conversation=conversation,
            sender=Sender.SYSTEM,
            text=say(
                conversation.language,
                "This conversation has been closed. Write again any time if you need more help.",
            ),
            metadata={
                "event": "resolved",
                "staff_id": staff.pk if staff else None,
                "reason": reason,
                "closed_by": closed_by,
            },
        )
        if rating is not None:
            _rating_create(conversation, score=rating, comment=comment)
        webhook_event_emit(
            WebhookEventType.CONVERSATION_CLOSED,
            {"conversation": conversation_json(conversation), "note": conversation.resolution_note},
        )
    return conversation


def conversation_end_by_customer(*, conversation_id: int) -> Conversation:
    """The shopper's own "End chat"; ending a chat that is already closed is no error (a second tab)."""
    try:
        return conversation_resolve(
            conversation_id=conversation_id, reason=ResolutionReason.ENDED, closed_by=ClosedBy.CUSTOMER
        )
    except ConversationStateError:
        conversation = Conversation.objects.get(pk=conversation_id)
        if conversation.status != ConversationStatus.CLOSED:
            raise
        return conversation


def conversations_close_idle(*, idle_for: timedelta, limit: int = 500) -> int:
    """Close the chats the assistant answered last and nobody wrote to since `idle_for` (the customer did
    not come back: docs/analytics.md counts them resolved). A chat waiting for or owned by a person stays
    open, for a person owes it a reply. Returns how many were closed."""
    quiet = timezone.now() - idle_for
    last_sender = Subquery(
        Message.objects.filter(conversation=OuterRef("pk"), internal=False)
        .exclude(sender=Sender.SYSTEM)
        .order_by("-created_at", "-pk")
        .values("sender")[:1]
    )
    idle = list(
        Conversation.objects.filter(status=ConversationStatus.BOT, last_message_at__lt=quiet)
        .annotate(last_sender=last_sender)
        .filter(last_sender=Sender.BOT)
        .values_list("pk", flat=True)[:limit]
    )
    closed = 0
    for conversation_id in idle:
        try:
            conversation_resolve(
                conversation_id=conversation_id, reason=ResolutionReason.NO_REPLY, closed_by=ClosedBy.ASSISTANT
            )
        except ConversationStateError:
            continue  # closed or reopened meanwhile
        closed += 1
    return closed


class RatingRefused(ConversationStateError):
    """Why a rating was not stored: `code` for programs, `msgid` to say it in the chat's language."""

    def __init__(self, code: str, msgid: str, **values: Any) -> None:
        self.code, self.msgid, self.values = code, msgid, values
        super().__init__(_(msgid) % values if values else _(msgid))


RATING_COMMENT_MAX_CHARS = 1000


def conversation_rate(*, conversation_id: int, score: Any, comment: Any = "") -> Rating:
    """The customer's rating of the chat's latest closing, once (CSAT). Raises RatingRefused: a score that is
    not a whole number from 1 to 5, a comment too long, a chat that is open, or a closing already rated."""
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status != ConversationStatus.CLOSED:
            raise RatingRefused("not_closed", gettext_noop("Only a closed conversation can be rated."))
        return _rating_create(conversation, score=score, comment=comment)


def _rating_create(conversation: Conversation, *, score: Any, comment: Any) -> Rating:
    """Inside atomic(), the closed conversation's row locked."""
    if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
        raise RatingRefused("bad_score", gettext_noop("A rating is a whole number from 1 to 5."))
    if not isinstance(comment, str) or len(comment.strip()) > RATING_COMMENT_MAX_CHARS:
        raise RatingRefused(
            "bad_comment",
            gettext_noop("A comment is text of at most %(limit)s characters."),
            limit=RATING_COMMENT_MAX_CHARS,
        )
    assert conversation.closed_at is not None
    if Rating.objects.filter(conversation=conversation, closed_at=conversation.closed_at).exists():
        raise RatingRefused("already_rated", gettext_noop("This conversation has already been rated."))
    handled_by = (
        Message.objects.filter(conversation=conversation, sender=Sender.AGENT, internal=False)
        .order_by("-created_at", "-pk")
        .values_list("author_id", flat=True)
        .first()
    )
    return Rating.objects.create(
        conversation=conversation,
        closed_at=conversation.closed_at,
        score=score,
        comment=text_unreadable_removed(comment.strip()),
        staff_id=handled_by,
    )


def staff_typing(*, conversation_id: int, staff: AbstractBaseUser) -> None:
    """Tell the customer a person is writing (no row: sent at once)."""
    send_conversation_event_now(
        conversation_id,
        {"type": "typing", "sender": "agent", "conversation_id": conversation_id, "name": staff_display_name(staff)},
    )


def conversation_failed_attempts_set(*, conversation_id: int, count: int) -> None:
    """How many turns in a row the bot could not help with (0 after one it could)."""
    Conversation.objects.filter(pk=conversation_id).update(failed_attempts=count)


def conversation_verified_customer_set(*, conversation_id: int, customer: Customer) -> None:
    """The chat has proven it speaks for `customer` (a signed identity, an emailed code, account details)."""
    Conversation.objects.filter(pk=conversation_id).update(verified_customer=customer)


@dataclass(frozen=True)
class RecognisedIntent:
    name: str
    confidence: float


def intents_record_writes(
    *,
    conversation_id: int,
    message_id: int,
    intents: list[RecognisedIntent],
    level: str,
    entities: dict[str, Any],
    emotion_score: float,
    only_if: str = "",
) -> dict[str, Write]:
    """What a customer's message was recognised as, as writes (conversations.writes) to run with the turn's
    move (`only_if` it moved); the first intent becomes the conversation's current one."""
    writes = {
        f"intent_{position}": insert(
            IntentRecord(
                conversation_id=conversation_id,
                message_id=message_id,
                name=intent.name,
                confidence=round(min(max(intent.confidence, 0.0), 1.0), 4),
                level=level,
                entities=entities,
                emotion_score=min(max(emotion_score, 0.0), 1.0),
            ),
            only_if=only_if,
        )
        for position, intent in enumerate(intents)
    }
    if intents:
        writes["current_intent"] = update(
            Conversation, where={"pk": conversation_id}, only_if=only_if, current_intent=intents[0].name
        )
    return writes


# --- workflows' state, kept with the conversation (the engine's agents.workflows drives it) ---------------


def workflow_open(
    *,
    conversation_id: int,
    kind: str,
    expires_at: datetime,
    status: str = WorkflowStatus.ACTIVE,
    step: str = "",
    slots: dict[str, Any] | None = None,
    progress: dict[str, Any] | None = None,
) -> WorkflowState:
    return WorkflowState.objects.create(
        conversation_id=conversation_id,
        kind=kind,
        status=status,
        step=step,
        slots=slots or {},
        progress=progress or {},
        expires_at=expires_at,
    )


def _can_move_to(status: str) -> list[str]:
    return [before for before, after in WORKFLOW_MOVES.items() if status in after]


def workflow_save(state_id: int, *, only_if: str = "", **fields: Any) -> bool:
    """Write `fields` of one workflow; with `only_if`, only while it is in that status. A new status is written
    only from a status that may move to it (WORKFLOW_MOVES): False when the row is not written."""
    rows = WorkflowState.objects.filter(pk=state_id)
    if only_if:
        rows = rows.filter(status=only_if)
    if "status" in fields:
        rows = rows.filter(status__in=_can_move_to(fields["status"]))
    return rows.update(**fields) == 1


def workflows_end(*, conversation_id: int, status: str, to: str, keep_kind: str = "") -> int:
    """Move a conversation's workflows in `status` to `to` (all kinds but `keep_kind`); return how many."""
    if to not in WORKFLOW_MOVES[status]:
        raise ValueError(f"a workflow cannot move from {status} to {to}")
    rows = WorkflowState.objects.filter(conversation_id=conversation_id, status=status)
    if keep_kind:
        rows = rows.exclude(kind=keep_kind)
    return rows.update(status=to)


def workflows_expire_idle() -> int:
    """Close the workflows (and requests queued) whose time ran out; return how many."""
    return WorkflowState.objects.filter(
        status__in=[WorkflowStatus.ACTIVE, WorkflowStatus.QUEUED], expires_at__lt=timezone.now()
    ).update(status=WorkflowStatus.EXPIRED)
