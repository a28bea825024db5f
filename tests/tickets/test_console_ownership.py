"""Who may act on a chat a person owns: every console action, by its owner, by a colleague at the console and
by a superuser (the project has no supervisor role: a superuser is held to the owner rule like everyone).
A chat one person owns is changed only by them; an internal note may be left on any chat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from conversations.models import Conversation, ConversationStatus, Message, Sender
from conversations.services import conversation_start, customer_upsert
from tickets.services import escalation_take_over
from tickets.staff import support_group_ensure

pytestmark = pytest.mark.django_db

JSON: dict[str, Any] = {"HTTP_ACCEPT": "application/json"}
TAKEN = "Lin has already taken this conversation over"


def _support(username: str) -> User:
    user = User.objects.create_user(username, password="pw", is_staff=True, first_name=username.title())
    user.groups.add(support_group_ensure())
    return user


@pytest.fixture
def people() -> dict[str, User]:
    """Lin owns the chat; Bo is a colleague; Sue is a superuser; Cy is whom a chat may be transferred to."""
    return {
        "owner": _support("lin"),
        "colleague": _support("bo"),
        "supervisor": User.objects.create_superuser("sue", "sue@example.com", "pw", first_name="Sue"),
        "transferee": _support("cy"),
    }


@pytest.fixture
def owned(people: dict[str, User]) -> Conversation:
    chat = conversation_start(customer=customer_upsert(external_id="own-1", locale="en"), language="en")
    escalation_take_over(conversation_id=chat.pk, staff=people["owner"])
    return Conversation.objects.get(pk=chat.pk)


@dataclass(frozen=True)
class Outcome:
    http: int
    code: str  # the error's code, "" when the action was done
    status: str  # the conversation's status afterwards
    owner: str  # who owns it afterwards ("" nobody)


DONE_HUMAN = Outcome(200, "", ConversationStatus.HUMAN, "owner")
REFUSED_TAKEN = Outcome(409, "taken", ConversationStatus.HUMAN, "owner")
REFUSED_NOT_OWNER = Outcome(409, "not_allowed", ConversationStatus.HUMAN, "owner")

# action (URL name), its form, and what each person gets
ACTIONS: dict[str, tuple[str, dict[str, str], dict[str, Outcome]]] = {
    "take over": (
        "console-take-over",
        {},
        {"owner": DONE_HUMAN, "colleague": REFUSED_TAKEN, "supervisor": REFUSED_TAKEN},
    ),
    "reply": (
        "console-send",
        {"text": "Hello, I can help."},
        {"owner": DONE_HUMAN, "colleague": REFUSED_NOT_OWNER, "supervisor": REFUSED_NOT_OWNER},
    ),
    "internal note": (
        "console-send",
        {"text": "VIP, be gentle", "internal": "1"},
        {"owner": DONE_HUMAN, "colleague": DONE_HUMAN, "supervisor": DONE_HUMAN},
    ),
    "transfer": (
        "console-transfer",
        {"to": "transferee"},
        {
            "owner": Outcome(200, "", ConversationStatus.HUMAN, "transferee"),
            "colleague": REFUSED_TAKEN,
            "supervisor": REFUSED_TAKEN,
        },
    ),
    "hand back": (
        "console-hand-back",
        {},
        {
            "owner": Outcome(200, "", ConversationStatus.BOT, ""),
            "colleague": REFUSED_TAKEN,
            "supervisor": REFUSED_TAKEN,
        },
    ),
    "resolve": (
        "console-resolve",
        {"reason": "answered"},
        {
            "owner": Outcome(200, "", ConversationStatus.CLOSED, ""),
            "colleague": REFUSED_TAKEN,
            "supervisor": REFUSED_TAKEN,
        },
    ),
}
CASES = [(action, actor) for action, (_, _, outcomes) in ACTIONS.items() for actor in outcomes]


@pytest.mark.parametrize(("action", "actor"), CASES, ids=[f"{action}-by-{actor}" for action, actor in CASES])
def test_console_action_on_an_owned_chat_is_the_owners(
    action: str, actor: str, people: dict[str, User], owned: Conversation
) -> None:
    # given
    url_name, form, outcomes = ACTIONS[action]
    expected = outcomes[actor]
    form = {name: str(people[value].pk) if value in people else value for name, value in form.items()}
    client = Client()
    client.force_login(people[actor])
    messages_before = set(Message.objects.filter(conversation=owned).values_list("pk", flat=True))

    # when
    response = client.post(reverse(url_name, args=[owned.pk]), form, **JSON)

    # then
    assert response.status_code == expected.http
    if expected.code:
        assert response.json()["error"]["code"] == expected.code
        if expected.code == "taken":
            assert response.json()["error"]["message"] == TAKEN
    else:
        assert response.json()["ok"] is True
    conversation = Conversation.objects.get(pk=owned.pk)
    assert conversation.status == expected.status
    assert conversation.assigned_staff_id == (people[expected.owner].pk if expected.owner else None)
    new = Message.objects.filter(conversation=owned).exclude(pk__in=messages_before)
    if expected.code:
        assert not new.exists()  # a refusal writes nothing
    elif url_name == "console-send":
        sent = new.get()
        assert (sent.sender, sent.author_id, sent.internal) == (Sender.AGENT, people[actor].pk, "internal" in form)


def test_a_colleague_cannot_hand_a_chat_back_to_take_it_over(people: dict[str, User], owned: Conversation) -> None:
    bo = Client()
    bo.force_login(people["colleague"])

    back = bo.post(reverse("console-hand-back", args=[owned.pk]), **JSON)
    taken = bo.post(reverse("console-take-over", args=[owned.pk]), **JSON)

    assert back.status_code == taken.status_code == 409
    conversation = Conversation.objects.get(pk=owned.pk)
    assert conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff == people["owner"]
    assert not Message.objects.filter(conversation=owned, metadata__event="handed_back").exists()


def test_a_chat_waiting_for_a_person_may_be_handed_back_by_anyone_at_the_console(people: dict[str, User]) -> None:
    chat = conversation_start(customer=customer_upsert(external_id="wait-1", locale="en"), language="en")
    Conversation.objects.filter(pk=chat.pk).update(status=ConversationStatus.WAITING_HUMAN)
    bo = Client()
    bo.force_login(people["colleague"])

    response = bo.post(reverse("console-hand-back", args=[chat.pk]), **JSON)

    assert response.status_code == 200
    assert Conversation.objects.get(pk=chat.pk).status == ConversationStatus.BOT


def test_a_hand_back_refused_to_a_colleague_reads_in_their_language(
    people: dict[str, User], owned: Conversation
) -> None:
    bo = Client()
    bo.force_login(people["colleague"])

    response = bo.post(reverse("console-hand-back", args=[owned.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans", **JSON)

    assert response.json()["error"] == {"code": "taken", "message": "Lin 已经接管了这个对话"}


def test_the_admins_hand_back_action_refuses_a_colleagues_chat_with_a_reason(
    people: dict[str, User], owned: Conversation
) -> None:
    sue = Client()
    sue.force_login(people["supervisor"])

    page = sue.post(
        reverse("admin:conversations_conversation_changelist"),
        {"action": "hand_back", "_selected_action": [owned.pk]},
        follow=True,
    )

    assert TAKEN in page.content.decode()
    conversation = Conversation.objects.get(pk=owned.pk)
    assert conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff == people["owner"]
