"""The engine's state changes: the customer-message use case, turn transitions, subtask results.

Every turn transition is a compare-and-set on the turn's status plus a TurnEvent, in one
transaction with the rows the step writes; a step that runs twice loses the race the second time
and writes nothing.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.utils import timezone

from agents.models import Subtask, TurnEvent, TurnRun
from agents.queue import turn_queue, turn_queue_on_commit
from agents.selectors import turn_next_waiting
from agents.states import TERMINAL, SubtaskStatus, TurnStatus, transition_allowed
from agents.turn_wait import turn_ended_announce
from conversations.json_input import text_unreadable, text_unreadable_removed
from conversations.language import detect_language, say
from conversations.models import (
    Conversation,
    ConversationStatus,
    Language,
    Sender,
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.services import (
    MessageRejected,
    conversation_lock,
    conversation_reopen,
    conversation_start,
    customer_upsert,
    message_create,
)
from conversations.writes import Write, insert, update, writes_run, written
from knowledge.cache_tally import CacheTally

logger = logging.getLogger(__name__)


class TurnTransitionError(Exception):
    """The move is not in ALLOWED_TRANSITIONS."""


# The name of the turn's compare-and-set among the writes of a transition: other writes go `only_if` it.
TURN_MOVED = "turn_moved"


def turn_transition(
    *,
    turn_id: int,
    from_: str,
    to: str,
    reason: str = "",
    along: dict[str, Write] | None = None,
    only_if: str = "",
    **fields: Any,
) -> bool:
    """Move a turn from `from_` to `to`, writing a TurnEvent; False if it was no longer in `from_`.

    Must run inside the transaction of the step whose rows it commits with. One statement
    (conversations.writes): `along` are the step's rows, which go `only_if=TURN_MOVED` when they must not be
    written by a run that lost the race; `only_if` names one of them without which the turn does not move.
    """
    if not transition_allowed(from_, to):
        raise TurnTransitionError(f"a turn cannot go from {from_} to {to}")
    if to in TERMINAL:
        fields["finished_at"] = timezone.now()
    event = TurnEvent(turn_id=turn_id, from_status=from_, to_status=to, reason=reason[:200])
    wrote = writes_run(
        **{
            TURN_MOVED: update(TurnRun, where={"id": turn_id, "status": from_}, only_if=only_if, status=to, **fields),
            "turn_event": insert(event, only_if=TURN_MOVED),
        },
        **(along or {}),
    )
    if not wrote[TURN_MOVED]:
        return False
    if to in TERMINAL:
        transaction.on_commit(lambda: _turn_next_start(turn_id))
    return True


def turn_move(
    turn: TurnRun,
    *,
    to: str,
    reason: str = "",
    from_: str = "",
    along: dict[str, Write] | None = None,
    only_if: str = "",
    **fields: Any,
) -> bool:
    """turn_transition for the turn in hand (from its status unless `from_` says otherwise), which is updated
    to match the row, so the next step goes on from it without reading the row again."""
    moved = turn_transition(
        turn_id=turn.pk, from_=from_ or turn.status, to=to, reason=reason, along=along, only_if=only_if, **fields
    )
    if not moved:
        return False
    turn.status = to
    for name, value in fields.items():
        setattr(
            turn, name, as_read_back(value) if isinstance(TurnRun._meta.get_field(name), models.JSONField) else value
        )
    return True


def as_read_back(value: Any) -> Any:
    """A value written to a JSON column as it reads back from the row (tuples become lists, dates strings), for a
    row kept in hand after its write."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _turn_next_start(turn_id: int) -> None:
    """A turn ended (run after its commit): whoever waits for it is woken, and the conversation's next
    message, waiting for it, is answered now."""
    turn_ended_announce(turn_id)
    waiting = turn_next_waiting(turn_id)
    if waiting is not None:
        turn_queue(waiting)


def _rejection(text: str, language: str) -> MessageRejected | None:
    if text_unreadable(text):
        return MessageRejected(
            "unreadable", say(language, "That message has characters we can't read. Could you type it again?")
        )
    stripped = text.strip()
    if not stripped:
        return MessageRejected("empty", say(language, "Please type a message - I'm here to help."))
    if len(stripped) > settings.MAX_MESSAGE_CHARS:
        return MessageRejected(
            "too_long",
            say(
                language,
                "That message is too long (at most %(limit)s characters). Could you shorten it?",
                limit=settings.MAX_MESSAGE_CHARS,
            ),
        )
    return None


def _bot_listens(conversation: Conversation) -> bool:
    """The bot answers unless a person owns the chat, or one is awaited and no callback is being taken."""
    if conversation.status == ConversationStatus.HUMAN:
        return False
    if conversation.status == ConversationStatus.WAITING_HUMAN:
        return WorkflowState.objects.filter(
            conversation=conversation, kind=WorkflowKind.CALLBACK, status=WorkflowStatus.ACTIVE
        ).exists()
    return True


