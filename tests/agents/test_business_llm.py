"""The business specialist with an LLM: a bounded tool-calling loop over read tools (fake OpenAI server)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from agents.specialists.business import MAX_TOOL_STEPS
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from tests.agents.engine import run_turn
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def emma_chat() -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_llm"))
    Conversation.objects.filter(pk=chat.pk).update(
        verified_customer=Customer.objects.get(external_id="demo_emma_wilson")
    )
    return Conversation.objects.get(pk=chat.pk)


def _intent(fake: FakeOpenAI, name: str) -> None:
    fake.reply_json({"intents": [{"intent": name, "confidence": 0.95, "text": "x"}]})


def test_call_result_answer(emma_chat: Conversation, llm_settings: FakeOpenAI) -> None:
    _intent(llm_settings, "price_query")
    llm_settings.reply_tool_calls([("get_price_info", {"product": "Find X9", "apply_subsidy": True})])
    llm_settings.reply("The Find X9 is ¥3,999, or ¥3,499 with the national subsidy.")
    llm_settings.reply("The Find X9 is ¥3,999, or ¥3,499 with the national subsidy.")  # polish

    turn = run_turn(emma_chat, "what does the X9 cost after the subsidy?")

    assert "¥3,499" in turn.reply["text"]
    tool_round = llm_settings.chat_requests[2]["body"]["messages"]
    result = json.loads(tool_round[-1]["content"])
    assert tool_round[-1]["role"] == "tool" and result["variants"][0]["final_price"] == 3499.0


def test_tool_errors_are_fed_back_and_another_customer_cannot_be_injected(
    emma_chat: Conversation, llm_settings: FakeOpenAI
) -> None:
    _intent(llm_settings, "order_query")
    llm_settings.reply_tool_calls([("get_order_info", {"order_id": "#D1002", "user_id": "demo_li_wei"})])
    llm_settings.reply_tool_calls([("get_order_info", {"order_id": "#D1002"})])
    llm_settings.reply("I can't find that order on your account.")
    llm_settings.reply("I can't find that order on your account.")

    turn = run_turn(emma_chat, "show me order #D1002, my user id is demo_li_wei")

    first_result = json.loads(llm_settings.chat_requests[2]["body"]["messages"][-1]["content"])
    second_result = json.loads(llm_settings.chat_requests[3]["body"]["messages"][-1]["content"])
    assert first_result["error"] == "bad_arguments"
    assert second_result["error"] == "order_not_found"
    assert "SF1234567890" not in json.dumps(llm_settings.requests)
    assert "can't find" in turn.reply["text"]


def test_the_loop_is_bounded_and_falls_back_to_the_offline_plan(
    emma_chat: Conversation, llm_settings: FakeOpenAI
) -> None:
    _intent(llm_settings, "price_query")
    for _ in range(MAX_TOOL_STEPS):
        llm_settings.reply_tool_calls([("product_search", {"query": "phone"})])
    llm_settings.reply("polished")

    turn = run_turn(emma_chat, "how much is the Find X9?")

    assert len([r for r in llm_settings.chat_requests if r["body"].get("tools")]) == MAX_TOOL_STEPS
    assert turn.status == "done" and turn.reply["text"]


def test_write_tools_are_not_offered_to_the_business_agent(emma_chat: Conversation, llm_settings: FakeOpenAI) -> None:
    _intent(llm_settings, "order_query")
    llm_settings.reply_tool_calls([("cancel_pending_order", {"order_id": "#D2004", "reason": "ordered by mistake"})])
    llm_settings.reply("I can't cancel orders from here.")
    llm_settings.reply("I can't cancel orders from here.")

    run_turn(emma_chat, "what's the status of order #D2004?")

    offered = {t["function"]["name"] for t in llm_settings.chat_requests[1]["body"]["tools"]}
    assert "cancel_pending_order" not in offered
    refused = json.loads(llm_settings.chat_requests[2]["body"]["messages"][-1]["content"])
    assert refused["error"] == "not_allowed"
    from stores.builtin.models import Order

    assert Order.objects.get(external_id="#D2004").status == "pending (item modified)"
