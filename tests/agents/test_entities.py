"""The entity extractor: pure Python, no database."""

from __future__ import annotations

import json
import logging
import random
from datetime import UTC, date, datetime

import pytest

from agents.intents.entities.catalogue import EMPTY_CATALOGUE, Catalogue, CatalogueProduct
from agents.intents.entities.extract import extract_entities

TODAY = date(2026, 11, 25)

# The demo store's catalogue (stores/builtin/demo.py).
CATALOGUE = Catalogue(
    products=(
        CatalogueProduct(
            name="Find X8",
            aliases=("X8", "FindX8", "Find-X8"),
            name_zh="Find X8",
            option_values=("Star Black", "星野黑", "12GB+256GB", "Pearl White", "浮光白", "Ocean Blue", "追风蓝"),
        ),
        CatalogueProduct(
            name="Find X9",
            aliases=("X9", "FindX9", "Find-X9"),
            name_zh="Find X9",
            option_values=("Star Black", "星野黑", "12GB+256GB", "16GB+512GB", "Pearl White", "浮光白"),
        ),
        CatalogueProduct(
            name="Enco X3 Earbuds",
            aliases=("Enco X3", "X3 earbuds", "耳机"),
            name_zh="Enco X3 无线耳机",
            option_values=("White", "白色", "Black", "黑色"),
        ),
        CatalogueProduct(
            name="Pad 3",
            aliases=("Pad3", "平板"),
            name_zh="Pad 3 平板",
            option_values=("Space Grey", "深空灰", "8GB+128GB", "12GB+256GB"),
        ),
    )
)

VALID_IMEI = "490154203237518"  # passes the Luhn check
INVALID_IMEI = "490154203237519"  # one digit off: fails it


def ents(text: str, catalogue: Catalogue = CATALOGUE) -> dict[str, object]:
    return extract_entities(text, catalogue, today=TODAY)


def options(text: str) -> dict[str, str]:
    found = ents(text).get("options", {})
    assert isinstance(found, dict)
    return found


# --------------------------------------------------------------------------------------------------
# Order ids


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("where is my order #W1234567?", ["#W1234567"]),
        ("W1234567 hasn't arrived", ["#W1234567"]),
        ("order w1234567 please", ["#W1234567"]),
        ("我的订单 #D1001 还没发货", ["#D1001"]),
        ("orders #T0000001 and #T0000002", ["#T0000001", "#T0000002"]),
        ("订单号 12345678", ["12345678"]),
        ("订单号：88888888，谢谢", ["88888888"]),
        ("订单 #W1234567 怎么还没到", ["#W1234567"]),
        ("my order 12345678 is late", ["12345678"]),
        ("Order number: 123456789012", ["123456789012"]),
        ("订单 12345678 和 23456789 都没到", ["12345678", "23456789"]),
        ("order #12345678", ["12345678"]),
        ("D1001 寄到上海市浦东新区", ["#D1001"]),  # a short id beside Chinese
        ("我想换一张卡付 D1001 这一单", ["#D1001"]),
        ("my order is D1001.", ["#D1001"]),
    ],
)
def test_order_ids(text: str, expected: list[str]) -> None:
    assert ents(text)["order_ids"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "I have 2 questions about my order",
        "order 2 phones for me",
        "my order 12345 is late",  # too short without a letter prefix
        "I ordered 12345678 things",  # "ordered" is not "order"
        "#1 best phone",
        "&#12345678;",
        "订单金额 3999",
        "Model A2342 specs please",  # a short code among English words is a model, not an order
        "RTX4090 price",
    ],
)
def test_no_order_id(text: str) -> None:
    assert "order_ids" not in ents(text)


def test_order_ids_are_in_order_of_appearance_and_unique() -> None:
    result = ents("W1234567 #D1001 订单号 88888888 and again #W1234567")
    assert result["order_ids"] == ["#W1234567", "#D1001", "88888888"]


