"""The live console: who may use it, the inbox (views, counts, unread, search), the card, the customer beside
the chat, and every action, race and bad input."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from conversations.models import Conversation, ConversationStatus, Customer, Message
from conversations.services import conversation_start
from conversations.widget import WidgetTicket, widget_history
from tickets.models import EscalationCard, EscalationReason

pytestmark = pytest.mark.django_db

JSON: dict[str, Any] = {"HTTP_ACCEPT": "application/json"}


def staff_client(django_user_model: Any, username: str, *, allowed: bool = True) -> tuple[Client, Any]:
    user = django_user_model.objects.create_user(
        username=username, first_name=username.title(), password="pw", is_staff=True
    )
    if allowed:
        user.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    client = Client()
    client.force_login(user)
    return client, user


@pytest.fixture
def lin(django_user_model: Any) -> tuple[Client, Any]:
    return staff_client(django_user_model, "lin")


@pytest.fixture
def waiting() -> Conversation:
    customer = Customer.objects.create(external_id="c-9", name="Mei <b>Chen</b>", locale="zh")
    conversation = conversation_start(customer=customer, language="zh")
    Message.objects.create(conversation=conversation, sender="customer", text="<script>alert(1)</script>我要投诉")
    EscalationCard.objects.create(
        conversation=conversation,
        reason=EscalationReason.EMOTION,
        summary="Customer is upset about a late delivery of order #D1002.",
        intents=[  # as agents.escalation writes them
            {
                "turn_id": 1,
                "intents": ["logistics_query"],
                "labels": {"en": ["Track a delivery"], "zh": ["查物流"]},
                "at": "2026-11-24T18:42:53+00:00",
            },
            {"turn_id": 2, "intents": ["complaint", "human_request"], "at": "2026-11-24T18:43:10+00:00"},
        ],
        emotion_trajectory=[0.45, 0.05],
        order_ids=["D1002"],
        slots={
            "workflow": "return",
            "status": "active",
            "order_id": "D1002",
            "item_ids": ["V1", "V2"],
            "_pending": [{"text": "and cancel #D1003"}],
            "_verify_failures": 2,
        },
        last_messages=[
            {"sender": "bot", "text": "Here is the tracking.", "at": "2026-11-24T18:43:00+00:00"},
            {"sender": "customer", "text": "<i>still</i> nothing arrived", "at": "2026-11-24T18:43:10+00:00"},
        ],
        suggested_reply="非常抱歉，我马上为您查询。",
    )
    Conversation.objects.filter(pk=conversation.pk).update(status=ConversationStatus.WAITING_HUMAN)
    return Conversation.objects.get(pk=conversation.pk)


def test_only_staff_with_the_permission_get_in(django_user_model: Any, waiting: Conversation) -> None:
    outsider, _ = staff_client(django_user_model, "temp", allowed=False)

    assert Client().get("/admin/console/").status_code == 302  # to the admin login
    assert outsider.get("/admin/console/").status_code == 403
    assert outsider.post(f"/admin/console/{waiting.pk}/take-over", **JSON).status_code == 403
    assert Conversation.objects.get(pk=waiting.pk).status == ConversationStatus.WAITING_HUMAN


def test_the_inbox_lists_the_waiting_chat_escaped_with_its_unread_count(
    lin: tuple[Client, Any], waiting: Conversation
) -> None:
    client, _ = lin

    page = client.get("/admin/console/").content.decode()
    fragment = client.get("/admin/console/list?view=waiting").content.decode()

    for html in (page, fragment):
        assert f'data-testid="inbox-item" data-conversation-id="{waiting.pk}"' in html
        assert "Mei &lt;b&gt;Chen&lt;/b&gt;" in html and "<b>Chen</b>" not in html
        assert 'data-view="waiting" data-count="1"' in html
        assert '<span class="badge" data-testid="inbox-unread"' in html  # the customer's message, unanswered
        assert "&lt;script&gt;alert(1)&lt;/script&gt;我要投诉" in html  # the last message, escaped
    assert 'data-testid="inbox-pick"' in page  # nothing open yet


def _text(html: str, testid: str) -> list[str]:
    import re

    return [
        re.sub(r"<[^>]+>", "", m).strip()
        for m in re.findall(rf'data-testid="{testid}"[^>]*>(.*?)</(?:span|strong|a|td|table|p)>', html, re.S)
    ]


def test_the_card_reads_as_words_not_data(lin: tuple[Client, Any], waiting: Conversation) -> None:
    client, _ = lin

    html = client.get(f"/admin/console/{waiting.pk}/").content.decode()

    assert _text(html, "card-reason") == ["The customer is upset."]
    assert _text(html, "card-topic") == ["Track a delivery", "Complaint", "Human request"]
    assert _text(html, "card-mood-now") == ["now very upset"] and 'class="mood neutral"' in html
    assert '<th scope="row">Order</th><td>D1002</td>' in html and '<th scope="row">Items</th><td>V1, V2</td>' in html
    assert "<caption>Return, in progress</caption>" in html
    assert 'href="/admin/store/order/?q=D1002"' in html
    for raw in ("_pending", "_verify_failures", "workflow=", "{&#x27;", "0 = very negative", "turn_id"):
        assert raw not in html


def test_the_card_follows_the_staff_members_language(lin: tuple[Client, Any], waiting: Conversation) -> None:
    client, _ = lin

    html = client.get(f"/admin/console/{waiting.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()

    assert _text(html, "card-reason") == ["客户情绪激动。"]
    assert _text(html, "card-topic")[0] == "查物流"
    assert "<caption>退货，进行中</caption>" in html and '<th scope="row">订单</th>' in html


def _listed(client: Client, **params: str) -> list[int]:
    import re
    from urllib.parse import urlencode

    html = client.get(f"/admin/console/list?{urlencode(params)}").content.decode()
    return [int(pk) for pk in re.findall(r'data-testid="inbox-item" data-conversation-id="(\d+)"', html)]


def test_each_view_holds_its_chats_and_counts_them(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, lin_user = lin
    bo = django_user_model.objects.create_user(username="bo", is_staff=True)
    ada = Customer.objects.create(external_id="ada-1", name="Ada")
    bot_chat = conversation_start(customer=ada)
    mine = conversation_start(customer=ada)
    theirs = conversation_start(customer=ada)
    closed = conversation_start(customer=ada)
    Conversation.objects.filter(pk=mine.pk).update(status=ConversationStatus.HUMAN, assigned_staff=lin_user)
    Conversation.objects.filter(pk=theirs.pk).update(status=ConversationStatus.HUMAN, assigned_staff=bo)
    Conversation.objects.filter(pk=closed.pk).update(status=ConversationStatus.CLOSED, closed_at=timezone.now())

    assert _listed(client, view="waiting") == [waiting.pk]
    assert _listed(client, view="mine") == [mine.pk]
    assert set(_listed(client, view="unassigned")) == {waiting.pk, bot_chat.pk}
    assert set(_listed(client, view="all")) == {waiting.pk, bot_chat.pk, mine.pk, theirs.pk}
    assert _listed(client, view="closed") == [closed.pk]
    assert _listed(client, view="nonsense") == [waiting.pk]  # an unknown view is the default one
    html = client.get("/admin/console/list?view=all").content.decode()
    for view, count in (("waiting", 1), ("mine", 1), ("unassigned", 2), ("all", 4), ("closed", 1)):
        assert f'data-view="{view}" data-count="{count}"' in html


def test_the_longest_waiting_chat_comes_first_and_unread_counts_reset_on_an_answer(
    lin: tuple[Client, Any], waiting: Conversation
) -> None:
    client, _ = lin
    later = conversation_start(customer=Customer.objects.create(external_id="c-10", name="Later"))
    Conversation.objects.filter(pk=later.pk).update(
        status=ConversationStatus.WAITING_HUMAN, last_message_at=timezone.now()
    )
    Conversation.objects.filter(pk=waiting.pk).update(last_message_at=timezone.now() - timedelta(minutes=9))
    for text in ("hello?", "anyone there?"):
        Message.objects.create(conversation=later, sender="customer", text=text)

    assert _listed(client, view="waiting") == [waiting.pk, later.pk]
    assert _listed(client, view="all")[0] == later.pk  # other views: the latest activity first
    html = client.get("/admin/console/list").content.decode()
    assert re.search(rf'data-conversation-id="{later.pk}".*?data-testid="inbox-unread"[^>]*>2<', html, re.S)

    Message.objects.create(conversation=later, sender="bot", text="Someone will be with you shortly.")
    html = client.get("/admin/console/list").content.decode()
    later_item = html[html.index(f'data-conversation-id="{later.pk}"') :].split("</a>")[0]
    assert "inbox-unread" not in later_item


def test_search_finds_chats_by_customer_order_id_or_words(lin: tuple[Client, Any], waiting: Conversation) -> None:
    client, _ = lin
    other = conversation_start(customer=Customer.objects.create(external_id="c-11", name="Ada", email="ada@x.org"))
    Message.objects.create(conversation=other, sender="customer", text="where is order #D1007?")

    assert _listed(client, view="all", q="mei") == [waiting.pk]
    assert _listed(client, view="all", q="ada@x") == [other.pk]
    assert _listed(client, view="all", q="#D1007") == [other.pk]
    assert _listed(client, view="all", q="投诉") == [waiting.pk]
    assert _listed(client, view="all", q=str(other.pk)) == [other.pk]
    nothing = client.get("/admin/console/list?view=all&q=zzz-nobody").content.decode()
    assert 'data-testid="inbox-empty"' in nothing and "No conversation matches." in nothing
    assert client.get("/admin/console/list?q=" + "x" * 5000).status_code == 200


def test_the_customer_is_beside_the_chat_with_orders_tracking_past_chats_and_tickets(
    lin: tuple[Client, Any], waiting: Conversation
) -> None:
    from stores.builtin.models import Fulfillment, OrderStatus
    from tests.factories import OrderFactory, TicketFactory

    client, _ = lin
    visitor = waiting.customer
    shopper = Customer.objects.create(
        external_id="li_wei", name="李伟", email="li.wei@example.com", phone="13800000000", verified=True
    )
    Conversation.objects.filter(pk=waiting.pk).update(verified_customer=shopper)
    order = OrderFactory.create(customer=shopper, external_id="#D1002", status=OrderStatus.PROCESSED)
    Fulfillment.objects.create(order=order, carrier="SF Express", tracking_ids=["SF1234567890"])
    earlier = conversation_start(customer=shopper)
    TicketFactory.create(customer=shopper, subject="Late delivery")

    html = client.get(f"/admin/console/{waiting.pk}/").content.decode()

    panel = html[html.index('data-testid="customer-panel"') :]
    assert "李伟" in panel and 'data-testid="customer-verified"' in panel and "li.wei@example.com" in panel
    assert 'data-order-id="#D1002"' in panel and "Processed" in panel and "SF Express SF1234567890" in panel
    assert f'href="/admin/console/{earlier.pk}/"' in panel and 'data-testid="customer-ticket"' in panel
    assert visitor.external_id not in panel  # the verified customer, not the visitor id
    assert 'aria-current="true"' in html  # the open chat is marked in the list
    zh = client.get(f"/admin/console/{waiting.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    zh_panel = zh[zh.index('data-testid="customer-panel"') :]
    assert "已发货" in zh_panel and "以往对话" in zh_panel and "已验证" in zh_panel
    assert ">客户</span>" in zh  # who wrote each message, in the staff member's language too


def test_take_over_is_race_safe_and_accepts_the_card(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, user = lin
    other, _ = staff_client(django_user_model, "bo")

    first = client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)
    second = other.post(f"/admin/console/{waiting.pk}/take-over", **JSON)
    again = client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)

    assert first.status_code == 200 and again.status_code == 200
    assert second.status_code == 409 and second.json()["error"] == {
        "code": "taken",
        "message": "Lin has already taken this conversation over",
    }
    conversation = Conversation.objects.get(pk=waiting.pk)
    assert conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff == user
    assert EscalationCard.objects.get(conversation=waiting).accepted_by == user
    joined = Message.objects.filter(conversation=waiting, sender="system").get()
    assert joined.text == "客服 Lin 已加入对话。"  # in the customer's language


def test_replies_need_the_chat_notes_do_not_and_stay_internal(lin: tuple[Client, Any], waiting: Conversation) -> None:
    client, user = lin

    early = client.post(f"/admin/console/{waiting.pk}/send", {"text": "Hello"}, **JSON)
    note = client.post(f"/admin/console/{waiting.pk}/send", {"text": "VIP, be gentle", "internal": "1"}, **JSON)
    client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)
    reply = client.post(f"/admin/console/{waiting.pk}/send", {"text": "您好，我是 Lin，马上帮您处理。"}, **JSON)
    empty = client.post(f"/admin/console/{waiting.pk}/send", {"text": "   "}, **JSON)

    assert early.status_code == 409 and "Take the conversation over" in early.json()["error"]["message"]
    assert note.status_code == 200 and reply.status_code == 200 and empty.status_code == 409
    history = widget_history(WidgetTicket(conversation_id=waiting.pk, customer_id=waiting.customer_id))
    assert history
    texts = [m["text"] for m in history["messages"]]
    assert "VIP, be gentle" not in texts and "您好，我是 Lin，马上帮您处理。" in texts
    agent = next(m for m in history["messages"] if m["sender"] == "agent")
    assert agent["author_name"] == "Lin"
    console = client.get(f"/admin/console/{waiting.pk}/").content.decode()
    assert "VIP, be gentle" in console and 'data-internal="true"' in console
    assert "&lt;script&gt;alert(1)&lt;/script&gt;我要投诉" in console and "<script>alert(1)" not in console


def test_hand_back_and_resolve(lin: tuple[Client, Any], waiting: Conversation) -> None:
    client, _ = lin
    client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)

    back = client.post(f"/admin/console/{waiting.pk}/hand-back", **JSON)
    assert back.status_code == 200
    conversation = Conversation.objects.get(pk=waiting.pk)
    assert conversation.status == ConversationStatus.BOT and conversation.assigned_staff is None

    bad = client.post(f"/admin/console/{waiting.pk}/resolve", {"reason": "bored"}, **JSON)
    done = client.post(f"/admin/console/{waiting.pk}/resolve", {"reason": "answered", "note": "sorted"}, **JSON)
    twice = client.post(f"/admin/console/{waiting.pk}/resolve", {"reason": "answered"}, **JSON)

    assert bad.status_code == 409 and done.status_code == 200 and twice.status_code == 409
    conversation = Conversation.objects.get(pk=waiting.pk)
    assert conversation.status == ConversationStatus.CLOSED and conversation.closed_at is not None
    assert (conversation.resolution, conversation.resolution_note) == ("answered", "sorted")
    assert Message.objects.filter(conversation=waiting, text__startswith="本次会话已结束").exists()


def test_a_colleague_cannot_resolve_a_chat_someone_else_owns(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, _ = lin
    other, _ = staff_client(django_user_model, "bo")
    client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)

    response = other.post(f"/admin/console/{waiting.pk}/resolve", {"reason": "answered"}, **JSON)

    assert response.status_code == 409 and response.json()["error"]["code"] == "taken"
    assert Conversation.objects.get(pk=waiting.pk).status == ConversationStatus.HUMAN


def test_unknown_conversations_wrong_methods_and_plain_form_posts(
    lin: tuple[Client, Any], waiting: Conversation
) -> None:
    client, _ = lin

    assert client.get("/admin/console/999999/").status_code == 404
    assert client.post("/admin/console/999999/take-over", **JSON).status_code == 404
    assert client.get(f"/admin/console/{waiting.pk}/take-over").status_code == 405
    plain = client.post(f"/admin/console/{waiting.pk}/take-over")
    assert plain.status_code == 302 and plain["Location"] == f"/admin/console/{waiting.pk}/"


def test_the_console_speaks_the_staff_members_language(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, _ = lin

    zh_queue = client.get("/admin/console/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    zh_card = client.get(f"/admin/console/{waiting.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    zh_chat = client.get(f"/admin/console/{waiting.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    en_chat = client.get(f"/admin/console/{waiting.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    other, _ = staff_client(django_user_model, "bo")
    client.post(f"/admin/console/{waiting.pk}/take-over", **JSON)
    refused = other.post(f"/admin/console/{waiting.pk}/take-over", HTTP_ACCEPT_LANGUAGE="zh-hans", **JSON)

    assert "实时客服台" in zh_queue and "等待中 <span" in zh_queue and "客户情绪激动" in zh_card and "接管" in zh_card
    assert "交还给智能助手" in zh_chat and "内部备注（客户看不到）" in zh_chat and "等待人工" in zh_chat
    assert "正在连接" in zh_chat  # console.js's own strings come from the page
    assert "Hand back to assistant" in en_chat and "Waiting for a human" in en_chat
    assert refused.json()["error"]["message"] == "Lin 已经接管了这个对话"


def test_a_chat_is_transferred_to_a_colleague_who_may_take_chats(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, lin_user = lin
    bo_client, bo = staff_client(django_user_model, "bo")
    outsider, not_console = staff_client(django_user_model, "temp", allowed=False)
    page = client.get(f"/admin/console/{waiting.pk}/").content.decode()
    assert f'<option value="{bo.pk}">Bo</option>' in page and f'value="{not_console.pk}"' not in page

    refused = client.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(not_console.pk)}, **JSON)
    garbage = client.post(f"/admin/console/{waiting.pk}/transfer", {"to": "bo; drop table"}, **JSON)
    given = client.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(bo.pk)}, **JSON)
    not_theirs = client.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(lin_user.pk)}, **JSON)
    back = bo_client.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(lin_user.pk)}, **JSON)

    assert refused.status_code == 409 and refused.json()["error"]["message"] == "Choose a colleague who can take chats."
    assert garbage.status_code == 409
    assert given.status_code == 200 and not_theirs.status_code == 409  # only the owner gives an owned chat away
    assert "Bo has already taken" in not_theirs.json()["error"]["message"]
    assert back.status_code == 200
    conversation = Conversation.objects.get(pk=waiting.pk)
    assert conversation.status == ConversationStatus.HUMAN and conversation.assigned_staff == lin_user
    assert EscalationCard.objects.get(conversation=waiting).accepted_by == bo  # who took the card first
    joined = list(Message.objects.filter(conversation=waiting, sender="system").values_list("text", flat=True))
    assert joined == ["客服 Bo 已加入对话。", "客服 Lin 已加入对话。"]  # the customer sees who joined
    assert outsider.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(bo.pk)}, **JSON).status_code == 403
    closed = client.post(f"/admin/console/{waiting.pk}/resolve", {"reason": "answered"}, **JSON)
    assert closed.status_code == 200
    after = client.post(f"/admin/console/{waiting.pk}/transfer", {"to": str(bo.pk)}, **JSON)
    assert after.status_code == 409


def test_canned_responses_fill_the_chats_variables(lin: tuple[Client, Any], waiting: Conversation) -> None:
    from tickets.models import CannedResponse

    client, _ = lin
    CannedResponse.objects.create(
        title="Tracking",
        shortcut="track",
        language="zh",
        text="{customer_name}您好，我是{agent}，订单 {order_id} 已发货。",
    )
    CannedResponse.objects.create(title="Hello", shortcut="hi", language="en", text="Hi {customer_name}")

    html = client.get(f"/admin/console/{waiting.pk}/").content.decode()

    assert 'value="Mei &lt;b&gt;Chen&lt;/b&gt;您好，我是Lin，订单 D1002 已发货。" data-shortcut="track"' in html
    assert "Hi {customer_name}" not in html  # only the chat's language is offered
    Conversation.objects.filter(pk=waiting.pk).update(language="en")
    Customer.objects.filter(pk=waiting.customer_id).update(name="")
    html = client.get(f"/admin/console/{waiting.pk}/").content.decode()
    assert 'value="Hi {customer_name}"' in html  # no name known: left for the person to fill in


def test_the_inbox_shows_which_colleagues_are_online(
    lin: tuple[Client, Any], django_user_model: Any, waiting: Conversation
) -> None:
    client, _ = lin
    assert "No colleague online." in client.get("/admin/console/list").content.decode()
    bo_client, bo = staff_client(django_user_model, "bo")
    bo_client.get("/admin/console/")  # Bo opens the console

    listed = client.get("/admin/console/list").content.decode()
    chat = client.get(f"/admin/console/{waiting.pk}/").content.decode()

    assert "Also online: Bo" in listed
    assert f'<option value="{bo.pk}">Bo · online</option>' in chat
