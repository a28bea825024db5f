"""Replacement items grounded in the catalogue: only what the customer asked to change (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.workflows.variants import Clarify, match_replacement, wanted_options


def _variant(item_id: str, available: bool = True, **options: str) -> dict[str, Any]:
    return {"item_id": item_id, "options": {k.replace("_", " "): v for k, v in options.items()}, "available": available}


LAMPS = [
    _variant("L1", color="black", brightness="60W equivalent", connectivity="none"),
    _variant("L2", color="black", brightness="75W equivalent", connectivity="Wi-Fi"),
    _variant("L3", color="white", brightness="75W equivalent", connectivity="Wi-Fi"),
    _variant("L4", False, color="black", brightness="75W equivalent", connectivity="none"),
    _variant("L5", color="white", brightness="60W equivalent", connectivity="none"),
    _variant("L6", color="rose gold", brightness="60W equivalent", connectivity="none"),
]
LAMP = {"item_id": "L1", "name": "Desk Lamp", "options": LAMPS[0]["options"]}


@pytest.mark.parametrize(
    "text",
    [
        "for one with brightness 75W equivalent, connectivity Wi-Fi (other options unchanged)",
        "the 75W equivalent one with Wi-Fi please",
        "switch it from 60W equivalent to 75W equivalent and Wi-Fi, same colour",
        "brightness: 75W equivalent; connectivity: Wi-Fi",
    ],
)
def test_only_the_changed_options_are_named_and_the_rest_stays(text: str) -> None:
    assert match_replacement(text, LAMP, LAMPS) == "L2"


def test_same_but_in_another_colour() -> None:
    assert match_replacement("same lamp but in white", LAMP, LAMPS) == "L5"


def test_a_longer_value_is_not_also_the_shorter_one_inside_it() -> None:
    assert wanted_options("in rose gold please", LAMP["options"], LAMPS) == {"color": "rose gold"}


@pytest.mark.parametrize(
    "text",
    [
        "a brand-new one with exactly the same options",
        "just a replacement, identical",
        "the exact same item again",
        "the same one, brand new",
        "another unit of the same",
        "同款同配置换个新的",
        "another one just like it",
        "one just like the one I have",
        "换个一样的新的",
        "this one flickers, just send me a fresh unit of it",
        "灯不亮了，麻烦给我寄个全新的，配置都跟现在这个一样",
        "规格啥的都不动，再来一个新的就好",
    ],
)
def test_exactly_the_same_options_is_the_same_variant(text: str) -> None:
    assert match_replacement(text, LAMP, LAMPS) == "L1"


@pytest.mark.parametrize(
    "text",
    ["I want to change my lamp", "black please", "same colour", "same lamp but a brighter one", "同款，换个更亮的吧"],
)
def test_nothing_to_change_is_no_answer_never_a_no_op(text: str) -> None:
    assert match_replacement(text, LAMP, LAMPS) is None


def test_an_unavailable_exact_match_offers_only_available_versions() -> None:
    match = match_replacement("75W equivalent, keep the rest", LAMP, LAMPS)

    assert isinstance(match, Clarify)
    assert match.choices == (
        "color black, brightness 75W equivalent, connectivity Wi-Fi",
        "color white, brightness 75W equivalent, connectivity Wi-Fi",
    )
    assert "not available" in match.said("en") and "目前没有货" in match.said("zh")


def test_values_that_exist_are_named_when_nothing_available_fits() -> None:
    gold = [*LAMPS, _variant("L7", False, color="gold", brightness="60W equivalent", connectivity="none")]

    match = match_replacement("in gold", LAMP, gold)

    assert isinstance(match, Clarify) and match.choices == ("color black", "color rose gold", "color white")


def test_a_value_that_is_a_common_word_needs_its_option_name() -> None:
    wifi = {"item_id": "L2", "name": "Desk Lamp", "options": LAMPS[1]["options"]}

    assert isinstance(match_replacement("the one with connectivity none", wifi, LAMPS), Clarify)  # L4 is sold out
    assert wanted_options("no thanks", wifi["options"], LAMPS) == {}
    assert wanted_options("without connectivity", wifi["options"], LAMPS) == {"connectivity": "none"}
    assert wanted_options("none for the connectivity", wifi["options"], LAMPS) == {"connectivity": "none"}
    assert wanted_options("none (connectivity)", wifi["options"], LAMPS) == {"connectivity": "none"}
    assert wanted_options('connectivity = "none"', wifi["options"], LAMPS) == {"connectivity": "none"}
    assert wanted_options('brightness => 60W equivalent, connectivity => "none"', wifi["options"], LAMPS) == {
        "brightness": "60w equivalent",
        "connectivity": "none",
    }


def test_chinese_option_spellings_count_as_their_option() -> None:
    phones = [
        {
            "item_id": "P1",
            "options": {"color": "Star Black", "color_zh": "星野黑", "storage": "256GB"},
            "available": True,
        },
        {
            "item_id": "P2",
            "options": {"color": "Ice Blue", "color_zh": "冰川蓝", "storage": "256GB"},
            "available": True,
        },
        {
            "item_id": "P3",
            "options": {"color": "Ice Blue", "color_zh": "冰川蓝", "storage": "512GB"},
            "available": True,
        },
    ]
    phone = {"item_id": "P1", "name": "Find X9", "options": phones[0]["options"]}

    assert match_replacement("其他配置不变，换成冰川蓝", phone, phones) == "P2"


def test_a_scent_family_said_in_chinese_is_read_as_its_value() -> None:
    perfumes = [
        {"item_id": f"S{k}", "options": {"scent family": scent, "size": "50ml", "gender": "men"}, "available": True}
        for k, scent in enumerate(["woody", "fresh", "oriental"])
    ]
    current = {"scent family": "woody", "size": "50ml", "gender": "women"}

    assert wanted_options("换成男款，清香型的", current, perfumes) == {"gender": "men", "scent family": "fresh"}
    assert wanted_options("要东方调、男士的", current, perfumes) == {"gender": "men", "scent family": "oriental"}


def test_one_word_of_a_value_no_other_value_has_stands_for_it() -> None:
    variants = [
        {"item_id": f"{c}-{col}", "options": {"compatibility": c, "color": col}, "available": True}
        for c in ("Google Assistant", "Amazon Alexa", "Apple HomeKit")
        for col in ("white", "black", "stainless steel")
    ]
    current = {"compatibility": "Apple HomeKit", "color": "black"}

    assert wanted_options("to work with Alexa rather than HomeKit", current, variants) == {
        "compatibility": "amazon alexa"
    }
    assert wanted_options("the stainless one", current, variants) == {"color": "stainless steel"}


def test_exactly_the_same_options_out_of_stock_is_said_before_anything_is_confirmed() -> None:
    item = {"item_id": "w1", "name": "Smart Watch", "options": {"color": "black"}}
    variants = [
        {"item_id": "w1", "options": {"color": "black"}, "available": False},
        {"item_id": "w2", "options": {"color": "gold"}, "available": True},
    ]

    answer = match_replacement("swap it for an identical new one", item, variants)

    assert isinstance(answer, Clarify)
    assert "not available" in answer.said("en") and "color gold" in answer.said("en") and "没有货" in answer.said("zh")


@pytest.mark.parametrize(
    ("text", "same"),
    [
        ("just the Smart Watch.", False),
        ("就Smart Watch。", False),
        ("Smart Watch please", False),
        ("send me an identical Smart Watch, mine stopped working", True),
        ("Smart Watch换个一模一样的新的", True),
    ],
)
def test_naming_the_item_is_not_asking_for_the_same_one_again(text: str, same: bool) -> None:
    """ "Just the watch" answers which item; only words for an identical one ask for the same version."""
    item = {"item_id": "w1", "name": "Smart Watch", "options": {"color": "black"}}
    variants = [
        {"item_id": "w1", "options": {"color": "black"}, "available": True},
        {"item_id": "w2", "options": {"color": "gold"}, "available": True},
    ]

    assert match_replacement(text, item, variants) == ("w1" if same else None)


def test_an_option_named_after_its_values_is_not_a_value() -> None:
    variants = [
        {"item_id": f"v-{b}-{t}", "options": {"bagged/bagless": b, "type": t}, "available": True}
        for b in ("bagged", "bagless")
        for t in ("robotic", "canister")
    ]
    current = {"bagged/bagless": "bagged", "type": "robotic"}

    assert wanted_options("one with bagged bagged/bagless and canister type", current, variants) == {
        "bagged/bagless": "bagged",
        "type": "canister",
    }


HELMETS = [
    _variant(f"H{size}{color[0]}", size=size, color=color, ventilation="high")
    for size in "SML"
    for color in ("red", "blue")
]
HELMET: dict[str, Any] = {
    "item_id": "HLb",
    "name": "Cycling Helmet",
    "options": {"size": "L", "color": "blue", "ventilation": "high"},
}


@pytest.mark.parametrize(
    "text",
    [
        "size: M",
        "Size: M, color: red",
        "the M size",
        "M (size)",
        "M for the size",
        "a red, M, high one",
        "in M please",
        "into M but keep the colour",
        "size of M",
        "size set to M, color set to red",
        "the version with ventilation of high / size of M",
        "which should become simply M, red",  # first in a list
        "but a red M instead",
    ],
)
def test_a_size_letter_counts_beside_its_option_name_or_alone_in_a_list_of_values(text: str) -> None:
    assert wanted_options(text, HELMET["options"], HELMETS)["size"] == "m"


@pytest.mark.parametrize("text", ["it's blue", "yes, same as before", "I'm fine with blue", "I'm, uh, fine with blue"])
def test_a_letter_inside_other_words_is_no_size(text: str) -> None:
    assert "size" not in wanted_options(text, HELMET["options"], HELMETS)


@pytest.mark.parametrize(
    "text",
    [
        "a new one with color set to red, battery life set to 20 hours and water resistance set to no",
        "color selected as red with water resistance picked as no with battery life selection 20 hours",
        "water resistance would be no as well as 20 hours (for battery life) as well as red (for color)",
        "the color should be red, battery life needs to be 20 hours and water resistance has to be no",
    ],
)
def test_a_value_said_as_set_to_or_of_its_option_counts(text: str) -> None:
    speakers = [
        _variant("S1", color="black", battery_life="10 hours", water_resistance="yes"),
        _variant("S2", color="red", battery_life="20 hours", water_resistance="no"),
    ]
    black = {"item_id": "S1", "name": "Bluetooth Speaker", "options": speakers[0]["options"]}

    assert match_replacement(text, black, speakers) == "S2"
    assert wanted_options("water resistance of no", black["options"], speakers) == {"water resistance": "no"}


BOARDS = [
    _variant("B1", design="plain", length="34 inch", deck_material="plastic"),
    _variant("B2", design="graphic", length="28 inch", deck_material="bamboo"),
    _variant("B3", design="graphic", length="34 inch", deck_material="bamboo"),
]
BOARD = {"item_id": "B1", "name": "Skateboard", "options": BOARDS[0]["options"]}


def test_the_one_variant_that_changes_an_option_not_named_is_offered_never_proposed() -> None:
    # No plain 28 inch bamboo board exists: the only one with the options named has another design, which the
    # customer did not ask for, so it is offered with every option shown and nothing is chosen.
    match = match_replacement("deck material of bamboo and length of 28 inch instead", BOARD, BOARDS)

    assert isinstance(match, Clarify)
    assert match.offered == "B2"
    assert match.choices == ("design graphic, length 28 inch, deck material bamboo",)
    assert "changes its other options too" in match.said("en")
    assert "其他规格也会跟着变" in match.said("zh")


def test_naming_the_offered_versions_other_option_too_chooses_it() -> None:
    asked = {"deck material": "bamboo", "length": "28 inch"}

    assert match_replacement("ok, the graphic design then", BOARD, BOARDS, asked) == "B2"


SUNGLASSES = [
    _variant("S1", lens_color="brown", frame_color="black", frame_material="plastic"),
    _variant("S2", lens_color="brown", frame_color="brown", frame_material="plastic"),
    _variant("S3", lens_color="black", frame_color="silver", frame_material="metal"),
]


@pytest.mark.parametrize(
    "text",
    [
        "(brown (lens color) & plastic (frame material) & black (frame color)) into the one with brown for the "
        "frame color",
        "lens color brown, frame color black -> frame color: brown",
        "the brown lens black frame pair, I want the brown frame instead",
        # in a list the next option's name is not this value's: "frame color => black + lens color => brown"
        "frame color => black + lens color => brown, going to lens color, which is brown / frame color, which is brown",
        "镜框颜色 frame color => black + lens color => brown，换成 frame color: brown",
    ],
)
def test_a_value_several_options_share_belongs_to_the_option_named_beside_it(text: str) -> None:
    item = {"item_id": "S1", "name": "Sunglasses", "options": SUNGLASSES[0]["options"]}

    assert match_replacement(text, item, SUNGLASSES) == "S2"


@pytest.mark.parametrize(
    "text",
    [
        # said without its option, a shared value describes the item as it is ...
        "the Sunglasses I got in plastic black polarized brown, replacing it with a version with the frame color brown",
        # ... and when nothing would change, it is the option that is not that value yet
        "I'd like the same thing but brown",
        "同款，换成 brown",
    ],
)
def test_a_shared_value_without_its_option_is_read_as_a_change(text: str) -> None:
    item = {"item_id": "S1", "name": "Sunglasses", "options": SUNGLASSES[0]["options"]}

    assert match_replacement(text, item, SUNGLASSES) == "S2"


@pytest.mark.parametrize(
    "text",
    [
        "whichever has water resistance option no, 20 hours in terms of battery life, red in terms of color",
        "red for its color, 20 hours for its battery life, water resistance setting: no",
        "red as the color option & 20 hours as the battery life option & water resistance in no",
        "red (that's the color) / 20 hours (that's the battery life) / no (that's the water resistance)",
        "red (that one's the color), 20 hours (that one is the battery life), no (that one's the water resistance)",
        "颜色选红色，续航 20 hours，water resistance option no",
        # a value quoted, or after an arrow: 'water resistance = "no"', "water resistance => no"
        'color = "red", battery life = "20 hours", water resistance = "no"',
        "color => red / battery life => 20 hours / water resistance => no",
        "颜色 = “红色”，续航 20 hours，water resistance: 'no'",
    ],
)
def test_an_option_and_its_value_are_linked_the_ways_shoppers_write_them(text: str) -> None:
    speakers = [
        _variant("S1", color="black", battery_life="10 hours", water_resistance="yes"),
        _variant("S2", color="red", battery_life="20 hours", water_resistance="no"),
        _variant("S3", color="red", battery_life="20 hours", water_resistance="yes"),
    ]
    black = {"item_id": "S1", "name": "Bluetooth Speaker", "options": speakers[0]["options"]}
    speakers[1]["options"]["color_zh"] = "红色"

    assert match_replacement(text, black, speakers) == "S2"


@pytest.mark.parametrize("text", ["S for its size, red in terms of color", "one that comes in red, S in exchange"])
def test_a_size_letter_for_its_option_or_last_before_in_exchange_counts(text: str) -> None:
    assert wanted_options(text, HELMET["options"], HELMETS) == {"size": "s", "color": "red"}


def test_a_shared_value_with_its_option_named_after_it_in_a_phrase() -> None:
    item = {"item_id": "S1", "name": "Sunglasses", "options": SUNGLASSES[0]["options"]}

    assert match_replacement("brown in terms of frame color please", item, SUNGLASSES) == "S2"
    assert match_replacement("brown (that's the frame color)", item, SUNGLASSES) == "S2"


def test_an_answer_to_not_available_keeps_the_other_options_asked_for() -> None:
    def speaker(item_id: str, available: bool, color: str, zh: str, water: str) -> dict[str, Any]:
        options = {"color": color, "color_zh": zh, "battery life": "10 hours", "water resistance": water}
        return {"item_id": item_id, "options": options, "available": available}

    speakers = [
        speaker("S1", True, "red", "红色", "no"),
        speaker("S2", True, "blue", "蓝色", "yes"),
        speaker("S3", True, "blue", "蓝色", "no"),
        speaker("S4", False, "black", "黑色", "yes"),
    ]
    red = {"item_id": "S1", "name": "Bluetooth Speaker", "options": speakers[0]["options"]}

    refused = match_replacement("color black, water resistance yes", red, speakers)

    assert isinstance(refused, Clarify) and refused.asked == {"color": "black", "water resistance": "yes"}
    assert match_replacement("the color is actually blue", red, speakers, refused.asked) == "S2"
    assert match_replacement("那就蓝色吧", red, speakers, refused.asked) == "S2"
    # an answer that names nothing is not read as the options asked before
    assert match_replacement("hmm", red, speakers, refused.asked) is None


PUZZLES = [
    _variant("P1", pieces="500", theme="art"),
    _variant("P2", pieces="1000", theme="art"),
    _variant("P3", pieces="1000", theme="animals"),
    _variant("P4", pieces="1500", theme="art"),
]
PUZZLE = {"item_id": "P1", "name": "Jigsaw Puzzle", "options": PUZZLES[0]["options"]}
LEVELLED_PUZZLES = [
    _variant("D1", pieces="500", difficulty_level="beginner"),
    _variant("D2", pieces="500", difficulty_level="intermediate"),
    _variant("D3", pieces="1000", difficulty_level="expert"),
]
HARD_PUZZLE = {"item_id": "D3", "name": "Jigsaw Puzzle", "options": LEVELLED_PUZZLES[2]["options"]}
MAKEUP_KITS = [
    _variant("M1", skin_tone="light", brand="Brand B"),
    _variant("M2", skin_tone="medium", brand="Brand A"),
    _variant("M3", skin_tone="dark", brand="Brand A"),
]
LIGHT_KIT = {"item_id": "M1", "name": "Makeup Kit", "options": MAKEUP_KITS[0]["options"]}
SHIRTS = [
    _variant("S1", color="red", size="M"),
    _variant("S2", color="black", size="M"),
    _variant("S3", color="black", size="L"),
    _variant("S4", color="black", size="XL"),
]
SHIRT = {"item_id": "S1", "name": "T-Shirt", "options": SHIRTS[0]["options"]}


@pytest.mark.parametrize(
    ("text", "item", "variants", "expected"),
    [
        ("换成1000片的，主题不变", PUZZLE, PUZZLES, "P2"),
        ("要1000片动物的", PUZZLE, PUZZLES, "P3"),
        ("换成黑色的，尺码不变", SHIRT, SHIRTS, "S2"),
        ("黑的，L码", SHIRT, SHIRTS, "S3"),
        ("想要黑色加大码", SHIRT, SHIRTS, "S4"),
        ("改成 black 的，size L", SHIRT, SHIRTS, "S3"),
        # a value said with its option's name after it
        ("换成黑这个颜色，L这个尺码", SHIRT, SHIRTS, "S3"),
        ("要1000这个片数，动物那种款式", PUZZLE, PUZZLES, "P3"),
        # a number written in characters, whole or short: not the 500 inside 一千五百
        ("片数换成一千五百片的", PUZZLE, PUZZLES, "P4"),
        ("换个一千五片的", PUZZLE, PUZZLES, "P4"),
        ("要一千片 动物的", PUZZLE, PUZZLES, "P3"),
        # a puzzle's difficulty in the words a shopper uses
        ("换成500片 中等难度的就行", HARD_PUZZLE, LEVELLED_PUZZLES, "D2"),
        ("500片，简单一点的", HARD_PUZZLE, LEVELLED_PUZZLES, "D1"),
        # a skin tone said without its option's name
        ("换成Brand A 中等的", LIGHT_KIT, MAKEUP_KITS, "M2"),
    ],
)
def test_option_values_said_in_chinese_find_the_english_catalogues_variant(
    text: str, item: dict[str, Any], variants: list[dict[str, Any]], expected: str
) -> None:
    assert match_replacement(text, item, variants) == expected


HELMETS_ZH = [
    _variant("C1", size="S", ventilation="low", color="blue"),
    _variant("C2", size="M", ventilation="high", color="red"),
    _variant("C3", size="M", ventilation="medium", color="red"),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("size那栏是M号、通风那栏是高、color那栏是红色的", {"size": "m", "ventilation": "high", "color": "red"}),
        ("透气性选的中等，颜色选的红", {"ventilation": "medium", "color": "red"}),
        ("我要高的", {}),  # 高 alone names no option
        ("红的那个高一点", {"color": "red"}),
        ("通风定的是高，颜色用的红", {"ventilation": "high", "color": "red"}),
        ("尺寸挑M，通风挑高那种", {"size": "m", "ventilation": "high"}),
        ("给我换配置为M码 高档 红的的", {"size": "m", "ventilation": "high", "color": "red"}),
        ("颜色那项红+通风那项高", {"color": "red", "ventilation": "high"}),
        ("通风这项中等，尺码这项M", {"ventilation": "medium", "size": "m"}),
        # the value set in brackets after its name
        ("颜色〈红〉、通风性【中等】", {"color": "red", "ventilation": "medium"}),
        # a size letter with 号 is a size, in a list too
        ("红的, high, M号的", {"color": "red", "ventilation": "high", "size": "m"}),
    ],
)
def test_a_short_chinese_value_counts_only_right_after_its_option_name(text: str, expected: dict[str, str]) -> None:
    assert wanted_options(text, HELMETS_ZH[0]["options"], HELMETS_ZH) == expected


SHELVES = [
    _variant("SH1", color="white", height="5 ft", material="glass"),
    _variant("SH2", color="black", height="3 ft", material="glass"),
    _variant("SH3", False, color="white", height="3 ft", material="glass"),
]
SHELF = {"item_id": "SH1", "name": "Bookshelf", "options": SHELVES[0]["options"]}


@pytest.mark.parametrize(
    "text",
    ["Bookshelf（5 ft, 白, 玻璃）换成黑 3英尺的，材料保持原样", "换成黑, 3英尺的", "要黑 3 ft", "换成黑, 3呎那种"],
)
def test_a_colour_character_alone_in_a_list_is_that_colour(text: str) -> None:
    assert match_replacement(text, SHELF, SHELVES) == "SH2"


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("要配色那项纯黑/高度那项3 ft那版", "SH2"),
        ("换成曜石黑、3英尺的", "SH2"),
        ("change it to the matte black 3 ft one", "SH2"),
    ],
)
def test_a_colour_said_with_its_shade_is_that_colour(text: str, version: str) -> None:
    """纯黑, 曜石黑, "matte black": a shade of the catalogue's colour names it."""
    assert match_replacement(text, SHELF, SHELVES) == version


