"""With an LLM: routing and slot reading by structured output (JSON schema), every value checked
against the store before use, the offline reading as the fallback (fake OpenAI server)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from conversations.models import Conversation, Customer, WorkflowState
from conversations.services import conversation_start
from tests.agents.engine import run_turn
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]

X9_BLACK_256, X9_BLACK_512, X9_WHITE_256 = "V-X9-BLK-256", "V-X9-BLK-512", "V-X9-WHT-256"


@pytest.fixture
def li() -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_llm_li"))
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    return Conversation.objects.get(pk=chat.pk)


def _modify(fake: FakeOpenAI, text: str) -> None:
    fake.reply_json({"intents": [{"intent": "modify_order", "confidence": 0.95, "text": text}]})


def _replacement(fake: FakeOpenAI, new_id: str, *, same: bool = False) -> None:
    fake.reply_json({"replacements": [{"item_id": X9_BLACK_256, "new_item_id": new_id, "same_options_asked": same}]})


def _new_items(chat: Conversation) -> list[str] | None:
    state = WorkflowState.objects.filter(conversation=chat, status="active").first()
    return state.slots.get("new_item_ids") if state else None


def test_routing_asks_for_a_json_schema_and_gives_the_orders_and_matching_passages(
    li: Conversation, llm_settings: FakeOpenAI
) -> None:
    text = "how long does shipping take for order #D1001?"
    llm_settings.reply_json({"intents": [{"intent": "logistics_query", "confidence": 0.9, "text": text}]})

    run_turn(li, text)

    body = llm_settings.chat_requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"]
    prompt = body["messages"][1]["content"]
    assert "Customer's order #D1001: pending" in prompt
    assert "Help-centre passage that matches:" in prompt and "24 hours" in prompt


def test_a_part_the_model_invented_is_replaced_by_the_customers_own_words(
    li: Conversation, llm_settings: FakeOpenAI
) -> None:
    llm_settings.reply_json({"intents": [{"intent": "faq", "confidence": 0.9, "text": "what payment plans exist"}]})

    turn = run_turn(li, "which ways can I pay?")

    assert turn.intents[0]["text"] == "which ways can I pay?"


def test_the_models_replacement_is_used_when_the_catalogue_sells_it(li: Conversation, llm_settings: FakeOpenAI) -> None:
    text = "for order #D1001 I'd rather have the Find X9 with more room for photos"
    _modify(llm_settings, text)
    _replacement(llm_settings, X9_BLACK_512)

    run_turn(li, text)

    assert _new_items(li) == [X9_BLACK_512]
    replacement_request = llm_settings.chat_requests[1]["body"]
    assert replacement_request["response_format"]["json_schema"]["name"] == "replacements"
    assert X9_WHITE_256 in replacement_request["messages"][1]["content"]


@pytest.mark.parametrize(
    ("answer", "same"),
    [("V-DOES-NOT-EXIST", False), ("V-X8-BLK-256", False), (X9_BLACK_256, True)],
    ids=["hallucinated", "another-product", "no-op-not-asked"],
)
def test_a_replacement_the_store_cannot_honour_falls_back_to_the_offline_reading(
    li: Conversation, llm_settings: FakeOpenAI, answer: str, same: bool
) -> None:
    text = "please change the Find X9 in order #D1001 to Pearl White"
    _modify(llm_settings, text)
    _replacement(llm_settings, answer, same=same)

    run_turn(li, text)

    assert _new_items(li) == [X9_WHITE_256]  # read offline from "Pearl White"


def test_invalid_json_from_the_model_falls_back_to_the_offline_reading(
    li: Conversation, llm_settings: FakeOpenAI
) -> None:
    text = "please change the Find X9 in order #D1001 to Pearl White"
    _modify(llm_settings, text)
    llm_settings.reply("sure! the white one")

    run_turn(li, text)

    assert _new_items(li) == [X9_WHITE_256]
