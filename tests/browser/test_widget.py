"""The customer's chat widget in a real browser, against the real ASGI server and a real Celery worker:
the demo store page carries it, answers stream in with citations, history survives a reload, message text
is never HTML, quick replies send themselves, and the panel fits a phone."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest
from django.core.management import call_command
from playwright.sync_api import Dialog, Page, WebSocket, expect

from agents.intents.exemplar_index import exemplars_sync
from conversations.models import Conversation, Customer, Message
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPLY_TIMEOUT_MS = 30_000  # a turn on a 2-core machine shared with chromium, Postgres and the worker

# Every text the bot bubble showed, in order, recorded as the DOM changes (before the test looks).
RECORD_BOT_TEXTS = """
window.__botTexts = [];
new MutationObserver(() => {
  const bubbles = document.querySelectorAll('[data-testid="cs-message"][data-sender="bot"]');
  const last = bubbles[bubbles.length - 1];
  if (!last) return;
  const body = last.querySelector('.cs-bubble');
  const text = body ? body.textContent : '';
  const seen = window.__botTexts;
  if (text && seen[seen.length - 1] !== text) seen.push(text);
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


@pytest.fixture
def demo(celery_worker: subprocess.Popen[bytes]) -> None:
    """The demo store, its help articles and the intent exemplars, committed for the server and the worker."""
    call_command("seed_demo", verbosity=0)
    exemplars_sync()


class Frames:
    """The JSON events the widget's WebSocket received."""

    def __init__(self, page: Page) -> None:
        self.events: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, socket: WebSocket) -> None:
        socket.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        try:
            self.events.append(json.loads(payload))
        except ValueError:
            pass

    def types(self) -> list[str]:
        return [e.get("type", "") for e in self.events]


def _open(page: Page, path: str) -> None:
    page.goto(path)
    expect(page.get_by_test_id("cs-launcher")).to_be_visible()
    page.get_by_test_id("cs-launcher").click()
    expect(page.get_by_test_id("cs-panel")).to_be_visible()
    expect(page.get_by_test_id("cs-input")).to_be_focused()


def _ask(page: Page, text: str) -> None:
    page.get_by_test_id("cs-input").fill(text)
    page.get_by_test_id("cs-input").press("Enter")


def _bot_done(page: Page, count: int = 1) -> Any:
    """The count-th bot bubble in its final form (from reply.done, its message.created or the history)."""
    done = page.locator('[data-testid="cs-message"][data-sender="bot"][data-final="true"]')
    expect(done).to_have_count(count, timeout=REPLY_TIMEOUT_MS)
    return done.nth(count - 1)


def _assert_streamed(page: Page, frames: Frames, final_text: str) -> None:
    """At least one reply.delta arrived before reply.done, and the bubble showed text before its final form."""
    # Playwright hands frames to Python after the page has handled them: under load the bubble can be
    # final a moment before the recorder has seen reply.done.
    for _ in range(50):
        if "reply.done" in frames.types():
            break
        page.wait_for_timeout(100)
    types = frames.types()
    assert "reply.done" in types, types
    assert "reply.delta" in types[: types.index("reply.done")], types
    shown = page.evaluate("window.__botTexts")
    assert any(0 < len(text) < len(final_text) for text in shown), shown
    assert shown[-1] == final_text, shown


def test_a_chinese_question_on_the_store_page_streams_a_cited_answer(demo: None, widget_pages: Any) -> None:
    page = widget_pages(locale="zh-CN")
    page.add_init_script(RECORD_BOT_TEXTS)
    frames = Frames(page)
    _open(page, "/?lang=zh")
    expect(page.get_by_role("dialog")).to_contain_text("在线客服")
    expect(page.get_by_test_id("cs-typing")).to_be_hidden()

    _ask(page, "退货政策是怎样的")

    customer = page.locator('[data-testid="cs-message"][data-sender="customer"]')
    expect(customer).to_have_text("退货政策是怎样的")
    expect(page.get_by_test_id("cs-input")).to_have_value("")
    bot = _bot_done(page)
    expect(page.get_by_test_id("cs-typing")).to_be_hidden()
    final_text = bot.locator(".cs-bubble").text_content() or ""
    assert "退" in final_text and re.search(r"\[\d\]$", final_text), final_text
    _assert_streamed(page, frames, final_text)
    assert int(bot.get_attribute("data-deltas") or 0) >= 1
    expect(bot).to_have_attribute("data-turn-done", "true")
    citation = bot.get_by_test_id("cs-citation").first
    expect(citation).to_be_visible()
    expect(citation).to_contain_text("[1]")
    # One bubble for the turn: message.created and reply.done of the same turn_id were merged.
    expect(page.locator('[data-testid="cs-message"][data-sender="bot"]')).to_have_count(1)
    assert frames.types().count("reply.done") == 1
    assert widget_pages.problems == []


def test_an_english_question_gets_an_english_cited_answer(demo: None, widget_pages: Any) -> None:
    page = widget_pages(locale="en-US")
    page.add_init_script(RECORD_BOT_TEXTS)
    frames = Frames(page)
    _open(page, "/?lang=en")
    expect(page.get_by_role("dialog")).to_contain_text("Customer support")

    page.get_by_test_id("cs-input").fill("What is your return policy?")
    page.get_by_test_id("cs-send").click()

    bot = _bot_done(page)
    final_text = bot.locator(".cs-bubble").text_content() or ""
    assert "return" in final_text.lower() and "退" not in final_text, final_text
    _assert_streamed(page, frames, final_text)
    expect(bot.get_by_test_id("cs-citation").first).to_be_visible()
    assert widget_pages.problems == []


def test_a_reload_keeps_the_history(demo: None, widget_pages: Any) -> None:
    page = widget_pages()
    _open(page, "/?lang=en")
    _ask(page, "How long is the warranty on earbuds?")
    bot = _bot_done(page)
    answer = bot.locator(".cs-bubble").text_content()
    conversation = Conversation.objects.get()

    page.reload()
    page.get_by_test_id("cs-launcher").click()

    messages = page.get_by_test_id("cs-message")
    expect(messages).to_have_count(2)
    expect(messages.nth(0)).to_have_attribute("data-sender", "customer")
    expect(messages.nth(0)).to_have_text("How long is the warranty on earbuds?")
    expect(messages.nth(1)).to_have_attribute("data-sender", "bot")
    expect(messages.nth(1).locator(".cs-bubble")).to_have_text(answer or "")
    expect(messages.nth(1).get_by_test_id("cs-citation").first).to_be_visible()
    expect(page.get_by_test_id("cs-typing")).to_be_hidden()

    # The same conversation carries on: no second chat was opened.
    _ask(page, "Thanks!")
    _bot_done(page, 2)
    assert Conversation.objects.get().pk == conversation.pk
    assert widget_pages.problems == []


def test_html_in_a_message_is_shown_as_literal_text(demo: None, widget_pages: Any) -> None:
    page = widget_pages()
    dialogs: list[str] = []

    def dismissed(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismissed)
    _open(page, "/?lang=en")
    hostile = "<script>alert(1)</script><b>x</b> **bold** `code`"

    _ask(page, hostile)

    customer = page.locator('[data-testid="cs-message"][data-sender="customer"]')
    expect(customer).to_have_text(hostile)
    _bot_done(page)
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.locator('[data-testid="cs-message"] b, [data-testid="cs-message"] script').count() == 0
    assert page.locator('[data-testid="cs-message"][data-sender="customer"] strong').count() == 0
    assert Message.objects.get(sender="customer").text == hostile
    assert widget_pages.problems == []


def test_quick_replies_for_awaited_choices_send_themselves(demo: None, widget_pages: Any) -> None:
    """李伟, signed in by the demo page, starts a return: the bot asks which order, with the orders as buttons."""
    page = widget_pages(locale="zh-CN")
    _open(page, "/?lang=zh&customer=demo_li_wei")

    _ask(page, "我要退货")

    first = _bot_done(page)
    expect(first).to_contain_text("订单")
    choices = page.get_by_test_id("cs-quick-reply")
    expect(choices.first).to_be_visible()
    choice = choices.first.text_content() or ""
    assert choice.startswith("#"), choice
    reply = Message.objects.filter(sender="bot").get()
    assert choice in reply.metadata["awaiting"]["choices"] and reply.metadata["awaiting"]["slot"] == "order_id"

    choices.first.click()

    customers = page.locator('[data-testid="cs-message"][data-sender="customer"]')
    expect(customers).to_have_count(2)
    expect(customers.nth(1)).to_have_text(choice)
    second = _bot_done(page, 2)
    expect(second).not_to_have_text(first.text_content() or "")
    assert list(Message.objects.filter(sender="customer").order_by("pk").values_list("text", flat=True)) == [
        "我要退货",
        choice,
    ]
    conversation = Conversation.objects.get()
    assert conversation.verified_customer is not None and conversation.verified_customer.external_id == "demo_li_wei"
    assert widget_pages.problems == []


def test_the_panel_fits_a_phone_screen(demo: None, widget_pages: Any) -> None:
    page = widget_pages(width=390, height=844, locale="zh-CN")
    _open(page, "/?lang=zh")

    box = page.get_by_test_id("cs-panel").bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
    assert box["width"] >= 380  # full screen, not a floating card
    for test_id in ("cs-input", "cs-send"):
        part = page.get_by_test_id(test_id).bounding_box()
        assert part is not None and part["x"] >= 0 and part["x"] + part["width"] <= 390
        assert part["y"] + part["height"] <= 844
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    _ask(page, "你好")
    bot = _bot_done(page)
    bubble = bot.bounding_box()
    assert bubble is not None and bubble["x"] + bubble["width"] <= 390

    # Esc closes the panel and gives the focus back to the launcher.
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("cs-panel")).to_be_hidden()
    expect(page.get_by_test_id("cs-launcher")).to_be_focused()
    assert widget_pages.problems == []