DUMBBELLS = [
    _variant("D1", weight="30-50 lbs", material="rubber"),
    _variant("D2", weight="30-50 lbs", material="iron"),
]
LUGGAGE = [_variant("L1", size="3-piece", material="hardshell"), _variant("L2", size="3-piece", material="softshell")]


@pytest.mark.parametrize(
    ("text", "item", "variants", "expected"),
    [
        ("材质换成铁", {"item_id": "D1", "name": "Dumbbell Set", "options": DUMBBELLS[0]["options"]}, DUMBBELLS, "D2"),
        ("换成软箱", {"item_id": "L1", "name": "Luggage Set", "options": LUGGAGE[0]["options"]}, LUGGAGE, "L2"),
    ],
)
def test_a_material_said_as_chinese_shoppers_say_it_finds_its_variant(
    text: str, item: dict[str, Any], variants: list[dict[str, Any]], expected: str
) -> None:
    assert match_replacement(text, item, variants) == expected


@pytest.mark.parametrize("text", ["黑白灰都行", "黑科技款"])
def test_a_colour_character_inside_other_words_is_no_colour(text: str) -> None:
    assert "color" not in wanted_options(text, SHELF["options"], SHELVES)


def test_the_one_available_version_beside_an_unavailable_exact_one_is_taken_on_a_yes() -> None:
    match = match_replacement("the 3 ft one", SHELF, SHELVES)  # white 3 ft is out of stock; black 3 ft is not

    assert isinstance(match, Clarify) and match.offered == "SH2"


