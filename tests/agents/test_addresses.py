"""Addresses inside customers' sentences, read field by field (en: usaddress, zh: cpca)."""

from __future__ import annotations

import pytest

from agents.workflows.addresses import address_fragment, address_lines, parse_address


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Can you update the delivery address for order #W2912646? The new address is 953 Park Avenue, Apt 4B, "
            "Seattle, WA 98101, USA",
            ("953 Park Avenue", "Apt 4B", "Seattle", "WA", "USA", "98101"),
        ),
        (
            "please ship it to 445 Maple Drive, Suite 394, Fort Worth, Texas 76165 instead, thanks!",
            ("445 Maple Drive", "Suite 394", "Fort Worth", "TX", "USA", "76165"),
        ),
        (
            "12 Oak St, Springfield, IL, 62704, United States",
            ("12 Oak St", "", "Springfield", "IL", "USA", "62704"),
        ),
        (
            "Street 12 Main St, city Springfield, state IL, zip 62704, USA",
            ("12 Main St", "", "Springfield", "IL", "USA", "62704"),
        ),
        # the zip before the city; the country before the zip; the street said last
        (
            "Could it be sent to 41 Birch Road Unit 3, 97204 Portland, OR, USA?",
            ("41 Birch Road", "Unit 3", "Portland", "OR", "USA", "97204"),
        ),
        (
            "ship to 7 Quarry Lane, Suite 12, Salt Lake City, UT, USA 84101 instead please",
            ("7 Quarry Lane", "Suite 12", "Salt Lake City", "UT", "USA", "84101"),
        ),
        (
            "My sister lives in Tucson, AZ 85701, USA, street address 88 Willow Street, Apt 2.",
            ("88 Willow Street", "Apt 2", "Tucson", "AZ", "USA", "85701"),
        ),
        (
            "It should go to 320 Cedar Avenue Unit 5 in Milwaukee, WI 53207.",
            ("320 Cedar Avenue", "Unit 5", "Milwaukee", "WI", "USA", "53207"),
        ),
        (
            "Street: 77 Pine Road, Apt 12; City: Boise; State: ID; Zip: 83702",
            ("77 Pine Road", "Apt 12", "Boise", "ID", "USA", "83702"),
        ),
        (
            "send it to 9 Elm Court (Suite 40), Reno, NV, 89501, USA",
            ("9 Elm Court", "Suite 40", "Reno", "NV", "USA", "89501"),
        ),
        (
            "Can you change where it goes? New address: 690 Broadway (Suite 737), Indianapolis, IN, 46226, USA.",
            ("690 Broadway", "Suite 737", "Indianapolis", "IN", "USA", "46226"),
        ),
        (
            "Please ship #W6689278 to this address: street: 5 Cedar Avenue, Suite 9; city: Tulsa; state: OK; "
            "zip: 74103; country: USA. Plus: my other order is still pending",
            ("5 Cedar Avenue", "Suite 9", "Tulsa", "OK", "USA", "74103"),
        ),
        (
            "Please update my pending order's shipping address to 558 Cedar Street, Suite 298, Houston, TX, USA, "
            "postal code 77158.",
            ("558 Cedar Street", "Suite 298", "Houston", "TX", "USA", "77158"),
        ),
        (
            "It should be street 386 Cedar Avenue, Suite 683, city Columbus, state OH, zip code 43119, USA.",
            ("386 Cedar Avenue", "Suite 683", "Columbus", "OH", "USA", "43119"),
        ),
        (
            "street: 386 Cedar Avenue / unit: Suite 683 / city: Columbus / state: OH / zip: 43119",
            ("386 Cedar Avenue", "Suite 683", "Columbus", "OH", "USA", "43119"),
        ),
        (
            "Kindly deliver order #W4860251 at the new address: 921 Park Avenue, Suite 892 - Chicago, IL, USA - zip: 60612",
            ("921 Park Avenue", "Suite 892", "Chicago", "IL", "USA", "60612"),
        ),
        (
            "my new place is USA, NY, New York, 953 Park Avenue, Suite 613, zip 10064 - can #W4866703 go there?",
            ("953 Park Avenue", "Suite 613", "New York", "NY", "USA", "10064"),
        ),
        (
            # the unit first, joined to its street by "at"; the zip before the state
            "I need my pending order shipped somewhere else: Suite 127 at 137 Willow Lane, Charlotte, 28249 NC, USA.",
            ("137 Willow Lane", "Suite 127", "Charlotte", "NC", "USA", "28249"),
        ),
        (
            # the largest part first with the zip after the city, and a city named like a state
            "My new place is USA, DC, Washington 20353, 584 Sunset Drive, Suite 270. Could #W5782623 ship there?",
            ("584 Sunset Drive", "Suite 270", "Washington", "DC", "USA", "20353"),
        ),
        (
            "12 State Street, Apt 4, Carson City, NV 89701",  # field names inside names stay
            ("12 State Street", "Apt 4", "Carson City", "NV", "USA", "89701"),
        ),
        # fields named by a sentence; the address going on after a full stop; the zip before the state;
        # the zip first and the street last
        (
            "Please use 60 Birch Road, Apt 7. City is Boise, state ID, zip 83702.",
            ("60 Birch Road", "Apt 7", "Boise", "ID", "USA", "83702"),
        ),
        (
            "move #W1234567 to 9 Harbor Way, Unit 3. It's in Portland, OR 97201 please",
            ("9 Harbor Way", "Unit 3", "Portland", "OR", "USA", "97201"),
        ),
        (
            "the new address: 5 Lake Street, Suite 20, Madison 53703, WI, USA",
            ("5 Lake Street", "Suite 20", "Madison", "WI", "USA", "53703"),
        ),
        (
            "send it to 33101 Miami, FL - 400 Ocean Drive, Apt 9, not the old place",
            ("400 Ocean Drive", "Apt 9", "Miami", "FL", "USA", "33101"),
        ),
    ],
)
def test_an_english_address_inside_a_sentence_is_read_field_by_field(text: str, expected: tuple[str, ...]) -> None:
    address = parse_address(text, default_country="USA")

    assert address is not None
    assert tuple(address[k] for k in ("address1", "address2", "city", "state", "country", "zip")) == expected