# --------------------------------------------------------------------------------------------------
# Tracking numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("快递单号 SF1234567890 查不到", ["SF1234567890"]),
        ("sf1234567890123", ["SF1234567890123"]),
        ("UPS 1Z999AA10123456785 status?", ["1Z999AA10123456785"]),
        ("运单号：YT1234567890123", ["YT1234567890123"]),
        ("物流单号 1234567890123", ["1234567890123"]),
        ("tracking number is 123456789012", ["123456789012"]),
        ("快递号JD0123456789012", ["JD0123456789012"]),
        ("SF1234567890 and SF2234567891", ["SF1234567890", "SF2234567891"]),
    ],
)
def test_tracking_numbers(text: str, expected: list[str]) -> None:
    assert ents(text)["tracking_numbers"] == expected


def test_long_number_without_tracking_words_is_not_tracking() -> None:
    assert "tracking_numbers" not in ents("I counted 1234567890123 grains")


def test_tracking_number_is_not_also_an_order_id() -> None:
    result = ents("订单 #W1234567 的快递单号是 SF1234567890")
    assert result["order_ids"] == ["#W1234567"]
    assert result["tracking_numbers"] == ["SF1234567890"]

    result = ents("order SF1234567890")
    assert result == {"tracking_numbers": ["SF1234567890"]}

    result = ents("order 1234567890, tracking 1234567890")
    assert result["tracking_numbers"] == ["1234567890"]
    assert "order_ids" not in result


def test_too_short_sf_number_is_not_tracking() -> None:
    assert "tracking_numbers" not in ents("SF123456")


# --------------------------------------------------------------------------------------------------
# Products


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("X9 多少钱", ["Find X9"]),
        ("I want the Find X9", ["Find X9"]),
        ("find x9 vs FINDX9 vs Find-X9 vs find  x9", ["Find X9"]),
        ("X9和X8哪个好？", ["Find X9", "Find X8"]),
        ("compare X8 with X9", ["Find X8", "Find X9"]),
        ("Enco X3 无线耳机有货吗", ["Enco X3 Earbuds"]),
        ("enco x3 earbuds", ["Enco X3 Earbuds"]),
        ("耳机和平板", ["Enco X3 Earbuds", "Pad 3"]),
        ("pad3 还是 Pad 3 平板", ["Pad 3"]),
        ("买X9送耳机吗", ["Find X9", "Enco X3 Earbuds"]),
    ],
)
def test_products(text: str, expected: list[str]) -> None:
    assert ents(text)["products"] == expected


@pytest.mark.parametrize("text", ["X90 is not sold here", "AX9 model", "X9000", "the X8s", "ipad 3", "Enco X30"])
def test_product_names_match_whole_words_only(text: str) -> None:
    assert "products" not in ents(text)


def test_longest_name_wins() -> None:
    assert ents("I bought a Find X9 yesterday")["products"] == ["Find X9"]  # not also "X9"
    assert ents("Enco X3 Earbuds")["products"] == ["Enco X3 Earbuds"]


def test_no_products_without_a_catalogue() -> None:
    assert "products" not in extract_entities("Find X9", today=TODAY)
    assert "products" not in extract_entities("Find X9", EMPTY_CATALOGUE, today=TODAY)


def test_equal_catalogues_give_equal_results() -> None:
    copy = Catalogue(products=tuple(CATALOGUE.products))
    assert ents("X9 Star Black", copy) == ents("X9 Star Black")


def test_catalogue_with_odd_names_does_not_break() -> None:
    odd = Catalogue(
        products=(
            CatalogueProduct(name="", aliases=("", " ")),
            CatalogueProduct(name="C++ (2024) [x]*?", aliases=("a.b|c",)),
            CatalogueProduct(name="  ", aliases=("zz",)),
        )
    )
    assert ents("C++ (2024) [x]*? and a.b|c", odd)["products"] == ["C++ (2024) [x]*?"]
    assert "products" not in ents("zz", odd)
    assert "products" not in ents("abbc", odd)


