"""Whether a message puts right a value said before, and which (agents.reading.correction through
agents.workflows.slots.correction), zh and en: read against what the customer gave the request."""

from __future__ import annotations

import pytest

from agents.reading.correction import correction_read, framed
from agents.workflows.slots import correction


@pytest.mark.parametrize(
    ("before", "text", "fix"),
    [
        # the value meant and the one it replaces, named
        ("I'd like the tactile switches", "sorry typo, linear not tactile", ("linear", "tactile")),
        ("color red please", "I meant green, not red", ("green", "red")),
        ("要黑色的", "是白色的，不是黑色，不好意思", ("白色", "黑色")),
        (
            "cancel order #W6883544",
            "Correction: the order number should be #W6885344, not #W6883544.",
            ("W6885344", "W6883544"),
        ),
        (
            "pay with gift_card_4855547",
            "Actually it's credit_card_7772870 rather than gift_card_4855547",
            ("credit_card_7772870", "gift_card_4855547"),
        ),
        ("difficulty beginner", "I mixed up the difficulty level: not beginner but expert.", ("expert", "beginner")),
        (
            "ordered by mistake",
            "Oh wait, not ordered by mistake — no longer needed is what I meant.",
            ("no longer needed", "ordered by mistake"),
        ),
        ("邮编29133", "邮编是92133，不是29133", ("92133", "29133")),
        ("I want the 12GB+256GB one", "sorry typo, 16GB+512GB not 12GB+256GB", ("16GB+512GB", "12GB+256GB")),
        ("改成体育西路100号", "是体育西路200号，不是体育西路100号", ("体育西路200号", "体育西路100号")),
        ("要绿色", "颜色是蓝色，绿色是我打错了", ("蓝色", "绿色")),
        # only the value meant: it replaces the value of its kind said before when it is a slip of it
        ("the light one", "oops I mean dark", ("dark", "")),
        ("reason: ordered by mistake", "no longer needed* sorry", ("no longer needed", "")),
        ("要白色的", "我是说黑色的", ("黑色", "")),
        # a remark or a reason after the value meant
        ("鞋要42码", "哦不对，41码，我脚小", ("41码", "")),
        ("买4瓶", "改成6瓶哈 同事也要", ("6瓶", "")),
        ("取消原因：不想要了", "原因改一下，是买贵了", ("买贵了", "")),
        ("order #W1234567", "#W1234576*", ("W1234576", "W1234567")),
        ("订单 W1234567", "不对不对，是W1234576", ("W1234576", "W1234567")),
        ("zoom 5x please", "correction on the zoom - should be 3x", ("3x", "5x")),
        ("2 of them", "make it 3", ("3", "2")),
        # a number and its unit are one value
        ("换成24MP的相机", "不好意思，是1600万像素的，不是24MP", ("1600万像素", "24MP")),
        ("the 24MP camera please", "oops, 32 megapixels, not 24MP", ("32 megapixels", "24MP")),
    ],
)
def test_a_value_put_right_is_read_with_the_one_it_replaces(before: str, text: str, fix: tuple[str, str]) -> None:
    assert correction(text, before) == fix


@pytest.mark.parametrize(
    ("before", "text"),
    [
        ("#W1234567", "nah thats not it"),  # a no, not a value put right
        ("zip 29133", "Nope, not right."),
        ("#W1234567", "不对，不是这个"),
        ("the blue one", "that is not what I want"),
        ("cancel #W1234567", "I typed it by accident"),
        ("my order is #W1234567", "my zip is 90210"),  # another field
        ("订单号W1234567", "邮箱是ann@qq.com"),
        ("size M", "yes, M"),  # the same value again
        ("#D1001", "Please swap the Find X9 in order #D1001 for the Pearl White one."),  # a change of the order
        ("", "把订单 #D1001 的 Find X9 换成浮光白"),
        ("#D1001", "Please cancel order #D1001, I ordered it by mistake."),  # a reason, not a slip
        ("D1001 能不能改成 512G 的黑色", "用原来的卡"),  # an answer for a field not given before
    ],
)
def test_nothing_is_put_right_by_a_no_another_field_or_a_request(before: str, text: str) -> None:
    assert correction(text, before) is None


def test_the_values_are_read_as_what_they_are_to_what_was_said_before() -> None:
    # the same id, ids two digits swapped apart, a new value; ids one digit apart are a store's sequence
    assert framed("#W1234567 or #W1234576 or 90210", "order #W1234567") == "VSAID or VNEAR or VNEW"
    assert framed("#D1003", "#D1001") == "VNEW"
    assert framed("make it 3", "2 of them") == "make it VNEAR"


def test_a_correction_is_not_read_in_an_empty_or_long_message() -> None:
    assert correction_read("", "#W1234567") is None
    assert correction_read("sorry, I meant #W1234576. " * 10, "#W1234567") is None
