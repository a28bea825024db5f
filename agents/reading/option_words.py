"""How a Chinese-writing shopper says an English catalogue's option values: 红色 for red, 500片 for 500 pieces,
两件套 for 2-piece, 1.5升 for 1.5L.

Words are data (`option_words.zh.json`: a value's spellings for any option, or for one option where the word
depends on it, as 高亮度 for a lamp's high brightness). Numbers with a unit are formats, read here. A spelling
that two values of one product share says neither and is dropped by the reader (agents/workflows/variants.py).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

_DIGITS = "零一二三四五六七八九"
_PLACES = ((1000, "千"), (100, "百"), (10, "十"), (1, ""))


def _numerals(n: int) -> tuple[str, ...]:
    """A whole number below 10,000 in characters, as a shopper writes it: 1500 as 一千五百 and 一千五, 2 as 两,
    200 as 两百 and 二百, 12 as 十二, 1050 as 一千零五十."""
    if not 0 < n < 10_000:
        return ()
    parts = [(n // place % 10, name) for place, name in _PLACES]
    while parts[0][0] == 0:
        parts.pop(0)
    said, zero = "", False
    for digit, name in parts:
        if digit == 0:
            zero = True
            continue
        said += "零" * (zero and bool(said)) + _DIGITS[digit] + name
        zero = False
    if 10 <= n < 20:  # 十二, not 一十二
        said = said[1:]
    forms = [said]
    if len(said) == 4 and said[3] in "百十" and "零" not in said:  # 一千五百 said as 一千五
        forms.append(said[:3])
    if said[0] == "二" and said[1:2] in ("千", "百"):  # 两百, 两千五
        forms += [f"两{form[1:]}" for form in forms]
    return ("两", "二") if n == 2 else tuple(forms)


_NUMBER = r"(\d+(?:\.\d+)?)"
# A number and its unit as the catalogue writes it -> as a Chinese shopper writes it ("{n}": the number).
_UNITS = (
    (rf"{_NUMBER}-piece", ("{n}件套", "{n}件")),
    (rf"{_NUMBER}\s*(?:l|liters?|litres?)", ("{n}升", "{n}l")),
    (rf"{_NUMBER}\s*ml", ("{n}毫升",)),
    (rf"{_NUMBER}\s*cups?", ("{n}杯",)),
    (rf"{_NUMBER}\s*hours?", ("{n}小时", "{n}个小时")),
    (rf"{_NUMBER}\s*[- ]?(?:inch(?:es)?|in|\")", ("{n}寸", "{n}英寸", "{n}吋")),
    (rf"{_NUMBER}\s*mah", ("{n}毫安", "{n}mah")),
    (rf"{_NUMBER}\s*(?:gb|g)", ("{n}g", "{n}gb", "{n}个g")),
    (rf"{_NUMBER}\s*tb", ("{n}t", "{n}tb")),
    (rf"{_NUMBER}\s*kg", ("{n}公斤", "{n}千克", "{n}kg")),
    (rf"{_NUMBER}\s*cm", ("{n}厘米", "{n}公分", "{n}cm")),
    (rf"{_NUMBER}\s*(?:m|meters?|metres?)", ("{n}米",)),
    (rf"{_NUMBER}\s*(?:ft|feet)", ("{n}英尺", "{n}ft", "{n}呎")),
    (rf"{_NUMBER}\s*mm", ("{n}毫米",)),
    (rf"{_NUMBER}\s*degrees?", ("{n}度", "{n}°")),
    (rf"{_NUMBER}\s*x", ("{n}倍", "{n}倍变焦")),
    (rf"{_NUMBER}\s*bar", ("{n}巴", "{n}bar")),
    (rf"{_NUMBER}\s*w\s+equivalent", ("{n}瓦", "{n}w")),
    (rf"{_NUMBER}\s*mp", ("{n}百万像素", "{n}00万像素")),  # 30MP: 3000万像素
    (r"(\d+)-(\d+)\s*lbs", ("{n}磅", "{a}到{b}磅")),
)
# Options whose bare number counts something: a puzzle's 500 pieces, a shoe's size 9.
_COUNTED = {"pieces": ("{n}片", "{n}块"), "size": ("{n}码", "{n}号")}


@cache
def _words() -> dict[str, dict[str, tuple[str, ...]]]:
    data = json.loads((Path(__file__).with_name("option_words.zh.json")).read_text(encoding="utf-8"))
    return {
        option: {value.lower(): tuple(spellings) for value, spellings in by_value.items()}
        for option, by_value in data.items()
        if not option.startswith("_")
    }


def option_names_zh(option: str) -> tuple[str, ...]:
    """What a Chinese-writing shopper calls an option (尺码 for size), for values that need their option's name."""
    return _words()["option names"].get(option.lower().strip(), ())


