"""Reading yes and no in customers' own words, zh and en (pure)."""

from __future__ import annotations

import pytest

from agents.workflows.slots import yes_no


@pytest.mark.parametrize(
    "text",
    ["yes", "Yes please.", "Sounds good, please proceed.", "That's all correct, yes.", "Perfect, go for it.",
     "ok go ahead", "no problem, do it", "是的", "确认", "没问题，办吧", "好的"],
)  # fmt: skip
def test_a_yes_in_many_words(text: str) -> None:
    assert yes_no(text) is True


@pytest.mark.parametrize(
    "text", ["no", "nope", "That isn't what I wanted.", "No, that's not it", "wait", "不", "不对", "先别办了"]
)
def test_a_no_in_many_words(text: str) -> None:
    assert yes_no(text) is False


@pytest.mark.parametrize(
    "text",
    ["yes but change the colour", "I want the blue one instead", "嗯……让我想想别的", "what is the refund time?"],
)
def test_anything_else_is_neither(text: str) -> None:
    assert yes_no(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I won't be needing it anymore", "no longer needed"),
        ("changed my mind", "no longer needed"),
        ("用不到了", "no longer needed"),
        ("I placed it in error", "ordered by mistake"),
        ("accidentally ordered it twice", "ordered by mistake"),
        ("不小心下单了", "ordered by mistake"),
    ],
)
def test_a_cancel_reason_in_the_customers_words(text: str, reason: str) -> None:
    from agents.workflows.slots import CANCEL_REASON_WORDS, read_choice

    assert read_choice(text, CANCEL_REASON_WORDS) == reason