def test_a_chinese_word_two_values_of_the_product_share_says_neither() -> None:
    # 灰色 is both grey and gray here: the shopper has to say which, nothing is guessed
    greys = [_variant("G1", color="black"), _variant("G2", color="grey"), _variant("G3", color="gray")]
    assert wanted_options("换成灰色的", {"color": "black"}, greys) == {}
    assert wanted_options("换成深空灰", {"color": "black"}, [*greys, _variant("G4", color="space grey")]) == {
        "color": "space grey"
    }


SPEAKERS = [
    _variant("B1", color="black", waterproof="no"),
    _variant("B2", color="red", waterproof="no"),
    _variant("B3", color="red", waterproof="yes"),
]
SPEAKER = {"item_id": "B1", "name": "Bluetooth Speaker", "options": SPEAKERS[0]["options"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("防水那一项：不防水，颜色换成红色", "B2"),  # the option's name holds the value's word
        ("换成red的，防水不变", "B2"),  # a value written against Chinese is a word of its own
        ("要红色带防水的", "B3"),
    ],
)
def test_option_values_written_against_chinese_are_read_as_words(text: str, expected: str) -> None:
    assert match_replacement(text, SPEAKER, SPEAKERS) == expected


HELMETS = [
    _variant("H1", size="M", color="black"),
    _variant("H2", size="S", color="black"),
    _variant("H3", size="L", color="red"),
]
HELMET = {"item_id": "H1", "name": "Cycling Helmet", "options": HELMETS[0]["options"]}


