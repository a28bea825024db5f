"""Products and their options: catalogue names, and colour, storage and size however they are written.

A colour is the catalogue's own option value when it names one ("Star Black", "星野黑"), else a plain
colour word (黑色 → "black"); storage is normalised ("12+256G" → "12GB+256GB"), sizes to S/M/L/XL.
"""

from __future__ import annotations

import re

from agents.intents.entities.catalogue import STORAGE_RE
from agents.intents.entities.scan import Scan, add_unique
from agents.intents.entities.text import NAME_SEP_RE, TOKEN_END, TOKEN_START

_STORAGE_GB = frozenset({16, 32, 64, 128, 256, 512, 1024, 2048})
_STORAGE_TB = frozenset({1, 2})

_SIZE_TOKEN = r"[2-4]XL|X{3}L|XXL|XL|XS|S|M|L"
_SIZE_WORDS = {"small": "S", "medium": "M", "large": "L", "extra large": "XL", "extra-large": "XL"}
_SIZE_CONTEXT_RE = re.compile(
    r"(?:(?<![A-Za-z])size|尺码|码数|码子|大小)[ ]*(?:(?:is|:|是|为|选|要)[ ]*)?"
    rf"(?P<tok>extra[ \-]large|small|medium|large|{_SIZE_TOKEN}){TOKEN_END}",
    re.IGNORECASE,
)
_SIZE_MARK_RE = re.compile(rf"{TOKEN_START}(?P<tok>(?i:{_SIZE_TOKEN}))[ ]?[码号]")
_SIZE_BEFORE_RE = re.compile(rf"{TOKEN_START}(?P<tok>{_SIZE_TOKEN})[ ]+(?i:size)(?![A-Za-z])")

_EN_COLOURS = {
    "black": "black",
    "white": "white",
    "blue": "blue",
    "grey": "grey",
    "gray": "grey",
    "red": "red",
    "green": "green",
    "purple": "purple",
    "pink": "pink",
    "gold": "gold",
    "silver": "silver",
    "yellow": "yellow",
    "orange": "orange",
}
_ZH_COLOURS = {
    "黑": "black",
    "白": "white",
    "蓝": "blue",
    "灰": "grey",
    "红": "red",
    "绿": "green",
    "紫": "purple",
    "粉": "pink",
    "粉红": "pink",
    "金": "gold",
    "玫瑰金": "rose gold",
    "银": "silver",
    "黄": "yellow",
    "橙": "orange",
}
# "black screen" is a fault, "Gold member" a tier: not colours.
_NOT_A_COLOUR_AFTER_RE = re.compile(
    r"[ ]?(?:screens?|list|friday|member|membership|tier|level|card|status)(?![A-Za-z])", re.IGNORECASE
)
_COLOUR_RE = re.compile(
    rf"(?<![A-Za-z])(?P<en>{'|'.join(_EN_COLOURS)})(?![A-Za-z])"
    r"|(?P<zh>玫瑰金|粉红|[黑白蓝灰红绿紫粉金银黄橙])色"
    r"|(?<=[要买选换个款是用])(?P<zhd>[黑白蓝灰红绿紫粉金银])的"
    r"|(?<![\u4e00-\u9fff])(?P<zhs>[黑白蓝灰红绿紫粉金银])(?![\u4e00-\u9fff])",
    re.IGNORECASE,
)


def extract_products(scan: Scan) -> None:
    regex = scan.matchers.product_re
    if regex is None:
        return
    for m in regex.finditer(scan.text):
        canonical = scan.matchers.products.get(NAME_SEP_RE.sub("", m.group()).lower())
        if canonical and scan.take(m.start(), m.end()):
            add_unique(scan.products, canonical)


def _storage_value(m: re.Match[str]) -> str | None:
    def rom(number: str, unit: str | None) -> str | None:
        size = int(number)
        if unit and unit.upper().startswith("T"):
            return f"{size}TB" if size in _STORAGE_TB else None
        if size not in _STORAGE_GB:
            return None
        return f"{size // 1024}TB" if size >= 1024 else f"{size}GB"

    if m["ram"]:
        ram, storage = int(m["ram"]), rom(m["rom"], m["unit"])
        return f"{ram}GB+{storage}" if storage and 1 <= ram <= 32 else None
    return rom(m["solo"], m["sunit"])


def extract_options(scan: Scan) -> None:
    text = scan.text
    for m in STORAGE_RE.finditer(text):
        value = _storage_value(m)
        if value and scan.take(m.start(), m.end()):
            scan.set_option("storage", value, m.start())

    if scan.matchers.colour_re is not None:
        for m in scan.matchers.colour_re.finditer(text):
            value = scan.matchers.colours.get(NAME_SEP_RE.sub("", m.group()).lower())
            if value and not _NOT_A_COLOUR_AFTER_RE.match(text, m.end()) and scan.take(m.start(), m.end()):
                scan.set_option("color", value, m.start())
    for m in _COLOUR_RE.finditer(text):
        if m["en"]:
            if _NOT_A_COLOUR_AFTER_RE.match(text, m.end()):
                continue
            value = _EN_COLOURS[m["en"].lower()]
        else:
            value = _ZH_COLOURS[m["zh"] or m["zhd"] or m["zhs"]]
        if scan.take(m.start(), m.end()):
            scan.set_option("color", value, m.start())

    for regex in (_SIZE_CONTEXT_RE, _SIZE_MARK_RE, _SIZE_BEFORE_RE):
        for m in regex.finditer(text):
            token = " ".join(m["tok"].lower().replace("-", " ").split())
            value = _SIZE_WORDS.get(token, token.upper())
            if scan.take(m.start("tok"), m.end("tok")):
                scan.set_option("size", value, m.start("tok"))
