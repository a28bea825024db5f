"""Hot statements compiled once and planned once (conversations.prepared), on the real Postgres: every read
prepared this way answers as its queryset does."""

import select
import threading
import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from psycopg.pq import TransactionStatus

from agents.models import TurnRun
from agents.selectors import _TURN_TO_ADVANCE, turn_next_waiting, turn_to_advance
from agents.states import TurnStatus
from agents.turn_wait import _turn_with_conversation
from conversations.api_keys import api_key_authenticate, api_key_create, api_keys_revoke
from conversations.models import (
    Conversation,
    ConversationStatus,
    Message,
    Sender,
    WorkflowKind,
    WorkflowState,
    WorkflowStatus,
)
from conversations.prepared import PREPARE_AFTER, PreparedRead, connection_kept, statement_cursor
from conversations.selectors import conversation_customer_id, conversation_internal_notes
from conversations.services import conversation_lock
from conversations.widget import HISTORY_LIMIT, WidgetTicket, widget_history
from tests.factories import ConversationFactory

pytestmark = pytest.mark.django_db


def _turn(conversation: Conversation, text: str, **fields: object) -> TurnRun:
    message = Message.objects.create(conversation=conversation, sender=Sender.CUSTOMER, text=text)
    return TurnRun.objects.create(conversation=conversation, message=message, **fields)


def _as_read(turn: TurnRun) -> dict[str, object]:
    return {
        **{field.attname: getattr(turn, field.attname) for field in TurnRun._meta.concrete_fields},
        "message": (turn.message.pk, turn.message.text, turn.message.created_at),
        "conversation": (turn.conversation.pk, turn.conversation.status, turn.conversation.language),
        "customer": (turn.conversation.customer.pk, turn.conversation.customer.external_id),
        "earlier_unfinished": turn.earlier_unfinished,  # type: ignore[attr-defined]
        "previous_route": turn.previous_route,  # type: ignore[attr-defined]
        "workflow_open": turn.workflow_open,  # type: ignore[attr-defined]
    }


def test_the_turns_read_answers_as_its_queryset_with_related_rows_and_annotations() -> None:
    conversation = ConversationFactory.create()
    first = _turn(conversation, "where is my order", status=TurnStatus.DONE, route="clarify", intents=[{"x": 1}])
    second = _turn(conversation, "the blue one")
    third = _turn(conversation, "and the red one")
    WorkflowState.objects.create(
        conversation=conversation,
        kind=WorkflowKind.RETURN,
        status=WorkflowStatus.ACTIVE,
        expires_at=timezone.now() + timedelta(hours=1),
    )

    for turn in (first, second, third):
        expected = _TURN_TO_ADVANCE._build(turn_id=turn.pk).get()
        assert _as_read(turn_to_advance(turn.pk)) == _as_read(expected)
    assert _as_read(turn_to_advance(second.pk))["previous_route"] == "clarify"
    assert _as_read(turn_to_advance(third.pk))["earlier_unfinished"] is True
    assert _as_read(turn_to_advance(first.pk))["workflow_open"] is True
    assert turn_to_advance(first.pk).intents == [{"x": 1}]  # a JSON column read back as Python
    assert timezone.is_aware(turn_to_advance(first.pk).created_at)


def test_a_missing_row_raises_the_models_does_not_exist() -> None:
    with pytest.raises(TurnRun.DoesNotExist):
        turn_to_advance(987_654_321)


def test_value_reads_give_rows_and_each_call_its_own_ids() -> None:
    conversation, other = ConversationFactory.create(), ConversationFactory.create()
    ended = _turn(conversation, "hi", status=TurnStatus.DONE)
    waiting = _turn(conversation, "hello?")
    _turn(other, "not this conversation's")
    Message.objects.create(conversation=conversation, sender=Sender.SYSTEM, text="VIP, be kind", internal=True)

    assert turn_next_waiting(ended.pk) == waiting.pk
    assert turn_next_waiting(waiting.pk) is None
    assert conversation_internal_notes(conversation.pk) == ["VIP, be kind"]
    assert conversation_internal_notes(other.pk) == []


