"""What a change to an order changes, read by the learned decision (agents.reading.change), zh and en: a kind
named or only described, one named to keep it while another changes, a card that is a product, the price
difference of an item change, and no kind where none is said."""

from __future__ import annotations

import pytest

from agents.reading.change import change_read


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("shipping address, not the items", "address"),
        ("the items, not the address", "items"),
        ("改地址，不是换商品", "address"),
        ("payment", "payment"),
        ("the way it's paid for", "payment"),
        ("how I'm paying", "payment"),
        ("where it gets delivered", "address"),
        ("换个型号", "items"),
        ("寄到别的地方", "address"),
        ("can you send W1234567 to my office instead?", "address"),
        ("包裹能改寄到我妈家吗", "address"),
        ("please update the default address on my account", "default_address"),
        ("把账号的默认收货地址改一下", "default_address"),
        # a way to pay, or the address of later orders, named without its kind
        ("这单改成分12期付", "payment"),
        ("换成货到付款吧", "payment"),
        ("pay it in 3 instalments instead", "payment"),
        ("以后的订单都寄到我公司", "default_address"),
        ("from now on ship my orders to my new flat", "default_address"),
    ],
)
def test_a_kind_of_change_named_or_described(text: str, change: str) -> None:
    assert change_read(text) == change


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("the address is fine, I just want the jacket in navy", "items"),
        ("swap the lamp for the brass one and charge the difference to my gift card", "items"),
        ("把杯子换成大号的，差价从我卡里扣", "items"),
        ("change the 64GB SD card in my order to the 128GB one", "items"),
        ("the items are right, please bill my Mastercard instead of the Visa", "payment"),
    ],
)
def test_a_kind_said_only_to_keep_it_or_to_pay_a_difference_is_not_what_changes(text: str, change: str) -> None:
    assert change_read(text) == change


@pytest.mark.parametrize("text", ["I need to modify my order", "我想改一下订单", "  "])
def test_a_change_that_does_not_say_what_changes_reads_as_none(text: str) -> None:
    """The bot then asks what to change."""
    assert change_read(text) is None


@pytest.mark.parametrize(
    "text",
    ["Mia Park, my home address zip is 94110", "我叫陈静，家里地址邮编是30301", "周洁，住址那边的邮编是60601"],
)
def test_who_the_customer_is_told_with_the_word_address_changes_nothing(text: str) -> None:
    """An answer to "who are you?" names the address its zip belongs to; it asks for no new address."""
    assert change_read(text) is None