@pytest.mark.parametrize(
    "text",
    [
        "尺寸改为「S」，颜色照旧",
        "麻烦换S的，别的不动",
        "尺码那一栏选S，其余不变",
        "Cycling Helmet换成小一号的，尺码是S",
    ],
)
def test_a_size_letter_said_among_chinese_is_the_size(text: str) -> None:
    assert match_replacement(text, HELMET, HELMETS) == "H2"


def test_a_latin_word_among_chinese_is_no_size_letter() -> None:
    assert wanted_options("我是Mike，想问问", HELMET["options"], HELMETS) == {}


@pytest.mark.parametrize(
    ("options", "text", "wanted"),
    [
        ({"capacity": "1000ml"}, "换成红的，1升装的", {"capacity": "1000ml"}),
        ({"resolution": "30MP"}, "分辨率是3000万像素的那款", {"resolution": "30mp"}),
        ({"height": "3 ft"}, "高度要3ft的", {"height": "3 ft"}),
        ({"capacity": "1.5 liters"}, "容积要一升半的", {"capacity": "1.5 liters"}),
        ({"type": "gas"}, "种类：煤气这个", {"type": "gas"}),
    ],
)
def test_chinese_numbers_and_units_name_the_catalogue_value(
    options: dict[str, str], text: str, wanted: dict[str, str]
) -> None:
    (option, value), other = (
        next(iter(options.items())),
        {
            "1000ml": "500ml",
            "30MP": "20MP",
            "3 ft": "5 ft",
            "1.5 liters": "1 liter",
            "gas": "electric",
        },
    )
    current = {option: other[value]}
    variants = [
        {"item_id": "A", "options": current, "available": True},
        {"item_id": "B", "options": {option: value}, "available": True},
    ]

    assert wanted_options(text, current, variants) == wanted


