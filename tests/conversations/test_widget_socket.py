"""The customer's WebSocket against the real Redis channel layer and a real Celery worker."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.management import call_command

from agents.models import TurnRun
from conversations.models import Conversation, ConversationStatus, Message
from conversations.services import conversation_resolve, conversation_take_over, staff_message_send
from conversations.widget import widget_session_open
from cs_project.routing import websocket_urlpatterns

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker"), pytest.mark.asyncio]

app = URLRouter(websocket_urlpatterns)


@pytest.fixture
def demo_store() -> None:
    """The demo store, knowledge base and intent exemplars (a transactional test starts empty)."""
    from agents.intents.exemplar_index import exemplars_sync

    call_command("seed_demo", verbosity=0)
    exemplars_sync()


@pytest.fixture
def widget_token() -> tuple[int, str]:
    session = widget_session_open(locale="en")
    return session.conversation.pk, session.token


async def connect(token: str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    socket = WebsocketCommunicator(app, f"/ws/widget?token={token}")
    connected, _ = await socket.connect()
    assert connected
    return socket, await socket.receive_json_from(timeout=5)


@pytest_asyncio.fixture
async def chat(widget_token: tuple[int, str]) -> AsyncIterator[tuple[int, WebsocketCommunicator, dict[str, Any]]]:
    conversation_id, token = widget_token
    socket, history = await connect(token)
    yield conversation_id, socket, history
    await socket.disconnect()


async def until(socket: WebsocketCommunicator, kind: str, *, timeout: float = 30) -> list[dict[str, Any]]:
    """Every event up to and including the first of `kind`."""
    events = []
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        events.append(await socket.receive_json_from(timeout=max(0.1, deadline - asyncio.get_running_loop().time())))
        if events[-1]["type"] == kind:
            return events


async def reply_to_next(socket: WebsocketCommunicator, text: str) -> list[dict[str, Any]]:
    """Send `text` and return every event up to its turn's reply.done. Turns are answered in order, so what an
    earlier message would still have caused has arrived by then: a fence to prove that nothing else came."""
    client_id = uuid.uuid4().hex
    await send(socket, text, client_id=client_id)
    events = await until(socket, "message.created")
    turn = await database_sync_to_async(TurnRun.objects.get)(message__client_id=client_id)
    while not (events[-1]["type"] == "reply.done" and events[-1]["turn_id"] == turn.pk):
        events += await until(socket, "reply.done")
    return events


async def send(socket: WebsocketCommunicator, text: str, client_id: str = "") -> None:
    await socket.send_json_to({"type": "message.send", "text": text, "client_id": client_id or uuid.uuid4().hex})


@pytest.mark.parametrize(
    ("text", "expected"), [("What is your return policy?", "7"), ("退货政策是怎样的", "7")], ids=["en", "zh"]
)
@pytest.mark.usefixtures("demo_store")
async def test_a_question_is_echoed_streamed_and_answered_once(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], text: str, expected: str
) -> None:
    conversation_id, socket, history = chat
    assert history["type"] == "history" and history["messages"] == [] and not history["awaiting_reply"]

    await send(socket, text, client_id="c-1")
    events = await until(socket, "reply.done")

    echo = next(e for e in events if e["type"] == "message.created" and e["message"]["sender"] == "customer")
    assert echo["message"]["text"] == text and echo["message"]["client_id"] == "c-1"
    deltas = [e["delta"] for e in events if e["type"] == "reply.delta"]
    done = events[-1]
    assert len(deltas) >= 2 and "".join(deltas) == done["text"]  # offline replies stream too
    # in the order the widget draws them: the pieces, then the stored message they make, then its end
    kinds = [e["type"] if e["type"] != "message.created" else e["message"]["sender"] for e in events]
    assert kinds[kinds.index("reply.delta") :] == ["reply.delta"] * len(deltas) + ["bot", "reply.done"]
    assert expected in done["text"] and done["sources"]
    after = await reply_to_next(socket, "thanks")
    assert [e["type"] for e in after].count("reply.done") == 1  # the question was answered once


async def test_a_resent_client_id_is_not_answered_twice(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]],
) -> None:
    conversation_id, socket, _ = chat

    await send(socket, "Hello!", client_id="same")
    await until(socket, "reply.done")
    await send(socket, "Hello!", client_id="same")
    after = await reply_to_next(socket, "thanks")

    assert [
        e["message"]["text"] for e in after if e["type"] == "message.created" and e["message"]["sender"] == "customer"
    ] == ["thanks"]
    assert [e["type"] for e in after].count("reply.done") == 1
    assert (
        await database_sync_to_async(Message.objects.filter(conversation_id=conversation_id, sender="customer").count)()
        == 2
    )


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_frame"),
        ("[1, 2]", "unknown_type"),
        (json.dumps({"type": "delete.everything"}), "unknown_type"),
        (json.dumps({"type": "message.send", "text": 42}), "bad_frame"),
        (json.dumps({"type": "message.send", "text": "hi", "client_id": "x" * 65}), "bad_frame"),
        (json.dumps({"type": "message.send", "text": "x" * 100_000}), "too_large"),
        (json.dumps({"type": "message.send", "text": "   "}), "empty"),
        (json.dumps({"type": "message.send", "text": "x" * 3000}), "too_long"),
        (json.dumps({"type": "message.send", "text": "hi", "client_id": "a\u0000b"}), "bad_frame"),
        ("[" * 8000 + "]" * 8000, "bad_frame"),
        ('{"type": "message.send", "client_id": "c", "text": ' + "[" * 3000 + "]" * 3000 + "}", "bad_frame"),
    ],
)
async def test_a_bad_frame_gets_an_error_event_and_the_socket_stays_up(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], frame: str, code: str
) -> None:
    conversation_id, socket, _ = chat

    await socket.send_to(text_data=frame)
    error = await socket.receive_json_from(timeout=5)

    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert await database_sync_to_async(Message.objects.filter(conversation_id=conversation_id).count)() == 0
    await send(socket, "Hello!")  # still up and answering
    assert (await until(socket, "reply.done"))[-1]["text"]


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (json.dumps({"type": "message.send", "text": "hi\u0000there", "client_id": "m1"}), "can't read"),
        ('{"type": "message.send", "text": "\\ud800 hello", "client_id": "m1"}', "can't read"),
        (json.dumps({"type": "message.send", "text": "你好\u0000", "client_id": "m1"}), "无法识别"),
    ],
)
async def test_unreadable_characters_are_refused_politely_for_that_message(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], frame: str, words: str
) -> None:
    """A NUL or a lone surrogate: Postgres and UTF-8 cannot hold them, so the message is refused,
    in the customer's language and with its client_id (the widget marks that one message)."""
    conversation_id, socket, _ = chat

    await socket.send_to(text_data=frame)
    error = await socket.receive_json_from(timeout=5)

    assert error["type"] == "error" and error["code"] == "unreadable" and error["client_id"] == "m1"
    assert words in error["message"]
    assert await database_sync_to_async(Message.objects.filter(conversation_id=conversation_id).count)() == 0
    await send(socket, "Hello!")
    assert (await until(socket, "reply.done"))[-1]["text"]


