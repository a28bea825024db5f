"""Entity extraction from customer messages (zh/en): ids, products, options, contacts, money, dates, names.

Pure Python: no Django, no database, no I/O. Every regular expression is compiled at import; the
catalogue matchers are compiled once per catalogue and cached.

The text is normalised with NFKC first (full-width digits, letters, "＃", "：" and "，" become ASCII),
then each extractor runs in a fixed order and claims the characters it used, so one piece of text
is reported once: a tracking number is not also an order id, an IMEI not also a phone number, a
phone number not also an amount.

`extract_entities` never raises: a bug in one extractor is logged and that entity is left out.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache

logger = logging.getLogger(__name__)

__all__ = ["EMPTY_CATALOGUE", "MAX_TEXT_CHARS", "Catalogue", "CatalogueProduct", "extract_entities"]

# Longer messages are cut: the extractor stays fast whatever it is given.
MAX_TEXT_CHARS = 20_000


@dataclass(frozen=True)
class CatalogueProduct:
    name: str  # "Find X9"
    aliases: tuple[str, ...]  # ("X9", "FindX9", "Find-X9")
    name_zh: str = ""  # "Find X9" or "Pad 3 平板"
    option_values: tuple[str, ...] = ()  # every variant option value, e.g. ("Star Black", "星野黑", "12GB+256GB")


@dataclass(frozen=True)
class Catalogue:
    products: tuple[CatalogueProduct, ...] = ()


EMPTY_CATALOGUE = Catalogue()

# --------------------------------------------------------------------------------------------------
# Shared pieces

_A = r"(?<![A-Za-z0-9])"  # starts a token: no ASCII letter or digit before
_Z = r"(?![A-Za-z0-9])"  # ends a token: no ASCII letter or digit after
_SEP = r"[\s_\-]*"  # what may separate the characters of a product name: "Find X9", "FindX9", "Find-X9"
_FILLER = r"(?:\s|[:#=是为]|(?:is|was|are)(?![A-Za-z]))*"  # between a context word and its value

_SEP_RE = re.compile(r"[\s_\-]+")
_DROP_CHARS = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-"})

_CN_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}


def _normalise(text: object) -> str:
    """NFKC, no zero-width characters, one kind of dash; "" for anything that is not text."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text[: MAX_TEXT_CHARS * 4]).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFKC", text[:MAX_TEXT_CHARS])
    return text.translate(_DROP_CHARS).translate(_DASHES)[:MAX_TEXT_CHARS]


def _squash(text: str) -> str:
    """The form names are compared in: normalised, lower case, no spaces, hyphens or underscores."""
    return _SEP_RE.sub("", _normalise(text)).lower()