@pytest.mark.parametrize(
    ("text", "province", "city", "street"),
    [
        ("请把地址改成广东省深圳市南山区科技园科苑路15号", "广东省", "深圳市", "南山区科技园科苑路15号"),
        ("改寄到北京市朝阳区建国路88号2号楼1801，谢谢", "北京市", "北京市", "朝阳区建国路88号2号楼1801"),
    ],
)
def test_a_chinese_address_is_read_by_province_city_and_district(
    text: str, province: str, city: str, street: str
) -> None:
    address = parse_address(text)

    assert address is not None
    assert (address["state"], address["city"], address["address1"], address["country"]) == (
        province,
        city,
        street,
        "中国",
    )


@pytest.mark.parametrize(
    "text",
    [
        "That's the address of my order #W3700848",
        "change the address please",
        "Seattle",
        "我想改一下地址",
        "上海",
    ],
)
def test_a_sentence_without_a_whole_address_is_not_one(text: str) -> None:
    assert parse_address(text, default_country="USA") is None


def test_an_address_without_a_country_takes_the_default() -> None:
    address = parse_address("my new address is 77 Elm Road, Boston, MA 02110", default_country="USA")

    assert address is not None and address["country"] == "USA"


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "street: 1 Main St; city: Austin; state: TX; zip: 78701"), ("zh", "街道: 1 Main St；城市: Austin")],
)
def test_address_lines_name_each_field(language: str, shown: str) -> None:
    address = {"address1": "1 Main St", "address2": "", "city": "Austin", "state": "TX", "country": "", "zip": "78701"}

    assert address_lines(address, language).startswith(shown)


def test_a_chinese_address_as_a_list_keeps_its_fields() -> None:
    address = parse_address("请把地址改成天河路 1 号, 3 楼, 广州, 广东, 510000, 中国")

    assert address == {
        "address1": "天河路 1 号",
        "address2": "3 楼",
        "city": "广州",
        "state": "广东",
        "country": "中国",
        "zip": "510000",
    }


def test_an_address_given_field_by_field_is_read_by_its_labels() -> None:
    address = parse_address("Street: 12 Oak St; Apt: 4B; City: Springfield; State: Illinois; Zip code: 62704")

    assert address == {
        "address1": "12 Oak St",
        "address2": "Apt 4B",
        "city": "Springfield",
        "state": "IL",
        "country": "",
        "zip": "62704",
    }