def test_a_person_taking_over_is_announced_and_their_messages_are_labelled(demo: None, widget_pages: Any) -> None:
    from django.contrib.auth.models import User

    from conversations.services import conversation_hand_back, conversation_take_over, message_create

    page = widget_pages()
    _open(page, "/?lang=en")
    _ask(page, "Hello")
    _bot_done(page)
    conversation = Conversation.objects.get()
    staff = User.objects.create_user("bob_widget", password="pw", is_staff=True, first_name="Bob")

    conversation_take_over(conversation_id=conversation.pk, staff=staff)

    banner = page.get_by_test_id("cs-banner")
    expect(banner).to_have_text("Bob joined the chat")
    message_create(
        conversation=conversation,
        sender="agent",
        author=staff,
        text="**Hi**, I'm *Bob*. About `#D1003`:\n- one\n- two https://example.com/help.\n\n<i>not html</i>",
    )
    agent = page.locator('[data-testid="cs-message"][data-sender="agent"]')
    expect(agent).to_have_count(1)
    expect(agent.locator(".cs-author")).to_have_text("Bob")
    expect(agent.locator("strong")).to_have_text("Hi")
    expect(agent.locator("em")).to_have_text("Bob")
    expect(agent.locator("code")).to_have_text("#D1003")
    expect(agent.locator("li")).to_have_count(2)
    expect(agent.locator("a")).to_have_attribute("href", "https://example.com/help")
    expect(agent.locator("p").last).to_have_text("<i>not html</i>")
    assert agent.locator("i").count() == 0

    conversation_hand_back(conversation_id=conversation.pk, staff=staff)

    expect(banner).to_have_text("You're back with the assistant")
    expect(page.locator('[data-testid="cs-message"][data-sender="system"]')).to_have_count(2)
    assert widget_pages.problems == []


