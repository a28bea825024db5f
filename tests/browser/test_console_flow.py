"""One chat from both ends, in two browsers on the real ASGI server with a real worker: the customer
asks a policy question, completes a return with quick replies and asks for a person; staff sees the
card arrive live, takes over, answers; the chat is handed back and the bot answers again."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from playwright.sync_api import Page, expect

from agents.intents.exemplar_index import exemplars_sync
from conversations.models import Conversation, ConversationStatus, Message
from stores.builtin.models import Order, OrderStatus
from tests.browser.conftest import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STAFF_PASSWORD = "console-pw-1"


@pytest.fixture
def demo(celery_worker: subprocess.Popen[bytes]) -> User:
    call_command("seed_demo", verbosity=0)
    exemplars_sync()
    user = User.objects.create_user(username="lin", first_name="Lin", password=STAFF_PASSWORD, is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    return user


def _bot_replies(page: Page) -> Any:
    return page.locator('[data-testid="cs-message"][data-sender="bot"][data-turn-done="true"]')


def _ask(page: Page, text: str) -> None:
    page.get_by_test_id("cs-input").fill(text)
    page.get_by_test_id("cs-input").press("Enter")


def _staff_console(widget_pages: Any) -> Page:
    return console_login(widget_pages(), "lin", STAFF_PASSWORD)


def test_a_chat_goes_from_the_bot_to_a_person_and_back(demo: User, widget_pages: Any) -> None:
    console = _staff_console(widget_pages)
    expect(console.get_by_test_id("inbox-empty")).to_be_visible()
    shopper = widget_pages(locale="zh-CN")
    shopper.goto("/?lang=zh&customer=demo_li_wei")
    shopper.get_by_test_id("cs-launcher").click()

    # A policy question: streamed, with a citation.
    _ask(shopper, "退货政策是怎样的")
    expect(_bot_replies(shopper)).to_have_count(1)
    citation = _bot_replies(shopper).first.get_by_test_id("cs-citation").first
    expect(citation).to_be_visible()
    expect(citation).to_have_attribute("href", re.compile(r"/kb/sources/\d+$"))
    assert int(_bot_replies(shopper).first.get_attribute("data-deltas") or 0) >= 2

    # A return, answered only with quick replies until the bot writes it.
    _ask(shopper, "我要退货")
    for step in range(2, 8):
        expect(_bot_replies(shopper)).to_have_count(step)
        buttons = _bot_replies(shopper).last.get_by_test_id("cs-quick-reply")
        if buttons.count() == 0:
            break
        choice = next(
            (b for b in buttons.all() if (b.text_content() or "").strip() in ("是", "确认", "yes", "Yes")), None
        )
        (choice or buttons.first).click()
    returned = Order.objects.filter(customer__external_id="demo_li_wei", status=OrderStatus.RETURN_REQUESTED)
    assert returned.exists(), list(Message.objects.filter(sender="bot").values_list("text", flat=True))

    # Asking for a person: the inbox lists the chat without a reload; opening it shows the card and
    # the customer beside it.
    _ask(shopper, "转人工")
    item = console.get_by_test_id("inbox-item")
    expect(item).to_have_count(1)
    expect(console.locator('[data-testid="inbox-view"][data-view="waiting"]')).to_have_attribute("data-count", "1")
    expect(shopper.get_by_test_id("cs-banner")).to_be_visible()
    item.click()
    expect(console).to_have_url(re.compile(r"/admin/console/\d+/\?view=waiting$"))
    card = console.get_by_test_id("console-card")
    expect(card.get_by_test_id("card-reason")).to_have_text("The customer asked to talk to a person.")
    expect(card.get_by_test_id("card-topic").last).to_have_text("Talk to a person")
    expect(card).not_to_contain_text("turn_id")
    panel = console.get_by_test_id("customer-panel")
    expect(panel.get_by_test_id("customer-verified")).to_be_visible()
    expect(panel.get_by_test_id("customer-order").first).to_be_visible()
    expect(console.locator('[data-testid="inbox-item"][aria-current="true"]')).to_have_count(1)

    # Take over, answer: the customer sees the person's name and words.
    console.get_by_test_id("console-take-over").click()
    expect(console.get_by_test_id("console-status")).to_have_attribute("data-status", "human")
    expect(shopper.get_by_test_id("cs-banner")).to_contain_text("Lin")
    console.get_by_test_id("console-note").check()
    console.get_by_test_id("console-input").fill("VIP customer, second return this month")
    console.get_by_test_id("console-send").click()
    expect(console.locator('[data-testid="console-message"][data-internal="true"]')).to_have_count(1)
    console.get_by_test_id("console-note").uncheck()
    console.get_by_test_id("console-input").fill("您好，我是 Lin，退货已经为您登记好了。<b>稍后</b>会有快递上门取件。")
    console.get_by_test_id("console-send").click()
    agent = shopper.locator('[data-testid="cs-message"][data-sender="agent"]')
    expect(agent).to_have_count(1)
    expect(agent).to_contain_text("<b>稍后</b>会有快递上门取件")
    expect(shopper.get_by_text("VIP customer")).to_have_count(0)  # the note stays inside

    # While the person owns the chat, the bot stays silent.
    bot_count = _bot_replies(shopper).count()
    _ask(shopper, "好的谢谢，运费怎么算？")
    expect(console.locator('[data-testid="console-message"][data-sender="customer"]').last).to_contain_text(
        "运费怎么算"
    )
    shopper.wait_for_timeout(1500)
    expect(_bot_replies(shopper)).to_have_count(bot_count)

    # Hand back: the bot answers the next question with the history intact.
    console.get_by_test_id("console-hand-back").click()
    expect(console.get_by_test_id("console-status")).to_have_attribute("data-status", "bot")
    expect(shopper.get_by_test_id("cs-banner")).to_be_visible()
    _ask(shopper, "你们支持哪些支付方式？")
    expect(_bot_replies(shopper)).to_have_count(bot_count + 1)
    conversation = Conversation.objects.get(customer__external_id="demo_li_wei")
    assert conversation.status == ConversationStatus.BOT and conversation.assigned_staff is None
    assert widget_pages.problems == []


def _waiting_chat(name: str) -> Conversation:
    from django.db import transaction

    from agents.escalation import escalated_event
    from conversations.models import Customer
    from conversations.realtime import send_staff_event_on_commit
    from conversations.services import conversation_lock, conversation_start, conversation_wait_for_human
    from tickets.models import EscalationCard, EscalationReason

    conversation = conversation_start(customer=Customer.objects.create(external_id=name, name=name), language="en")
    Message.objects.create(conversation=conversation, sender="customer", text=f"{name} needs a person")
    with transaction.atomic():
        conversation_wait_for_human(conversation=conversation_lock(conversation.pk))
        card = EscalationCard.objects.create(
            conversation=conversation, reason=EscalationReason.REQUESTED, summary=f"{name} asked for a human"
        )
        send_staff_event_on_commit(escalated_event(card))
    return conversation


def test_keys_canned_shortcuts_and_a_desktop_notification(demo: User, widget_pages: Any) -> None:
    from tickets.models import CannedResponse

    CannedResponse.objects.create(title="Hello", shortcut="hi", language="en", text="Hi {customer_name}, I'm {agent}.")
    first, second = _waiting_chat("Ada"), _waiting_chat("Ben")
    console = _staff_console(widget_pages)
    # the browser's notifications, recorded: permission granted as a staff member would grant it
    console.context.grant_permissions(["notifications"])
    console.evaluate(
        """() => { window.__shown = []; const Real = window.Notification;
           window.Notification = class extends Real { constructor(title, options) { super(title, options);
             window.__shown.push([title, options.body]); } }; }"""
    )
    console.get_by_test_id("console-notify").check()
    expect(console.get_by_test_id("inbox-item")).to_have_count(2)

    console.keyboard.press("j")  # the first (longest-waiting) chat opens
    expect(console).to_have_url(re.compile(rf"/admin/console/{first.pk}/"))
    console.keyboard.press("j")
    expect(console).to_have_url(re.compile(rf"/admin/console/{second.pk}/"))
    console.keyboard.press("k")
    expect(console).to_have_url(re.compile(rf"/admin/console/{first.pk}/"))
    console.keyboard.press("t")  # take over
    expect(console.get_by_test_id("console-status")).to_have_attribute("data-status", "human")

    box = console.get_by_test_id("console-input")
    box.press_sequentially("/hi ")
    expect(box).to_have_value("Hi Ada, I'm Lin.")
    box.press("Control+Enter")
    expect(console.locator('[data-testid="console-message"][data-sender="agent"]')).to_contain_text("Hi Ada, I'm Lin.")

    # a new waiting chat while the console is open: a notification (the page reloaded, so record again)
    console.evaluate(
        """() => { window.__shown = []; const Real = window.Notification;
           window.Notification = class extends Real { constructor(title, options) { super(title, options);
             window.__shown.push([title, options.body]); } }; }"""
    )
    expect(console.get_by_test_id("console-notify")).to_be_checked()  # kept across pages
    _waiting_chat("Cai")
    console.wait_for_function("window.__shown.length === 1")
    assert console.evaluate("window.__shown") == [["A customer is waiting for a person", "Cai asked for a human"]]
    assert widget_pages.problems == []


def test_views_search_and_a_transfer_to_a_colleague(demo: User, widget_pages: Any) -> None:
    ada, ben = _waiting_chat("Ada"), _waiting_chat("Ben")
    Message.objects.create(conversation=ada, sender="customer", text="my order #D1007 never came")
    bo = User.objects.create_user(username="bo", first_name="Bo", password="pw-bo-1", is_staff=True)
    bo.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    console = _staff_console(widget_pages)

    waiting = console.locator('[data-testid="inbox-view"][data-view="waiting"]')
    expect(waiting).to_have_attribute("data-count", "2")
    expect(console.get_by_test_id("inbox-unread")).to_have_count(2)
    console.locator('[data-testid="inbox-view"][data-view="mine"]').click()
    expect(console.get_by_test_id("inbox-empty")).to_be_visible()
    console.locator('[data-testid="inbox-view"][data-view="all"]').click()
    expect(console.get_by_test_id("inbox-item")).to_have_count(2)

    console.get_by_test_id("inbox-search").fill("D1007")
    console.get_by_test_id("inbox-search").press("Enter")
    expect(console.get_by_test_id("inbox-item")).to_have_count(1)
    expect(console.get_by_test_id("inbox-item")).to_have_attribute("data-conversation-id", str(ada.pk))
    console.get_by_test_id("inbox-item").click()
    expect(console.get_by_test_id("inbox-search")).to_have_value("D1007")  # the list keeps its search

    console.get_by_test_id("console-take-over").click()
    expect(console.get_by_test_id("console-status")).to_have_attribute("data-status", "human")
    console.get_by_test_id("console-transfer-to").select_option(str(bo.pk))
    console.get_by_test_id("console-transfer").click()
    expect(console.get_by_test_id("console-owner")).to_have_text("Bo")
    assert Conversation.objects.get(pk=ada.pk).assigned_staff == bo
    assert Conversation.objects.get(pk=ben.pk).status == ConversationStatus.WAITING_HUMAN
    assert widget_pages.problems == []
