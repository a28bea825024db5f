"""Whether a clause asks the store to act, asks it to act on what was told before, or only tells or asks to know,
read by the learned decision (agents.reading.ask_or_tell), zh and en; and how the route and the requests of a
message use it."""

from __future__ import annotations

import pytest

from agents.reading.ask_or_tell import Said, said_of
from agents.reading.message import Reading
from agents.route import is_public_question


@pytest.mark.parametrize(
    ("clause", "said"),
    [
        ("would you mind swapping the desk lamp in #W3311220 for the brass one", Said.ASKS),
        ("am I still able to send the rain jacket back", Said.ASKS),
        ("劳烦把 #W3311220 的收货地址更新一下", Said.ASKS),
        ("Yoga Mat 我打算退掉", Said.ASKS),
        ("could somebody look into that for me", Said.REFERS_BACK),
        ("这个麻烦您给处理处理", Said.REFERS_BACK),
        ("the parcel turned up with the lid cracked", Said.TELLS),
        ("I'd love to find out when the rain jacket leaves your warehouse", Said.TELLS),
        ("下单的时候手一滑选成了XL", Said.TELLS),
        ("想了解一下退款一般几天到账", Said.TELLS),
    ],
)
def test_a_clause_is_read_as_asking_referring_back_or_telling(clause: str, said: Said) -> None:
    assert said_of(clause) == said


@pytest.mark.parametrize(
    ("clause", "said"),
    [
        # the item described at length does not hide what is asked
        ("Desk Lamp/颜色＝黑｜亮度＝高｜电源＝USB 这个要退货，谢谢", Said.ASKS),
        ("the Desk Lamp / color=black | brightness=high | power=USB has to go back please", Said.ASKS),
        # the head of a sentence whose verb comes after it names an item and asks nothing yet
        ("麻烦您把订单#W2468013中的Desk Lamp【规格", Said.TELLS),
        ("So, regarding the Desk Lamp from #W2468013 (black, high, USB)", Said.TELLS),
    ],
)
def test_what_a_clause_asks_is_read_past_the_items_description(clause: str, said: Said) -> None:
    assert said_of(clause) == said


@pytest.mark.parametrize(
    ("text", "public"),
    [
        ("can I send back a lamp I've already assembled?", True),
        ("我想把台灯退了，运费谁出？", False),
        ("I want to swap the lamp for the brass one. how long does an exchange take?", False),
        ("退货的运费谁出？", True),
    ],
)
def test_a_question_beside_a_clause_that_asks_the_store_is_no_public_question(text: str, public: bool) -> None:
    assert is_public_question(text, {}, Reading(text)) is public
