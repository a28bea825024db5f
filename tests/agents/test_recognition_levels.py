"""Three levels of intent recognition, the LLM client and its breaker, through a fake OpenAI server."""

from __future__ import annotations

from typing import Any

import pytest

from agents.intents.offline.classify import IntentScore
from agents.intents.recognize import intent_cache_get, intent_cache_put, recognize
from agents.llm.breaker import MIN_CALLS, breaker_is_open
from agents.llm.client import LLMUnavailable, llm_chat
from agents.llm.router import complexity_score, tier_for
from agents.taxonomy import Intent
from tests.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars")]


# --- level 1: rules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["转人工", "人工客服", "我要联系人工", "找人工", "talk to a human", "I want a real person", "speak to an agent"],
)
def test_human_requests_take_the_rule_fast_path_without_a_model_call(text: str, llm_settings: FakeOpenAI) -> None:
    recognition = recognize(text)

    assert (recognition.top.intent, recognition.level) == (Intent.HUMAN_REQUEST, "rule")
    assert llm_settings.requests == []


@pytest.mark.parametrize("text", ["hi", "Hello!", "thanks a lot", "bye", "你好", "谢谢", "再见", "在吗"])
def test_greetings_thanks_and_bye_take_the_rule_fast_path(text: str, llm_settings: FakeOpenAI) -> None:
    recognition = recognize(text)

    assert (recognition.top.intent, recognition.level) == (Intent.CHITCHAT, "rule")
    assert llm_settings.requests == []


# --- level 2: cache ------------------------------------------------------------------------------


def test_intent_cache_stores_only_confident_results_keyed_on_normalised_text() -> None:
    assert intent_cache_put("Where is my ORDER?", [IntentScore(Intent.LOGISTICS_QUERY, 0.9, "x")]) is True
    assert intent_cache_put("maybe something", [IntentScore(Intent.FAQ, 0.6, "x")]) is False

    hit = intent_cache_get("  where is my order?  ")
    assert hit is not None and hit[0].intent == Intent.LOGISTICS_QUERY
    assert intent_cache_get("maybe something") is None


def test_a_cache_hit_makes_no_model_call(llm_settings: FakeOpenAI) -> None:
    llm_settings.reply_json({"intents": [{"intent": "logistics_query", "confidence": 0.92, "text": "where"}]})

    first = recognize("where is my parcel right now")
    second = recognize("Where is my parcel right now")

    assert (first.level, second.level) == ("llm", "cache")
    assert second.cache_hit is True and second.top.intent == Intent.LOGISTICS_QUERY
    assert len(llm_settings.chat_requests) == 1


def test_the_cache_ttl_is_thirty_minutes(settings: Any) -> None:
    assert settings.INTENT_CACHE_TTL_S == 30 * 60


# --- level 3: LLM and fallbacks -------------------------------------------------------------------


def test_llm_classification_returns_several_intents(llm_settings: FakeOpenAI) -> None:
    llm_settings.reply_json(
        {
            "intents": [
                {"intent": "product_compare", "confidence": 0.9, "text": "对比 X8 和 X9"},
                {"intent": "price_query", "confidence": 0.88, "text": "X9 国补后多少钱"},
            ]
        }
    )

    recognition = recognize("对比 Find X8 和 X9 的区别，并告诉我 X9 国补后多少钱")

    assert recognition.level == "llm"
    assert [s.intent for s in recognition.intents] == [Intent.PRODUCT_COMPARE, Intent.PRICE_QUERY]
    assert recognition.llm_usage and recognition.llm_usage[0].prompt_tokens == 10


@pytest.mark.parametrize(
    "script",
    [
        lambda fake: fake.reply("this is not json at all"),
        lambda fake: fake.reply_json({"intents": [{"intent": "teleport", "confidence": 0.9}]}),
        lambda fake: fake.reply_json({"intents": []}),
        lambda fake: fake.reply_json({"intents": [{"intent": "faq", "confidence": 7}]}),
        lambda fake: fake.error(500),
        lambda fake: fake.hang(5),
    ],
    ids=["not-json", "unknown-intent", "no-intents", "bad-confidence", "http-500", "timeout"],
)
def test_a_bad_llm_answer_falls_back_to_the_offline_classifier(llm_settings: FakeOpenAI, script: Any) -> None:
    script(llm_settings)

    recognition = recognize("I would like to cancel my order please")

    assert recognition.level == "classifier"
    assert recognition.top.intent == Intent.CANCEL_ORDER


def test_without_an_llm_the_offline_classifier_decides(settings: Any) -> None:
    settings.OPENAI_API_KEY = ""

    recognition = recognize("我想取消订单")

    assert recognition.level == "classifier" and recognition.top.intent == Intent.CANCEL_ORDER


def test_router_sends_simple_messages_to_the_small_model_and_complex_ones_to_the_main(llm_settings: FakeOpenAI) -> None:
    llm_settings.reply_json({"intents": [{"intent": "order_query", "confidence": 0.9, "text": "x"}]})
    llm_settings.reply_json({"intents": [{"intent": "product_compare", "confidence": 0.9, "text": "x"}]})

    recognize("order status?")
    recognize("Can you compare the Find X8 and Find X9 cameras and explain why the X9 costs more?")

    assert llm_settings.models_called == ["small-model", "main-model"]
    assert tier_for("order status?") == "small"
    assert complexity_score("hi") < complexity_score("对比 X8 和 X9 的区别，并告诉我 X9 国补后多少钱")


# --- client: retries, breaker, streaming, usage -----------------------------------------------------


def test_breaker_opens_after_half_the_calls_fail_and_the_engine_goes_offline(llm_settings: FakeOpenAI) -> None:
    for _ in range(MIN_CALLS):
        llm_settings.error(500)
    for _ in range(MIN_CALLS):
        with pytest.raises(LLMUnavailable):
            llm_chat([{"role": "user", "content": "x"}])

    assert breaker_is_open()
    calls_before = len(llm_settings.chat_requests)
    recognition = recognize("I would like to cancel my order please")
    assert recognition.level == "classifier"
    assert len(llm_settings.chat_requests) == calls_before  # no call while open


def test_retries_with_backoff_recover_from_a_transient_error(llm_settings: FakeOpenAI, settings: Any) -> None:
    settings.LLM_MAX_RETRIES = 2
    llm_settings.error(500)
    llm_settings.reply("recovered")

    result = llm_chat([{"role": "user", "content": "x"}])

    assert result.text == "recovered"
    assert len(llm_settings.chat_requests) == 2


def test_streaming_hands_each_delta_over_and_records_usage(llm_settings: FakeOpenAI, settings: Any) -> None:
    settings.LLM_PRICE_INPUT_PER_1K = 1.0
    settings.LLM_PRICE_OUTPUT_PER_1K = 2.0
    llm_settings.stream(["Your order ", "is on ", "its way."], prompt_tokens=100, completion_tokens=50)
    deltas: list[str] = []

    result = llm_chat([{"role": "user", "content": "x"}], on_delta=deltas.append)

    assert deltas == ["Your order ", "is on ", "its way."]
    assert result.text == "Your order is on its way."
    assert (result.prompt_tokens, result.completion_tokens) == (100, 50)
    assert str(result.cost) == "0.2"
