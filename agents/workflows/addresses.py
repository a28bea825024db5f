"""Postal addresses read out of a customer's sentence, field by field (pure).

English (US-style) addresses are tagged by `usaddress` (a CRF trained on US addresses, which finds the address
inside a sentence: "The new address is 953 Park Avenue, Apt 4B, Seattle, WA 98101"); Chinese ones by
`cpca` (province, city, district and the detailed address after them: "请改成广东省深圳市南山区科苑路15号").
A comma-separated list (street, [unit,] city, state, zip, country) whose first part is a street is
read as it is. Anything that does not give at least a street, a city and a zip or province is not an
address: the bot asks again rather than store half a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from agents.intents.word_lists import word_list
from conversations.language import say_in_context

_WORDS = word_list("addresses")

ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")
_CJK = re.compile(r"[\u3400-\u9fff]")
_STREET_PARTS = (
    "AddressNumberPrefix",
    "AddressNumber",
    "AddressNumberSuffix",
    "StreetNamePreModifier",
    "StreetNamePreDirectional",
    "StreetNamePreType",
    "StreetName",
    "StreetNamePostType",
    "StreetNamePostDirectional",
)
_BOX_PARTS = ("USPSBoxType", "USPSBoxID")
_UNIT_PARTS = ("OccupancyType", "OccupancyIdentifier", "SubaddressType", "SubaddressIdentifier")
# Words a sentence puts around an address that the tagger can leave inside a field.
_FILLER = re.compile(
    r"(?:(?:^|[\s,.;:!?]+)(?:in|at|instead|please|pls|thanks|thank you|thx|ty|now|then|too|as well|ok|okay))+"
    r"[\s,.;:!?]*$",
    re.IGNORECASE,
)
_US_ZIP = r"\d{5}(?:-\d{4})?"
_US_NAMES = r"USA|U\.S\.A\.?|US|U\.S\.|United States(?: of America)?|America"
# An order id beside an address ("for order #W2912646"), which the tagger would take for a number or a
# unit; "#5" stays, it is a unit.
_ORDER_ID = re.compile(r"#\s*(?:[A-Z]\d{4,}|\d{6,})|(?<![\w#])[A-Z]\d{6,12}\b")
# A field's own label said before the next field's value: "NY, zip code 10001".
_TRAILING_LABEL = re.compile(r"[\s,]+(?:zip(?: code)?|postal code|post ?code|postcode)\s*$", re.IGNORECASE)
_UNIT_WORD = re.compile(
    r"(?:^|\s)(?:apt|apartment|unit|suite|ste|flat|floor|fl|room|rm|building|bldg|#)\b", re.IGNORECASE
)
# A unit written straight after the street, as Chinese writers join lines without a space: "760 Elm AvenueSuite 564".
_GLUED_UNIT = re.compile(r"(?<=[a-z])(?=(?:Apt|Apartment|Unit|Suite|Ste|Floor|Room|Building)\.?\s*#?\d)")
_COUNTRIES = {
    "usa": "USA",
    "us": "USA",
    "u.s.": "USA",
    "u.s.a.": "USA",
    "united states": "USA",
    "united states of america": "USA",
    "america": "USA",
    "china": "China",
    "中国": "中国",
    "canada": "Canada",
    "uk": "UK",
    "united kingdom": "UK",
}
_STATES = {
    "alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA", "colorado": "CO",
    "connecticut": "CT", "delaware": "DE", "florida": "FL", "georgia": "GA", "hawaii": "HI", "idaho": "ID",
    "illinois": "IL", "indiana": "IN", "iowa": "IA", "kansas": "KS", "kentucky": "KY", "louisiana": "LA",
    "maine": "ME", "maryland": "MD", "massachusetts": "MA", "michigan": "MI", "minnesota": "MN",
    "mississippi": "MS", "missouri": "MO", "montana": "MT", "nebraska": "NE", "nevada": "NV",
    "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC",
    "north dakota": "ND", "ohio": "OH", "oklahoma": "OK", "oregon": "OR", "pennsylvania": "PA",
    "rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "tennessee": "TN", "texas": "TX",
    "utah": "UT", "vermont": "VT", "virginia": "VA", "washington": "WA", "west virginia": "WV",
    "wisconsin": "WI", "wyoming": "WY", "district of columbia": "DC",
}  # fmt: skip
# A US state as Chinese writes it (with or without 州): "德州 Fort Worth …", "美国 德克萨斯州 …"; not a city's
# name ("纽约市" is the city).
_STATES_IN_CHINESE: dict[str, str] = _WORDS["states in chinese"]
_STATE_IN_CHINESE = re.compile(f"({'|'.join(sorted(_STATES_IN_CHINESE, key=len, reverse=True))})州?(?!市)")
_ZIP_CN = re.compile(r"(?<!\d)(\d{6})(?!\d)")
_ZH_LEAD = re.compile(r"^.*?(?:改成|改为|改到|换成|寄到|送到|发到|地址是|地址为|[：:])")


_LEAD = re.compile(
    r"^(?:(?:that'?s|that is|it'?s|it is|which is|located|over|out|down|up|right)\s+)?(?:in|at)\s+", re.IGNORECASE
)


def _clean(value: str) -> str:
    value = _TRAILING_LABEL.sub("", value.strip())
    # A field that is nothing but such a word is a state: IN is Indiana, OK Oklahoma.
    value = _LEAD.sub("", (_FILLER.sub("", value) or value).strip(" ,.;:!?("))
    return value.strip(" ,.;:!?()").strip()


def _country(value: str, default: str) -> str:
    cleaned = _clean(re.split(r"[?!;]|\.(?:\s|$)", value)[0])
    if not cleaned:
        return default
    # a country the customer goes on talking after: "Country - USA and not the old address"
    told = _TOLD_AFTER_COUNTRY.match(cleaned)
    return _COUNTRIES[told.group(1).lower()] if told else _COUNTRIES.get(cleaned.lower(), cleaned)


_TOLD_AFTER_COUNTRY = re.compile(
    r"(" + "|".join(sorted(map(re.escape, _COUNTRIES), key=len, reverse=True)) + r")"
    r"(?<!\.)\b\s*,?\s+(?:and|but|not|instead|rather|please|pls|thanks|thank you)\b",
    re.IGNORECASE,
)


def _state(value: str) -> str:
    cleaned = _clean(value)
    return _STATES.get(cleaned.lower(), cleaned.upper() if len(cleaned) == 2 else cleaned)


def _tagged(text: str) -> dict[str, str]:
    """usaddress's labels for the address in `text`: from the street number to the zip (and a
    country right after it). Words before or after the address ("please ship it to", "instead,
    thanks!") are left out, so they cannot be read as another city."""
    import usaddress

    labels: dict[str, list[str]] = {}
    unit_first: list[tuple[str, str]] = []  # "Suite 564, 760 Elm Avenue": the unit may come first
    started = after_zip = False
    for token, label in usaddress.parse(text):
        if not started:
            if label == "OccupancyType" or (label == "OccupancyIdentifier" and unit_first):
                unit_first.append((token, label))
                continue
            if label not in ("AddressNumber", "USPSBoxType"):
                unit_first = []
                continue
            started = True
            for early, early_label in unit_first:
                labels.setdefault(early_label, []).append(early)
        if after_zip and label != "CountryName":
            break
        if label == "ZipCode":
            after_zip = True
        labels.setdefault(label, []).append(token)
    return {label: " ".join(tokens) for label, tokens in labels.items()}


_STREET_START = re.compile(r"(?<![\w#.-])\d{1,6}[A-Za-z]?\s+[A-Za-z]")
_ZIP_END = re.compile(
    rf"\b{_US_ZIP}\b(?:[\s,(]+(?:{_US_NAMES})\b\)?)?",
    re.IGNORECASE,
)
_STREET_TYPES = rf"(?:{'|'.join(_WORDS['street types'])})\b\.?"
# A street's number written after its name, as Chinese writes it: "Park Avenue 953号"
_NUMBER_AFTER_STREET = re.compile(
    rf"((?:[A-Za-z][\w.'-]*\s+){{1,4}}?{_STREET_TYPES})\s*(\d{{1,6}})\s*号", re.IGNORECASE
)
# The street's name is words (a number only as an ordinal, "5th"): "10064 NY New York 953 Park Avenue" starts with
# its zip, not a street.
_STREET_TYPE = re.compile(rf"\d{{1,6}}[A-Za-z]?\s+(?:\d*[A-Za-z][\w.'-]*\s+){{0,4}}?{_STREET_TYPES}", re.IGNORECASE)
# "921 Park Avenue": the first street type may be part of the name
_MORE_STREET_TYPE = re.compile(rf"\s+{_STREET_TYPES}", re.IGNORECASE)
_COUNTRY_LAST = re.compile(rf"[\s,(-]+({_US_NAMES})\W*$", re.IGNORECASE)
_UNIT_BEFORE = re.compile(r"(?:apt|apartment|unit|suite|ste|flat|#)\s*[\w-]+\s*,?\s*$", re.IGNORECASE)


def _span(text: str) -> str:
    """The address inside a sentence: from a street number to the zip code that follows it (and a
    country right after), with a unit said before the street ("Suite 5, 12 Oak St, …"). The tagger
    reads words around an address as parts of it, so it is given the address alone."""
    starts = list(_STREET_START.finditer(text))
    # "I have 2 kids. Send it to 12 Oak St, …": a number followed by a street type starts the street
    starts.sort(key=lambda m: _STREET_TYPE.match(text, m.start()) is None)
    for start in starts:
        end = _ZIP_END.search(text, start.end())
        if end is None:
            return text
        begin = start.start()
        unit = _UNIT_BEFORE.search(text[:begin])
        if unit is not None:
            begin = unit.start()
        span = text[begin : end.end()]
        if re.search(rf"\b{_US_ZIP}\b", span[: start.end() - begin]) is None:
            return span
    return text


# A field's name said before its value, in a list of fields ("street 386 Cedar Ave, city Columbus, state
# OH, zip code 43119"): lower case, so "State Street" or "Carson City" stay names. Zip labels in any case.
_FIELD_NAME = re.compile(
    r"(?:(?<=^)|(?<=[,;/|\n.!?])\s*|(?<=\s-)\s*)(?:(?:the\s+)?(?:street|city|town|state|country)\s*[:=-]?\s+(?=[A-Z0-9])|"
    # "City is Dallas", "the state is TX": a field named by a sentence, in any case
    r"(?i:(?:the\s+)?(?:street|city|town|state|country|zip(?:\s*code)?|postal\s*code)\s+is\s+)|"
    r"(?i:zip(?:\s*code)?|postal\s*code|post\s*code|postcode)\s*[:=-]?\s*(?=\d))"
)
# "…, Suite 500. It's in Houston, TX": a sentence that goes on with where the street is.
_GOES_ON = re.compile(
    r"[.;]\s+(?:(?:it'?s|it is|that'?s|that is|which is|located|this is)\s+)?(?:in|at)\s+|"
    # lower-case "in" before a capital: ", IN now" is Indiana
    r",\s+(?:(?:which|that)\s+is\s+|located\s+)?(?-i:in\s+(?=[A-Z]))|"
    # "… 137 Willow Lane. It's Suite 127, …": the unit in a sentence of its own
    r"[.;]\s+(?:it'?s|it is|that'?s|that is|this is)\s+(?=(?:apt|apartment|unit|suite|ste|flat|room|#)\b)",
    re.I,
)
# "address line 1 295 Elm Avenue, line 2 Suite 793": a form's labels, not part of the address.
_LINE_LABEL = re.compile(r"\b(?:address\s+)?line\s*(?:1|2|one|two)\b\s*[:=-]?\s*", re.IGNORECASE)
# Field names said inline in lower case, before or after their value: "… Ste 555 city Jacksonville state FL
# zip 32217", "Denver city, CO state, zip 80278" (a city named "… City" is written with a capital).
_INLINE_LABEL = re.compile(r"(?<=\s)(?:city|town|state)\s+(?=[A-Z])|(?<=[A-Za-z])\s+(?:city|state)(?=\s*[,;]|\s*$)")
# A country said between the other fields ("Houston, TX, USA, 77158", "San Diego, CA, USA 92159") rather
# than last.
_COUNTRY_BETWEEN = re.compile(rf"(?:,|\s-)\s*({_US_NAMES})\s*(?=,|\s-\s|\s+{_US_ZIP}\b)", re.IGNORECASE)


def _english(text: str, default_country: str) -> dict[str, str] | None:
    text = _GOES_ON.sub(", ", _ORDER_ID.sub(" ", text))
    text = _FIELD_NAME.sub(" ", re.sub(r"\s+/\s+|\s*\|\s*", ", ", text))
    text = _ZIP_BEFORE_STATE.sub(lambda m: f"{m.group(1).strip()}, {m.group(3)} {m.group(2)}", text)
    span = _span(text)
    between = _COUNTRY_BETWEEN.search(span)
    if between:
        span = f"{span[: between.start()]}{span[between.end() :]}"
    said = _COUNTRY_LAST.search(span) or between
    tagged = _tagged(span[: said.start()] if said and said is not between else span)
    if said:
        tagged["CountryName"] = said.group(1)
    street = " ".join(_clean(tagged[p]) for p in (*_STREET_PARTS, *_BOX_PARTS) if tagged.get(p))
    unit = " ".join(_clean(tagged[p]) for p in _UNIT_PARTS if tagged.get(p)).replace("# ", "#")
    city, zip_code = _clean(tagged.get("PlaceName", "")), _clean(tagged.get("ZipCode", ""))
    has_street = (tagged.get("AddressNumber") and tagged.get("StreetName")) or tagged.get("USPSBoxID")
    if not has_street or not city or not re.fullmatch(_US_ZIP, zip_code):
        return None
    return {
        "address1": street,
        "address2": unit,
        "city": city,
        "state": _state(tagged.get("StateName", "")),
        "country": _country(tagged.get("CountryName", ""), default_country),
        "zip": zip_code,
    }


def _chinese(text: str) -> dict[str, str] | None:
    import cpca

    row = cpca.transform([text]).to_dict("records")[0]
    province, city, district = (row.get(k) or "" for k in ("省", "市", "区"))
    detail = re.split(r"[，,。！!？?；;]", str(row.get("地址") or ""))[0].strip()
    detail = re.sub(r"\s*[吧呀啊哦呢嘛啦哈]+$", "", detail)  # "世纪大道 88 号吧": the particle is not the address
    zip_code = _ZIP_CN.search(text)
    if not province or not detail or not re.search(r"\d|号|路|街|巷|村|弄|楼|室", detail):
        return None
    if zip_code:
        detail = detail.replace(zip_code.group(1), "").strip()
    return {
        "address1": f"{district}{detail}" if district else detail,
        "address2": "",
        "city": province if city in ("", "市辖区", "县") else city,
        "state": province,
        "country": "中国",
        "zip": zip_code.group(1) if zip_code else "",
    }


def _listed(text: str) -> dict[str, str] | None:
    """'street, [unit,] city, state, zip, country' as a plain list, the street first."""
    # A unit in brackets is a field of its own: "544 Sunset Drive (Suite 337), Jacksonville, …"; a field
    # may be named before its value ("city Springfield, state IL, zip 62704").
    text = text if _CJK.search(text) else _FIELD_NAME.sub(" ", text)
    parts = [_clean(p) for p in re.split(r"[,，;；\n()（）]", text) if p.strip(" .")]
    if len(parts) == 6:
        address1, address2, city, state, zip_code, country = parts
    elif len(parts) == 5:
        address1, city, state, zip_code, country = parts
        address2 = ""
    else:
        return None
    if _CJK.search(address1):  # "请把地址改成天河路 1 号, …": the instruction before the street goes
        address1 = _ZH_LEAD.sub("", address1).strip()
        if not re.search(r"\d", address1):
            return None
    elif not re.match(r"^\d", address1):
        # A street starts with its number; words before it are the sentence around the address
        # ("New address: 690 Broadway (Suite 737), …").
        starts = list(_STREET_START.finditer(address1))
        if not starts:
            return None
        address1 = address1[starts[-1].start() :]
    if not re.fullmatch(r"(?=.*\d)[A-Za-z0-9 -]{3,10}", zip_code) or _UNIT_WORD.match(city):
        return None  # "…, Denver, Colorado 80202, US": not one field per part, the tagger reads it
    return {
        "address1": address1,
        "address2": address2,
        "city": city,
        "state": _state(state),
        "country": _country(country, ""),
        "zip": zip_code,
    }


_LABELS = {
    "address1": r"street(?: address)?|address(?: line)? ?1|line ?1|address",
    "address2": r"address(?: line)? ?2|line ?2|apt|apartment|unit|suite",
    "city": r"city|town",
    "state": r"state|province|st",
    "zip": r"zip(?: ?code)?|postal code|post ?code",
    "country": r"country",
}
_LABELLED = re.compile(
    r"\b(" + "|".join(f"(?P<{key}>{pattern})" for key, pattern in _LABELS.items()) + r")\s*(?:[:=]|-(?=\s))\s*",
    re.IGNORECASE,
)


def _labelled(text: str, default_country: str) -> dict[str, str] | None:
    """'street: 1 Main St; city: Austin; state: TX; zip: 78701' (each field named)."""
    marks = list(_LABELLED.finditer(text))
    if len(marks) < 3:
        return None
    fields: dict[str, str] = {}
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        key = next(k for k in _LABELS if mark.group(k))
        value = _clean(re.split(r"[;\n|]|\s/\s", text[mark.end() : following.start() if following else len(text)])[0])
        label = mark.group(key)
        if (
            key == "address2"
            and not label.lower().startswith("address")
            and not value.lower().startswith(label.lower())
            and not _UNIT_WORD.match(value)  # "unit: Suite 683" is Suite 683
        ):
            value = f"{label.title()} {value}"  # "Apt: 4B" is "Apt 4B"
        if value:  # "ship it to this address: street: 1 Main St; …": a label with nothing after it is prose
            fields.setdefault(key, value)
    if not fields.get("address1") or not fields.get("city") or not fields.get("zip"):
        return None
    street, _, unit = fields["address1"].partition(", ")
    if unit and _UNIT_WORD.match(unit) and not fields.get("address2"):  # "street: 1 Main St, Apt 4"
        fields["address1"], fields["address2"] = street, unit
    return {
        "address1": fields["address1"],
        "address2": fields.get("address2", ""),
        "city": fields["city"],
        "state": _state(fields.get("state", "")),
        "country": _country(fields.get("country", ""), default_country),
        "zip": fields["zip"],
    }


_STATE = rf"[A-Z]{{2}}|{'|'.join(s.title() for s in _STATES)}"
_CITY = r"(?:[A-Z][\w.'-]*\s?){1,3}"
# The zip between the city and the state: "Washington 20056, DC".
_ZIP_BEFORE_STATE = re.compile(rf"\b({_CITY}?)\s+({_US_ZIP})\s*,\s*({_STATE})\b(?!\s*{_US_ZIP})")
# From the largest part to the smallest, as Chinese addresses are written: "USA, NY, New York,
# 953 Park Avenue, Suite 613, zip 10064".
_LARGEST_FIRST = re.compile(
    rf"(?:\b(?P<country>{_US_NAMES})\s*,\s*)?\b(?P<state>{_STATE})\s*,\s*(?P<city>[A-Za-z .'-]+?)\s*"
    # the zip after the city ("USA, DC, Washington 20353, 584 Sunset Drive, Suite 270") or at the end
    r"(?:\s(?P<city_zip>\d{5}(?:-\d{4})?))?\s*,\s*"
    r"(?P<street>\d{1,6}[A-Za-z]?\s+[^,;]+?)\s*(?:,\s*(?P<unit>(?i:apt|apartment|unit|suite|ste|#)\s*[\w-]+)\s*)?"
    r"(?:(?<=[\w-])\s*(?=[.;!?]|$)(?(city_zip)|(?!))|,\s*(?i:(?:zip|postal|post)\s*(?:code)?\s*[:=]?\s*)?(?P<zip>\d{5}(?:-\d{4})?)\b)"
)
# The street after the rest: "Houston, TX 77158, USA, street address 558 Cedar Street, Suite 298".
_STREET_LAST = re.compile(
    rf"\b(?P<city>{_CITY}?)\s*,\s*(?P<state>{_STATE})\s*,?\s*(?P<zip>{_US_ZIP})\b"
    rf"(?:\s*,?\s*(?P<country>{_US_NAMES})\b)?\s*[,;-]?\s*"
    r"(?i:(?:and\s+)?(?:the\s+)?street(?:\s+address)?(?:\s+is)?\s*[:=]?\s*)?"
    r"(?P<street>\d{1,6}[A-Za-z]?\s+[^,;.]+?)\s*(?:,\s*(?P<unit>(?i:apt|apartment|unit|suite|ste|flat|#)\s*[\w-]+))?"
    r"\s*(?:[.;!?,]|$)"
)
# The zip before the city, as much of the world writes it: "178 Lakeview Drive Suite 576, 76150 Fort Worth, TX".
_ZIP_FIRST = re.compile(rf"(?:(?<=,)|(?<=\bto)|(?<=:)|^)\s*({_US_ZIP})\s+({_CITY}?)\s*,\s*({_STATE})\b")


def _other_order(text: str, default_country: str) -> dict[str, str] | None:
    """An address written in another order (the largest part first, the street last, the zip before
    the city, or several of these), read in the usual one."""
    zip_moved = _ZIP_FIRST.sub(lambda m: f" {m.group(2).strip()}, {m.group(3)} {m.group(1)}", text)
    for candidate in dict.fromkeys((text, zip_moved)):
        for pattern in (_LARGEST_FIRST, _STREET_LAST):
            found = pattern.search(candidate)
            if found is not None:
                part = {key: (value or "").strip() for key, value in found.groupdict().items()}
                part["zip"] = part["zip"] or part.pop("city_zip", "")
                usual = (
                    f"{part['street']}, {part['unit']}, {part['city']}, {part['state']} {part['zip']}, "
                    f"{part['country']}"
                )
                if address := _english(usual, default_country):
                    return address
    return _english(zip_moved, default_country) if zip_moved != text else None


# Each field of a US address has a shape of its own, whatever order a sentence puts them in: a street is a
# number and a street type, a unit a unit word and its number, a state a postal code or a state's name,
# a zip five digits, the city the capitalised words before the state.
_UNIT_ANYWHERE = re.compile(
    r"\b(?:apt|apartment|unit|suite|ste|flat|room|rm|floor|fl)\b\.?\s*#?\s*\d[\w-]*|(?<![\w#])#\s*\d[\w-]*",
    re.IGNORECASE,
)
_STATE_ANYWHERE = re.compile(rf"\b(?:{'|'.join(sorted(set(_STATES.values())))})\b|\b(?i:{'|'.join(_STATES)})\b")
_CITY_BEFORE = re.compile(r"((?:[A-Z][\w.'-]*\s+){0,2}[A-Z][\w.'-]*)[\s,]*$")
_CITY_WORD = r"(?:[A-Z][\w.'-]*|of|de|la|le|du|del|upon|on)"
_CITY_WORDS = re.compile(rf"{_CITY_WORD}(?:\s+{_CITY_WORD})*")
_NOT_A_CITY = re.compile(
    rf"^(?:{_US_NAMES}|Suite|Apt|Apartment|Unit|Town|City|State|Zip|Street|Address|Hi|Hello|Hey|Thanks|Please|Oh|"
    r"It|It's|That|That's|The|This|My|Our|I|I'm|Ship|Send|Deliver|Change|Update|Use|Order)$",
    re.IGNORECASE,
)


def _city_before(text: str) -> str:
    """The capitalised words right before a state, without a sentence's first word ("Please", "Town")."""
    # "Houston in TX": the city, then where it lies
    text = re.sub(r"\s+(?:in|at|within)\s*$", "", text.rstrip(" ,.;:!?"))
    found = _CITY_BEFORE.search(re.split(r"[.;:!?()]\s|[;:()]", text)[-1])
    words = found.group(1).split() if found else []
    while words and _NOT_A_CITY.match(words[0].strip(".,")):
        words = words[1:]
    return " ".join(words)


def _city_after(text: str) -> str:
    """The capitalised words right after a state: "CA, San Diego, 836 Hickory Lane"."""
    found = re.match(r"[\s,:-]*((?:[A-Z][\w.'-]*\s+){0,2}[A-Z][\w.'-]*)\s*(?:[,;:-]|$)", text)
    return found.group(1) if found and _a_city(found.group(1)) else ""


def _anchored(text: str, default_country: str) -> dict[str, str] | None:
    """A US address read field by field, each by its own shape, in whatever order the sentence gives
    them: "Suite 564 (that's at 760 Elm Avenue), Houston TX 77034", "Fort Worth, TX: 285 Elm Street,
    Suite 121, 76155", "…, Phoenix, AZ. Zip code 85072"."""
    text = _GOES_ON.sub(", ", _ORDER_ID.sub(" ", text))
    street = _STREET_TYPE.search(text)
    if street is None:
        return None
    more = _MORE_STREET_TYPE.match(text, street.end())
    taken = [(street.start(), more.end() if more else street.end())]

    def free(match: re.Match[str]) -> bool:
        return all(match.end() <= start or match.start() >= end for start, end in taken)

    unit = next((m for m in _UNIT_ANYWHERE.finditer(text) if free(m)), None)
    if unit is not None:
        taken.append(unit.span())
    zips = [m for m in re.finditer(rf"(?<![\w-]){_US_ZIP}(?![\w-])", text) if free(m)]
    states = [m for m in _STATE_ANYWHERE.finditer(text) if free(m)]
    if len(zips) != 1 or not states:
        return None
    # A postal code before a state's name ("New York NY": the name is the city's), then the one beside the zip.
    state = min(states, key=lambda m: (len(m.group()) > 2, abs(m.start() - zips[0].start())))
    before = max((end for _, end in taken if end <= state.start()), default=0)  # the street's or the unit's end
    after = min((start for start, _ in taken if start >= state.end()), default=len(text))
    # the city before its state ("Chicago, IL"), or after it when the largest part comes first ("CA, San Diego, …")
    city = _city_before(text[before : state.start()].replace(zips[0].group(), " ")) or _city_after(
        text[state.end() : after].replace(zips[0].group(), ",")
    )
    if not city:
        return None
    country = re.search(rf"\b(?:{_US_NAMES})\b", text.replace(state.group(), " "))
    return {
        "address1": _clean(text[slice(*taken[0])]),
        "address2": _unit(unit.group()) if unit else "",
        "city": city,
        "state": _state(state.group()),
        "country": _country(country.group() if country else "", default_country),
        "zip": zips[0].group(),
    }


def _unit(said: str) -> str:
    return re.sub(r"\s+", " ", said.strip()).replace("# ", "#")


def _a_city(name: str) -> bool:
    """Capitalised words that are not a label or the start of a sentence ("Town: …", "the account's under …")."""
    return bool(_CITY_WORDS.fullmatch(name)) and not _NOT_A_CITY.match(name.split()[0].strip(".,"))


def _plausible(address: dict[str, str]) -> bool:
    """The fields look like what they are: a city of capitalised words, a US state as a state."""
    return _a_city(address["city"]) and (address["country"] not in ("USA", "") or address["state"] in _STATES.values())


# The unit first, joined to its street by a word: "Suite 127 at 137 Willow Lane", "Apt 5 in 12 Oak Street".
_UNIT_AT_STREET = re.compile(
    r"\b((?:apt|apartment|unit|suite|ste|flat)\.?\s*#?\s*[\w-]+|#\s*\d+)\s+(?:at|@|in|of|on)\s+(?=\d{1,6}[A-Za-z]?\s+[A-Za-z])",
    re.IGNORECASE,
)


# Chinese words and punctuation around a US address's parts ("TX州Houston市812 Cedar Avenue，邮编77129",
# "城市：Houston；州：TX") part them as commas would.
_CHINESE_BETWEEN = re.compile(r"[\u3400-\u9fff、。，；：！？（）【】「」《》\n,;:()\[\]!?]+")
_US_ZIP_ALONE = re.compile(rf"(?<![A-Za-z0-9_-])({_US_ZIP})(?![A-Za-z0-9_-])")  # Chinese may touch it
_STATE_LAST = re.compile(rf"^(.*?)[\s,]*\b({'|'.join(sorted(set(_STATES.values())))}|(?i:{'|'.join(_STATES)}))$")


def _us_in_chinese(text: str) -> dict[str, str] | None:
    """A US address a Chinese-writing customer gives: its parts in English in any order, with Chinese around and
    between them ("改成TX州Houston市812 Cedar Avenue，Suite 500，邮编为77129", "所在城市：Houston；所在州：TX").
    Each part is read by its shape (_part_read); the first of each kind counts."""
    text = _ORDER_ID.sub(" ", re.sub(r"\S+@\S+", " ", unicodedata.normalize("NFKC", text)))
    parts = [p.strip(" .") for p in _CHINESE_BETWEEN.split(text)]
    if not _US_ZIP_ALONE.search(text) or not any(_STREET_START.match(p) for p in parts):
        return None
    read = [(at, *found) for at, part in enumerate(parts) for found in _part_read(part)]

    def first(kind: str) -> str:
        return next((value for _, k, value in read if k == kind), "")

    state, city = _state_and_city(read)
    if not (state and city and first("street") and first("zip")):
        return None
    return {
        "address1": first("street"),
        "address2": first("unit"),
        "city": city,
        "state": _state(state),
        "country": first("country") or "USA",
        "zip": first("zip"),
    }


def _us_between_chinese(text: str, default_country: str) -> dict[str, str] | None:
    """A US address whose parts are not each set apart by Chinese ("寄到 NY New York 953 Park Avenue Suite 613
    10064", "…613 / New York / NY / 10064"): the Chinese words and punctuation part it as commas would, and it is
    read as an English address is."""
    latin = _CHINESE_BETWEEN.sub(", ", unicodedata.normalize("NFKC", text)).strip(" ,")
    if _CJK.search(latin) or not _US_ZIP_ALONE.search(latin):
        return None
    return _address_read(latin, default_country=default_country or "USA")


def _state_and_city(read: list[tuple[int, str, str]]) -> tuple[str, str]:
    """A state beside its city first ("Houston TX"), then one said alone, which may be a city's name too
    ("Washington市，DC州"): a state's code is the state, and a state's name left over is the city. `read`: the
    part each was said in, its kind and its value. Of the words that may be the city, the one said nearest the
    state is (before it when two are as near): "…，Denver，CO 80203，另外付款改用PayPal"."""
    states = [(at, v) for at, k, v in read if k == "state"] + [(at, v) for at, k, v in read if k == "state alone"]
    if not states:
        return "", ""
    chosen = next((s for s in states if len(s[1]) == 2), states[0])
    cities = [(at, v) for at, k, v in read if k == "city"] + [s for s in states if s is not chosen]
    if not cities:
        return chosen[1], ""
    return chosen[1], min(cities, key=lambda city: (abs(city[0] - chosen[0]), city[0] > chosen[0]))[1]


def _part_read(part: str) -> list[tuple[str, str]]:
    """What one English part of a Chinese sentence holds, by shape: a zip is five digits, a state its code or name
    at the end, a street starts with its number, a unit with its word, a country is one; capitalised words without
    digits are a city."""
    found: list[tuple[str, str]] = []
    if (zip_code := _US_ZIP_ALONE.search(part)) and not _STREET_START.match(part):
        found.append(("zip", zip_code.group(1)))
        part = (part[: zip_code.start()] + part[zip_code.end() :]).strip(" ,.")
    if (state := _STATE_LAST.match(part)) and not _STREET_START.match(part):
        if not state.group(1).strip(" ,."):
            return [*found, ("state alone", part)]
        found.append(("state", state.group(2)))
        part = state.group(1).strip(" ,.")
    unit = _UNIT_ANYWHERE.search(part)
    if _STREET_START.match(part):
        found.append(("street", _clean(part[: unit.start()] if unit else part)))
        found += [("unit", _unit(unit.group()))] if unit else []
    elif unit is not None and unit.group() == part:
        found.append(("unit", _unit(part)))
    elif part.lower() in _COUNTRIES:
        found.append(("country", _COUNTRIES[part.lower()]))
    elif part and _a_city(part) and not re.search(r"\d", part):
        found.append(("city", part))
    return found


# What separates an address's fields ("544 Sunset Drive / Suite 337"), never part of one.
_FIELD_EDGES = " \t,;/|:-–—，、；：。"


def parse_address(text: str, *, default_country: str = "") -> dict[str, str] | None:
    """The address in `text` as {address1, address2, city, state, country, zip}, or None; no field begins or
    ends with what separates fields."""
    found = _address_read(text, default_country=default_country)
    return None if found is None else {field: value.strip(_FIELD_EDGES) for field, value in found.items()}


def _address_read(text: str, *, default_country: str = "") -> dict[str, str] | None:
    """The address in `text` as {address1, address2, city, state, country, zip}, or None.

    The readers that go by the order of the fields come first; when what they read does not look like an
    address (a city of "Town: Fort Worth", a state of "IS"), or leaves out a unit the sentence gives, the
    fields read by their shapes are used."""
    text = _GLUED_UNIT.sub(" ", text)
    if _CJK.search(text):
        return _read_in_chinese(text, default_country)
    text = _UNIT_AT_STREET.sub(r"\1, ", text)
    labelled = _labelled(text, default_country)  # "Address line 1: …" names its field
    unlabelled = _INLINE_LABEL.sub(" ", _LINE_LABEL.sub(", ", text))
    if labelled is None and unlabelled != text:
        labelled = _labelled(unlabelled, default_country)
    text = unlabelled
    # The largest part first is never read right by the readers that expect the usual order.
    largest_first = _other_order(text, default_country) if _LARGEST_FIRST.search(text) else None
    found = (
        labelled
        or _listed(text)
        or largest_first
        or _english(text, default_country)
        or _other_order(text, default_country)
    )
    anchored = _anchored(text, default_country)
    if found is None or not _plausible(found):
        return anchored if anchored is not None and _plausible(anchored) else found
    _unit_found(found, text)
    if anchored is not None and anchored["address1"].startswith(found["address1"]) and anchored["zip"] == found["zip"]:
        # the street's type the tagger left out ("921 Park" of "921 Park Avenue, Suite 892, over in Chicago")
        found["address1"] = anchored["address1"]
        for key in ("address2", "state"):
            found[key] = found[key] or anchored[key]
    return found


def _read_in_chinese(text: str, default_country: str) -> dict[str, str] | None:
    """An address in a Chinese sentence: a US one in English words among Chinese ones (a state may be named in
    Chinese, a street's number follow its name: "Park Avenue 953号"), else a Chinese one."""
    if _US_ZIP_ALONE.search(text) and not _ZIP_CN.search(text):
        text = _STATE_IN_CHINESE.sub(lambda m: f" {_STATES_IN_CHINESE[m.group(1)]} ", text)
    text = _NUMBER_AFTER_STREET.sub(r" \2 \1 ", text)
    return _us_in_chinese(text) or _listed(text) or _chinese(text) or _us_between_chinese(text, default_country)


def _unit_found(found: dict[str, str], text: str) -> None:
    """The unit (apartment, suite, floor) of an address read, where the readers left it out or on the street."""
    unit = _UNIT_ANYWHERE.search(found["address1"])
    if unit is not None and not found["address2"] and unit.start() > 0:
        # "297 Highland Drive Suite 550, which is in …": the tagger can leave the unit on the street
        found["address1"], found["address2"] = _clean(found["address1"][: unit.start()]), unit.group()
    units = {_unit(m.group()) for m in _UNIT_ANYWHERE.finditer(_ORDER_ID.sub(" ", text))} - {
        f"{found['state']} {found['zip']}"  # Florida's FL before its zip is no floor
    }
    if not found["address2"] and len(units) == 1:
        # "…, FL 32124. The apartment is Suite 971.", "(#938)", "Suite 351 - 418 Park Avenue": the one unit
        # the message names, wherever it stands
        found["address2"] = units.pop()


def address_fragment(text: str) -> dict[str, str]:
    """The address fields a message gives when it is only part of an address ("100 Main Street",
    then "Apartment 4", then "Austin TX 78701"): empty when it gives none, so that a customer who
    sends an address line by line is not told it is unusable."""
    if _CJK.search(text):
        return _chinese_fragment(text)
    text = _ORDER_ID.sub(" ", text)
    street = re.search(r"\b\d+[A-Za-z]?\s+[A-Za-z]", text)
    # Without a street number the tagger finds nothing, so a placeholder street goes before the rest.
    tagged = _tagged(text[street.start() :]) if street else _tagged(f"1 X St, {text}")
    has_type = bool(tagged.get("StreetNamePostType") or tagged.get("StreetNamePreType"))
    state = tagged.get("StateName", "")
    found = {
        "address1": " ".join(tagged[p] for p in _STREET_PARTS if tagged.get(p)) if street and has_type else "",
        "address2": " ".join(tagged[p] for p in _UNIT_PARTS if tagged.get(p)) if _UNIT_WORD.search(text) else "",
        "state": _state(state) if state in _STATES.values() or state.lower() in _STATES else "",
        "zip": tagged.get("ZipCode", "") if re.search(rf"\b{_US_ZIP}\b", text) else "",
    }
    if found["state"] or found["zip"]:
        city = _clean(tagged.get("PlaceName", ""))
        # "the account's under James Lee, zip 95161" gives a zip, and no city
        found["city"] = city if _a_city(city) else ""
    return {key: clean for key, value in found.items() if (clean := _clean(value))}


def _chinese_fragment(text: str) -> dict[str, str]:
    """The province, city and street a Chinese message gives (cpca), when it is part of an address."""
    import cpca

    row = cpca.transform([text]).to_dict("records")[0]
    detail = str(row.get("地址") or "")
    found = {"state": row.get("省") or "", "city": row.get("市") or ""}
    if re.search(r"\d+\s*(?:号|弄|室|栋|楼)|路|街", detail):
        found["address1"] = f"{row.get('区') or ''}{detail}"
    return {key: value for key, value in found.items() if value}


def address_lines(address: dict[str, Any], language: str) -> str:
    """The address field by field, for the customer to check before anything is written."""
    labels = {
        "address1": say_in_context("address field", language, "street"),
        "address2": say_in_context("address field", language, "apt/unit"),
        "city": say_in_context("address field", language, "city"),
        "state": say_in_context("address field", language, "state"),
        "zip": say_in_context("address field", language, "zip"),
        "country": say_in_context("address field", language, "country"),
    }
    shown = [f"{labels[key]}: {address[key]}" for key in labels if address.get(key)]
    return say_in_context("list separator", language, "; ").join(shown)