# --------------------------------------------------------------------------------------------------
# Options


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("要星野黑 12+256 的 X9", {"color": "星野黑", "storage": "12GB+256GB"}),
        ("Star Black, 12GB+256GB", {"color": "Star Black", "storage": "12GB+256GB"}),
        ("pearl white 16GB + 512GB", {"color": "Pearl White", "storage": "16GB+512GB"}),
        ("深空灰 8+128", {"color": "深空灰", "storage": "8GB+128GB"}),
        ("256G 的蓝色", {"color": "blue", "storage": "256GB"}),
        ("1TB silver", {"color": "silver", "storage": "1TB"}),
        ("512gb gray", {"color": "grey", "storage": "512GB"}),
        ("16+1T 紫色", {"color": "purple", "storage": "16GB+1TB"}),
        ("要白的", {"color": "white"}),
        ("X9 黑 256G", {"color": "black", "storage": "256GB"}),
        ("玫瑰金色", {"color": "rose gold"}),
    ],
)
def test_colour_and_storage(text: str, expected: dict[str, str]) -> None:
    assert ents(text)["options"] == expected


def test_generic_colours_without_a_catalogue() -> None:
    assert extract_entities("black or white?", today=TODAY)["options"] == {"color": "black"}
    assert extract_entities("黑色", today=TODAY)["options"] == {"color": "black"}
    assert extract_entities("星野黑", today=TODAY) == {}  # a catalogue value: needs the catalogue


def test_catalogue_value_beats_generic_word() -> None:
    assert ents("the White one")["options"] == {"color": "White"}
    assert ents("白色耳机")["options"] == {"color": "白色"}


def test_first_colour_mentioned_wins() -> None:
    assert ents("blue, or Star Black")["options"] == {"color": "blue"}


@pytest.mark.parametrize(
    "text",
    [
        "我明白了",
        "蓝牙连不上",
        "退款金额多少",
        "银行卡付款",
        "手机黑屏了",
        "the phone has a black screen",
        "Black Friday deal?",
        "I'm a Gold member",
        "颜色有哪些",
        "I ordered it",  # "red" inside a word
    ],
)
def test_no_colour(text: str) -> None:
    assert "color" not in options(text)


@pytest.mark.parametrize(
    "text",
    ["5G手机", "4G network", "8GB RAM", "193g weight", "3+2=5", "12+5 people", "battery 5000mAh"],
)
def test_no_storage(text: str) -> None:
    assert "storage" not in options(text)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("size M please", "M"),
        ("Size: xl", "XL"),
        ("what about size small", "S"),
        ("M码有吗", "M"),
        ("xxl号", "XXL"),
        ("尺码：L", "L"),
        ("the XS size", "XS"),
        ("尺码是3XL", "3XL"),
    ],
)
def test_size(text: str, size: str) -> None:
    assert ents(text)["options"] == {"size": size}


@pytest.mark.parametrize("text", ["I'm M", "S or M?", "L", "what size is it", "size matters", "XL"])
def test_no_size_without_context(text: str) -> None:
    assert "size" not in options(text)


def test_storage_value_in_catalogue_is_not_a_colour() -> None:
    assert ents("12GB+256GB")["options"] == {"storage": "12GB+256GB"}


# --------------------------------------------------------------------------------------------------
# Phone, email, IMEI


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("电话 13800138000", "13800138000"),
        ("my phone is 138 0013 8000", "13800138000"),
        ("手机：138-0013-8000", "13800138000"),
        ("+86 138 0013 8000", "+8613800138000"),
        ("+8613800138000", "+8613800138000"),
        ("call me at +1 415 555 0142", "+14155550142"),
        ("+1 (415) 555-0142", "+14155550142"),
        ("+44 20 7946 0958", "+442079460958"),
        ("(415) 555-0142", "4155550142"),
        ("415-555-0142", "4155550142"),
        ("座机 0755-12345678", "075512345678"),
    ],
)
def test_phone(text: str, phone: str) -> None:
    assert ents(text)["phone"] == phone


