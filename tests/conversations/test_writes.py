"""Several writes in one statement (conversations.writes), on the real Postgres."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from conversations.models import Conversation, ConversationStatus, Message, Sender
from conversations.writes import insert, update, writes_run, written
from tests.factories import ConversationFactory

pytestmark = pytest.mark.django_db


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]


def test_the_parts_run_as_one_statement_and_inserted_rows_get_their_ids() -> None:
    conversation = ConversationFactory.create(turn_count=2)
    message = Message(conversation=conversation, sender=Sender.CUSTOMER, text="hello")

    with CaptureQueriesContext(connection) as queries:
        ids = writes_run(
            message=insert(message),
            counted=update(Conversation, where={"pk": conversation.pk}, turn_count=F("turn_count") + 1),
        )

    assert len(_statements(queries)) == 1
    assert message.pk is not None and ids == {"message": [message.pk], "counted": [conversation.pk]}
    assert Message.objects.get(pk=message.pk).text == "hello"
    assert Conversation.objects.get(pk=conversation.pk).turn_count == 3
    assert message.created_at is not None  # set as save() would


def test_a_part_only_if_another_wrote_is_skipped_when_that_one_matched_nothing() -> None:
    staff = User.objects.create_user("agent")
    human = ConversationFactory.create(status=ConversationStatus.HUMAN, assigned_staff=staff)
    message = Message(conversation=human, sender=Sender.BOT, text="not while a person has the chat")

    ids = writes_run(
        bots=update(Conversation, where={"pk": human.pk}, unless={"status": ConversationStatus.HUMAN}, turn_count=9),
        message=insert(message, only_if="bots"),
        counted=update(Conversation, where={"pk": human.pk}, only_if="message", failed_attempts=1),
    )

    assert ids == {"bots": [], "message": [], "counted": []}
    assert message.pk is None
    assert not Message.objects.filter(conversation=human).exists()
    human.refresh_from_db()
    assert (human.turn_count, human.failed_attempts) == (0, 0)


def test_a_part_names_the_id_another_wrote_listed_before_or_after_it() -> None:
    conversation = ConversationFactory.create()
    first = Message(conversation=conversation, sender=Sender.CUSTOMER, text="first")
    reply = Message(conversation=conversation, sender=Sender.BOT, text="reply")

    writes_run(
        # listed first, it names a part listed after it (a text column holds the id as well as a foreign key)
        pointer=update(Conversation, where={"pk": conversation.pk}, current_intent=written("first")),
        first=insert(first),
        reply=insert(reply, only_if="first"),
    )

    conversation.refresh_from_db()
    assert conversation.current_intent == str(first.pk)
    assert reply.pk is not None and reply.pk != first.pk


def test_nothing_is_written_when_one_part_fails() -> None:
    conversation = ConversationFactory.create(turn_count=1)
    message = Message(conversation=conversation, sender=Sender.BOT, text="written with a failing part")

    with pytest.raises(IntegrityError), transaction.atomic():
        writes_run(
            message=insert(message),
            counted=update(Conversation, where={"pk": conversation.pk}, turn_count=F("turn_count") - 5),
        )

    assert Conversation.objects.get(pk=conversation.pk).turn_count == 1
    assert not Message.objects.filter(conversation=conversation).exists()


def test_an_update_part_writes_what_querysets_update_writes() -> None:
    """Each kind of value (plain, enum, None, a related row, JSON, an expression) is written as Django's own
    QuerySet.update() writes it, and the rows are found as filter()/exclude() find them."""
    staff = User.objects.create_user("agent")
    by_part, by_django = ConversationFactory.create(turn_count=4), ConversationFactory.create(turn_count=4)
    for conversation in (by_part, by_django):
        Message.objects.create(conversation=conversation, sender=Sender.CUSTOMER, text="hi", metadata={"a": 1})
    when = by_part.created_at
    values: dict[str, Any] = {
        "status": ConversationStatus.HUMAN,
        "assigned_staff": staff,
        "last_message_at": when,
        "closed_at": None,
        "turn_count": F("turn_count") * 2,
        "current_intent": "order_query",
    }

    wrote = writes_run(changed=update(Conversation, where={"pk": by_part.pk}, unless={"status": "closed"}, **values))
    Conversation.objects.filter(pk=by_django.pk).exclude(status="closed").update(**values)
    metadata = {"said": ["你好", 1.5], "none": None}
    writes_run(noted=update(Message, where={"conversation": by_part.pk}, metadata=metadata))
    Message.objects.filter(conversation=by_django.pk).update(metadata=metadata)

    assert wrote == {"changed": [by_part.pk]}
    fields = ("status", "assigned_staff_id", "last_message_at", "closed_at", "turn_count", "current_intent")
    assert Conversation.objects.values(*fields).get(pk=by_part.pk) == Conversation.objects.values(*fields).get(
        pk=by_django.pk
    )
    assert Conversation.objects.get(pk=by_part.pk).turn_count == 8
    assert (
        Message.objects.get(conversation=by_part).metadata
        == metadata
        == Message.objects.get(conversation=by_django).metadata
    )


def test_an_update_part_names_its_rows_by_columns_only() -> None:
    conversation = ConversationFactory.create(status=ConversationStatus.BOT)

    assert writes_run(
        kept=update(Conversation, where={"pk": conversation.pk}, unless={"status": "bot"}, turn_count=3)
    ) == {"kept": []}
    with pytest.raises(ValueError):
        update(Conversation, where={}, turn_count=3)  # every row: never meant
    with pytest.raises(ValueError):
        update(Conversation, where={"pk": None}, turn_count=3)  # `= NULL` would match nothing, silently
    with pytest.raises(ValueError):
        update(Conversation, where={"pk": conversation.pk}, messages=[])  # not a column
    assert Conversation.objects.get(pk=conversation.pk).turn_count == 0
