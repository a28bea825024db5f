"""Whether a reply answers the slot the bot waits on, asks back or leaves it for a new request, read by the learned
decision (agents.reading.answer_or_request) with the slot's question, zh and en; and how the switch between a
paused request and a new one uses it (agents.workflows.switch)."""

from __future__ import annotations

import pytest

from agents.reading.answer_or_request import Reply, reply_read
from agents.reading.message import Reading
from agents.workflows.switch import is_slot_answer


@pytest.mark.parametrize(
    ("slot", "text", "reply"),
    [
        ("order_id", "it's the one from last Tuesday, with the lamp in it", Reply.ANSWER),
        ("order_id", "上周二那单，里面有台灯的那个", Reply.ANSWER),
        ("confirm", "go ahead, I can't wait", Reply.ANSWER),
        ("confirm", "好的，不用急", Reply.ANSWER),
        ("order_id", "why do you need the order number, can't you look me up?", Reply.QUESTION),
        ("reason", "退款一般几天到账？", Reply.QUESTION),
        ("address", "actually forget the address, just cancel the whole order", Reply.NEW_REQUEST),
        ("item_ids", "算了不退了，帮我把收货地址改一下", Reply.NEW_REQUEST),
        # a list of the order's items, one a line, described by their options
        ("item_ids", "Desk Lamp\nYoga Mat｜规格：厚度定的是6mm、颜色定的是紫色\nBackpack\n其余的不用管", Reply.ANSWER),
        ("item_ids", "Desk Lamp\nYoga Mat (6mm, purple)\nBackpack\nleave the rest as it is", Reply.ANSWER),
    ],
)
def test_a_reply_is_read_with_the_slot_it_answers(slot: str, text: str, reply: Reply) -> None:
    assert reply_read(slot, text) == reply


def test_a_slot_the_examples_never_ask_for_is_not_read() -> None:
    assert reply_read("description", "the screen flickers when it's cold") is None


@pytest.mark.parametrize(
    ("text", "answers"),
    [
        ("by the way, how much is the Find X9?", False),
        ("顺便问一下，Find X9现在多少钱？", False),
        ("the one I placed last week", True),
        ("就上周下的那一单", True),
    ],
)
def test_a_question_back_is_no_answer_though_no_other_request_was_read_surely(text: str, answers: bool) -> None:
    reading = Reading(text).whole

    assert is_slot_answer("order_id", text, reading, {}, other_intent_confidence=0.4) is answers


def test_an_order_id_answers_which_order_whatever_else_is_said() -> None:
    text = "#W1234567, and can you tell me when it ships?"

    assert is_slot_answer(
        "order_id", text, Reading(text).whole, {"order_ids": ["#W1234567"]}, other_intent_confidence=0.9
    )