@pytest.mark.parametrize(
    "text",
    [
        "12800138000",  # no mobile prefix 12x
        "138001380001",  # 12 digits
        "I have 2 questions",
        "2026-11-20",
        "price 1399 1499",
    ],
)
def test_no_phone(text: str) -> None:
    assert "phone" not in ents(text)


def test_first_phone_wins() -> None:
    assert ents("13800138000 or 13900139000")["phone"] == "13800138000"


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("email me at Ada.Lovelace@Example.org.", "ada.lovelace@example.org"),
        ("邮箱：li.wei+shop@example.com，谢谢", "li.wei+shop@example.com"),
        ("<emma_wilson@mail.example.co.uk>", "emma_wilson@mail.example.co.uk"),
    ],
)
def test_email(text: str, email: str) -> None:
    assert ents(text)["email"] == email


@pytest.mark.parametrize("text", ["a@b", "@example.com", "name@", "user@localhost"])
def test_no_email(text: str) -> None:
    assert "email" not in ents(text)


@pytest.mark.parametrize(
    "text",
    [
        f"IMEI {VALID_IMEI}",
        f"my imei number is {VALID_IMEI}",
        f"串号：{VALID_IMEI}",
        VALID_IMEI,
        "IMEI 49-015420-323751-8",
    ],
)
def test_imei(text: str) -> None:
    result = ents(text)
    assert result["imei"] == VALID_IMEI
    assert "phone" not in result and "order_ids" not in result and "amounts" not in result


def test_imei_must_pass_luhn() -> None:
    assert "imei" not in ents(f"IMEI {INVALID_IMEI}")
    assert "imei" not in ents(INVALID_IMEI)
    assert "imei" not in ents("000000000000000")


def test_imei_and_phone_together() -> None:
    result = ents(f"我的IMEI是{VALID_IMEI}，电话13800138000")
    assert result["imei"] == VALID_IMEI
    assert result["phone"] == "13800138000"


# --------------------------------------------------------------------------------------------------
# Amounts


def money(value: float, currency: str | None) -> dict[str, object]:
    return {"value": value, "currency": currency}


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("¥3999", [money(3999, "CNY")]),
        ("￥3,999.00", [money(3999, "CNY")]),
        ("3999元", [money(3999, "CNY")]),
        ("三千块", [money(3000, "CNY")]),
        ("3,999 yuan", [money(3999, "CNY")]),
        ("RMB 2999", [money(2999, "CNY")]),
        ("$49.99", [money(49.99, "USD")]),
        ("49.99 dollars", [money(49.99, "USD")]),
        ("USD 120", [money(120, "USD")]),
        ("预算 3000", [money(3000, None)]),
        ("预算3千", [money(3000, None)]),
        ("3千左右", [money(3000, None)]),
        ("1.5万以内的手机", [money(15000, None)]),
        ("预算三千五", [money(3500, None)]),
        ("三千的手机", [money(3000, None)]),
        ("under 4000 please", [money(4000, None)]),
        ("budget 3k", [money(3000, None)]),
        ("price is 3999", [money(3999, None)]),
        ("3000以内", [money(3000, None)]),
        ("预算3000-4000元", [money(3000, "CNY"), money(4000, "CNY")]),
        ("¥3000 到 4000", [money(3000, "CNY"), money(4000, "CNY")]),
        ("it costs 3999 yuan and I paid $4,000.50", [money(3999, "CNY"), money(4000.5, "USD")]),
        ("我花了3999买的，现在降价到3499了", [money(3999, None), money(3499, None)]),
        ("¥3999, again ¥3999", [money(3999, "CNY")]),
    ],
)
def test_amounts(text: str, amounts: list[dict[str, object]]) -> None:
    assert ents(text)["amounts"] == amounts


