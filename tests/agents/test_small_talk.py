"""Small talk is read from a word list (agents/intents/data/small_talk.json): a clause made only of its phrases is
small talk, a message made only of greetings and their softeners is answered without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.intents.small_talk import is_greeting, is_small_talk

WORD_LIST = Path(__file__).resolve().parents[2] / "agents" / "intents" / "data" / "small_talk.json"


@pytest.mark.parametrize(
    "text",
    [
        "Hellooo!!",
        "ok thanks :)",
        "great, thank you",
        "are you an AI?",
        "That's all, have a nice day",
        "嗯嗯，好的",
        "好的好的，谢谢亲",
        "哈哈哈",
        "你是机器人吗？",
        "手机类-售前咨询",
        "#E-s12",
        "👍",
    ],
)
def test_a_clause_of_only_small_talk_is_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "ok, cancel it",
        "thanks, where is my order?",
        "hi, I want to return the kettle",
        "找客服",
        "好的，帮我退货",
        "看明白了么",
        "谢谢，拍完了",
        "",
    ],
)
def test_a_clause_that_says_anything_more_is_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize(
    "text", ["hi", "Hello!", "thanks again!", "hello? are you there", "bye-bye", "谢谢亲~", "好的，谢谢", "客服在吗"]
)
def test_a_whole_message_of_greetings_and_softeners_is_a_greeting(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize(
    "text", ["ok", "好的", "yes", "no thanks", "there", "亲", "thanks, cancel #W1", "在吗？我要退货"]
)
def test_an_acknowledgement_a_softener_alone_or_a_request_is_no_greeting(text: str) -> None:
    assert not is_greeting(text)


def test_every_phrase_of_the_word_list_is_read_as_what_its_list_says() -> None:
    data = json.loads(WORD_LIST.read_text(encoding="utf-8"))

    for language in ("en", "zh"):
        assert all(is_small_talk(phrase) for phrase in data["small_talk"][language]), language
        assert all(is_greeting(phrase) for phrase in data["greetings"][language]), language