def test_a_read_whose_values_are_not_parameters_of_the_statement_is_refused() -> None:
    fixed = PreparedRead(lambda text: Message.objects.filter(text="always this").values_list("pk"))
    with pytest.raises(ValueError, match="not every id"):
        fixed.rows(text="hello")
    by_id = PreparedRead(lambda turn_id: TurnRun.objects.filter(pk=turn_id))
    assert by_id.objects(turn_id=1) == []
    with pytest.raises(TypeError, match="takes"):
        by_id.objects(turn_id=1, other=2)
    with pytest.raises(TypeError, match="rows"):
        PreparedRead(lambda turn_id: TurnRun.objects.filter(pk=turn_id).values_list("pk")).objects(turn_id=1)


def test_compiled_once_per_process_and_each_thread_reads_through_its_own_connection() -> None:
    conversation = ConversationFactory.create()
    notes = [Message.objects.create(conversation=conversation, sender=Sender.SYSTEM, text="note", internal=True)]
    builds: list[int] = []

    def build(conversation_id: int) -> QuerySet[Message, Any]:
        builds.append(conversation_id)
        return Message.objects.filter(conversation_id=conversation_id).values_list("pk")  # type: ignore[return-value]

    read = PreparedRead(build)
    answers: list[object] = []

    def elsewhere() -> None:
        try:
            answers.append(read.rows(conversation_id=conversation.pk))
        finally:
            connection.close()

    assert read.rows(conversation_id=conversation.pk) == [(notes[0].pk,)]
    for _ in range(2):  # as Django runs each request: a thread of its own
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert answers == [[], []]  # other connections: the test's transaction is not committed, so they see nothing
    assert len(builds) == 1


def test_a_repeated_statement_is_prepared_and_still_logged_with_djangos_errors() -> None:
    conversation = ConversationFactory.create()
    with CaptureQueriesContext(connection) as queries:
        for _ in range(PREPARE_AFTER + 1):
            conversation_internal_notes(conversation.pk)
    assert len(queries.captured_queries) == PREPARE_AFTER + 1
    assert all('"conversations_message"' in (query["sql"] or "") for query in queries.captured_queries)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('"conversations_message"."internal"' in statement for statement in prepared)

    with pytest.raises(IntegrityError), transaction.atomic(), statement_cursor() as cursor:
        cursor.execute("INSERT INTO conversations_message (conversation_id) VALUES (%s)", [conversation.pk])


def test_datetimes_come_back_in_the_connections_time_zone() -> None:
    conversation = ConversationFactory.create()
    turn = _turn(conversation, "hi")
    with statement_cursor() as cursor:
        cursor.execute("SELECT created_at FROM agents_turnrun WHERE id = %s", [turn.pk])
        (created_at,) = cursor.fetchone()
    assert abs(created_at - timezone.now()) < timedelta(minutes=1)


@pytest.mark.django_db(transaction=True)
def test_the_conversation_lock_reads_the_row_holds_it_and_needs_a_transaction() -> None:
    conversation = ConversationFactory.create(turn_count=3)
    tried: list[str] = []

    def elsewhere() -> None:
        try:
            with transaction.atomic():
                Conversation.objects.select_for_update(nowait=True).get(pk=conversation.pk)
            tried.append("locked it too")
        except DatabaseError:
            tried.append("held")
        finally:
            connection.close()

    for _ in range(PREPARE_AFTER + 1):  # compiled once, then prepared: the lock holds each time
        with transaction.atomic():
            locked = conversation_lock(conversation.pk)
            worker = threading.Thread(target=elsewhere)
            worker.start()
            worker.join()
        assert (locked.pk, locked.turn_count, locked.customer_id) == (conversation.pk, 3, conversation.customer_id)
    assert tried == ["held"] * (PREPARE_AFTER + 1)
    with pytest.raises(transaction.TransactionManagementError):
        conversation_lock(conversation.pk)