@pytest.mark.parametrize(
    "text",
    [
        "I have 2 questions",
        "2026年新款什么时候出",
        "battery 5000mAh, 5千毫安, 5000万像素",
        "about 3 days",
        "under 2 weeks",
        "4K video",
        "X9 3999",  # a bare number: could be anything
        "2-3 days",
        "3-5天到货",
        "差不多一样",
        "一千零一夜",
        "万一坏了怎么办",
        "千万别发顺丰",
        "2块电池",
        "100W 快充",
        "7天无理由退货",
        "up to 100W charging",
    ],
)
def test_no_amount(text: str) -> None:
    assert "amounts" not in ents(text)


def test_amount_values_are_floats() -> None:
    amounts = ents("¥3999")["amounts"]
    assert isinstance(amounts, list)
    assert isinstance(amounts[0]["value"], float)


# --------------------------------------------------------------------------------------------------
# Dates


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("2026-11-20", ["2026-11-20"]),
        ("2026/11/20 到的", ["2026-11-20"]),
        ("2026.1.5", ["2026-01-05"]),
        ("2025年12月3日收到的", ["2025-12-03"]),
        ("11月20日下单", ["2026-11-20"]),
        ("11月20号", ["2026-11-20"]),
        ("Nov 20", ["2026-11-20"]),
        ("November 20th, 2025", ["2025-11-20"]),
        ("Nov. 3rd", ["2026-11-03"]),
        ("20 Nov 2026", ["2026-11-20"]),
        ("on the 3rd of March", ["2026-03-03"]),
        ("May 5", ["2026-05-05"]),
        ("11/20/2026", ["2026-11-20"]),
        ("20/11/2026", ["2026-11-20"]),
        ("今天", ["2026-11-25"]),
        ("昨天到的", ["2026-11-24"]),
        ("前天下的单", ["2026-11-23"]),
        ("大前天", ["2026-11-22"]),
        ("明天能到吗", ["2026-11-26"]),
        ("today", ["2026-11-25"]),
        ("yesterday", ["2026-11-24"]),
        ("the day before yesterday", ["2026-11-23"]),
        ("tomorrow", ["2026-11-26"]),
        ("3 days ago", ["2026-11-22"]),
        ("three days ago", ["2026-11-22"]),
        ("3天前", ["2026-11-22"]),
        ("三天前", ["2026-11-22"]),
        ("两周前", ["2026-11-11"]),
        ("2 weeks ago", ["2026-11-11"]),
        ("昨天 and 2026-11-20, then today", ["2026-11-24", "2026-11-20", "2026-11-25"]),
        ("11月20日前发货吗", ["2026-11-20"]),  # not also "20 days ago"
    ],
)
def test_dates(text: str, dates: list[str]) -> None:
    assert ents(text)["dates"] == dates


@pytest.mark.parametrize(
    "text",
    [
        "2026年新款",
        "I have 2 questions",
        "you may 2 things",
        "2024/02/30",
        "13月5日",
        "7天无理由退货",
        "within 7 days",
        "30天后还能退吗",
        "3个月保修",
        "Dec 2026",
    ],
)
def test_no_date(text: str) -> None:
    assert "dates" not in ents(text)


def test_relative_dates_default_to_the_local_today() -> None:
    before = datetime.now().astimezone().date()
    found = extract_entities("today")["dates"]
    after = datetime.now().astimezone().date()
    assert found in ([before.isoformat()], [after.isoformat()])


def test_a_datetime_for_today_counts_as_its_date() -> None:
    assert extract_entities("yesterday", today=datetime(2026, 3, 1, 12, 0, tzinfo=UTC))["dates"] == ["2026-02-28"]


def test_relative_dates_at_the_edge_of_the_calendar() -> None:
    assert extract_entities("3 days ago", today=date.min) == {}
    assert extract_entities("tomorrow", today=date.max) == {}


