"""Reading slot values in customers' own words, zh and en (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.reading.correction import typing_slip
from agents.workflows.slots import zip_put_right

METHODS = [
    {"id": "credit_card_1199336", "kind": "credit_card", "brand": "mastercard", "last_four": "7287"},
    {"id": "credit_card_1283450", "kind": "credit_card", "brand": "visa", "last_four": "5768"},
    {"id": "gift_card_7000001", "kind": "gift_card", "brand": "", "last_four": ""},
]


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("my Visa ending in 5768", "credit_card_1283450"),
        ("the card ending 7287", "credit_card_1199336"),
        ("尾号7287的卡", "credit_card_1199336"),
        ("credit card 1283450", "credit_card_1283450"),
        ("put it on the mastercard", "credit_card_1199336"),
        ("my gift card", "gift_card_7000001"),
        ("my other credit card", "credit_card_1199336"),  # the order was paid with the Visa
        ("the card I paid with", "credit_card_1283450"),
        ("the original payment method", "credit_card_1283450"),
        ("原路退回", "credit_card_1283450"),
    ],
)
def test_a_payment_method_is_named_the_way_customers_name_it(text: str, method: str) -> None:
    from agents.workflows.slots import read_payment_method

    assert read_payment_method(text, METHODS, "credit_card_1283450") == method


@pytest.mark.parametrize("text", ["a credit card", "I'd like to pay", "the card"])
def test_an_ambiguous_payment_method_is_not_guessed(text: str) -> None:
    from agents.workflows.slots import read_payment_method

    assert read_payment_method(text, METHODS, None) is None


def test_a_strict_reading_needs_the_method_named_unmistakably() -> None:
    from agents.workflows.slots import read_payment_method

    assert read_payment_method("my gift card", METHODS, None, strict=True) is None
    assert read_payment_method("with my visa", METHODS, None, strict=True) == "credit_card_1283450"


ORDER_ITEMS = [
    {"item_id": "1", "product_id": "p1", "name": "Yoga Mat", "options": {"color": "green"}},
    {"item_id": "2", "product_id": "p2", "name": "Smart Thermostat", "options": {"color": "black"}},
    {"item_id": "3", "product_id": "p3", "name": "Smart Watch", "options": {"color": "gold"}},
]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("can I get the thermostat in white instead?", ["2"]),
        ("return the mats", ["1"]),
        ("the watch and the mat", ["3", "1"]),
        ("the smart one", None),  # a word both products share names neither
        ("the Yoga Mat arrived and after trying everything out I'd like to return it", ["1"]),
        ("everything else is fine, just the watch", ["3"]),
        ("same everything, just a new one in place of the Smart Watch", ["3"]),
        ("return everything please", ["1", "2", "3"]),
        ("I received my order and everything arrived safely, but I'd like to exchange the Smart Watch", ["3"]),
        ("everything came in one box; the thermostat should become the white one", ["2"]),
        ("订单全部收到了，完好无损，就是 Yoga Mat 想换个颜色", ["1"]),
        ("全部退掉", ["1", "2", "3"]),
        ("退Yoga Mat和Smart Watch", ["1", "3"]),  # names written against Chinese
        ("金色的Smart Watch不要了", ["3"]),
        # one item by its last word beside another named in full: both are named, neither is added
        ("I'd like to change the thermostat and the Yoga Mat", ["2", "1"]),
        ("- Smart Watch: silver\n- thermostat: white", ["3", "2"]),
        ("thermostat 和 Smart Watch 都要换成白色", ["2", "3"]),
    ],
)
def test_an_item_is_named_by_the_word_that_sets_it_apart(text: str, items: list[str] | None) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, ORDER_ITEMS) == items


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("exchange the Grill (medium, electric) for type set to charcoal and size set to medium", ["g1"]),
        ("the Grill and the set", ["g1", "d1"]),
    ],
)
def test_a_last_word_beside_a_name_said_in_full_names_an_item_only_as_a_noun_of_its_own(
    text: str, named: list[str]
) -> None:
    from agents.workflows.slots import read_items

    items = [
        {"item_id": "g1", "product_id": "p1", "name": "Grill", "options": {"type": "electric", "size": "medium"}},
        {"item_id": "d1", "product_id": "p2", "name": "Dumbbell Set", "options": {"weight range": "55-75 lbs"}},
    ]

    assert read_items(text, items) == named  # "set to charcoal" is no Dumbbell Set


def test_a_word_of_a_name_that_is_also_an_option_value_names_nothing() -> None:
    from agents.workflows.slots import read_items

    items = [
        {"item_id": "1", "product_id": "p1", "name": "Gaming Mouse", "options": {"connectivity": "wireless"}},
        {"item_id": "2", "product_id": "p2", "name": "Wireless Earbuds", "options": {"color": "white"}},
        {"item_id": "3", "product_id": "p3", "name": "Electric Kettle", "options": {"capacity": "2L"}},
        {"item_id": "4", "product_id": "p4", "name": "Grill", "options": {"type": "electric"}},
    ]

    assert read_items("the Gaming Mouse in wireless connectivity, white", items) == ["1"]
    assert read_items("the Grill in electric type", items) == ["4"]
    assert read_items("the mouse and the earbuds", items) == ["1", "2"]


@pytest.mark.parametrize(
    "text",
    [
        "trade the Fleece Jacket (full for the zipper & black for the color & L for the size) into the same one",
        "the Fleece Jacket (full for the zipper, black for the color) -> a navy one",
        "exchange my Fleece Jacket in full, L for size of XL instead",  # "for <option> of" starts the target
        # an arrow after an option's name only names it: "came with color => black"
        "the Fleece Jacket that came with color => black / size => L, replaced with a navy one",
        "我的 Fleece Jacket（color → black，size → L）换成 navy 的",
    ],
)
def test_an_option_named_after_its_value_describes_the_item_it_does_not_start_the_target(text: str) -> None:
    from agents.workflows.slots import read_items

    jackets = [
        {"item_id": "xl", "name": "Fleece Jacket", "options": {"size": "XL", "color": "navy", "zipper": "full"}},
        {"item_id": "l", "name": "Fleece Jacket", "options": {"size": "L", "color": "black", "zipper": "full"}},
    ]

    assert read_items(text, jackets) == ["l"]


@pytest.mark.parametrize(
    "text",
    [
        "the Skateboard, currently plain, plastic, 34 inch - I'd rather have the same but 28 inch and bamboo",
        "the Skateboard [34 inch, plastic, plain] which should become a bamboo 28 inch one",
        "my Skateboard with plain design, plastic deck and 34 inch swapped for bamboo, 28 inch",
        "Skateboard, the one in plastic, plain, 34 inch, make that bamboo / 28 inch, rest the same",
    ],
)
def test_the_item_is_the_one_described_before_what_it_should_become(text: str) -> None:
    from agents.workflows.slots import read_items

    boards = [
        {
            "item_id": "short",
            "name": "Skateboard",
            "options": {"design": "plain", "deck": "bamboo", "length": "28 inch"},
        },
        {
            "item_id": "long",
            "name": "Skateboard",
            "options": {"design": "plain", "deck": "plastic", "length": "34 inch"},
        },
    ]

    assert read_items(text, boards) == ["long"]


def test_a_product_name_that_is_also_an_option_value_names_the_product_where_it_is_said_last() -> None:
    from agents.workflows.slots import item_segments, read_items

    items = [
        {"item_id": "5726859009", "name": "Backpack", "options": {"compartment": "hydration", "color": "grey"}},
        {"item_id": "3265035808", "name": "Laptop", "options": {"processor": "i9", "ram": "8GB"}},
    ]
    text = "switch the Backpack into a laptop green version, and the Laptop into the i5 one with 32GB"
    values = {"laptop", "hydration", "green", "grey", "i5", "i9", "8GB", "32GB"}  # of every variant

    segments = item_segments(text, items, values)

    assert "laptop green" in segments["5726859009"] and "i5" not in segments["5726859009"]
    assert "i5" in segments["3265035808"] and "green" not in segments["3265035808"]
    assert read_items(text, items, values) == ["5726859009", "3265035808"]


def test_the_same_product_twice_each_gets_the_part_of_the_text_that_describes_it() -> None:
    from agents.workflows.slots import item_segments

    watches = [
        {"item_id": "w1", "name": "Smart Watch", "options": {"color": "black", "display": "LCD"}},
        {"item_id": "w2", "name": "Smart Watch", "options": {"color": "silver", "display": "AMOLED"}},
        {"item_id": "m1", "name": "Yoga Mat", "options": {"color": "green"}},
    ]
    text = "the Smart Watch, the silver AMOLED one, into a gold one; the Smart Watch (black, LCD) -> the same again"

    segments = item_segments(text, watches)

    assert "gold" in segments["w2"] and "gold" not in segments["w1"]
    assert "same again" in segments["w1"] and "same again" not in segments["w2"]
    assert segments["m1"] == text.lower()  # never named: the whole text


@pytest.mark.parametrize(
    "text",
    [
        "把Bookshelf换成白色、5英尺的吧，还有黑色 S码那款的Cycling Helmet，换成蓝的",
        "the Bookshelf into the white 5 ft one, and the black size S Cycling Helmet into a blue one",
    ],
)
def test_the_words_that_describe_the_next_item_before_its_name_are_not_what_the_one_before_becomes(text: str) -> None:
    from agents.workflows.slots import item_segments

    items = [
        {"item_id": "b1", "name": "Bookshelf", "options": {"color": "brown", "height": "6 ft"}},
        {"item_id": "h1", "name": "Cycling Helmet", "options": {"color": "black", "size": "S"}},
    ]

    segments = item_segments(text, items, {"white", "black", "blue", "brown", "5 ft", "6 ft", "S", "M"})

    assert "白色" in segments["b1"] or "white" in segments["b1"]
    assert "黑" not in segments["b1"] and "black" not in segments["b1"]
    assert "蓝" in segments["h1"] or "blue" in segments["h1"]


@pytest.mark.parametrize(
    "text",
    [
        "把灰色的换成Office Chair，哦说反了，是把Office Chair换成灰色的",
        "swap the grey one for the Office Chair - no, the other way: the Office Chair for the grey one",
    ],
)
def test_the_only_item_of_its_product_named_twice_gets_the_words_after_each_mention(text: str) -> None:
    from agents.workflows.slots import item_segments

    items = [
        {"item_id": "c1", "name": "Office Chair", "options": {"color": "black"}},
        {"item_id": "b1", "name": "Water Bottle", "options": {"color": "black"}},
    ]

    segments = item_segments(text, items, {"black", "gray"})

    assert "灰色" in segments["c1"] or "grey one" in segments["c1"].split("other way")[-1]


def test_options_said_with_set_to_pick_the_item_they_describe_not_the_target() -> None:
    from agents.workflows.slots import read_items

    items = [
        {"item_id": "7000000001", "name": "Wireless Earbuds", "options": {"color": "black", "battery life": "6 hours"}},
        {"item_id": "7000000002", "name": "Wireless Earbuds", "options": {"color": "blue", "battery life": "4 hours"}},
    ]
    text = "exchange the Wireless Earbuds that has battery life set to 4 hours, color set to blue so it's the black one"

    assert read_items(text, items) == ["7000000002"]


@pytest.mark.parametrize(
    "text",
    [
        "the Wireless Earbuds, the blue 4 hours pair ⇒ the black one",
        "Wireless Earbuds in blue with 4 hours replaced by black and 6 hours",
        "Wireless Earbuds blue, 4 hours swapped out for black",
    ],
)
def test_the_item_as_it_is_ends_where_its_target_starts(text: str) -> None:
    from agents.workflows.slots import read_items

    items = [
        {"item_id": "7000000001", "name": "Wireless Earbuds", "options": {"color": "black", "battery life": "6 hours"}},
        {"item_id": "7000000002", "name": "Wireless Earbuds", "options": {"color": "blue", "battery life": "4 hours"}},
    ]

    assert read_items(text, items) == ["7000000002"]


BOARDS = [
    {"item_id": "7000000031", "name": "Skateboard", "options": {"length": "34 inch", "deck material": "plastic"}},
    {"item_id": "7000000032", "name": "Skateboard", "options": {"length": "28 inch", "deck material": "plastic"}},
]


@pytest.mark.parametrize(
    "text",
    [
        "订单想换货：把34英寸 塑料的Skateboard换成竹子, 28英寸的那一款",
        "Exchange: the 34 inch plastic Skateboard for a bamboo 28 inch one",
    ],
)
def test_an_item_described_before_its_name_is_the_one_described(text: str) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, BOARDS) == ["7000000031"]


def test_a_product_name_said_as_an_option_value_is_not_that_product() -> None:
    from agents.workflows.slots import item_segments

    items = [
        {"item_id": "7000000011", "name": "Backpack", "options": {"compartment": "hydration", "color": "grey"}},
        {"item_id": "7000000012", "name": "Laptop", "options": {"ram": "8GB"}},
    ]
    text = "the Backpack over to compartment set to laptop, color set to green; my Laptop for one with 32GB"

    segments = item_segments(text, items)

    assert "color set to green" in segments["7000000011"] and "32gb" in segments["7000000012"]


@pytest.mark.parametrize("text", ["items: Tea Kettle", "Return request for order #W5565470: Tea Kettle (1L); Pet Bed"])
def test_a_product_named_after_a_colon_is_that_product(text: str) -> None:
    from agents.workflows.slots import read_items

    items = [
        {"item_id": "7000000021", "name": "Tea Kettle", "options": {"capacity": "1L"}},
        {"item_id": "7000000022", "name": "Pet Bed", "options": {"size": "medium"}},
    ]

    assert "7000000021" in (read_items(text, items) or [])


def test_a_value_meant_replaces_what_its_option_said_last() -> None:
    from agents.workflows.slots import corrected
    from agents.workflows.variants import wanted_options

    kits: list[dict[str, Any]] = [
        {"item_id": "k1", "options": {"skin tone": "light", "brand": "Brand A"}, "available": True},
        {"item_id": "k2", "options": {"skin tone": "dark", "brand": "Brand C"}, "available": True},
        {"item_id": "k3", "options": {"skin tone": "medium", "brand": "Brand C"}, "available": True},
    ]
    said = "trade the Makeup Kit (light, Brand A) → the Brand C medium model"
    fixed = corrected(said, ("linear", "tactile"))

    assert fixed == said
    assert wanted_options(corrected(said, ("dark", "")), kits[0]["options"], kits) == {
        "brand": "brand c",
        "skin tone": "dark",
    }


def test_a_typing_slip_is_a_swap_or_one_character_changed() -> None:
    assert typing_slip("76515", "76155") == "swap" and typing_slip("76515", "76519") == "other"
    assert typing_slip("76515", "12345") == ""


def test_a_zip_one_slip_away_puts_the_confirmed_address_right() -> None:
    address = {"address1": "12 Oak St", "city": "Austin", "state": "TX", "zip": "78701"}

    assert zip_put_right(address, "oops, I meant 78710") == "78710"
    assert zip_put_right(address, "yes 78701") is None  # the same zip
    assert zip_put_right(address, "send it to 90210 instead") is None  # another place, not a slip
    assert zip_put_right(None, "I meant 78710") is None


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("swap the Hiking Boots for a size 7 before it ships", "pending"),
        ("on my unshipped order I'd like the backpack in green", "pending"),
        ("it's yet to ship, can I change the kettle?", "pending"),
        ("发货前能把水壶换成银色吗", "pending"),
        ("the boots I received are too small", "delivered"),
        ("change the boots to a size 7", None),
    ],
)
def test_an_order_is_described_by_the_state_it_is_in(text: str, state: str | None) -> None:
    from agents.intents.offline.orders import order_state_said

    assert order_state_said(text) == state


@pytest.mark.parametrize(
    "text",
    [
        "Skateboard (has 34 inch as length choice; plastic as deck material choice; plain as design choice) "
        "(want one: the design in plain + the length in 28 inch + the deck material in bamboo instead)",
        "the plain plastic Skateboard, 34 inch, bamboo 28 inch one pls",
        "滑板，塑料 34 inch 的，要 28 inch 竹子的",
    ],
)
def test_of_two_items_described_alike_the_one_whose_own_values_come_first_is_meant(text: str) -> None:
    from agents.workflows.slots import read_items

    boards = [  # both plastic and plain: only the length tells them apart, and both lengths are said
        {
            "item_id": "short",
            "name": "Skateboard",
            "name_zh": "滑板",
            "options": {"deck": "plastic", "length": "28 inch", "design": "plain"},
        },
        {
            "item_id": "long",
            "name": "Skateboard",
            "name_zh": "滑板",
            "options": {"deck": "plastic", "length": "34 inch", "design": "plain"},
        },
    ]

    assert read_items(text, boards) == ["long"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Skateboard（滑板板面：塑料的，34 inch）那件要换成竹子的", 1),
        ("滑板要退，板面是塑料的", 1),
        ("滑板板面是塑料的", 0),
    ],
)
def test_a_chinese_product_word_inside_a_longer_one_names_nothing(text: str, said: int) -> None:
    """滑板板面 is a skateboard's deck: 滑板 inside it is no second mention of the board."""
    from agents.workflows.slots import item_mentions, normalise

    boards = [{"item_id": "s1", "name": "Skateboard", "options": {"deck material": "plastic", "length": "34 inch"}}]

    assert len(item_mentions(normalise(text), boards, by_options=False)) == said


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("both pairs of sneakers are too narrow", {("a", "b")}),
        ("I'd rather have the compartment of laptop", set()),
        ("the compartment set to laptop", set()),
    ],
)
def test_a_name_after_of_names_an_item_unless_an_option_comes_before_it(text: str, named: set[tuple[str, ...]]) -> None:
    """ "pairs of sneakers" names the sneakers; "compartment of laptop" says an option's value, not the Laptop."""
    from agents.workflows.slots import item_mentions, normalise

    items = [
        {"item_id": "a", "name": "Sneakers", "options": {"size": "8"}},
        {"item_id": "b", "name": "Sneakers", "options": {"size": "9"}},
        {"item_id": "d", "name": "Laptop", "options": {"ram": "8GB"}},
        {"item_id": "e", "name": "Rucksack", "options": {"compartment": "hydration"}},
    ]

    assert {m.item_ids for m in item_mentions(normalise(text), items, by_options=False)} == named


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("刀收到就是钝的，帮我退掉", {("knife",)}),
        ("锁太沉了，退了吧", {("lock",)}),
        ("登山杖有一节锁不住，想退", {("poles",)}),
    ],
)
def test_a_one_character_product_word_names_an_item_where_it_is_a_word_of_its_own(
    text: str, named: set[tuple[str, ...]]
) -> None:
    """刀 and 锁 are words for a Chef's Knife and a Bike Lock, but 锁 inside 锁不住 says nothing of the lock."""
    from agents.workflows.slots import item_mentions, normalise

    items = [
        {"item_id": "knife", "name": "Chef's Knife", "options": {"length": "8 inch"}},
        {"item_id": "lock", "name": "Bike Lock", "options": {"type": "U-Lock"}},
        {"item_id": "poles", "name": "Trekking Poles", "options": {"material": "carbon"}},
    ]

    assert {m.item_ids for m in item_mentions(normalise(text), items, by_options=False)} == named


def test_a_numbered_list_line_names_its_item_beside_an_item_named_in_full() -> None:
    from agents.workflows.slots import item_mentions, normalise

    items = [
        {"item_id": "bag", "name": "Backpack", "options": {"color": "black"}},
        {"item_id": "hat", "name": "Bucket Hat", "options": {"size": "M"}},
        {"item_id": "glasses", "name": "Sunglasses", "options": {"lens": "polarized"}},
    ]
    text = normalise("please send back:\n1. Backpack\n2. hat\nthank you")

    assert {i for m in item_mentions(text, items, by_options=False) for i in m.item_ids} == {"bag", "hat"}


@pytest.mark.parametrize(
    ("text", "asked"), [("Please send back the L. The M fits.", ["large"]), ("退L码的", ["large"])]
)
def test_a_size_letter_after_the_names_the_item_of_that_size(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    shirts = [
        {"item_id": "medium", "name": "T-Shirt", "options": {"size": "M", "color": "green"}},
        {"item_id": "large", "name": "T-Shirt", "options": {"size": "L", "color": "green"}},
    ]

    assert read_items(text, shirts) == asked