def customer_message_handle(*, conversation_id: int, text: str, client_id: str = "") -> TurnRun:
    """Store the customer's message first, then start a turn for it (or stay silent for a human).

    1. Reject empty and over-long text with a polite MessageRejected (nothing stored).
    2. Under the conversation lock: reopen a closed conversation; store the message, count the turn and
       create it (one statement). A `client_id` seen before stores nothing and returns that message's turn
       (a resend; looked for first when the conversation is closed, which a resend does not reopen).
    3. The turn is SKIPPED at once when a human owns the chat, else queued after commit.
    """
    if _rejection(text, Language.EN) is not None:
        # Said in the customer's language: the text's when it has words, else the conversation's.
        usual = Conversation.objects.filter(pk=conversation_id).values_list("language", flat=True).first()
        readable = text_unreadable_removed(text)
        raise _rejection(text, detect_language(readable, default=usual or Language.EN))  # type: ignore[misc]
    with transaction.atomic():
        conversation = conversation_lock(conversation_id)
        if conversation.status == ConversationStatus.CLOSED:
            if client_id and (resent := _turns_of_client_id(conversation_id, client_id).first()) is not None:
                return resent
            conversation_reopen(conversation=conversation)
        language = detect_language(text, default=conversation.language)
        turn = TurnRun(conversation=conversation, message_id=written("message"), language=language)
        turn.message = message_create(
            conversation=conversation,
            sender=Sender.CUSTOMER,
            text=text.strip(),
            client_id=client_id,
            language=language,
            along={"turn": insert(turn, only_if="message")},
        )
        if turn.pk is None:  # the client sent it before
            return _turns_of_client_id(conversation_id, client_id).get()
        if not _bot_listens(conversation):
            turn_transition(
                turn_id=turn.pk, from_=TurnStatus.RECEIVED, to=TurnStatus.SKIPPED, reason="a human owns the chat"
            )
            turn.status = TurnStatus.SKIPPED
        else:
            turn_queue_on_commit(turn.pk)
    return turn


def _turns_of_client_id(conversation_id: int, client_id: str) -> models.QuerySet[TurnRun]:
    return TurnRun.objects.filter(message__conversation_id=conversation_id, message__client_id=client_id)


def turn_entities_set(turn: TurnRun, entities: dict[str, Any]) -> None:
    """What the turn's message is read as naming (an answer to a clarifying question adds the question's)."""
    turn.entities = entities
    TurnRun.objects.filter(pk=turn.pk).update(entities=entities)


@dataclass(frozen=True)
class SubtaskPlan:
    specialist: str
    intent: str
    text: str
    digression: bool = False


def subtasks_writes(turn: TurnRun, plans: list[SubtaskPlan]) -> tuple[list[Subtask], dict[str, Write]]:
    """The turn's subtasks, in the order their answers are merged, as writes to run with the fan-out's move
    (only if the turn moved); they have their ids once run."""
    subtasks = [Subtask(turn=turn, position=position, **asdict(plan)) for position, plan in enumerate(plans)]
    return subtasks, {f"subtask_{s.position}": insert(s, only_if=TURN_MOVED) for s in subtasks}


def subtask_record_result(
    *,
    subtask_id: int,
    status: str,
    turn_id: int | None = None,
    result: dict[str, Any] | None = None,
    error: str = "",
    started: float | None = None,
    advance: bool = True,
    alone: bool = False,
    cache: CacheTally | None = None,
) -> bool:
    """Store a subtask's outcome, with its `cache` lookups; the last one to finish moves the turn to MERGING.

    Locks the turn row, so two subtasks finishing together agree on who was last. Returns False
    (writing nothing) when the subtask already has a result or the turn moved on. `alone`: the turn's
    only subtask, run by the node that fanned the turn out: with no other subtask to wait for, its outcome
    and the turn's move are one statement, and a second run of it finds the subtask no longer pending.
    """
    if turn_id is None:
        turn_id = Subtask.objects.values_list("turn_id", flat=True).get(pk=subtask_id)
    latency = (time.perf_counter() - started) * 1000 if started is not None else None
    outcome: dict[str, Any] = {
        "status": status,
        "result": result or {},
        "error": error[:2000],
        "finished_at": timezone.now(),
        "latency_ms": latency,
    }
    if cache is not None:
        outcome.update(
            retrieval_lookups=cache.lookups["retrieval"],
            retrieval_hits=cache.hits["retrieval"],
            tool_lookups=cache.lookups["tools"],
            tool_hits=cache.hits["tools"],
        )
    pending = {"pk": subtask_id, "status": SubtaskStatus.PENDING}
    if alone:  # the outcome and the move in one statement, the move only if the outcome was written
        moved = turn_transition(
            turn_id=turn_id,
            from_=TurnStatus.FANNED_OUT,
            to=TurnStatus.MERGING,
            reason="all subtasks finished",
            along={"subtask": update(Subtask, where=pending, **outcome)},
            only_if="subtask",
        )
        if moved and advance:
            turn_queue_on_commit(turn_id)
        return moved
    with transaction.atomic(savepoint=False):  # what it writes stands or falls with the caller's transaction
        turn = TurnRun.objects.select_for_update(no_key=True).only("status").get(pk=turn_id)
        if turn.status != TurnStatus.FANNED_OUT:
            return False
        if Subtask.objects.filter(**pending).update(**outcome) != 1:
            return False
        if not Subtask.objects.filter(turn_id=turn_id, status=SubtaskStatus.PENDING).exists():
            if (
                turn_transition(
                    turn_id=turn_id, from_=TurnStatus.FANNED_OUT, to=TurnStatus.MERGING, reason="all subtasks finished"
                )
                and advance
            ):
                turn_queue_on_commit(turn_id)
    return True


def conversation_start_for_integrator(*, customer: dict[str, Any], language: str, channel: str) -> Conversation:
    """Upsert the integrator's customer by external id and open a conversation for them.

    An integrator's API key is a signed identity: `verified: true` makes the customer verified,
    so the bot can show them their orders without asking. It never un-verifies a customer.
    """
    with transaction.atomic():
        record = customer_upsert(
            external_id=customer["external_id"],
            locale=language,
            **{k: customer.get(k) for k in ("name", "email", "phone")},
            verified=True if customer.get("verified") else None,
        )
        return conversation_start(customer=record, channel=channel, language=language)