_BESIDE_NAME = "beside its option's name"
_OR_ALONE = "beside its option's name or alone in a list"


def spellings_beside_name_zh(value: str) -> tuple[str, ...]:
    """Spellings of `value` (of any option) that say it only right after its option's Chinese name (高 in
    "通风那栏是高", 无 in "扶手：无") or, for some, alone between a list's separators (黑 in "换成黑, 3英尺的")."""
    words, value = _words(), value.lower().strip()
    return (*words[_BESIDE_NAME].get(value, ()), *words[_OR_ALONE].get(value, ()))


@cache
def said_only_beside_name() -> frozenset[str]:
    return frozenset(
        s for section in (_BESIDE_NAME, _OR_ALONE) for spellings in _words()[section].values() for s in spellings
    )


@cache
def own_spellings_zh(option: str) -> frozenset[str]:
    """The spellings listed for this option's values alone (中等 of a skin tone): said on their own, whatever other
    options need their name beside them."""
    return frozenset(s.lower() for spellings in _words().get(option.lower().strip(), {}).values() for s in spellings)


@cache
def said_alone_in_a_list() -> frozenset[str]:
    return frozenset(s for spellings in _words()[_OR_ALONE].values() for s in spellings)


def _numbers(n: str) -> tuple[str, ...]:
    """A number as written, and in characters when it is a whole number (两 for 2, 一千五百 for 1500)."""
    return (n, *_numerals(int(n))) if n.isdigit() else (n,)


def _with_units(option: str, value: str) -> list[str]:
    out: list[str] = []
    if value.isdigit() and option in _COUNTED:
        out += [form.format(n=n) for form in _COUNTED[option] for n in _numbers(value)]
    for pattern, forms in _UNITS:
        if m := re.fullmatch(pattern, value):
            if m.lastindex == 2:  # a range: 55-75 lbs
                out += [form.format(n=f"{m[1]}-{m[2]}", a=m[1], b=m[2]) for form in forms]
            else:
                out += [form.format(n=n) for form in forms for n in _numbers(m[1])]
                if m[1].endswith(".5"):  # 1.5升 said as 一升半
                    out += [form.format(n=n) + "半" for form in forms[:1] for n in _numbers(m[1][:-2])]
    if (m := re.fullmatch(r"(\d+)000\s*ml", value)) and m[1] != "0":  # 1000ml: 1升, 1l
        out += [form.format(n=n) for form in ("{n}升", "{n}l") for n in _numbers(m[1])]
    return out


def spellings_zh(option: str, value: str) -> list[str]:
    """The Chinese spellings of `value` of `option` (both as the catalogue writes them), lower case."""
    option, value = option.lower().strip(), value.lower().strip()
    words = _words()
    found = [*words.get(option, {}).get(value, ()), *_with_units(option, value)]
    if value not in words.get(option, {}):  # an option's own words replace the general ones ("medium" brightness)
        found += words["*"].get(value, ())
    return list(dict.fromkeys(s.lower() for s in found))