@pytest.mark.parametrize(
    ("text", "country"),
    [
        (
            "Street - 836 Hickory Lane; City - San Diego; State - CA; Zip - 92168; Country - USA and not the old address",
            "USA",
        ),
        ("street: 1 Main St; city: Austin; state: TX; zip: 78701; country: United States, thanks", "USA"),
        ("street: 1 Main St; city: Toronto; state: ON; zip: M5V 2T6; country: Canada", "Canada"),
    ],
)
def test_what_the_customer_says_after_a_labelled_country_is_not_part_of_it(text: str, country: str) -> None:
    address = parse_address(text)

    assert address is not None and address["country"] == country


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a word after the zip is not a country
        ("Please ship it to 100 Main St, Apt 4, Austin, Texas 78701 instead", ("Apt 4", "TX", "USA", "78701")),
        # "#5" is a unit, not an order id
        ("ship to 12 Oak Ln #5 San Francisco CA 94110", ("#5", "CA", "USA", "94110")),
        # the label of the next field is not part of the state
        ("It's 1 Lakeview Terrace, unit 12, in New York, NY, zip code 10001, USA", ("unit 12", "NY", "USA", "10001")),
        # five parts, but state and zip share one: not a plain list
        ("4 Chestnut Street, Suite 212, Denver, Colorado 80202, US", ("Suite 212", "CO", "USA", "80202")),
    ],
)
def test_words_around_the_fields_stay_out_of_them(text: str, expected: tuple[str, ...]) -> None:
    address = parse_address(text, default_country="USA")

    assert address is not None
    assert (address["address2"], address["state"], address["country"], address["zip"]) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the unit before the street, the street in brackets
        (
            "Could you send it to Unit 12 (that's at 45 Spruce Lane), Denver CO 80203?",
            ("45 Spruce Lane", "Unit 12", "Denver", "CO", "USA", "80203"),
        ),
        # the zip in a sentence of its own, after the rest
        (
            "Ship to 19 Harbor Road, Apt 3, Tampa, FL. Oh, and the zip is 33602, not the old one.",
            ("19 Harbor Road", "Apt 3", "Tampa", "FL", "USA", "33602"),
        ),
        # a field's label that is not a field ("Town: …")
        (
            "Use 5 Mill Street, Suite 8. Town: Akron. OH 44308.",
            ("5 Mill Street", "Suite 8", "Akron", "OH", "USA", "44308"),
        ),
        # the city and state first, then the street
        (
            "Please use Spokane, WA: 220 Pine Street, Unit 4, 99201.",
            ("220 Pine Street", "Unit 4", "Spokane", "WA", "USA", "99201"),
        ),
        # words of the sentence before the city
        ("it's at 77 Vine Street, over in Salem, OR 97301", ("77 Vine Street", "", "Salem", "OR", "USA", "97301")),
        # the zip before the state, no comma between
        (
            "send it to 12 Ash Court, Suite 2, Fresno, 93650 CA please",
            ("12 Ash Court", "Suite 2", "Fresno", "CA", "USA", "93650"),
        ),
        # the largest part first, the zip before the state
        (
            "could you send #W1234567 to 30301, GA, Atlanta, 15 Magnolia Lane, Unit 9 rather than the old place",
            ("15 Magnolia Lane", "Unit 9", "Atlanta", "GA", "USA", "30301"),
        ),
        # a street type that is part of the street's name ("Park"), then its own type
        (
            "it's the tower at 40 Park Avenue, Suite 12, out in Boston, MA 02116",
            ("40 Park Avenue", "Suite 12", "Boston", "MA", "USA", "02116"),
        ),
        # the zip first; the state's name is also a city's
        (
            "It goes to zip 10027, 8 Peach Lane Apt 5, New York NY now.",
            ("8 Peach Lane", "Apt 5", "New York", "NY", "USA", "10027"),
        ),
        # the unit in a sentence of its own
        (
            "We're with family for a while, so send it to 61 Alder Way. It's Apt 9, in Reno, NV. Zip is 89501.",
            ("61 Alder Way", "Apt 9", "Reno", "NV", "USA", "89501"),
        ),
        # the country first, the city before the zip
        (
            "change it to USA, OR, Eugene 97401, 3 Fir Court, Unit 6 thx",
            ("3 Fir Court", "Unit 6", "Eugene", "OR", "USA", "97401"),
        ),
        # a form's line labels
        (
            "address line 1 14 Cliff Road, line 2 Suite 20, Duluth MN, postal code 55802",
            ("14 Cliff Road", "Suite 20", "Duluth", "MN", "USA", "55802"),
        ),
        # the unit right after the street, then "which is in" the city
        (
            "My new place is 9 Lark Street Suite 3, which is in Dover, DE, zip code 19901.",
            ("9 Lark Street", "Suite 3", "Dover", "DE", "USA", "19901"),
        ),
        # the zip before the city, the city "in" its state, the country ending the sentence with a full stop
        (
            "That's 62 Reed Street, Suite 7, ZIP 73301, Austin in TX, USA.",
            ("62 Reed Street", "Suite 7", "Austin", "TX", "USA", "73301"),
        ),
        # the largest part first, with no comma: the zip's number starts no street
        (
            "new address: 73301 TX Austin 62 Reed Street Suite 7",
            ("62 Reed Street", "Suite 7", "Austin", "TX", "USA", "73301"),
        ),
    ],
)
def test_fields_in_any_order_are_read_by_their_shapes(text: str, expected: tuple[str, ...]) -> None:
    address = parse_address(text, default_country="USA")

    assert address is not None
    assert tuple(address[key] for key in ("address1", "address2", "city", "state", "country", "zip")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a form's labels, "Address line 1/2" among them
        (
            "Address line 1: 15 Birch Road\nAddress line 2: Unit 3\nCity: Tulsa\nState: Oklahoma\nZip: 74103",
            ("15 Birch Road", "Unit 3", "Tulsa", "OK", "USA", "74103"),
        ),
        # short labels: "line1", "st", "zipcode"
        (
            "update pls:\nline1: 15 Birch Road\nline2: Apt 3B\ncity: Tulsa\nst: OK\nzipcode: 74103",
            ("15 Birch Road", "Apt 3B", "Tulsa", "OK", "USA", "74103"),
        ),
        # labels followed by a dash
        (
            "street - 15 Birch Road\napt - 3B\ncity - Tulsa\nstate - OK\nzip - 74103",
            ("15 Birch Road", "Apt 3B", "Tulsa", "OK", "USA", "74103"),
        ),
        # labels said inline in lower case, before their values or after them
        (
            "new place is 15 Birch Road Apt 3B city Tulsa state OK zip 74103",
            ("15 Birch Road", "Apt 3B", "Tulsa", "OK", "USA", "74103"),
        ),
        (
            "15 Birch Road, Tulsa city, OK state, zip 74103",
            ("15 Birch Road", "", "Tulsa", "OK", "USA", "74103"),
        ),
        # the unit in a sentence or brackets of its own, or before the street
        (
            "Send it to 15 Birch Road, Tulsa, OK 74103. My apartment number is Apt 3B.",
            ("15 Birch Road", "Apt 3B", "Tulsa", "OK", "USA", "74103"),
        ),
        ("15 Birch Road, Tulsa, OK 74103 (#12)", ("15 Birch Road", "#12", "Tulsa", "OK", "USA", "74103")),
        ("Unit 9 - 15 Birch Road, Tulsa, OK 74103", ("15 Birch Road", "Unit 9", "Tulsa", "OK", "USA", "74103")),
        # Florida's code before the zip is no floor; Indiana's IN is no "in"
        ("It's 8 Palm Court, Miami, FL 33101, not the old one.", ("8 Palm Court", "", "Miami", "FL", "USA", "33101")),
        (
            "I live in Gary, IN now. The street is 8 Palm Court, Suite 2 and the zip code is 46402.",
            ("8 Palm Court", "Suite 2", "Gary", "IN", "USA", "46402"),
        ),
        # a unit written straight after the street, as lines are joined in Chinese
        (
            "改送760 Elm AvenueSuite 564，位于TX州Houston市，邮编是77034，谢谢您。",
            ("760 Elm Avenue", "Suite 564", "Houston", "TX", "USA", "77034"),
        ),
        (
            "new address: 41 Lake RoadApt 7, Austin, TX 78701",
            ("41 Lake Road", "Apt 7", "Austin", "TX", "USA", "78701"),
        ),
        # a slash between the street and the unit separates them, it is no part of either
        (
            "寄到这里：FL 32205，Jacksonville，544 Sunset Drive / Suite 337。",
            ("544 Sunset Drive", "Suite 337", "Jacksonville", "FL", "USA", "32205"),
        ),
        (
            "Ship it to 12 Oak Street / Apt 4, Boise, ID 83702",
            ("12 Oak Street", "Apt 4", "Boise", "ID", "USA", "83702"),
        ),
    ],
)
def test_labels_and_units_around_an_address_are_read_where_they_stand(text: str, expected: tuple[str, ...]) -> None:
    address = parse_address(text, default_country="USA")

    assert address is not None
    assert tuple(address[key] for key in ("address1", "address2", "city", "state", "country", "zip")) == expected


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        # who the account is under is not a city
        ("the account's under Maria Lopez, zip 60601", {"zip": "60601"}),
        ("100 Main Street", {"address1": "100 Main Street"}),
        ("it is 12 Oak Lane", {"address1": "12 Oak Lane"}),
        ("Apartment 4", {"address2": "Apartment 4"}),
        ("Austin TX 78701", {"city": "Austin", "state": "TX", "zip": "78701"}),
        ("广东省深圳市", {"state": "广东省", "city": "深圳市"}),
        ("yes", {}),
        ("I have 2 orders", {}),
        ("the visa card", {}),
    ],
)
def test_a_part_of_an_address_is_recognised_as_one(text: str, fields: dict[str, str]) -> None:
    assert address_fragment(text) == fields


