"""ws/staff: who may connect, queue events, watching a chat, and typing shown to the customer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, Permission

from conversations.models import ConversationStatus
from conversations.services import conversation_lock, conversation_take_over, conversation_wait_for_human
from conversations.widget import widget_session_open
from cs_project.routing import websocket_urlpatterns
from tickets.consumers import StaffConsumer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def staff(django_user_model: Any, username: str, *, allowed: bool = True) -> Any:
    user = django_user_model.objects.create_user(username=username, first_name=username.title(), is_staff=True)
    if allowed:
        user.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    return django_user_model.objects.get(pk=user.pk)  # fresh permission cache


async def staff_socket(user: Any) -> tuple[WebsocketCommunicator, bool]:
    socket = WebsocketCommunicator(StaffConsumer.as_asgi(), "/ws/staff")
    socket.scope["user"] = user
    connected, _ = await socket.connect()
    return socket, connected


def _escalate(conversation_id: int) -> None:
    from django.db import transaction

    with transaction.atomic():
        conversation_wait_for_human(conversation=conversation_lock(conversation_id))


async def test_only_allowed_staff_connect(django_user_model: Any) -> None:
    temp = await database_sync_to_async(staff)(django_user_model, "temp", allowed=False)

    for user in (AnonymousUser(), temp):
        socket, connected = await staff_socket(user)
        assert not connected
    # Over the real route a foreign origin is refused before authentication.
    foreign = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), "/ws/staff", headers=[(b"origin", b"https://evil.example")]
    )
    assert not (await foreign.connect())[0]


async def test_queue_changes_and_watched_chats_arrive_live(django_user_model: Any) -> None:
    lin = await database_sync_to_async(staff)(django_user_model, "lin")
    session = await database_sync_to_async(widget_session_open)(locale="en")
    conversation_id = session.conversation.pk
    socket, connected = await staff_socket(lin)
    assert connected

    await database_sync_to_async(_escalate)(conversation_id)
    queued = await socket.receive_json_from(timeout=5)
    await socket.send_json_to({"type": "watch", "conversation_id": conversation_id})
    await socket.receive_nothing(timeout=0.3)
    await database_sync_to_async(conversation_take_over)(conversation_id=conversation_id, staff=lin)
    events = [await socket.receive_json_from(timeout=5) for _ in range(3)]

    assert queued == {
        "type": "status.changed",
        "conversation_id": conversation_id,
        "status": "waiting_human",
        "staff_online": True,
    }
    # status.changed from the staff group and the watched group, and the system message (deduped by id in the page)
    assert {e["type"] for e in events} <= {"status.changed", "message.created"}
    assert any(e.get("status") == ConversationStatus.HUMAN for e in events)
    await socket.disconnect()


async def test_typing_reaches_the_customer_only_from_the_owner(django_user_model: Any) -> None:
    lin = await database_sync_to_async(staff)(django_user_model, "lin")
    bo = await database_sync_to_async(staff)(django_user_model, "bo")
    session = await database_sync_to_async(widget_session_open)(locale="en")
    conversation_id = session.conversation.pk
    await database_sync_to_async(conversation_take_over)(conversation_id=conversation_id, staff=lin)
    widget = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/widget?token={session.token}")
    await widget.connect()
    await widget.receive_json_from(timeout=5)  # history
    colleague, _ = await staff_socket(bo)
    owner, _ = await staff_socket(lin)

    await colleague.send_json_to({"type": "typing", "conversation_id": conversation_id})
    assert await widget.receive_nothing(timeout=0.5)
    await owner.send_json_to({"type": "typing", "conversation_id": conversation_id})
    typing = await widget.receive_json_from(timeout=5)

    assert typing == {"type": "typing", "sender": "agent", "conversation_id": conversation_id, "name": "Lin"}
    for socket in (widget, colleague, owner):
        await socket.disconnect()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("nope", "bad_frame"),
        (json.dumps({"type": "watch"}), "bad_frame"),
        (json.dumps({"type": "watch", "conversation_id": 999999}), "not_found"),
        (json.dumps({"type": "shout", "conversation_id": 1}), "unknown_type"),
    ],
)
async def test_bad_frames_get_an_error_and_the_socket_stays(django_user_model: Any, frame: str, code: str) -> None:
    lin = await database_sync_to_async(staff)(django_user_model, "lin")
    socket, _ = await staff_socket(lin)

    await socket.send_to(text_data=frame)

    assert (await socket.receive_json_from(timeout=5))["code"] == code
    await socket.send_to(text_data="{}")
    assert (await socket.receive_json_from(timeout=5))["type"] == "error"
    await socket.disconnect()