PURIFIERS = [
    _variant("P1", room_size="medium", filter_type="HEPA", features="night mode"),
    _variant("P2", room_size="large", filter_type="HEPA", features="night mode"),
]


@pytest.mark.parametrize("text", ["想换一个大的", "换个大号的", "a large one instead", "the one for a large room"])
def test_a_purifier_said_bigger_is_the_room_size_it_serves(text: str) -> None:
    assert wanted_options(text, PURIFIERS[0]["options"], PURIFIERS) == {"room size": "large"}


SPEAKERS_ZH = [
    _variant("S1", color="black", battery_life="20 hours", water_resistance="no"),
    _variant("S2", color="blue", battery_life="20 hours", water_resistance="no"),
    _variant("S3", color="blue", battery_life="20 hours", water_resistance="yes"),
]


BOOTS_ZH = [
    _variant("B1", size="8", material="leather", waterproof="yes"),
    _variant("B2", size="11", material="leather", waterproof="yes"),
    _variant("B3", size="11", material="leather", waterproof="no"),
]


@pytest.mark.parametrize(
    ("variants", "text", "expected"),
    [
        # 是否 ("whether") is not 是 ("yes"), 有没有 not 有, 不用动 not 不 ("no")
        (SPEAKERS_ZH, "防水等级定的是否，配色选的是黑的，换成蓝色的", {"water resistance": "no", "color": "blue"}),
        (SPEAKERS_ZH, "防水有没有都行，颜色要蓝的", {"color": "blue"}),
        (SPEAKERS_ZH, "防水定的是是，颜色蓝", {"water resistance": "yes", "color": "blue"}),
        # 带 (with) and 不带 (without) beside the option's name
        (SPEAKERS_ZH, "防水等级那项带，颜色换成蓝色", {"water resistance": "yes", "color": "blue"}),
        (SPEAKERS_ZH, "防水等级那项不带，颜色换成蓝色", {"water resistance": "no", "color": "blue"}),
        (SPEAKERS_ZH, "颜色换成蓝色，是否防水不用动", {"color": "blue"}),
        # 防不防水 (waterproof or not) holds 不防水 (not waterproof) as its name, not as a value
        (BOOTS_ZH, "防不防水定的是要，尺码11", {"waterproof": "yes", "size": "11"}),
        (BOOTS_ZH, "尺码11，要不防水的", {"size": "11", "waterproof": "no"}),
    ],
)
def test_words_that_only_look_like_a_value_beside_its_option_name_are_none(
    variants: list[dict[str, Any]], text: str, expected: dict[str, str]
) -> None:
    assert wanted_options(text, variants[0]["options"], variants) == expected


