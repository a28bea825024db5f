"""Slot values read by meaning when the word rules know none of the words (agents.workflows.meaning)."""

from __future__ import annotations

import pytest

from agents.workflows.meaning import cancel_reason_meant
from agents.workflows.slots import cancel_reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("my neighbour lent me his, so I'm sorted", "no longer needed"),
        ("the shop down the road had it on sale and I grabbed it there", "no longer needed"),
        ("we're moving abroad next month and can't take it with us", "no longer needed"),
        ("I hit checkout when I only wanted to see the shipping cost", "ordered by mistake"),
        ("朋友借了我一台，就不用买了", "no longer needed"),
        ("本来只是想看看运费，结果直接付款了", "ordered by mistake"),
    ],
)
def test_a_reason_told_as_a_story_the_word_rules_miss_is_read_by_meaning(text: str, reason: str) -> None:
    assert cancel_reason(text, typos=True) is None  # else the example proves nothing

    assert cancel_reason_meant(text) == reason


@pytest.mark.parametrize(
    "text", ["how long will my refund take?", "cancel it please", "就是想取消", "退款多久到账？", "  "]
)
def test_a_question_or_an_answer_that_gives_no_reason_reads_as_none(text: str) -> None:
    assert cancel_reason_meant(text) is None