# --------------------------------------------------------------------------------------------------
# Names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("my name is Ada Lovelace", ["Ada Lovelace"]),
        ("Hi, I'm Ada Lovelace and my order is late", ["Ada Lovelace"]),
        ("I am Emma Wilson", ["Emma Wilson"]),
        ("I’m Ada", ["Ada"]),
        ("name: Emma Wilson", ["Emma Wilson"]),
        ("Name: Ada Lovelace, Phone: 415-555-0142", ["Ada Lovelace"]),
        ("this is Emma Wilson speaking", ["Emma Wilson"]),
        ("my name is Seán O'Brien-Smith", ["Seán O'Brien-Smith"]),
        ("我叫李伟", ["李伟"]),
        ("我是李伟，想退货", ["李伟"]),
        ("你好我是王小明呢", ["王小明"]),
        ("姓名：张三", ["张三"]),
        ("我的名字是欧阳娜娜", ["欧阳娜娜"]),
        ("联系人：李伟 13800138000", ["李伟"]),
        ("我叫Emma Wilson", ["Emma Wilson"]),
    ],
)
def test_names(text: str, names: list[str]) -> None:
    assert ents(text)["names"] == names


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry",
        "I'm Looking for a phone",
        "I'm Chinese",
        "I am Very Disappointed",
        "im fine",
        "my name is ada",  # a name is capitalised
        "This is Great",
        "this is Find X9",
        "I'm in CA",
        "我是来退货的",
        "我是学生",
        "我叫了快递",
        "我是黄金会员",
        "我是华为老用户",
        "我是江苏的",
        "我是李",
    ],
)
def test_no_name(text: str) -> None:
    assert "names" not in ents(text)


# --------------------------------------------------------------------------------------------------
# Zip and last four digits


@pytest.mark.parametrize(
    ("text", "zip_code"),
    [
        ("zip code 94105", "94105"),
        ("my zip is 10001", "10001"),
        ("ZIP: 62704-1234", "62704-1234"),
        ("postcode 518000", "518000"),
        ("邮编 518000", "518000"),
        ("邮政编码：100080", "100080"),
        ("San Francisco, CA 94105", "94105"),
        ("Springfield, IL 62704-1234", "62704-1234"),
    ],
)
def test_zip(text: str, zip_code: str) -> None:
    assert ents(text)["zip"] == zip_code


@pytest.mark.parametrize("text", ["94105", "I have 10001 reasons", "518000", "ca 94105", "zip 1234"])
def test_no_zip_without_context(text: str) -> None:
    assert "zip" not in ents(text)


@pytest.mark.parametrize(
    "text",
    [
        "last four digits 4242",
        "the last 4 digits of my card are 4242",
        "card ending in 4242",
        "visa ending 4242",
        "尾号 4242",
        "手机尾号是4242",
        "卡号后四位：4242",
    ],
)
def test_last4(text: str) -> None:
    result = ents(text)
    assert result["last4"] == "4242"
    assert "amounts" not in result and "dates" not in result


def test_no_last4_without_context() -> None:
    assert "last4" not in ents("4242")
    assert "last4" not in ents("the last 4 months I paid 1234")


# --------------------------------------------------------------------------------------------------
# Whole messages


def test_full_width_input_is_normalised() -> None:
    result = ents(
        "订单号：＃Ｗ１２３４５６７，手机１３８００１３８０００，"  # full-width digits, letters, ＃ and ：
        "ＦＩＮＤ　Ｘ９，￥３９９９，邮编５１８０００"  # and an ideographic space
    )
    assert result == {
        "order_ids": ["#W1234567"],
        "products": ["Find X9"],
        "phone": "13800138000",
        "amounts": [money(3999, "CNY")],
        "zip": "518000",
    }