VACUUMS: list[dict[str, Any]] = [
    {"item_id": f"V{k}", "options": {"type": kind, "bagged/bagless": bag}, "available": True}
    for k, (kind, bag) in enumerate([("robotic", "bagged"), ("canister", "bagged"), ("canister", "bagless")])
]


@pytest.mark.parametrize(
    ("text", "bag"),
    [("有无尘袋那项是有尘袋，类型改成canister", "bagged"), ("有无尘袋：无尘袋，类型改成canister", "bagless")],
)
def test_a_value_inside_the_options_own_name_is_not_said(text: str, bag: str) -> None:
    # 有无尘袋 (with or without a dust bag) holds 无尘袋 (bagless) as its name
    wanted = wanted_options(text, VACUUMS[0]["options"], VACUUMS)
    assert wanted == {"bagged/bagless": bag, "type": "canister"}


KEYBOARDS = [
    _variant("K1", switch_type="linear", size="full size"),
    _variant("K2", switch_type="linear", size="80%"),
]


@pytest.mark.parametrize("text", ["换成80%配列的", "要80%的那款", "the 80% one please"])
def test_a_value_that_ends_in_a_sign_is_said_against_chinese_too(text: str) -> None:
    assert wanted_options(text, KEYBOARDS[0]["options"], KEYBOARDS) == {"size": "80%"}


CHAIRS_ZH = [
    _variant("C1", armrest="fixed", color="black"),
    _variant("C2", armrest="none", color="gray"),
]


@pytest.mark.parametrize("text", ["扶手定的是不带，颜色灰的", "颜色灰色，扶手：没有"])
def test_without_beside_its_option_name_is_none(text: str) -> None:
    assert wanted_options(text, CHAIRS_ZH[0]["options"], CHAIRS_ZH) == {"armrest": "none", "color": "gray"}
