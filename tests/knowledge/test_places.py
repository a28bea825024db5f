"""The place a shopper names and the regions a help article lists it under (knowledge.places), and the extract of a
table by region that quotes the row of the shopper's city, zh and en."""

from __future__ import annotations

import pytest

from agents.specialists.knowledge import MAX_ANSWER_CHARS, _extract
from knowledge.places import places_named, region_words, regions_held

DELIVERY_ZH = (
    "普通快递从广州仓发货，下单后 24 小时内出库，节假日顺延，时效从出库之日起计算，以下为各地区的送达时间与运费。"
    + "".join(
        f"地区：{region}，送达时间：{days}，运费：{fee}，备注：偏远乡镇另加 1 天。"
        for region, days, fee in [
            ("广东、广西、海南", "1–2 天", "免运费"),
            ("福建、江西、湖南", "2 天", "¥6"),
            ("江苏、浙江、上海", "2–3 天", "¥8"),
            ("山东、安徽、河南、湖北", "2–3 天", "¥8"),
            ("北京、天津、河北", "2–4 天", "¥10"),
            ("辽宁、吉林、黑龙江", "3–4 天", "¥12"),
            ("四川、重庆、云南、贵州", "3–5 天", "¥12"),
            ("内蒙古、宁夏、青海、甘肃", "4–6 天", "¥15"),
            ("新疆、西藏", "6–10 天", "¥25"),
        ]
    )
)
DELIVERY_EN = (
    "Standard delivery leaves our warehouse the next working day; the times below count from dispatch. "
    + " ".join(
        f"Region: {region}, Standard delivery time: {days}, Delivery fee: {fee}, Note: large items may take a day longer."
        for region, days, fee in [
            ("London", "1 working day", "£2.99"),
            ("England and Wales", "1–2 working days", "£3.99"),
            ("Scotland (mainland, except the Highlands)", "2–3 working days", "£3.99"),
            ("Scottish Highlands", "3–5 working days", "£6.99"),
            ("Northern Ireland", "4–6 working days", "£7.99"),
            ("Channel Islands", "5–7 working days", "£9.99"),
            ("Isle of Man", "5–7 working days", "£9.99"),
        ]
    )
)


@pytest.mark.parametrize(
    ("text", "named", "regions"),
    [
        ("寄到乌鲁木齐普通快递要几天", "乌鲁木齐", ["新疆", "西北"]),
        ("呼和浩特能次日达吗", "呼和浩特", ["内蒙古", "华北"]),
        ("how long does delivery take to Belfast?", "Belfast", ["Northern Ireland"]),
        ("I live in INVERNESS, what do you charge?", "INVERNESS", ["Highlands", "Scotland"]),
        ("do you ship to New York City?", "New York City", ["New York"]),  # the longest name, not "York"
    ],
)
def test_a_named_place_brings_the_regions_it_lies_in(text: str, named: str, regions: list[str]) -> None:
    [place] = places_named(text)

    assert place.name == named
    assert all(region in place.regions for region in regions)


@pytest.mark.parametrize(
    "text",
    [
        "I'm in Yorkshire",  # no "York" inside a longer word
        "do you deliver to the UK?",  # a country is where the regions end
        "Do you ship to Ireland? I'm in Dublin",  # a city of a country with no regions listed
        "能寄到中国大陆以外吗",
        "my name is Charlotte, can I change my order?",  # a person's name that is also a city is not listed
    ],
)
def test_no_region_is_brought_beyond_a_country_or_from_inside_a_word(text: str) -> None:
    assert all(place.name.lower() != "york" for place in places_named(text))
    assert not {"uk", "unit", "kingdom", "ireland", "中国", "大陆"} & set(region_words(text))


def test_a_city_is_said_by_a_passage_that_names_every_word_of_its_region() -> None:
    held = regions_held("how long does delivery take to Belfast?")

    assert frozenset({"northern", "ireland"}) in held["belfast"]


@pytest.mark.parametrize(
    ("question", "table", "quoted"),
    [
        ("寄到乌鲁木齐普通快递要几天", DELIVERY_ZH, "新疆、西藏，送达时间：6–10 天"),
        (
            "how long does standard delivery take to Belfast?",
            DELIVERY_EN,
            "Northern Ireland, Standard delivery time: 4–6",
        ),
        ("what's the delivery charge to Inverness?", DELIVERY_EN, "Scottish Highlands, Standard delivery time: 3–5"),
    ],
)
def test_the_extract_of_a_table_by_region_quotes_the_row_of_the_city_named(
    question: str, table: str, quoted: str
) -> None:
    assert len(table) > MAX_ANSWER_CHARS  # too long to quote whole

    assert quoted in _extract(question, table)