@pytest.mark.parametrize(
    ("lang", "ask", "offline", "after_reload"),
    [
        (
            "en",
            "I want to talk to a human",
            "No one from our team is online right now. We'll get back to you.",
            "Handed to our team. Someone will reply as soon as they can.",
        ),
        ("zh", "转人工", "当前没有人工客服在线，我们会尽快与您联系。", "已转交人工客服，客服有空时会尽快回复您。"),
    ],
)
def test_with_nobody_online_the_banner_says_what_the_bot_says(
    demo: None, widget_pages: Any, lang: str, ask: str, offline: str, after_reload: str
) -> None:
    page = widget_pages(locale="zh-CN" if lang == "zh" else "en-US")
    _open(page, f"/?lang={lang}")
    _ask(page, ask)
    _bot_done(page)

    banner = page.get_by_test_id("cs-banner")
    expect(banner).to_have_text(offline)  # not "waiting for a person to join" while the bot says nobody is online
    assert "Waiting for a person" not in (banner.text_content() or "")

    page.reload()  # the page no longer knows who was online: it says what holds either way
    page.get_by_test_id("cs-launcher").click()
    expect(page.get_by_test_id("cs-banner")).to_have_text(after_reload)
    assert widget_pages.problems == []


@pytest.mark.parametrize(
    ("lang", "ask", "title", "thanks", "comment"),
    [
        ("en", "What is your return policy?", "How did we do?", "Thanks for your feedback!", "Quick and clear"),
        ("zh", "退货政策是怎样的", "请为本次服务评分", "感谢您的评价！", "很快，清楚"),
    ],
)
def test_ending_the_chat_asks_for_a_rating_once(
    demo: None, widget_pages: Any, lang: str, ask: str, title: str, thanks: str, comment: str
) -> None:
    from conversations.models import Rating

    page = widget_pages(locale="zh-CN" if lang == "zh" else "en-US")
    _open(page, f"/?lang={lang}")
    expect(page.get_by_test_id("cs-end")).to_be_hidden()  # nothing to end yet
    _ask(page, ask)
    _bot_done(page)

    page.get_by_test_id("cs-end").click()

    rating = page.get_by_test_id("cs-rating")
    expect(rating).to_contain_text(title)
    expect(page.get_by_test_id("cs-end")).to_be_hidden()
    expect(page.get_by_test_id("cs-rating-send")).to_be_disabled()
    page.get_by_test_id("cs-star").nth(3).click()
    expect(page.get_by_test_id("cs-star").nth(3)).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("cs-star").nth(4)).to_have_attribute("aria-pressed", "false")
    rating.locator("textarea").fill(comment)
    page.get_by_test_id("cs-rating-send").click()

    expect(page.get_by_test_id("cs-rating-thanks")).to_have_text(thanks)
    expect(rating).to_have_count(0)
    saved = Rating.objects.get()
    assert (saved.score, saved.comment, saved.staff_id) == (4, comment, None)
    assert saved.conversation.closed_by == "customer" and saved.conversation.resolution == "ended"

    page.reload()  # rated: not asked again
    page.get_by_test_id("cs-launcher").click()
    expect(page.get_by_test_id("cs-banner")).to_be_visible()
    expect(page.get_by_test_id("cs-rating")).to_have_count(0)
    assert widget_pages.problems == []