async def test_rejections_are_polite_in_the_customers_language(widget_token: tuple[int, str]) -> None:
    await database_sync_to_async(Conversation.objects.filter(pk=widget_token[0]).update)(language="zh")
    socket, _ = await connect(widget_token[1])

    await socket.send_json_to({"type": "message.send", "text": "   "})
    await socket.send_to(text_data="{oops")
    empty, bad = await socket.receive_json_from(timeout=5), await socket.receive_json_from(timeout=5)

    assert empty["message"].startswith("请输入") and bad["message"] == "无法识别这条消息。"
    await socket.disconnect()


async def refusal(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The error frame and the close a socket with `token` gets. The test side disconnects too, so the consumer
    ends before the test's event loop closes (a consumer left waiting on the channel layer there can hang it)."""
    socket = WebsocketCommunicator(app, f"/ws/widget?token={token}")
    await socket.connect()
    try:
        return await socket.receive_json_from(timeout=5), await socket.receive_output(timeout=5)
    finally:
        await socket.disconnect()


@pytest.mark.parametrize("token", ["", "forged", "eyJjIjo1fQ:1tXyZ:bad"])
async def test_a_bad_token_is_told_and_closed(token: str) -> None:
    error, closed = await refusal(token)

    assert error == {"type": "error", "code": "bad_token", "message": error["message"]}
    assert closed == {"type": "websocket.close", "code": 4401}


async def test_an_expired_token_is_refused(widget_token: tuple[int, str], settings: Any) -> None:
    settings.WIDGET_TOKEN_MAX_AGE_S = -1
    error, closed = await refusal(widget_token[1])

    assert error["code"] == "bad_token" and closed == {"type": "websocket.close", "code": 4401}


async def test_a_token_of_a_deleted_conversation_is_refused(widget_token: tuple[int, str]) -> None:
    await database_sync_to_async(Conversation.objects.filter(pk=widget_token[0]).delete)()
    error, closed = await refusal(widget_token[1])

    assert error["code"] == "bad_token" and closed == {"type": "websocket.close", "code": 4401}


async def test_reconnecting_replays_the_history_and_an_unanswered_message(widget_token: tuple[int, str]) -> None:
    conversation_id, token = widget_token
    socket, _ = await connect(token)
    await send(socket, "<script>alert(1)</script> what is your return policy?")
    await until(socket, "reply.done")
    await socket.disconnect()
    # A message whose turn is still running when the widget comes back (written as the worker would see it).
    await database_sync_to_async(Message.objects.create)(
        conversation_id=conversation_id, sender="customer", text="and exchanges?"
    )

    socket, history = await connect(token)

    assert [m["sender"] for m in history["messages"]] == ["customer", "bot", "customer"]
    assert history["messages"][0]["text"].startswith("<script>alert(1)</script>")  # stored as typed, shown as text
    assert history["awaiting_reply"] is True and history["status"] == "bot"
    await socket.disconnect()


async def test_the_rate_limit_is_per_customer_and_polite(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], settings: Any
) -> None:
    settings.CUSTOMER_MESSAGES_PER_MINUTE = 2
    conversation_id, socket, _ = chat

    for i in range(3):
        await send(socket, f"hello {i}", client_id=f"r{i}")
    events: list[dict[str, Any]] = []
    # Until the refusal and both answers are in: a turn still running would outlive the test.
    while [e["type"] for e in events].count("reply.done") < 2 or not any(e["type"] == "error" for e in events):
        events.append(await socket.receive_json_from(timeout=30))

    error = next(e for e in events if e["type"] == "error")
    assert error["code"] == "rate_limited" and error["client_id"] == "r2" and "wait a minute" in error["message"]
    stored = Message.objects.filter(conversation_id=conversation_id, sender="customer").values_list(
        "client_id", flat=True
    )
    assert sorted(await database_sync_to_async(list)(stored)) == ["r0", "r1"]