def test_the_waited_for_turn_is_read_with_its_conversation() -> None:
    conversation = ConversationFactory.create(status=ConversationStatus.WAITING_HUMAN)
    turn = _turn(conversation, "hello", status=TurnStatus.DONE, reply={"text": "hi"})

    read = _turn_with_conversation(turn.pk)

    assert (read.pk, read.status, read.reply) == (turn.pk, TurnStatus.DONE, {"text": "hi"})
    assert (read.conversation.pk, read.conversation.status) == (conversation.pk, ConversationStatus.WAITING_HUMAN)
    with pytest.raises(TurnRun.DoesNotExist):
        _turn_with_conversation(turn.pk + 1000)


def test_the_widgets_history_reads_its_latest_messages_in_order_without_the_staffs_notes() -> None:
    staff = User.objects.create_user("ana", first_name="Ana")
    conversation = ConversationFactory.create(status=ConversationStatus.HUMAN, assigned_staff=staff)
    said = [
        Message.objects.create(conversation=conversation, sender=Sender.CUSTOMER, text=f"message {n}")
        for n in range(HISTORY_LIMIT + 2)
    ]
    Message.objects.create(conversation=conversation, sender=Sender.SYSTEM, text="note", internal=True)
    said.append(Message.objects.create(conversation=conversation, sender=Sender.AGENT, text="hi", author=staff))

    for _ in range(PREPARE_AFTER + 1):
        history = widget_history(WidgetTicket(conversation.pk, conversation.customer_id))
        assert history is not None
        assert [m["id"] for m in history["messages"]] == [m.pk for m in said[-HISTORY_LIMIT:]]
        assert history["agent_name"] == "Ana" and history["status"] == ConversationStatus.HUMAN
    assert widget_history(WidgetTicket(conversation.pk, conversation.customer_id + 1)) is None
    assert widget_history(WidgetTicket(conversation.pk + 1000, conversation.customer_id)) is None


def test_a_string_value_is_compared_as_a_whole() -> None:
    conversation = ConversationFactory.create()
    said = Message.objects.create(conversation=conversation, sender=Sender.CUSTOMER, text="-7306000001")
    Message.objects.create(conversation=conversation, sender=Sender.CUSTOMER, text="hello")
    by_text = PreparedRead(lambda text: Message.objects.filter(text=text).values_list("pk"))

    assert by_text.rows(text="-7306000001") == [(said.pk,)]
    assert by_text.rows(text="hello' OR '1'='1") == []


def test_an_api_key_is_found_by_its_hash_until_it_is_revoked() -> None:
    key, raw = api_key_create(name="shop", scopes=["chat"])

    assert api_key_authenticate(raw) == key
    assert api_key_authenticate(raw + "x") is None
    api_keys_revoke(key_ids=[key.pk])
    assert api_key_authenticate(raw) is None


def test_a_conversations_customer_or_none_when_there_is_no_such_conversation() -> None:
    conversation = ConversationFactory.create()

    assert conversation_customer_id(conversation.pk) == conversation.customer_id
    assert conversation_customer_id(987_654_321) is None


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_connection_between_tasks_until_the_server_ends_it() -> None:
    # given: a task has used the connection, and the next one starts
    first = _backend_pid()
    connection_kept()
    kept = _backend_pid()
    # when: the server ends that connection while it sits idle, and another task starts
    params = {k: v for k, v in connection.get_connection_params().items() if k not in ("cursor_factory", "context")}
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [first])
    deadline = time.monotonic() + 5
    while not select.select([connection.connection.fileno()], [], [], 0.05)[0] and time.monotonic() < deadline:
        pass
    connection_kept()

    # then: the same connection served both tasks, and the third has another one that works
    assert kept == first
    assert _backend_pid() != first


@pytest.mark.django_db(transaction=True)
def test_a_connection_left_in_a_transaction_is_not_kept() -> None:
    # given: a task that ended with a transaction open (Django's atomic() never leaves one so)
    _backend_pid()
    connection.connection.execute("BEGIN")
    # when: the next task starts and reads
    connection_kept()
    _backend_pid()

    # then: it read outside that transaction
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