def test_mixed_chinese_english_message() -> None:
    result = ents(
        "你好 👋 I'm Emma Wilson，订单 #W1234567 的 X9 星野黑 12+256 昨天到了，"
        "but the screen is broken。快递单号 SF1234567890，我的电话 +1 415 555 0142，"
        "email emma.wilson@example.com，想退 ¥3999"
    )
    assert result == {
        "order_ids": ["#W1234567"],
        "tracking_numbers": ["SF1234567890"],
        "products": ["Find X9"],
        "options": {"color": "星野黑", "storage": "12GB+256GB"},
        "phone": "+14155550142",
        "email": "emma.wilson@example.com",
        "amounts": [money(3999, "CNY")],
        "dates": ["2026-11-24"],
        "names": ["Emma Wilson"],
    }


def test_verification_message() -> None:
    result = ents("Name: Ada Lovelace, zip 10001, order #T0000001, card ending in 1234")
    assert result == {"order_ids": ["#T0000001"], "names": ["Ada Lovelace"], "zip": "10001", "last4": "1234"}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hello",
        "I have 2 questions",
        "你好，在吗？",
        "Can I return it within 7 days?",
        "这款手机支持5G吗",
        "Thanks a lot! 😀😀",
        "What is the return policy for phones bought in 2025?",
    ],
)
def test_plain_sentences_have_no_entities(text: str) -> None:
    assert ents(text) == {}


def test_only_found_keys_are_returned_and_json_serialisable() -> None:
    result = ents(
        f"order #W1234567 SF1234567890 X9 黑色 256GB size M 13800138000 a@example.com {VALID_IMEI} ¥3999 "
        "2026-11-20 my name is Ada Lovelace zip 10001 尾号 4242"
    )
    assert set(result) == {
        "order_ids",
        "tracking_numbers",
        "products",
        "options",
        "phone",
        "email",
        "imei",
        "amounts",
        "dates",
        "names",
        "zip",
        "last4",
    }
    assert json.loads(json.dumps(result, ensure_ascii=False)) == result


# --------------------------------------------------------------------------------------------------
# Robustness and speed


@pytest.mark.parametrize(
    "junk",
    [
        "a" * 10_000,
        "1" * 10_000,
        "1 " * 5_000,
        "a@" * 5_000,
        "x@" + "a." * 5_000,
        "12+" * 3_300,
        "X9" * 5_000,
        "订单" * 5_000,
        "¥" * 10_000,
        "I'm Ada " * 1_250,
        "\x00\xff\ud800\U0010ffff" * 2_500,
        "".join(chr(i % 0x3000 + 1) for i in range(10_000)),
    ],
)
def test_long_and_junk_input_is_handled(junk: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="agents.intents.entities"):
        result = ents(junk)
    assert isinstance(result, dict)
    json.dumps(result)
    assert not caplog.records


def test_random_input_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    rng = random.Random(20261125)
    alphabet = "0123456789 -+#@.,:/年月日元万千块¥$ABCDWSFZYTxX9订单号快递尾号邮编我叫是I'm 黑白色GBsize MLé😀\n\t"
    with caplog.at_level(logging.ERROR, logger="agents.intents.entities"):
        for _ in range(300):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
            result = ents(text)
            json.dumps(result)
        for _ in range(50):
            text = "".join(chr(rng.randrange(0, 0x110000)) for _ in range(rng.randrange(0, 300)))
            json.dumps(ents(text))
    assert not caplog.records


def test_non_text_input_gives_nothing() -> None:
    assert extract_entities(None) == {}  # type: ignore[arg-type]
    assert extract_entities(12345) == {}  # type: ignore[arg-type]
    assert extract_entities(b"order W1234567") == {"order_ids": ["#W1234567"]}  # type: ignore[arg-type]
    assert extract_entities(b"\xff\xfe\x00") == {}  # type: ignore[arg-type]
    assert extract_entities("X9", catalogue=None) == {}  # type: ignore[arg-type]


def test_very_long_text_is_cut_not_rejected() -> None:
    text = "order #W1234567 " + "blah " * 10_000
    assert ents(text)["order_ids"] == ["#W1234567"]
