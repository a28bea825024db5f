"""Which items a message asks for (agents.reading.items over agents.workflows.slots): the places it names items,
the role of each, and whether it covers every item but those kept. No item the customer did not name is ever
proposed."""

from __future__ import annotations

import pytest

ORDER = [
    {"item_id": "1001", "product_id": "p1", "name": "Bicycle Helmet", "options": {"color": "red", "size": "M"}},
    {"item_id": "1002", "product_id": "p2", "name": "Espresso Machine", "options": {"capacity": "1L"}},
    {"item_id": "1003", "product_id": "p3", "name": "Garden Hose", "options": {"length": "50ft"}},
]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("I want to return the helmet and the espresso machine", ["1001", "1002"]),
        ("我想退头盔和咖啡机", ["1001", "1002"]),
        ("Keep the hose, I'd like to return the helmet", ["1001"]),
        ("水管留着，头盔退了", ["1001"]),
        ("The hose works great. Please exchange the helmet, it's too small.", ["1001"]),
        ("水管很好用，头盔太小了，帮我换一个", ["1001"]),
        # one item a line, no list marks: the line that asks at the end asks for the lines before it
        (
            "帮爸妈买的Bicycle Helmet\nGarden Hose（长度50ft）\nEspresso Machine，他们用不惯，想退",
            ["1001", "1003", "1002"],
        ),
        (
            "Bought for my parents: the Bicycle Helmet\nthe Garden Hose, 50ft\nthe Espresso Machine, please return them",
            ["1001", "1003", "1002"],
        ),
        # the new version told option by option
        ("水管不用动\nBicycle Helmet换个颜色用的蓝色，尺码用的L，款式用的公路款的那一款", ["1001"]),
        ("the hose is fine\nBicycle Helmet to become: colour blue, size L, style road", ["1001"]),
        (
            "收到了，Garden Hose｜规格：长度用的50ft\n· 一个Bicycle Helmet（红色 M码）用了两天就不想要了，能退吗？",
            ["1003", "1001"],
        ),
        # list marks: a line that keeps its item is not one with the change on the next line
        ("换货：\n- Bicycle Helmet不用换\n- Garden Hose换成25ft的", ["1003"]),
        ("Exchange:\n- Bicycle Helmet stays as it is\n- Garden Hose to the 25ft one", ["1003"]),
        # each line asks its own change
        (
            "换货：\n1. 要换的：Bicycle Helmet，M码（尺码）的那个退回去，给我换成L码，全套按这个来\n"
            "· 把Garden Hose（选的规格：长度〈50ft〉）换成长度〈25ft〉，其余的全部照旧吧\n"
            "· Espresso Machine｜规格：容量定的是1L 换个完整的：容量选的是2L",
            ["1001", "1003", "1002"],
        ),
        # several items, each with its own change or joined by a word that lists
        ("Bicycle Helmet 换成 L码 蓝色那种，还要把Espresso Machine改成2L的", ["1001", "1002"]),
        ("swap the Bicycle Helmet for the blue L one, and also change the Espresso Machine to 2L", ["1001", "1002"]),
        ("想退Bicycle Helmet 红色 M码；再就是Garden Hose；再就是Espresso Machine", ["1001", "1003", "1002"]),
        (
            "return the Bicycle Helmet (red, M); then the Garden Hose; then the Espresso Machine",
            ["1001", "1003", "1002"],
        ),
        # a line that asks is a request of its own
        ("Please return the Bicycle Helmet\nThe Garden Hose stays with me", ["1001"]),
        ("请帮我退Bicycle Helmet\nGarden Hose留着", ["1001"]),
    ],
)
def test_only_the_items_asked_for_are_read_never_one_only_mentioned(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, ORDER) == asked


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("return everything except the hose", ["1001", "1002"]),
        ("除了水管都退", ["1001", "1002"]),
        ("Please send them all back", ["1001", "1002", "1003"]),
        ("全部退掉", ["1001", "1002", "1003"]),
    ],
)
def test_every_item_but_those_kept(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, ORDER) == asked