def _parse_cn_number(text: str) -> int | None:
    """Chinese numerals: 三千 → 3000, 三千五 → 3500, 一万五 → 15000, 两百 → 200; None if malformed."""
    total = section = 0
    digit: int | None = None
    last_unit = 0
    for ch in text:
        if ch in _CN_DIGITS:
            if digit is not None:
                return None
            digit = _CN_DIGITS[ch]
            if digit == 0:
                last_unit, digit = 0, None
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            if digit is None:
                if unit != 10 or section or total:
                    return None
                digit = 1
            section += digit * unit
            digit, last_unit = None, unit
        elif ch == "万":
            if digit is not None:
                section += digit
            if section == 0:
                return None
            total += section * 10000
            section, digit, last_unit = 0, None, 10000
        else:
            return None
    if digit is not None:
        section += digit * (last_unit // 10) if last_unit >= 10 else digit
    value = total + section
    return value or None


def _small_number(text: str) -> int | None:
    """A count in digits, Chinese numerals or English words: "3", "三", "three"."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in _EN_NUMBERS:
        return _EN_NUMBERS[text]
    return _parse_cn_number(text)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        value = ord(ch) - 48
        if i % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------------
# Regular expressions

_EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)

_TRACKING_PREFIXED_RE = re.compile(rf"{_A}(?:SF[0-9]{{10,15}}|1Z[0-9A-Z]{{16}}|YT[0-9]{{10,13}}){_Z}", re.IGNORECASE)
_TRACKING_CONTEXT_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:tracking|waybill)(?:[ ]?(?:number|num|no\.?|id|code|#))?"
    r"|快递单号|快递单|快递号|运单号|运单编号|物流单号|物流编号|物流号)"
    rf"{_FILLER}(?P<id>[0-9]{{10,15}}|[A-Za-z]{{1,3}}[0-9]{{8,15}}){_Z}",
    re.IGNORECASE,
)

_ORDER_ID = rf"#?[ ]?(?P<id>(?P<letter>[A-Za-z])?(?P<digits>[0-9]{{4,20}})){_Z}"
_ORDER_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])orders?(?:[ ]?(?:number|num|no\.?|id|#))?|订单(?:编号|号码|号)?){_FILLER}{_ORDER_ID}",
    re.IGNORECASE,
)
_ORDER_MORE_RE = re.compile(rf"\s*(?:,|、|/|&|和|及|与|跟|以及|(?i:and|or)(?![A-Za-z]))\s*{_ORDER_ID}")
_ORDER_HASH_RE = re.compile(rf"(?<![A-Za-z0-9&#])#[ ]?(?P<letter>[A-Za-z])?(?P<digits>[0-9]{{4,20}}){_Z}")
_ORDER_BARE_RE = re.compile(rf"(?<![A-Za-z0-9#])(?P<letter>[A-Z])(?P<digits>[0-9]{{6,12}}){_Z}")
# A short one ("D1001") where no model number would stand: beside Chinese, or alone ("D1001 寄到…").
_ORDER_SHORT_RE = re.compile(
    r"(?:^|(?<=[\u4e00-\u9fff\s]))(?<![A-Za-z0-9#])(?P<letter>[A-Z])(?P<digits>[0-9]{4,5})"
    r"(?=\s*[\u4e00-\u9fff]|\s*$|\s*[,，。.!！?？:：;；()（）\-–—])"
)
# ... and after a word that points at an order: "the phone from D2001", "in D1001".
_ORDER_AFTER_RE = re.compile(rf"\b(?:from|in|on|for|of|is|was|order)\s+(?P<letter>[A-Z])(?P<digits>[0-9]{{4,5}}){_Z}")

_IMEI_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])imei(?:[ ]?(?:number|no\.?|code|号|码))?|串号|串码){_FILLER}"
    r"(?P<num>[0-9](?:[ \-]?[0-9]){14})(?![0-9])",
    re.IGNORECASE,
)
_IMEI_BARE_RE = re.compile(rf"{_A}[0-9]{{15}}{_Z}")

_PHONE_RE = re.compile(
    r"(?<![0-9A-Za-z+])(?:"
    r"(?P<cn>(?:\+86[ \-]?)?1[3-9][0-9][ \-]?[0-9]{4}[ \-]?[0-9]{4})"
    r"|(?P<us>\+1[ .\-]?(?:\([2-9][0-9]{2}\)|[2-9][0-9]{2})[ .\-]?[0-9]{3}[ .\-]?[0-9]{4})"
    r"|(?P<intl>\+[2-9][0-9]{0,2}(?:[ .\-]?[0-9]){6,12})"
    r"|(?P<local>(?:\([2-9][0-9]{2}\)[ ]?|[2-9][0-9]{2}[ .\-])[0-9]{3}[ .\-][0-9]{4})"
    r"|(?P<landline>0[1-9][0-9]{1,2}-[0-9]{7,8})"
    r")(?![0-9])"
)

_LAST4_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:last[ ]?(?:four|4)[ ]?(?:digits?|numbers?|nums?)(?:[^0-9\n]{0,25}?)"
    r"|last[ ]?(?:four|4)|ending(?:[ ]+(?:in|with))?|ends?[ ]+(?:in|with))"
    r"|尾号|尾数|后四位|后4位|末四位|末4位|最后四位|最后4位)"
    rf"{_FILLER}(?P<last4>[0-9]{{4}})(?![0-9])",
    re.IGNORECASE,
)

_ZIP_VALUE = r"(?P<zip>[0-9]{5}-[0-9]{4}|[0-9]{6}|[0-9]{5})(?![0-9])"
_ZIP_CONTEXT_RE = re.compile(
    rf"(?:(?<![A-Za-z])(?:zip(?:[ ]?code)?|post[ ]?code|postal[ ]+code)|邮编|邮政编码){_FILLER}{_ZIP_VALUE}",
    re.IGNORECASE,
)
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK "
    "OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()
_ZIP_STATE_RE = re.compile(
    rf"(?<![A-Za-z])(?:{'|'.join(_US_STATES)})[ ]*,?[ ]+(?P<zip>[0-9]{{5}}(?:-[0-9]{{4}})?)(?![0-9])"
)

_MONTHS = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march"})  # also plain words: only when capitalised
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?:19|20)[0-9]{2}"
_DATE_YMD_RE = re.compile(
    rf"(?<![0-9])(?P<y>{_YEAR})[ ]?(?:[\-/.]|年)[ ]?(?P<m>[0-9]{{1,2}})[ ]?(?:[\-/.]|月)[ ]?(?P<d>[0-9]{{1,2}})"
    r"(?:[ ]?[日号])?(?![0-9])"
)
_DATE_US_RE = re.compile(rf"(?<![0-9/])(?P<a>[0-9]{{1,2}})/(?P<b>[0-9]{{1,2}})/(?P<y>{_YEAR})(?![0-9/])")
_DATE_ZH_MD_RE = re.compile(
    r"(?<![0-9])(?P<m>[0-9]{1,2})[ ]?月[ ]?(?P<d>[0-9]{1,2})(?P<mark>[ ]?[日号])?(?![0-9])"
    r"(?P<after>[个天次台部件元块%位]?)"
)
_DATE_EN_MD_RE = re.compile(
    rf"(?<![A-Za-z])(?P<mon>{_MONTH})\.?[ ]+(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?{_Z}(?:,?[ ]+(?P<y>{_YEAR})(?![0-9]))?",
    re.IGNORECASE,
)
_DATE_EN_DM_RE = re.compile(
    rf"{_A}(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?[ ]+(?:of[ ]+)?(?P<mon>{_MONTH})(?![A-Za-z])\.?"
    rf"(?:,?[ ]+(?P<y>{_YEAR})(?![0-9]))?",
    re.IGNORECASE,
)
_EN_COUNT = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_RELATIVE_DAYS = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "昨日": -1,
    "今天": 0,
    "今日": 0,
    "明天": 1,
    "明日": 1,
    "后天": 2,
    "大后天": 3,
    "the day before yesterday": -2,
    "day before yesterday": -2,
    "yesterday": -1,
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
}
_DATE_RELATIVE_RE = re.compile(
    r"(?P<zh>大前天|大后天|前天|昨天|昨日|今天|今日|明天|明日|后天)"
    r"|(?<![A-Za-z])(?P<en>the day before yesterday|day before yesterday|the day after tomorrow|day after tomorrow"
    r"|yesterday|today|tonight|tomorrow)(?![A-Za-z])"
    r"|(?<![0-9])(?P<zn>[0-9]{1,3}|[一二两三四五六七八九十]{1,3})[ ]?个?[ ]?(?P<zu>天|周|星期|礼拜)[ ]?(?:之前|以前|前)"
    rf"|{_A}(?P<enn>[0-9]{{1,3}}|{_EN_COUNT})[ ]+(?P<eu>days?|weeks?)[ ]+ago(?![A-Za-z])",
    re.IGNORECASE,
)

_STORAGE_RE = re.compile(
    r"(?<![A-Za-z0-9.+])(?:"
    r"(?P<ram>[0-9]{1,2})[ ]?(?:GB|G)?[ ]?\+[ ]?(?P<rom>[0-9]{1,4})[ ]?(?P<unit>GB|G|TB|T)?"
    r"|(?P<solo>[0-9]{1,4})[ ]?(?P<sunit>GB|G|TB|T)"
    r")(?![A-Za-z0-9+])",
    re.IGNORECASE,
)
_STORAGE_GB = frozenset({16, 32, 64, 128, 256, 512, 1024, 2048})
_STORAGE_TB = frozenset({1, 2})

_SIZE_TOKEN = r"[2-4]XL|X{3}L|XXL|XL|XS|S|M|L"
_SIZE_WORDS = {"small": "S", "medium": "M", "large": "L", "extra large": "XL", "extra-large": "XL"}
_SIZE_CONTEXT_RE = re.compile(
    r"(?:(?<![A-Za-z])size|尺码|码数|码子|大小)[ ]*(?:(?:is|:|是|为|选|要)[ ]*)?"
    rf"(?P<tok>extra[ \-]large|small|medium|large|{_SIZE_TOKEN}){_Z}",
    re.IGNORECASE,
)
_SIZE_MARK_RE = re.compile(rf"{_A}(?P<tok>(?i:{_SIZE_TOKEN}))[ ]?[码号]")
_SIZE_BEFORE_RE = re.compile(rf"{_A}(?P<tok>{_SIZE_TOKEN})[ ]+(?i:size)(?![A-Za-z])")

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
# Words that say an option value is a colour, for classifying a catalogue's option values.
_COLOUR_HINT_RE = re.compile(
    r"(?<![A-Za-z])(?:black|white|blue|grey|gray|red|green|purple|pink|gold|silver|yellow|orange|brown|beige|cyan"
    r"|teal|navy|graphite|titanium|midnight|starlight|rose|champagne|violet|lavender|mint|cream|ivory|bronze"
    r"|copper|jade|coral)(?![A-Za-z])|[黑白蓝灰红绿紫粉金银黄橙青棕褐]",
    re.IGNORECASE,
)

_NUMBER_RE = re.compile(r"(?<![0-9])(?<![0-9][.,])(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)")
_CN_NUMERAL = "零〇一二两三四五六七八九十百千万"
_CN_AMOUNT_RE = re.compile(rf"(?<![{_CN_NUMERAL}])[一二两三四五六七八九十][{_CN_NUMERAL}]{{0,7}}")
_AMOUNT_MULT_RE = re.compile(r"[ ]?(?:(?P<cjk>千|万)|(?P<en>k|thousand)(?![A-Za-z]))", re.IGNORECASE)
_AMOUNT_SUFFIX_RE = re.compile(
    r"[ ]?(?:(?P<cny>元|块钱|人民币|(?:rmb|cny|yuan)(?![A-Za-z]))|(?P<kuai>块)"
    r"|(?P<usd>美元|美金|刀|(?:usd|dollars?|bucks)(?![A-Za-z])))",
    re.IGNORECASE,
)
_KUAI_OK_AFTER = frozenset("钱的吧吗呢啊呀了左以上下内多")
_CN_AMOUNT_OK_AFTER = frozenset("的吧吗呢啊呀了左以上下内多块元")
_AMOUNT_PREFIX_RE = re.compile(
    r"(?:(?P<usd>US\$|\$|(?<![A-Za-z])usd|美元)|(?P<cny>¥|(?<![A-Za-z])(?:cny|rmb)|人民币))[ ]?", re.IGNORECASE
)
_AMOUNT_CONTEXT_BEFORE_RE = re.compile(
    r"(?:预算|价位|价格|价钱|售价|单价|费用|花了|付了|付款|支付了?|退款|退了|退我|不超过|不高于|低于|不到|最多|大概|大约|差不多"
    r"|降价到|降到|涨到|差价|补差价|便宜了?"
    r"|(?<![A-Za-z])(?:budget(?:[ ]+(?:is|of|was))?|under|below|less[ ]+than|no[ ]+more[ ]+than|not[ ]+more[ ]+than"
    r"|at[ ]+most|max(?:imum)?|within|up[ ]+to|around|about|approximately|roughly|price[ds]?(?:[ ]+(?:is|of|was|at))?"
    r"|costs?|cost[ ]+me|spent|spend|paid|pay|refund(?:ed)?|charged))"
    r"[ ]?(?:是|在|为|了|:|大概|大约|约)?[ ]?",
    re.IGNORECASE,
)
_AMOUNT_CONTEXT_AFTER_RE = re.compile(r"[ ]?(?:以内|以下|之内|左右|上下|以上)")
_AMOUNT_UNIT_AFTER_RE = re.compile(
    r"[ ]?(?:(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|mah|gb|tb|mb|g|t|mp|hz|w|inch(?:es)?"
    r"|cm|mm|kg|items?|pieces?|pcs|phones?|units?|times?|people|persons?|percent|orders?|questions?|digits?)"
    r"(?![A-Za-z])|%|个|天|日|号|月|年|周|小时|分钟|秒|次|台|部|件|张|位|人|毫安|像素|寸|英寸|克|岁|款|种|条|倍|瓦|分)",
    re.IGNORECASE,
)
_AMOUNT_RANGE_RE = re.compile(r"[ ]?(?:元|块)?[ ]?(?:-|~|到|至|(?i:to))[ ]?(?:¥|\$)?")

_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
# A capitalised word (Ada, O'Brien, Jean-Luc, McDonald, Seán), not the start of a longer word.
_NAME_WORD = rf"[{_UPPER}][{_LOWER}]*(?:['’\-][{_UPPER}]?[{_LOWER}]+|[{_UPPER}][{_LOWER}]+)*(?![^\W\d_])"
_EN_NAME = rf"{_NAME_WORD}(?:[ ]+{_NAME_WORD}){{0,3}}"
_EN_NAME_RE = re.compile(
    r"(?<![A-Za-z])(?P<intro>(?i:my[ ]+name[ ]+is[ ]+|my[ ]+name['’]s[ ]+|(?:full[ ]+)?name[ ]*:[ ]*|name[ ]+is[ ]+"
    r"|i[ ]?['’]?m[ ]+|i[ ]+am[ ]+|this[ ]+is[ ]+|call[ ]+me[ ]+))"
    rf"(?P<name>{_EN_NAME})"
)
_ZH_NAME_RE = re.compile(
    r"(?P<intro>我的名字是|我的名字叫|名字是|名字叫|姓名是|姓名为|姓名|联系人|收件人|收货人|我叫|我是|本人)[ ]?:?[ ]?"
    rf"(?P<name>[\u4e00-\u9fff]{{2,4}}|{_EN_NAME})"
)
_NAME_STOP_WORDS = frozenset(
    """a an the and or but so i im me my we you he she it they this that here there not no yes sorry just still
    also very really too happy glad sure fine good great ok okay new back done unable confused angry upset tired
    frustrated disappointed annoyed worried interested customer member vip buyer from in at on with about for to of
    chinese english american british canadian australian indian calling writing contacting looking trying hoping
    wondering having going getting asking waiting using planning thinking please thanks thank hi hello hey dear
    order phone email number""".split()
)
# Common Chinese surnames; 我叫/我是 introduce a name only when one follows (我是来退货的 is not a name).
_ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金"
    "石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤康施文牛樊葛邢齐易乔伍庞颜倪庄聂章"
    "鲁岳翟殷詹申欧耿兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛曲翁冉骆蓝游辛靳管柴蒙鲍华喻祁蒲房滕屈饶牟艾尤"
    "穆卓缪简项芦麦褚娄窦戚岑景党费卜冷晏席卫米柏宗瞿桂佟臧闵苟邬卞姬仇栾隋刁沙荣巫寇桑郎甄丛仲虞敖巩佘迟邝"
)
_ZH_COMPOUND_SURNAMES = frozenset(
    "欧阳 司马 诸葛 上官 东方 慕容 令狐 皇甫 尉迟 公孙 司徒 夏侯 长孙 宇文 轩辕 端木 西门 南宫 独孤 呼延".split()
)
_ZH_NAME_STOP_CHARS = frozenset(
    "的了呢啊吗呀哦哈嘛吧在是我你他她它们想要买问请能会有订来去说和跟与就也都还刚已这那您啦喔噢咯呗嗯哎诶先再又很太最不没"
    "电手邮快退换客购收发给把被让从到因所但而或及等"
)
# Words that start with a surname but are not names: 我是黄金会员, 我是华为用户, 我是江苏的.
_ZH_NAME_NOT = tuple(
    "高级 黄金 白金 金牌 金卡 王者 马上 方便 石头 钱包 毛病 万一 周末 江湖 华为 荣耀 金立"
    " 江苏 江西 武汉 沈阳 宁波 宁夏 温州 郑州 徐州 苏州 唐山 石家庄 柳州 桂林 黄石 秦皇岛 兰州 包头 金华 常州"
    " 于是 方面 文件 史上".split()
)
_ZH_NAME_INTROS_NEEDING_SURNAME = frozenset({"我叫", "我是", "本人"})


# --------------------------------------------------------------------------------------------------
# Catalogue matchers: one regex over every name (a trie, so many products stay fast), longest first


class _TrieNode:
    __slots__ = ("children", "terminal")

    def __init__(self) -> None:
        self.children: dict[str, _TrieNode] = {}
        self.terminal = False


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _is_cjk(ch: str) -> bool:
    return len(ch) == 1 and "\u4e00" <= ch <= "\u9fff"


def _node_pattern(node: _TrieNode, last: str) -> str:
    parts = [_SEP + re.escape(ch) + _node_pattern(child, ch) for ch, child in sorted(node.children.items())]
    if node.terminal:
        parts.append(_Z if _is_ascii_alnum(last) else "")  # last: the longest alternative wins
    if len(parts) == 1:
        return parts[0]
    return "(?:" + "|".join(parts) + ")"


def _trie_regex(keys: Iterable[str]) -> re.Pattern[str] | None:
    root = _TrieNode()
    for key in keys:
        node = root
        for ch in key:
            node = node.children.setdefault(ch, _TrieNode())
        node.terminal = True
    if not root.children:
        return None
    parts = [
        (_A if _is_ascii_alnum(ch) else "") + re.escape(ch) + _node_pattern(child, ch)
        for ch, child in sorted(root.children.items())
    ]
    return re.compile("(?:" + "|".join(parts) + ")", re.IGNORECASE)


@dataclass(frozen=True)
class _Matchers:
    product_re: re.Pattern[str] | None = None
    products: dict[str, str] = field(default_factory=dict)  # squashed surface form -> canonical name
    colour_re: re.Pattern[str] | None = None
    colours: dict[str, str] = field(default_factory=dict)  # squashed option value -> option value


_NO_MATCHERS = _Matchers()


@lru_cache(maxsize=32)
def _matchers_for(catalogue: Catalogue) -> _Matchers:
    products: dict[str, str] = {}
    colours: dict[str, str] = {}
    for product in catalogue.products:
        canonical = _normalise(product.name).strip()
        if not canonical:
            continue
        for surface in (product.name, product.name_zh, *product.aliases):
            key = _squash(surface)
            if key:
                products.setdefault(key, canonical)
        for value in product.option_values:
            clean = " ".join(_normalise(value).split())
            key = _squash(value)
            if key and _COLOUR_HINT_RE.search(clean) and not _STORAGE_RE.fullmatch(clean):
                colours.setdefault(key, clean)
    return _Matchers(_trie_regex(products), products, _trie_regex(colours), colours)


# The same catalogue object is usually passed on every call: find it without hashing every product.
_RECENT_MATCHERS: dict[int, tuple[Catalogue, _Matchers]] = {}


def _matchers_cached(catalogue: Catalogue) -> _Matchers:
    recent = _RECENT_MATCHERS.get(id(catalogue))
    if recent is not None and recent[0] is catalogue:
        return recent[1]
    matchers = _matchers_for(catalogue)
    if len(_RECENT_MATCHERS) >= 8:
        _RECENT_MATCHERS.clear()
    _RECENT_MATCHERS[id(catalogue)] = (catalogue, matchers)
    return matchers


# --------------------------------------------------------------------------------------------------
# The scan: one message, the characters already used, what was found


class _Scan:
    def __init__(self, text: str, today: date, matchers: _Matchers) -> None:
        self.text = text
        self.today = today
        self.matchers = matchers
        self.used = bytearray(len(text))
        self.order_ids: list[tuple[int, str]] = []
        self.tracking_numbers: list[tuple[int, str]] = []
        self.products: list[str] = []
        self.options: dict[str, str] = {}
        self.option_starts: dict[str, int] = {}
        self.phone = ""
        self.email = ""
        self.imei = ""
        self.amounts: list[dict[str, object]] = []
        self.dates: list[tuple[int, str]] = []
        self.names: list[tuple[int, str]] = []
        self.zip = ""
        self.last4 = ""

    def free(self, start: int, end: int) -> bool:
        return 1 not in self.used[start:end]

    def claim(self, start: int, end: int) -> None:
        self.used[start:end] = b"\x01" * (end - start)

    def take(self, start: int, end: int) -> bool:
        """Claim [start, end) if nothing there is claimed yet; whether it was."""
        if start >= end or not self.free(start, end):
            return False
        self.claim(start, end)
        return True

    def set_option(self, key: str, value: str, start: int) -> None:
        """The first mention of each option wins."""
        if key not in self.options or start < self.option_starts[key]:
            self.options[key] = value
            self.option_starts[key] = start

    def result(self) -> dict[str, object]:
        found: dict[str, object] = {}
        tracking = _in_order(self.tracking_numbers)
        orders = [order for order in _in_order(self.order_ids) if order not in tracking]
        if orders:
            found["order_ids"] = orders
        if tracking:
            found["tracking_numbers"] = tracking
        if self.products:
            found["products"] = self.products
        if self.options:
            found["options"] = dict(self.options)
        if self.phone:
            found["phone"] = self.phone
        if self.email:
            found["email"] = self.email
        if self.imei:
            found["imei"] = self.imei
        if self.amounts:
            found["amounts"] = self.amounts
        if self.dates:
            found["dates"] = _in_order(self.dates)
        if self.names:
            found["names"] = _in_order(self.names)
        if self.zip:
            found["zip"] = self.zip
        if self.last4:
            found["last4"] = self.last4
        return found


def _add_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def _in_order(found: list[tuple[int, str]]) -> list[str]:
    """Values by where they start in the text, each once."""
    return list(dict.fromkeys(value for _, value in sorted(found)))


# --------------------------------------------------------------------------------------------------
# Extractors, in the order they run (earlier ones claim text first)


def _extract_email(scan: _Scan) -> None:
    if "@" not in scan.text:
        return
    for m in _EMAIL_RE.finditer(scan.text):
        if scan.take(m.start(), m.end()) and not scan.email:
            scan.email = m.group().lower()


def _extract_prefixed_tracking(scan: _Scan) -> None:
    for m in _TRACKING_PREFIXED_RE.finditer(scan.text):
        if scan.take(m.start(), m.end()):
            scan.tracking_numbers.append((m.start(), m.group().upper()))


def _extract_imei_with_context(scan: _Scan) -> None:
    for m in _IMEI_CONTEXT_RE.finditer(scan.text):
        digits = re.sub(r"[^0-9]", "", m.group("num"))
        if _luhn_ok(digits) and scan.take(m.start("num"), m.end("num")) and not scan.imei:
            scan.imei = digits


def _extract_tracking_with_context(scan: _Scan) -> None:
    for m in _TRACKING_CONTEXT_RE.finditer(scan.text):
        if scan.take(m.start("id"), m.end("id")):
            scan.tracking_numbers.append((m.start("id"), m.group("id").upper()))


def _order_id(m: re.Match[str]) -> str | None:
    letter, digits = m.group("letter"), m.group("digits")
    if letter:
        return f"#{letter.upper()}{digits}"
    return digits if len(digits) >= 6 else None


def _take_order(scan: _Scan, m: re.Match[str]) -> None:
    order_id = _order_id(m)
    if order_id and scan.take(m.start(), m.end()):
        scan.order_ids.append((m.start(), order_id))


def _extract_order_ids(scan: _Scan) -> None:
    text = scan.text
    for m in _ORDER_CONTEXT_RE.finditer(text):
        match: re.Match[str] | None = m
        while match is not None:
            order_id = _order_id(match)
            if not order_id or not scan.take(match.start("id"), match.end("id")):
                break
            scan.order_ids.append((match.start("id"), order_id))
            match = _ORDER_MORE_RE.match(text, match.end())
    if "#" in text:
        for m in _ORDER_HASH_RE.finditer(text):
            _take_order(scan, m)
    for m in (*_ORDER_BARE_RE.finditer(text), *_ORDER_SHORT_RE.finditer(text)):
        _take_order(scan, m)
    for m in _ORDER_AFTER_RE.finditer(text):
        if scan.take(m.start("letter"), m.end("digits")):  # the id, not the word before it
            scan.order_ids.append((m.start("letter"), _order_id(m)))


def _extract_bare_imei(scan: _Scan) -> None:
    for m in _IMEI_BARE_RE.finditer(scan.text):
        digits = m.group()
        if len(set(digits)) > 1 and _luhn_ok(digits) and scan.take(m.start(), m.end()) and not scan.imei:
            scan.imei = digits


def _extract_phone(scan: _Scan) -> None:
    for m in _PHONE_RE.finditer(scan.text):
        raw = m.group()
        digits = re.sub(r"[^0-9]", "", raw)
        if m.group("intl") and not 8 <= len(digits) <= 15:
            continue
        if scan.take(m.start(), m.end()) and not scan.phone:
            scan.phone = ("+" if raw.startswith("+") else "") + digits


def _extract_last4(scan: _Scan) -> None:
    for m in _LAST4_RE.finditer(scan.text):
        if scan.take(m.start("last4"), m.end("last4")) and not scan.last4:
            scan.last4 = m.group("last4")


def _extract_zip(scan: _Scan) -> None:
    for regex in (_ZIP_CONTEXT_RE, _ZIP_STATE_RE):
        for m in regex.finditer(scan.text):
            if scan.take(m.start("zip"), m.end("zip")) and not scan.zip:
                scan.zip = m.group("zip")


def _add_date(scan: _Scan, m: re.Match[str], day: date | None, end: int | None = None) -> None:
    if day is not None and scan.take(m.start(), m.end() if end is None else end):
        scan.dates.append((m.start(), day.isoformat()))


def _month_ok(word: str) -> bool:
    """The words may, mar and march are dates only when capitalised ("May 5", not "you may 2")."""
    return word.lower() not in _AMBIGUOUS_MONTHS or word[0].isupper()


def _extract_dates(scan: _Scan) -> None:
    text, year = scan.text, scan.today.year
    for m in _DATE_YMD_RE.finditer(text):
        _add_date(scan, m, _safe_date(int(m["y"]), int(m["m"]), int(m["d"])))
    if "/" in text:
        for m in _DATE_US_RE.finditer(text):
            first, second = int(m["a"]), int(m["b"])
            month, day = (second, first) if first > 12 else (first, second)
            _add_date(scan, m, _safe_date(int(m["y"]), month, day))
    if "月" in text:
        for m in _DATE_ZH_MD_RE.finditer(text):
            if m["mark"] or not m["after"]:
                end = m.end("mark") if m["mark"] else m.end("d")
                _add_date(scan, m, _safe_date(year, int(m["m"]), int(m["d"])), end=end)
    for regex in (_DATE_EN_MD_RE, _DATE_EN_DM_RE):
        for m in regex.finditer(text):
            if _month_ok(m["mon"]):
                given = int(m["y"]) if m["y"] else year
                _add_date(scan, m, _safe_date(given, _MONTHS[m["mon"].lower()], int(m["d"])))
    for m in _DATE_RELATIVE_RE.finditer(text):
        word = m["zh"] or m["en"]
        if word:
            offset = _RELATIVE_DAYS[" ".join(word.lower().split())]
        else:
            count = _small_number(m["zn"] or m["enn"])
            if count is None or count > 3650:
                continue
            unit = (m["zu"] or m["eu"]).lower()
            offset = -count * (1 if unit in {"天", "day", "days"} else 7)
        try:
            resolved: date | None = scan.today + timedelta(days=offset)
        except OverflowError:  # past date.min or date.max
            resolved = None
        _add_date(scan, m, resolved)


def _extract_products(scan: _Scan) -> None:
    regex = scan.matchers.product_re
    if regex is None:
        return
    for m in regex.finditer(scan.text):
        canonical = scan.matchers.products.get(_SEP_RE.sub("", m.group()).lower())
        if canonical and scan.take(m.start(), m.end()):
            _add_unique(scan.products, canonical)


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


def _extract_options(scan: _Scan) -> None:
    text = scan.text
    for m in _STORAGE_RE.finditer(text):
        value = _storage_value(m)
        if value and scan.take(m.start(), m.end()):
            scan.set_option("storage", value, m.start())

    if scan.matchers.colour_re is not None:
        for m in scan.matchers.colour_re.finditer(text):
            value = scan.matchers.colours.get(_SEP_RE.sub("", m.group()).lower())
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


@dataclass
class _AmountCandidate:
    start: int
    end: int
    value: float
    currency: str | None
    accepted: bool
    blocked: bool = False  # part of a name (X9) or a count (3 days): never an amount


class _AmountContext:
    """Where, in one message, a currency sign or a budget word ends: a number starting there is money."""

    def __init__(self, text: str) -> None:
        self.currency_before: dict[int, str] = {
            m.end(): "USD" if m["usd"] else "CNY" for m in _AMOUNT_PREFIX_RE.finditer(text)
        }
        self.budget_before = {m.end() for m in _AMOUNT_CONTEXT_BEFORE_RE.finditer(text)}


def _amount_candidate(
    scan: _Scan, context: _AmountContext, start: int, end: int, value: float, *, chinese: bool
) -> _AmountCandidate:
    """Read the multiplier, currency and context around a number and decide if it is an amount.

    A number is an amount with a currency (¥3999, 49.99 dollars), with 千/万 (3千, 三千, 1.5万) or
    after a budget word (预算 3000, under 4000), unless a unit follows (3 days, 5000 mAh, 5千毫安).
    """
    text = scan.text
    cjk_mult = chinese and ("千" in text[start:end] or "万" in text[start:end])
    if not chinese and (mult := _AMOUNT_MULT_RE.match(text, end)):
        cjk_mult = mult["cjk"] is not None
        value *= 10000 if mult["cjk"] == "万" else 1000
        end = mult.end()
    currency = context.currency_before.get(start)
    if currency is None and start and _is_ascii_alnum(text[start - 1]):
        return _AmountCandidate(start, end, value, None, False, blocked=True)  # "X9", "V2": part of a name
    if suffix := _AMOUNT_SUFFIX_RE.match(text, end):
        after = text[suffix.end() : suffix.end() + 1]
        kuai_ok = not _is_cjk(after) or after in _KUAI_OK_AFTER
        if suffix["usd"] or suffix["cny"] or kuai_ok:
            currency = currency or ("USD" if suffix["usd"] else "CNY")
            end = suffix.end()
    value = round(value, 2)
    if currency:
        return _AmountCandidate(start, end, value, currency, True)
    if _AMOUNT_UNIT_AFTER_RE.match(text, end):
        return _AmountCandidate(start, end, value, None, False, blocked=True)
    accepted = cjk_mult or start in context.budget_before or _AMOUNT_CONTEXT_AFTER_RE.match(text, end) is not None
    return _AmountCandidate(start, end, value, None, accepted)


def _extract_amounts(scan: _Scan) -> None:
    text = scan.text
    context = _AmountContext(text)
    candidates: list[_AmountCandidate] = []
    for m in _NUMBER_RE.finditer(text):
        if scan.free(m.start(), m.end()):
            value = float(m["num"].replace(",", ""))
            candidates.append(_amount_candidate(scan, context, m.start(), m.end(), value, chinese=False))
    for m in _CN_AMOUNT_RE.finditer(text):
        number = _parse_cn_number(m.group())
        if number is not None and scan.free(m.start(), m.end()):
            candidate = _amount_candidate(scan, context, m.start(), m.end(), float(number), chinese=True)
            # Chinese numerals are also words (差不多一样, 一千零一夜): without a currency, only from 一百 up
            # and at the end of a phrase (预算三千, 三千左右, 三千的).
            after = text[candidate.end : candidate.end + 1]
            candidate.accepted = candidate.accepted and (
                candidate.currency is not None
                or (number >= 100 and (not _is_cjk(after) or after in _CN_AMOUNT_OK_AFTER))
            )
            candidates.append(candidate)
    candidates.sort(key=lambda c: c.start)

    # Ranges: "3000-4000元", "预算 3000 到 4000": both ends are amounts, in the same currency.
    for previous, current in zip(candidates, candidates[1:], strict=False):
        if previous.end > current.start or not _AMOUNT_RANGE_RE.fullmatch(text, previous.end, current.start):
            continue
        if previous.blocked or current.blocked or not (previous.accepted or current.accepted):
            continue
        currency = previous.currency or current.currency
        for end in (previous, current):
            end.accepted, end.currency = True, end.currency or currency

    seen: set[tuple[float, str | None]] = set()
    for candidate in candidates:
        key = (candidate.value, candidate.currency)
        if candidate.accepted and key not in seen and scan.take(candidate.start, candidate.end):
            seen.add(key)
            scan.amounts.append({"value": candidate.value, "currency": candidate.currency})


def _english_name(scan: _Scan, start: int, name: str, intro: str) -> str | None:
    """Cut a captured name at the first word that is not a name; None if nothing is left."""
    words: list[str] = []
    position = start
    for word in name.split(" "):
        if not word:
            position += 1
            continue
        begin = scan.text.find(word, position)
        position = begin + len(word)
        lower = word.lower()
        if lower in _NAME_STOP_WORDS or len(word) < 2 or not scan.free(begin, position):
            break
        if not words and lower.endswith("ing"):
            break
        words.append(word)
    intro = " ".join(intro.lower().split())
    if not words or (intro.startswith("this") and len(words) < 2):
        return None
    return " ".join(words)


def _chinese_name(name: str, intro: str) -> str | None:
    if name.startswith(_ZH_NAME_NOT):
        return None
    compound = name[:2] in _ZH_COMPOUND_SURNAMES
    if intro in _ZH_NAME_INTROS_NEEDING_SURNAME and not compound and name[0] not in _ZH_SURNAMES:
        return None
    if name[0] in _ZH_NAME_STOP_CHARS:
        return None
    cut = len(name)
    for i, ch in enumerate(name[1:], start=1):
        if ch in _ZH_NAME_STOP_CHARS:
            cut = i
            break
    name = name[: min(cut, 4 if compound else 3)]
    return name if len(name) >= (3 if compound else 2) else None


def _extract_names(scan: _Scan) -> None:
    text = scan.text
    for m in _EN_NAME_RE.finditer(text):
        name = _english_name(scan, m.start("name"), m["name"], m["intro"])
        if name:
            scan.names.append((m.start("name"), name))
    for m in _ZH_NAME_RE.finditer(text):
        raw = m["name"]
        if _is_cjk(raw[0]):
            name = _chinese_name(raw, m["intro"])
            if name and not scan.free(m.start("name"), m.start("name") + len(name)):
                name = None
        else:
            name = _english_name(scan, m.start("name"), raw, m["intro"])
        if name:
            scan.names.append((m.start("name"), name))


_STEPS: tuple[Callable[[_Scan], None], ...] = (
    _extract_email,
    _extract_prefixed_tracking,
    _extract_imei_with_context,
    _extract_tracking_with_context,
    _extract_order_ids,
    _extract_bare_imei,
    _extract_phone,
    _extract_last4,
    _extract_zip,
    _extract_dates,
    # Before products and options: "my name is Chen Brown" names a person, not a brown variant.
    _extract_names,
    _extract_products,
    _extract_options,
    _extract_amounts,
)


def _local_today() -> date:
    return datetime.now().astimezone().date()


def extract_entities(
    text: str, catalogue: Catalogue = EMPTY_CATALOGUE, *, today: date | None = None
) -> dict[str, object]:
    """The entities in a customer message; only the keys found, every value JSON-serialisable.

    - order_ids: ["#W1234567", "#D1001", "12345678"]: "#" + letter + digits, or the digits alone.
    - tracking_numbers: ["SF1234567890", "1Z999AA10123456785"], upper case; never also an order id.
    - products: canonical catalogue names in order of appearance ("X9" → "Find X9").
    - options: {"color", "storage", "size"}: a catalogue option value as the catalogue spells it
      ("Star Black", "星野黑"), else an English colour ("black", "grey"; 黑色 → "black"); storage as
      "256GB", "12GB+256GB", "1TB"; size as "M", "XL". The first mention of each wins.
    - phone: digits, a leading "+" kept ("13800138000", "+14155550142"); email: lower case.
    - imei: 15 digits passing the Luhn check.
    - amounts: [{"value": 3999.0, "currency": "CNY" | "USD" | None}], each value once.
    - dates: ISO dates in order of appearance; relative ones (昨天, 3 days ago) from `today`,
      which defaults to the local date.
    - names: ["Ada Lovelace", "李伟"]; zip: "94105", "518000"; last4: "4242".
    """
    try:
        clean = _normalise(text)
        if not clean or clean.isspace():
            return {}
        if isinstance(today, datetime):
            today = today.date()
        if not isinstance(today, date):
            today = _local_today()
        try:
            matchers = _matchers_cached(catalogue) if isinstance(catalogue, Catalogue) else _NO_MATCHERS
        except Exception:
            logger.exception("could not build the catalogue matchers")
            matchers = _NO_MATCHERS
        scan = _Scan(clean, today, matchers)
        for step in _STEPS:
            try:
                step(scan)
            except Exception:
                logger.exception("entity extractor %s failed", step.__name__)
        return scan.result()
    except Exception:
        logger.exception("entity extraction failed")
        return {}
