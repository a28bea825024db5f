"""Reading an answer to "Shall I go ahead?" and giving up a request, learned from examples (zh, en)."""

from __future__ import annotations

import pytest

from agents.reading.confirmation import Answer, confirmation_read, gives_up, yes_no


@pytest.mark.parametrize(
    "text",
    ["go ahead, I can't wait", "I don't mind, go ahead", "sounds good, no rush", "好的，不用急", "可以，不着急"],
)
def test_a_yes_that_holds_a_no_is_a_yes(text: str) -> None:
    assert confirmation_read(text).answer == Answer.YES


@pytest.mark.parametrize("text", ["cancel please", "never mind, thanks", "不办了谢谢", "算了"])
def test_giving_up_is_read_in_both_languages(text: str) -> None:
    assert gives_up(text)


@pytest.mark.parametrize(
    "text", ["no, the other order: #D1003", "I don't remember the order number", "不是这个订单", "the red one"]
)
def test_an_answer_with_a_no_in_it_does_not_give_up(text: str) -> None:
    assert not gives_up(text)


def test_an_empty_or_long_message_is_no_answer() -> None:
    assert yes_no("") is None
    assert yes_no("yes " + "and also I wanted to tell you about my other order " * 4) is None


@pytest.mark.parametrize(
    "text",
    ["yes", "Yes please.", "Sounds good, please proceed.", "That's all correct, yes.", "Perfect, go for it.",
     "ok go ahead", "no problem, do it", "yea", "aye, go ahead", "是的", "确认", "没问题，办吧", "好的"],
)  # fmt: skip
def test_a_yes_in_many_words(text: str) -> None:
    assert yes_no(text) is True


@pytest.mark.parametrize(
    "text",
    ["no", "nope", "That isn't what I wanted.", "No, that's not it", "wait", "Negative.", "不", "不对", "先别办了"],
)
def test_a_no_in_many_words(text: str) -> None:
    assert yes_no(text) is False


@pytest.mark.parametrize(
    "text", ["行，不过先别弄", "可以，但今天先不办", "sure, but hold off for now", "ok wait don't do it yet"]
)
def test_an_ok_that_holds_off_is_a_no_not_a_yes(text: str) -> None:
    assert confirmation_read(text).answer == Answer.NO


@pytest.mark.parametrize("text", ["甭办了", "甭弄了，谢谢", "拉倒吧", "scrap the whole thing"])
def test_a_colloquial_or_dialect_give_up_is_never_read_as_a_yes(text: str) -> None:
    assert confirmation_read(text).answer == Answer.CANCEL


@pytest.mark.parametrize("text", ["好的办吧，退款几天到账？", "yes do it, when will the refund land?"])
def test_a_yes_with_a_question_about_the_same_change_is_a_yes(text: str) -> None:
    assert confirmation_read(text).answer == Answer.YES


@pytest.mark.parametrize(
    "text",
    ["I want the blue one instead", "嗯……让我想想别的", "what is the refund time?"],
)
def test_anything_else_is_neither(text: str) -> None:
    assert yes_no(text) is None


def test_a_yes_asking_for_another_change_is_not_taken_for_a_yes() -> None:
    assert yes_no("yes but change the colour") is not True


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # texting, emoji, idioms that carry a "no", the request repeated
        ("yh go for it", True),
        ("👌", True),
        ("why not", True),
        ("I don't see a problem, go ahead", True),
        ("ok的", True),
        ("没错，就这样", True),
        ("没有问题，办理吧", True),
        ("yesss thanks!!", True),
        ("okie dokie", True),
        ("I can't see anything wrong, go ahead", True),
        # declining without a "no"
        ("leave it as it is", False),
        ("scrap that", False),
        ("👎", False),
        ("n", False),
        ("no, cancel", False),
        ("我改主意了", False),
        ("保持原样吧", False),
        ("nooo", False),
        ("Abort.", False),
        ("I'd rather keep my card, thanks.", False),
        # a negation that is not an idiom wins over a yes-word
        ("no problem? the zip is wrong", False),
        # not an answer yet: a hesitation or a question back
        ("I'm not sure", None),
        ("wait, which card?", None),
        ("说不好", None),
        ("哪张卡？", None),
        ("could you also change the colour?", None),
        ("by the way, my other parcel is late", None),
        ("对了，另一个订单还没到", None),
    ],
)
def test_a_confirmation_answered_the_way_people_type(text: str, answer: bool | None) -> None:
    assert yes_no(text) is answer


def test_no_longer_needed_is_not_a_no_at_the_confirmation() -> None:
    assert yes_no("ok no longer needed then") is not False


@pytest.mark.parametrize("text", ["yes, cancel #W7654321", "Yes please, do the cancel.", "cancel it", "取消吧"])
def test_the_words_of_cancelling_confirm_a_cancellation(text: str) -> None:
    assert yes_no(text, request="cancel_order") is True


@pytest.mark.parametrize("text", ["cancel it", "取消吧"])
def test_the_same_words_give_up_any_other_request(text: str) -> None:
    assert gives_up(text, request="return") and gives_up(text)


@pytest.mark.parametrize("text", ["don't cancel it", "keep the order", "先别取消", "算了，不取消了"])
def test_keeping_the_order_gives_up_its_cancellation(text: str) -> None:
    assert gives_up(text, request="cancel_order")