def test_a_chinese_product_word_option_words_and_a_typo_find_the_item() -> None:
    from agents.workflows.slots import read_items

    assert read_items("把头盔退了", ORDER) == ["1001"]  # Bicycle Helmet, named in Chinese
    assert read_items("红色那个退了", ORDER) == ["1001"]  # the only red item
    assert read_items("I want to return the espreso machine", ORDER) == ["1002"]
    # one slip from a name word only where nothing is named as written: "settle" is not "kettle" here
    assert read_items("please settle this with the helmet: return it", ORDER) == ["1001"]


def test_nothing_named_and_nothing_said_of_all_reads_no_item() -> None:
    from agents.workflows.slots import read_items

    assert read_items("I'd like to return it", ORDER) is None
    assert read_items("帮我换一个吧", ORDER) is None


def test_an_order_holds_the_products_a_message_names_by_name_not_by_the_options_it_wants() -> None:
    from agents.workflows.slots import names_items

    earbuds = [{"item_id": "9", "product_id": "p9", "name": "Wireless Earbuds", "options": {"color": "white"}}]
    assert names_items("I'd like the phone in Pearl White instead", earbuds) is False
    assert names_items("keep the earbuds, return the rest", earbuds) is True
    assert names_items("耳机留着", earbuds) is True


def test_the_role_model_reads_the_words_around_one_item_with_the_others_set_apart() -> None:
    from agents.reading.items import Mention, around_item, placeholders

    text = "I love the helmet. Please exchange the hose."
    helmet, hose = Mention(11, 17, ("1001",)), Mention(39, 43, ("1003",))

    assert placeholders(text, [helmet, hose], hose) == "I love OTHER. Please exchange ITEM."
    assert placeholders(text, [helmet, hose], None) == "I love ITEM. Please exchange ITEM."
    assert around_item("I love OTHER. Please exchange ITEM.") == "Please exchange ITEM."
    assert around_item("Returning:\n- OTHER\n- ITEM") == "Returning:\n- OTHER\n- ITEM"
    assert around_item("- ITEM\n- OTHER\nBoth came scratched, please exchange.") == (
        "- ITEM\n- OTHER\nBoth came scratched, please exchange."
    )


def test_an_answer_to_which_items_means_the_items_it_names_unless_it_sets_one_aside() -> None:
    from agents.workflows.slots import read_items

    answer = "是头盔；另外50ft的水管，没错"
    assert read_items(answer, ORDER, answering=True) == ["1001", "1003"]
    assert read_items("the helmet, not the hose", ORDER, answering=True) == ["1001"]


@pytest.mark.parametrize(
    ("answer", "asked"),
    [
        # items listed with their options, joined by "also there is": never every item but those named
        (
            "就Bicycle Helmet；另外还有Garden Hose——50ft 标准 固定；另外还有Espresso Machine【规格 容量挑1L; 配件＝none】。",
            ["1001", "1003", "1002"],
        ),
        (
            "Only the Bicycle Helmet; plus the Garden Hose (50ft, standard); also the Espresso Machine [1L, none]",
            ["1001", "1003", "1002"],
        ),
        ("Bicycle Helmet（红色 M码）以及Garden Hose〔50ft那个〕，别的没问题", ["1001", "1003"]),
    ],
)
def test_a_list_of_described_items_answering_which_items_means_those_items(answer: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(answer, ORDER, answering=True) == asked


PURIFIER_AND_BOTTLE = [
    {
        "item_id": "3001",
        "product_id": "p1",
        "name": "Air Purifier",
        "options": {"room size": "medium", "filter type": "HEPA", "features": "smart sensors"},
    },
    {"item_id": "3002", "product_id": "p2", "name": "Perfume", "options": {"size": "30ml"}},
    {"item_id": "3003", "product_id": "p3", "name": "Water Bottle", "options": {"capacity": "750ml", "color": "blue"}},
]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        # the first item described by its values in Chinese words, the joining word run into the last of them
        ("退：Air Purifier HEPA 中号 智能传感器款和Water Bottle\n退款：礼品卡", ["3001", "3003"]),
        ("Return: Air Purifier HEPA medium smart sensors and Water Bottle\nRefund: gift card", ["3001", "3003"]),
        # words between two items that say more than values are no list
        ("Air Purifier换成大号的，Perfume和Water Bottle不用动", ["3001"]),
        ("change the Air Purifier to the large one, the Perfume and the Water Bottle stay", ["3001"]),
    ],
)
def test_items_described_in_the_shoppers_words_for_their_values_are_one_list(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, PURIFIER_AND_BOTTLE) == asked


