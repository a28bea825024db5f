"""The safety gate on every reply (agents.safety): harmful replies are blocked and the chat goes to a person,
leaks are masked, sensitive topics get a disclaimer; zh and en, offline and with the fake LLM."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from agents.harm_model import model_weights
from agents.safety import BLOCK, PASS, REVISE, safety_check
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from stores.builtin.models import Order
from tests.agents.engine import run_turn
from tests.fake_openai import FakeOpenAI


def _nobody() -> Customer | None:
    raise AssertionError("the customer is read only when the reply gives an email or a phone number")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Honestly, you are an idiot for asking that.", "abuse"),
        ("你是个白痴吗，这都不懂", "abuse"),
        ("If it keeps failing, just go kill yourself.", "self_harm"),
        ("这么麻烦不如去死", "self_harm"),
        ("We can sell you fake IDs if you pay in cash.", "illegal_goods"),
        ("我们可以代开发票，税点很低", "illegal_goods"),
        ("I will find you and hurt you.", "violence"),
    ],
)
def test_a_harmful_reply_is_blocked(text: str, category: str) -> None:
    verdict = safety_check(text, language="en", customer=_nobody)

    assert verdict.decision == BLOCK and verdict.categories == [category] and verdict.text == ""


@pytest.mark.parametrize(
    "text",
    [
        "Your order #D1001 ships tomorrow; the Find X9 costs ¥3499 after the subsidy.",
        "耳机保修期为 6 个月，签收后 7 天内可无理由退货 [1]。",
        "Kill the app and open it again, then the update installs.",  # a phone's words, not violence
        "This charger is not an idiot-proof design, so read the manual [2].",
        "If you get a crack in the screen, we'll get you a replacement within 7 days.",
        "如果手机屏幕砸了，可以申请碎屏险理赔。",
        "您可以帮你妈妈下单，收货人填她的名字即可。",
        "旧手机可以作为电子废物回收，您是不是想预约上门？",
        "To end the call, tap Stop, or we will find you a better plan.",
    ],
)
def test_an_ordinary_reply_passes_untouched(db: None, text: str) -> None:
    # what a running server has done long before: the classifier loaded, the database connected
    model_weights()
    Order.objects.exists()
    verdict = safety_check(text, language="en", customer=_nobody)

    assert (verdict.decision, verdict.text, verdict.categories) == (PASS, text, [])
    assert verdict.ms < 50


def test_only_the_verified_customers_own_contacts_are_said(db: None) -> None:
    ada = Customer.objects.create(external_id="ada", email="ada@example.com", phone="+44 20 7946 0018")

    verdict = safety_check(
        "We'll write to ada@example.com and call +44 20 7946 0018. Zhang's email is zhang.min@example.com, "
        "his phone 13912345678. Or call support on +86 755 8888 0000.",
        language="en",
        customer=lambda: ada,
        support_contacts=("+86 755 8888 0000",),
    )

    assert verdict.decision == REVISE and verdict.categories == ["other_email", "other_phone"]
    assert "ada@example.com" in verdict.text and "+44 20 7946 0018" in verdict.text
    assert "zhang.min@example.com" not in verdict.text and "z***@example.com" in verdict.text
    assert "13912345678" not in verdict.text and "139****5678" in verdict.text
    assert "+86 755 8888 0000" in verdict.text


@pytest.mark.parametrize(
    ("text", "hidden", "kept", "category"),
    [
        ("The card on file is 4111 1111 1111 1111.", "4111 1111 1111 1111", "**** **** **** 1111", "card_number"),
        ("身份证号 110101199003074578 已登记。", "110101199003074578", "110101********4578", "id_number"),
        ("Use key sk-live_abcdefghijklmnop12345 for the API.", "sk-live_abcdefghijklmnop12345", "[hidden]", "secret"),
    ],
)
def test_numbers_and_secrets_that_are_never_said_are_masked(text: str, hidden: str, kept: str, category: str) -> None:
    verdict = safety_check(text, language="zh", customer=_nobody)

    assert verdict.decision == REVISE and verdict.categories == [category]
    assert hidden not in verdict.text and kept in verdict.text


def test_an_order_number_that_is_no_card_stays() -> None:
    text = "Tracking number 1234567890123456 is with SF Express."  # fails the card checksum

    assert safety_check(text, language="en", customer=_nobody).text == text


@pytest.mark.parametrize(
    ("language", "text", "note"),
    [
        ("en", "This watch measures your heart rate but cannot diagnose symptoms.", "not medical advice"),
        ("zh", "这款手表可以测心率，但不能用于诊断症状。", "不构成医疗建议"),
        ("en", "You can pay with a loan at 0% interest rate for 12 months.", "not financial advice"),
        ("zh", "如需起诉商家，请咨询律师。", "不构成法律意见"),
    ],
)
def test_a_sensitive_topic_gets_a_disclaimer_in_the_reply_language(language: str, text: str, note: str) -> None:
    verdict = safety_check(text, language=language, customer=_nobody)

    assert verdict.decision == REVISE and verdict.text.startswith(text) and note in verdict.text


@pytest.fixture
def visitor(db: None) -> Conversation:
    call_command("seed_demo", verbosity=0)
    return conversation_start(customer=Customer.objects.create(external_id="guest_safety"))


@pytest.mark.usefixtures("exemplars", "parked_queue")
def test_an_answer_giving_another_customers_email_is_said_masked(
    visitor: Conversation, llm_settings: FakeOpenAI
) -> None:
    question = "How long is the warranty on earbuds?"
    llm_settings.reply_json({"intents": [{"intent": "policy_inquiry", "confidence": 0.95, "text": question}]})
    llm_settings.reply("Earbuds have a 6-month warranty [1]. Li Wei (li.wei@example.com) asked the same.")

    turn = run_turn(visitor, question)

    # then: the address is never said: masked, or its sentence cut when it reads as handing out another
    # customer's details; the answer is still given
    assert turn.status == "done" and turn.safety["decision"] == REVISE
    assert "li.wei@example.com" not in turn.reply["text"] and "6-month warranty" in turn.reply["text"]
    assert turn.reply_message is not None and "li.wei@example.com" not in turn.reply_message.text


@pytest.mark.usefixtures("exemplars", "parked_queue")
def test_every_answered_turn_carries_the_gates_verdict(visitor: Conversation) -> None:
    turn = run_turn(visitor, "What is your return policy?")

    assert turn.safety["decision"] == PASS and turn.safety["ms"] >= 0


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_providers_moderation_blocks_what_the_rules_let_through(
    llm_settings: FakeOpenAI, settings: Any, language: str
) -> None:
    settings.MODERATION_MODEL = "omni-moderation-latest"
    llm_settings.moderation_flags = {"meet me behind the depot": ["harassment/threatening", "violence"]}
    text = "Meet me behind the depot tonight." if language == "en" else "今晚 meet me behind the depot。"

    flagged = safety_check(text, language=language, customer=_nobody)
    clean = safety_check("Your parcel arrives tomorrow.", language=language, customer=_nobody)

    assert flagged.decision == BLOCK
    assert flagged.categories == ["moderation:harassment/threatening", "moderation:violence"]
    assert clean.decision == PASS
    asked = [r for r in llm_settings.requests if r["path"] == "/v1/moderations"]
    assert [r["body"]["model"] for r in asked] == ["omni-moderation-latest"] * 2


def test_without_a_moderation_model_or_when_it_fails_the_offline_rules_decide(
    llm_settings: FakeOpenAI, settings: Any
) -> None:
    llm_settings.moderation_flags = {"parcel": ["violence"]}
    unset = safety_check("Your parcel arrives tomorrow.", language="en", customer=_nobody)
    settings.MODERATION_MODEL = "omni-moderation-latest"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens: the call fails
    failed = safety_check("Your parcel arrives tomorrow.", language="en", customer=_nobody)

    assert unset.decision == failed.decision == PASS
    assert not [r for r in llm_settings.requests if r["path"] == "/v1/moderations"]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_another_customers_order_id_and_address_are_masked_the_customers_own_stay(db: None, language: str) -> None:
    call_command("seed_demo", verbosity=0)
    own = Order.objects.filter(customer__external_id="demo_li_wei").first()
    other = Order.objects.exclude(customer=own.customer).exclude(address={}).first()
    assert own is not None and other is not None
    street = other.address["address1"]
    text = (
        f"Your order {own.external_id} ships today; order {other.external_id} goes to {street}."
        if language == "en"
        else f"您的订单 {own.external_id} 今天发货；订单 {other.external_id} 寄往 {street}。"
    )

    verdict = safety_check(text, language=language, customer=lambda: own.customer)

    assert verdict.decision == REVISE and verdict.categories == ["other_address", "other_order"]
    assert own.external_id in verdict.text and other.external_id not in verdict.text
    assert other.external_id.lstrip("#")[:2] + "*" in verdict.text and street not in verdict.text


def test_a_tracking_number_or_price_that_is_no_order_stays(db: None) -> None:
    text = "SF1234567890 is on its way; the Find X9 is ¥3499."

    assert safety_check(text, language="en", customer=_nobody).decision == PASS


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        ("Where is my order #D1002?", "To look up order #D1002, please tell me the email on the order."),
        ("我的订单 D1002 到哪了", "查询订单 #D1002 前，请提供下单邮箱。"),
    ],
)
def test_an_order_id_the_customer_just_wrote_is_repeated_before_they_are_verified(
    db: None, asked: str, reply: str
) -> None:
    call_command("seed_demo", verbosity=0)

    repeated = safety_check(reply, language="en", customer=lambda: None, customer_text=asked)
    unasked = safety_check(reply, language="en", customer=lambda: None, customer_text="hello")

    assert repeated.decision == PASS and repeated.text == reply
    assert unasked.categories == ["other_order"] and "D1002" not in unasked.text
