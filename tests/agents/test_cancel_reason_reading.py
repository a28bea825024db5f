"""Why a customer cancels, read by the learned decision (agents.reading.cancel_reason), zh and en: a reason
named, told as what happened, typed in a hurry or said with a negation; and no reason where none is given."""

from __future__ import annotations

import pytest

from agents.reading.cancel_reason import cancel_reason

MISTAKE, NOT_NEEDED = "ordered by mistake", "no longer needed"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I won't be needing it anymore", NOT_NEEDED),
        ("changed my mind", NOT_NEEDED),
        ("用不到了", NOT_NEEDED),
        ("没必要了", NOT_NEEDED),
        ("I found it cheaper somewhere else", NOT_NEEDED),
        ("别家更便宜", NOT_NEEDED),
        ("I placed it in error", MISTAKE),
        ("accidentally ordered it twice", MISTAKE),
        ("不小心下单了", MISTAKE),
        ("手滑点错了", MISTAKE),
    ],
)
def test_a_reason_named_in_the_customers_words(text: str, reason: str) -> None:
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("we were given one as a present in the meantime", NOT_NEEDED),
        ("my old one turned out to work fine after all", NOT_NEEDED),
        ("the trip I bought it for has been called off", NOT_NEEDED),
        ("my neighbour lent me his, so I'm sorted", NOT_NEEDED),
        ("朋友借了我一台，就不用买了", NOT_NEEDED),
        ("取消 #W1234567 儿子对这个已经没兴趣了", NOT_NEEDED),
        ("cancel #W1234567, my son isn't into it anymore", NOT_NEEDED),
        ("my son placed it while playing on my phone", MISTAKE),
        ("my cat walked across the keyboard and it got submitted", MISTAKE),
        ("I hit checkout when I only wanted to see the shipping cost", MISTAKE),
        ("本来只是想看看运费，结果直接付款了", MISTAKE),
        ("猫踩到键盘下的单", MISTAKE),
    ],
)
def test_a_reason_told_as_what_happened(text: str, reason: str) -> None:
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("在另一个平台下单了，那边正好打折", NOT_NEEDED),
        ("表姐家多出来一个，直接给我了", NOT_NEEDED),
        ("楼下商场就有卖，昨天已经买回来了", NOT_NEEDED),
        ("I put in an order with another shop that had a sale on", NOT_NEEDED),
        ("my sister had a spare one and handed it over", NOT_NEEDED),
        ("下单时颜色选错了", MISTAKE),
        ("I ordered the wrong size when I checked out", MISTAKE),
    ],
)
def test_having_got_it_another_way_is_no_mistake_even_when_ordered_elsewhere(text: str, reason: str) -> None:
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("it was an acident", MISTAKE),
        ("I placed it by mistkae", MISTAKE),
        ("we moved so it's unnecesary now", NOT_NEEDED),
        ("it's not a mistake, I just don't need it", NOT_NEEDED),
        ("no, it was a mistake", MISTAKE),
        ("不是不想要了，是拍错了颜色", MISTAKE),
    ],
)
def test_a_reason_typed_in_a_hurry_or_said_with_a_negation(text: str, reason: str) -> None:
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("不想要了，误操作点的", "ordered by mistake"),
        ("一开始想写不需要，其实是下错了", "ordered by mistake"),
        ("don't want it anymore, it was a misclick on my phone", "ordered by mistake"),
        ("I was going to put no longer needed, but really I ordered it by mistake", "ordered by mistake"),
        ("本来想填不需要了，准确地讲是下单下错了，还是帮我取消吧", "ordered by mistake"),
        ("是用不着了，不是下错单哈", "no longer needed"),
        ("I ordered it by mistake, not because I don't need it", "ordered by mistake"),
        ("I typed 'by mistake' earlier; the real reason is we don't need it anymore", "no longer needed"),
    ],
)
def test_the_reason_beside_the_request_or_after_a_correction_counts(text: str, reason: str) -> None:
    """ "Don't want it" asks to cancel; the slip after it is why. A reason put right is the one meant."""
    assert cancel_reason(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "how long will my refund take?",
        "cancel it please",
        "就是想取消",
        "退款多久到账？",
        "  ",
        # a slip typing in the chat, put right, is no reason to cancel
        "刚才手滑打错了，是红色的",
        "sorry, I mistyped, the colour I want is black",
        "说错了，邮箱应该是lin.hao@example.com",
        "oops, wrong zip — it's 60614",
    ],
)
def test_a_question_or_an_answer_that_gives_no_reason_gives_none(text: str) -> None:
    """The bot then asks again rather than write a reason the customer did not give."""
    assert cancel_reason(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("刚才原因说反了，拍错了不对，是家里用不上了才对", NOT_NEEDED),
        ("更正一下：不是不需要，是我点错了商品", MISTAKE),
        ("scratch that reason — not a misclick, I simply don't need it now", NOT_NEEDED),
        ("correction: it's not that I changed my mind, I bought the wrong size", MISTAKE),
    ],
)
def test_a_reason_put_right_in_a_message_of_its_own_is_the_one_meant(text: str, reason: str) -> None:
    """Sent while the bot asks for something else (who the customer is), the reason put right replaces the one given
    (agents.workflows.definitions.CancelOrder.read_again reads it at RESTATED_AT)."""
    from agents.reading.cancel_reason import RESTATED_AT

    assert cancel_reason(text, at=RESTATED_AT) == reason