TWO_OF_A_KIND = [
    {"item_id": "2001", "product_id": "p1", "name": "Electric Kettle", "options": {"color": "black", "capacity": "1L"}},
    {"item_id": "2002", "product_id": "p1", "name": "Electric Kettle", "options": {"color": "white", "capacity": "1L"}},
    {"item_id": "2003", "product_id": "p2", "name": "Tea Infuser", "options": {"material": "silicone"}},
]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        # the options said just before the name tell the items apart, not the words after it
        ("Please send back the white kettle, I'm keeping the black one", ["2002"]),
        ("白色的Electric Kettle退掉，黑色那个留着", ["2002"]),
        # an item said as "the <its options> one" beside another of its product
        ("Return the white kettle and exchange the black one for a bigger size", ["2002", "2001"]),
        ("白色的Electric Kettle退了，黑色的那个换个大容量的", ["2002", "2001"]),
        # a name that fits both items and describes neither names the product: the one described is meant
        ("I ended up with two kettles by accident, please return the black one", ["2001"]),
        ("不小心买了两个Electric Kettle，把黑色的那个退了吧", ["2001"]),
        # what the item becomes is no item: "the white one" after "for"
        ("Swap the black kettle so it's the white one", ["2001"]),
        # "<value>这个<option's name>" names a value of the item, not "that one" of the product
        ("Electric Kettle - 颜色选的黑色，容量1L，要换白色这个颜色", ["2001"]),
        ("Electric Kettle, colour black, 1L: I'd like it in the white colour", ["2001"]),
        # beside an item named in full, a last word with the item's options is an item of its own
        ("The white kettle and the Tea Infuser can go back, the black kettle stays", ["2002", "2003"]),
        # options joined by "+" between Chinese words are each said
        ("把Electric Kettle（颜色那项white+容量那项1L的那个）换成2L的", ["2002"]),
    ],
)
def test_items_of_one_product_are_told_apart_by_the_options_said_with_them(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, TWO_OF_A_KIND) == asked


SHIRTS_AND_MATS = [
    {"item_id": "3001", "product_id": "p1", "name": "Polo Shirt", "options": {"color": "green", "size": "S"}},
    {"item_id": "3002", "product_id": "p1", "name": "Polo Shirt", "options": {"color": "green", "size": "M"}},
    {"item_id": "3003", "product_id": "p1", "name": "Polo Shirt", "options": {"color": "orange", "size": "L"}},
    {"item_id": "3004", "product_id": "p2", "name": "Jigsaw Puzzle", "options": {"pieces": "2000 pieces"}},
    {"item_id": "3005", "product_id": "p2", "name": "Jigsaw Puzzle", "options": {"pieces": "750 pieces"}},
]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        # a value some items share names each of them, never the items that lack it
        ("could you take back the green ones", ["3001", "3002"]),
        ("绿色的两件帮我退掉", ["3001", "3002"]),
        # a size letter said as a size, a size said in words
        ("我要退S和L的，M的不用", ["3001", "3003"]),
        ("I'd like to send back the small and the large, the medium is fine", ["3001", "3003"]),
        # the number of a value said alone, or as "the N-piece one"
        ("the 2000-piece one is far too hard, can I return it?", ["3004"]),
        ("2000片那盒太难了，想退", ["3004"]),
        # what an item is to become names no item
        ("the orange one is tight, could I swap it for a medium?", ["3003"]),
        ("橙色那件有点紧，能换成M码吗", ["3003"]),
        # values said together describe one item: those holding both
        ("绿色M码的洗了缩水，退了吧", ["3002"]),
    ],
)
def test_items_said_by_their_options_alone_are_the_items_holding_those_options(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, SHIRTS_AND_MATS) == asked