def test_the_store_page_signs_only_demo_customers_and_only_in_demo_mode(demo: None, client: Any, settings: Any) -> None:
    import re

    import jwt

    settings.DEMO_MODE = True
    page = client.get("/?lang=zh&customer=demo_li_wei").content.decode()
    assert 'src="/static/cs_widget/widget.js" data-site-key="demo" data-locale="zh"' in page
    signed_in = re.search(r'data-identity-token="([^"]+)"', page)
    assert signed_in
    token = signed_in[1]
    claims = jwt.decode(token, settings.WIDGET_SITE_SECRET, algorithms=["HS256"])
    assert claims["sub"] == "demo_li_wei" and claims["name"] == "李伟" and claims["email"] == "li.wei@example.com"

    Customer.objects.create(external_id="real_shopper", name="Real")
    for other in ("real_shopper", "demo_nobody"):
        page = client.get(f"/?lang=fr&customer={other}").content.decode()
        assert "data-identity-token" not in page and 'data-locale="en"' in page

    settings.DEMO_MODE = False
    assert "data-identity-token" not in client.get("/?lang=zh&customer=demo_li_wei").content.decode()


@pytest.mark.parametrize(
    ("lang", "categories", "subsidy", "question", "said", "not_said"),
    [
        (
            "zh",
            ["手机", "耳机", "平板"],
            "国补立减 ¥449.85",
            "我的订单 #D1002 到哪了",
            ["顺丰速运", "已到达广州转运中心"],
            ["SF Express", "hub"],
        ),
        (
            "en",
            ["Phone", "Earbuds", "Tablet"],
            "National subsidy −¥449.85",
            "Where is my order #D1002?",
            ["SF Express", "Arrived at the sorting hub (Guangzhou hub"],
            ["顺丰", "广州"],
        ),
    ],
)
def test_a_signed_in_demo_shopper_reads_the_store_and_their_order_in_one_language(
    demo: None,
    widget_pages: Any,
    lang: str,
    categories: list[str],
    subsidy: str,
    question: str,
    said: list[str],
    not_said: list[str],
) -> None:
    """What the README's 'Try it' offers: the store page in one language (categories, the subsidy the chat
    gives), and a demo shopper's order answered in that language throughout. Saved as a screenshot."""
    page = widget_pages(locale="zh-CN" if lang == "zh" else "en-US")
    _open(page, f"/?customer=demo_li_wei&lang={lang}")
    expect(page.get_by_test_id("product-subsidy").filter(has_text=subsidy)).to_have_count(1)
    assert set(page.get_by_test_id("product-category").all_text_contents()) == set(categories)

    _ask(page, question)

    reply = _bot_done(page).locator(".cs-bubble").text_content() or ""
    assert all(part in reply for part in said) and not [w for w in not_said if w in reply], reply
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"first-hour-{lang}.png"), full_page=True)
    assert widget_pages.problems == []