def test_a_chinese_sentence_particle_is_not_part_of_the_street() -> None:
    address = parse_address("D1001 寄到上海市浦东新区世纪大道 88 号吧，之前地址填错了")

    assert address is not None and address["address1"] == "浦东新区世纪大道 88 号"


def test_an_order_id_is_not_part_of_an_address() -> None:
    assert address_fragment("#W4866703") == {}


@pytest.mark.parametrize(
    "text",
    [
        "帮我寄到CA州San Diego市45 Ocean Blvd，Apt 12，邮编92101",
        "新地址：45 Ocean Blvd Apt 12（San Diego，CA 92101）",
        "街道：45 Ocean Blvd\n门牌：Apt 12\n城市：San Diego\n州：California\n邮编：92101\n国家：美国",
        "邮编92101，加州那边的San Diego，CA，45 Ocean Blvd，Apt 12，谢谢",
        # the parts in one English run, not set apart by Chinese; the zip first
        "寄到 CA San Diego 45 Ocean Blvd Apt 12 92101",
        "地址改为：92101 CA San Diego 45 Ocean Blvd Apt 12",
        "新地址是 45 Ocean Blvd Apt 12 / San Diego / CA / 92101",
        # the state named in Chinese, with or without 州; the street's number after its name
        "寄到 加利福尼亚州 San Diego 45 Ocean Blvd Apt 12 邮编 92101",
        "我现在住 45 Ocean Blvd，Apt 12，在San Diego，加州，邮编92101",
        "地址：Ocean Blvd 45号，Apt 12，San Diego，CA 92101",
    ],
)
def test_a_us_address_told_in_chinese_is_read_part_by_part(text: str) -> None:
    assert parse_address(text) == {
        "address1": "45 Ocean Blvd",
        "address2": "Apt 12",
        "city": "San Diego",
        "state": "CA",
        "country": "USA",
        "zip": "92101",
    }


def test_a_us_city_named_like_a_state_stays_the_city_beside_the_states_code() -> None:
    found = parse_address("改寄到 Washington市，DC州，9 Rose Lane，Suite 3，邮编 20001")
    assert found is not None and (found["city"], found["state"]) == ("Washington", "DC")


@pytest.mark.parametrize(
    "text",
    [
        "第一，新地址：71 Birch Road Apt 5，Denver，CO 80203。第二，付款换成那张Visa（credit_card_1234567）",
        "新地址 71 Birch Road Apt 5，Denver，CO 80203，另外付款改用PayPal",
        # a city named like a state, beside the state's code
        "新地址：71 Birch Road Apt 5，Washington，DC 80203。第二，付款改用PayPal",
    ],
)
def test_the_city_is_the_name_said_beside_the_state_not_a_word_further_on(text: str) -> None:
    found = parse_address(text)
    assert found is not None and found["zip"] == "80203"
    assert (found["city"], found["state"]) in (("Denver", "CO"), ("Washington", "DC"))