def test_a_chinese_product_word_names_the_product_whose_name_it_says_more_of() -> None:
    """台灯 is a Desk Lamp's word (from "desk lamp"); a Floor Lamp has it only if "lamp" alone gives it."""
    from agents.reading.product_words import product_words
    from agents.workflows.slots import read_items

    lamps = [
        {"item_id": "4001", "product_id": "p1", "name": "Desk Lamp", "options": {"color": "black"}},
        {"item_id": "4002", "product_id": "p2", "name": "Floor Lamp", "options": {"color": "black"}},
    ]
    assert product_words("Desk Lamp")["台灯"] > product_words("Floor Lamp").get("台灯", 0)
    assert read_items("台灯太暗了，想退", lamps) == ["4001"]
    assert read_items("落地灯太高了，想退", lamps) == ["4002"]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("I got two teapots by mistake, please take back the smaller one", ["5001"]),
        ("不小心买了两个Teapot，大的那个帮我退了", ["5002"]),
        ("the big teapot drips, can I exchange it?", ["5002"]),
        ("小Teapot漏水，想换一个", ["5001"]),
    ],
)
def test_an_item_of_one_product_is_picked_by_its_size_said_as_smaller_or_bigger(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    teapots = [
        {"item_id": "5001", "product_id": "p1", "name": "Teapot", "options": {"capacity": "600ml", "color": "white"}},
        {"item_id": "5002", "product_id": "p1", "name": "Teapot", "options": {"capacity": "1.2L", "color": "white"}},
    ]
    assert read_items(text, teapots) == asked


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("the tee shrank in the wash, can I send it back? the charger is fine", ["6001"]),
        ("my power bank won't hold a charge, please exchange it", ["6002"]),
        ("T恤洗了一次就缩水了，想退，充电宝没问题", ["6001"]),
        ("充电宝充不进电，麻烦换一个", ["6002"]),
    ],
)
def test_a_product_is_named_by_the_words_shoppers_use_for_it(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    order = [
        {"item_id": "6001", "product_id": "p1", "name": "Graphic T-Shirt", "options": {"size": "M"}},
        {"item_id": "6002", "product_id": "p2", "name": "Portable Charger", "options": {"capacity": "10000mAh"}},
    ]
    assert read_items(text, order) == asked


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        # an item named more than once is what the last word on it says
        ("Send back the helmet… actually no, keep the helmet, it's the hose that has to go", ["1003"]),
        ("头盔退了吧……算了，头盔留着，退水管", ["1003"]),
        ("I love the helmet, keep it in mind. Actually, please return the helmet after all", ["1001"]),
    ],
)
def test_an_item_named_more_than_once_is_what_the_last_mention_says(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    assert read_items(text, ORDER) == asked


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("白色那个和Tea Infuser退回去，黑色那个挺好", ["2002", "2003"]),
        ("The white one and the Tea Infuser go back, the black one is fine", ["2002", "2003"]),
    ],
)
def test_the_one_described_is_first_a_unit_of_a_product_held_twice(text: str, asked: list[str]) -> None:
    from agents.workflows.slots import read_items

    order = [*TWO_OF_A_KIND[:2], {**TWO_OF_A_KIND[2], "options": {"color": "black"}}]
    assert read_items(text, order) == asked