async def test_staff_takeover_reaches_the_widget_and_the_bot_stays_silent(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], django_user_model: Any
) -> None:
    conversation_id, socket, _ = chat
    staff = await database_sync_to_async(django_user_model.objects.create_user)(
        username="lin", first_name="Lin", password="x", is_staff=True
    )

    await database_sync_to_async(conversation_take_over)(conversation_id=conversation_id, staff=staff)
    events = await until(socket, "message.created")
    await send(socket, "Hello, are you a person?", client_id="to-lin")
    after = await until(socket, "message.created")
    turn = await database_sync_to_async(TurnRun.objects.get)(message__client_id="to-lin")
    # the fence: Lin's answer reaches the widget after anything the bot could still have said
    await database_sync_to_async(staff_message_send)(
        conversation_id=conversation_id, staff=staff, text="Yes, Lin here."
    )
    fence = await until(socket, "message.created")

    status = next(e for e in events if e["type"] == "status.changed")
    assert status["status"] == ConversationStatus.HUMAN
    assert events[-1]["message"]["sender"] == "system" and "Lin" in events[-1]["message"]["text"]
    assert after[-1]["message"]["sender"] == "customer" and turn.status == "skipped"
    assert [e["type"] for e in fence] == ["message.created"] and fence[0]["message"]["sender"] == "agent"


async def test_writing_to_a_closed_chat_reopens_it_with_the_bot_and_says_so(
    chat: tuple[int, WebsocketCommunicator, dict[str, Any]], django_user_model: Any
) -> None:
    conversation_id, socket, _ = chat
    staff = await database_sync_to_async(django_user_model.objects.create_user)(username="lin", is_staff=True)
    await database_sync_to_async(conversation_resolve)(conversation_id=conversation_id, staff=staff, reason="answered")
    await until(socket, "message.created")  # the closing line

    await send(socket, "Hello!")
    events = await until(socket, "reply.done")

    statuses = [e["status"] for e in events if e["type"] == "status.changed"]
    assert statuses == [ConversationStatus.BOT]
    conversation = await database_sync_to_async(Conversation.objects.get)(pk=conversation_id)
    assert conversation.status == ConversationStatus.BOT and conversation.closed_at is None


@pytest.mark.parametrize(("language", "refused"), [("en", "Only a closed conversation"), ("zh", "只有已结束的对话")])
async def test_the_shopper_ends_the_chat_and_rates_it_once(
    widget_token: tuple[int, str], language: str, refused: str
) -> None:
    from conversations.models import Rating

    conversation_id, token = widget_token
    await database_sync_to_async(Conversation.objects.filter(pk=conversation_id).update)(language=language)
    socket, _ = await connect(token)

    await socket.send_json_to({"type": "rating.send", "score": 5})
    too_early = await until(socket, "error")
    await socket.send_json_to({"type": "conversation.end"})
    closed = await until(socket, "status.changed")
    for score, comment in ((0, ""), (True, ""), ("5", ""), (4, 7), (4, "x" * 1001)):
        await socket.send_json_to({"type": "rating.send", "score": score, "comment": comment})
    bad = [(await until(socket, "error"))[-1]["code"] for _ in range(5)]
    await socket.send_json_to({"type": "rating.send", "score": 4, "comment": "  fine  "})
    saved = await until(socket, "rating.saved")
    await socket.send_json_to({"type": "rating.send", "score": 1})
    again = await until(socket, "error")
    await socket.send_json_to({"type": "conversation.end"})  # a second tab: no error
    await socket.send_json_to({"type": "typing"})
    await socket.disconnect()

    assert too_early[-1]["code"] == "not_closed" and too_early[-1]["message"].startswith(refused)
    assert closed[-1]["status"] == "closed" and closed[-1]["rating_wanted"] is True
    assert bad == ["bad_score", "bad_score", "bad_score", "bad_comment", "bad_comment"]
    assert saved[-1]["score"] == 4 and again[-1]["code"] == "already_rated"
    rating = await database_sync_to_async(Rating.objects.select_related("conversation").get)()
    assert (rating.score, rating.comment, rating.staff_id) == (4, "fine", None)
    assert (rating.conversation.closed_by, rating.conversation.resolution) == ("customer", "ended")
