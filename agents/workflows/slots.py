"""Reading slot values out of a customer's message (pure functions over text, entities and options).

Each reader returns the value it found, or None. Slot names are the public contract of
ARCHITECTURE §4 (`awaiting.slot`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

import rjieba

from agents.reading.ask_or_tell import Said, said_of
from agents.reading.correction import correction_read, typing_slip
from agents.reading.items import LIST_MARK, THIS, Mention, covers_all, items_asked, set_aside
from agents.reading.option_words import option_names_zh, spellings_zh
from agents.reading.product_words import longer_words, product_words
from conversations.language import scripts_apart

_PAYMENT_ID = re.compile(r"\b((?:credit_card|gift_card|paypal)_[A-Za-z0-9_]+)\b")
_TAX_ID = re.compile(r"\b([0-9A-Z]{15,20})\b")
_KEEP = re.compile(r"\bkeep\b|\bas it is\b|\bas is\b|\bunchanged\b|\bthe same\b|不变|保持|不用换", re.IGNORECASE)
# Where a customer moves from the item they have to the one they want: "the Kettle (1L) -> 1.5L".
# "set to" describes an option ("the kettle that has capacity set to 1 liter → …"), it starts no target.
_TARGET_START = re.compile(
    r"->|[→⇒➔➜➡⟶⇨]|=>|(?<!\bset )(?<!\bis )\bto\b|\binto\b|\bfor (?:a|an|one|the)\b|\bso (?:that )?(?:it'?s|it is)\b|"
    # "replacing it with the 28 inch one", "(would like the 28 inch bamboo version)"
    r"\breplac(?:e|ing) (?:it|them) with\b|\((?:i'?d|i would|would) (?:like|want|prefer)\b|"
    # "… length 34 inch - I'd rather have the 28 inch", "… which should become …", "swapped for …"
    r"\b(?:i'?d|i would) (?:rather|prefer|want|like)\b|\bshould (?:become|be|have been)\b|"
    r"\b(?:swapped|exchanged)(?: out)? for\b|\breplaced (?:by|with)\b|"
    # "the one in plastic, 34 inch, make that bamboo / 28 inch"
    r"\bmake (?:it|that|them|those)\b|"
    r"换成|改成|换为|改为|应该是",
    re.IGNORECASE,
)


_CJK = re.compile(r"[\u3400-\u9fff]")


def _has_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def normalise(text: str) -> str:
    return _as_written(text).lower()


# What the customer says they do not mean: "the address, not the items", "改地址，不是换商品".
_NOT_MEANT = re.compile(
    r"\b(?:not|never|rather than|instead of)\s+(?:the\s+|my\s+|a\s+|an\s+|any\s+)?[\w-]+|"
    r"(?:而不是|不是|不要|不用)[\u3400-\u9fff]{1,4}"
)


def read_choice(text: str, choices: Mapping[str, Iterable[str]]) -> str | None:
    """The choice one of whose words appears in the text (first listed wins), leaving out what the
    text says is not meant when something else is left."""
    clean = normalise(text)
    for candidate in (_NOT_MEANT.sub(" ", clean), clean):
        for value, words in choices.items():
            if any(word in candidate for word in words):
                return value
    return None


def zip_put_right(address: Any, text: str) -> str | None:
    """The zip code meant, when a message about an address being confirmed gives one a typing slip
    away from the address's ("oops, I meant 76155" for 76515; 邮编是 518075 for 518057)."""
    if not isinstance(address, dict) or not address.get("zip"):
        return None
    said = re.findall(r"(?<!\d)\d{5,6}(?!\d)", text)
    if len(said) != 1 or said[0] == address["zip"] or not typing_slip(address["zip"].split("-")[0], said[0]):
        return None
    return said[0]


WARRANTY_WORDS = {
    "out_of_warranty": ("out of warranty", "expired", "过保", "保外", "不在保"),
    "in_warranty": ("in warranty", "under warranty", "within warranty", "保内", "在保"),
}
REPAIR_TYPE_WORDS = {
    "in_store": ("store", "shop", "in person", "到店", "门店", "线下"),
    "mail_in": ("mail", "post", "ship", "send it", "寄修", "邮寄", "快递"),
}
INVOICE_TYPE_WORDS = {
    "special": ("special", "vat", "专票", "专用"),
    "company": ("company", "business", "corporate", "企业", "公司", "单位"),
    "personal": ("personal", "individual", "个人"),
}
# The account's own address named instead of written out: "ship it to my default address".
ACCOUNT_ADDRESS = re.compile(
    r"\b(?:my|the)\s+(?:default|home|usual|saved|account|profile|regular|primary|normal)\s+(?:shipping\s+|delivery\s+)?"
    r"address\b|\baddress\s+(?:on file|(?:on|in|of) (?:my|the) (?:account|profile))\b|"
    r"默认(?:收货)?地址|账户(?:里|上)?的?地址|常用地址",
    re.IGNORECASE,
)
# The customer changes the account's default address itself, not one order's.
SETS_DEFAULT_ADDRESS = re.compile(
    r"\b(?:change|update|set|edit|modify|make|replace)\w*\s+(?:\w+\s+){0,3}default\b|"
    r"\bdefault address\s+(?:to|is now)\b|"
    r"(?:改|修改|更新|设置|设为)(?:一下)?(?:我的)?默认|默认(?:收货)?地址(?:改|换|设)",
    re.IGNORECASE,
)
_PAYMENT_KIND_WORDS = (
    ("gift_card", ("gift card", "giftcard", "voucher", "礼品卡", "购物卡")),
    ("paypal", ("paypal", "pay pal")),
    ("credit_card", ("credit card", "debit card", "card", "信用卡", "银行卡", "借记卡", "卡")),
)
# The method the order was paid with: "the original payment method", "the card I used", "原路退回".
_ORIGINAL_METHOD = re.compile(
    r"\boriginal\b|\bsame (?:card|payment|method|account|way)\b|\b(?:i|we) (?:used|paid|bought it|ordered)\b|"
    r"\b(?:it was|was) paid (?:with|by|on)\b|\bwhere it came from\b|原路|原支付|原来|原卡|付款时",
    re.IGNORECASE,
)
# A message that names a payment method: an answer to "which payment method?".
PAYMENT_WORDS = re.compile(
    r"(?:credit_card|gift_card|paypal)_\d+|\b(?:gift ?card|credit card|debit card|card|paypal|visa|mastercard|amex|"
    r"american express|discover)\b|\bending (?:in )?\d{4}\b|" + _ORIGINAL_METHOD.pattern + "|礼品卡|信用卡|银行卡|尾号",
    re.IGNORECASE,
)
# Another method than the one the order was paid with: "my other card", "a different card".
_OTHER_METHOD = re.compile(
    r"\b(?:other|another|different|second|new)\s+(?:[\w-]+\s+)?(?:card|method|account|one)\b|"
    r"另一张|另外一张|(?:其他|别的|另一个)的?(?:卡|信用卡|支付|账户)",
    re.IGNORECASE,
)


def read_payment_method(
    text: str, methods: list[dict[str, Any]], original: str | None, *, strict: bool = False
) -> str | None:
    """The account's payment method the text names: by id, by the card's last four digits or the
    number in its id ("ending 5768", "尾号5768"), by brand ("my Visa"), by kind when the account has
    one of that kind (or one besides the original, for "my other card"), or 'the original one'.

    `strict` reads only a method named unmistakably (id, digits, brand), not a kind word alone."""
    clean = normalise(text)
    named = _method_named(text, clean, methods)
    if named is not None or strict:
        return named
    other = bool(_OTHER_METHOD.search(clean))
    for kind, words in _PAYMENT_KIND_WORDS:
        if any(_mentions(clean, word) for word in words):
            of_kind = [m["id"] for m in methods if m["kind"] == kind and not (other and m["id"] == original)]
            if len(of_kind) == 1:
                return of_kind[0]
            break  # "card" inside "gift card" is not a credit card
    if original and not other and _ORIGINAL_METHOD.search(clean):
        return original
    return None


def _method_named(text: str, clean: str, methods: list[dict[str, Any]]) -> str | None:
    """The payment method named unmistakably: by its id, the digits of its card or id, or its brand."""
    found = _PAYMENT_ID.search(text)
    if found and found.group(1) in {m["id"] for m in methods}:
        return found.group(1)
    numbers = set(re.findall(r"(?<!\d)(\d{4,})(?!\d)", clean))
    by_number = [
        m["id"]
        for m in methods
        if (m.get("last_four") and any(n.endswith(m["last_four"]) for n in numbers))
        or any(m["id"].endswith(f"_{n}") for n in numbers)
    ]
    if len(by_number) == 1:
        return by_number[0]
    by_brand = [m["id"] for m in methods if m.get("brand") and _mentions(clean, normalise(m["brand"]))]
    return by_brand[0] if len(by_brand) == 1 else None


def read_tax_id(text: str) -> str | None:
    found = _TAX_ID.search(unicodedata.normalize("NFKC", text).upper())
    return found.group(1) if found else None


# Taking some items out of an order rather than the order as a whole: "drop the earbuds from my
# order", "cancel just the case", "…but keep the rest", "只取消耳机", "把订单里的耳机去掉".
_PART_OF_ORDER = re.compile(
    r"\b(?:only|just)\s+(?:the\s+|my\s+)?(?!order\b)[a-z]|"
    r"\b(?:from|out of|off)\s+(?:the\s+|my\s+|this\s+|that\s+)?(?:pending\s+)?order\b|"
    r"\bkeep(?:ing)?\s+(?:the\s+)?(?:rest|others?|other items?)\b|\bbut\s+keep\b|"
    r"只取消|只要取消|只退|订单里的.{1,12}(?:去掉|删掉|取消|不要)|其他的?(?:保留|不变|照常)|保留其他",
    re.IGNORECASE,
)


def names_part_of_order(text: str) -> bool:
    return bool(_PART_OF_ORDER.search(text))


def names_all_items(text: str) -> bool:
    """The text asks for every item of an order ("all items", "全部退"), whichever order it is."""
    return covers_all(normalise(text))


def names_items(text: str, items: list[dict[str, Any]]) -> bool:
    """The text names some of these items by their names, whatever it asks of them ("keep the lamp, send
    the rest back"). Options alone name no product here: "in Pearl White" is what another item should become."""
    return any(item["item_id"] in text for item in items) or bool(
        item_mentions(normalise(text), items, by_options=False)
    )


def read_items(
    text: str, items: list[dict[str, Any]], values: Iterable[str] = (), *, answering: bool = False
) -> list[str] | None:
    """Item ids of the order the text asks for: by item id, or where it names items (by product name, its last
    word, its Chinese word, or its options alone) the ones it asks for, or every item but those it keeps ("both",
    "everything except the lamp"), as agents.reading.items reads them. `values` are option values the products
    come in, besides the items' own. `answering`: the text answers "Which items?", so an item it names is one
    it means unless it clearly sets it aside."""
    chosen = [item["item_id"] for item in items if item["item_id"] in text]
    if chosen:
        return chosen
    clean, shown = normalise(text), _as_written(text)
    mentions = item_mentions(clean, items, values)
    if not mentions and (fixed := _typos_fixed(clean, items)) != clean:
        clean = shown = fixed
        mentions = item_mentions(fixed, items, values)
    # the decisions read the words as written (e5 tells "ITEM" from "item"); the mentions are found lower case
    shown = shown if len(shown) == len(clean) else clean
    return items_asked(shown, mentions, [item["item_id"] for item in items], answering=answering)


def _as_written(text: str) -> str:
    return scripts_apart(unicodedata.normalize("NFKC", text))


def item_mentions(
    clean: str, items: list[dict[str, Any]], values: Iterable[str] = (), *, by_options: bool = True
) -> list[Mention]:
    """Where the (normalised) text names items of the order, in order; when it names none by name, where it
    describes one by its options alone (`by_options`). An item named again is named again: its role may differ
    ("I love the lamp … actually, return the lamp")."""
    spellings = _item_spellings(clean, items)
    occurrences = _occurrences(clean, {n for names in spellings.values() for n in names}, items, values)
    said = _said(clean, occurrences)
    mentions: list[Mention] = []
    taken: list[dict[str, Any]] = []
    for (start, end, name), (_, segment), before in zip(occurrences, said, _words_before(clean, said), strict=True):
        fitting = [i for i in items if name in spellings[i["item_id"]]]
        candidates, words_with = [i for i in fitting if i not in taken] or fitting, _said_with(before)
        if len(candidates) > 1 and (described := _one_described(words_with, candidates)):
            # the options said before the name are part of its mention: "return ITEM", not "the white ITEM"
            meant, start = [described], clean.rfind(words_with, 0, start)
        else:
            meant = _meant(segment, before, candidates)
        taken.extend(meant)
        mentions.append(Mention(start, end, tuple(i["item_id"] for i in meant)))
    if mentions:
        mentions = _with_ones_described(clean, items, mentions) if by_options else mentions
        return _lists_joined(clean, mentions, _describing_words(items))
    by_values = _described_only(clean, items) if by_options else []
    return _lists_joined(clean, by_values, _describing_words(items))


# An item said as "the <its options> one": "the black ones", "the cellular one", "黑色的那件", "1000片那盒".
_ONE_DESCRIBED = re.compile(
    r"\b(?:the|that)\s+((?:[\w.+'-]+\s+){1,3}?)(?:ones?|pairs?)\b|"
    r"((?:[a-z0-9.+-]+\s*)?[\u3400-\u9fff0-9a-z.+-]{1,8}?)的?[那这][个件双副瓶盒条张本把台只顶款套支袋块盏]"
)


def _with_ones_described(clean: str, items: list[dict[str, Any]], mentions: list[Mention]) -> list[Mention]:
    """The mentions with the items said as "the <its options> one" beside them ("return the blue headphones,
    exchange the black ones"), before any target in their sentence ("… so it's the black one" is what the item
    becomes). A name that fits several items and describes none of them ("I ordered two kettles … return the
    white one") then names the product, not the items: it is left out."""
    named = [i for i in items if any(i["item_id"] in mention.item_ids for mention in mentions)]
    found: list[Mention] = []
    for match in _ONE_DESCRIBED.finditer(clean):
        if not _an_item_said_as_one(clean, match, mentions, items):
            continue
        words = match.group(1) or match.group(2)
        units = _units_of_named(items, named)
        if item := _one_described(words, units) or _one_described(words, named) or _one_described(words, items):
            named.append(item)
            found.append(Mention(match.start(), match.end(), (item["item_id"],)))
    described = {i for mention in found for i in mention.item_ids}
    general = [m for m in mentions if len(m.item_ids) > 1 and described & set(m.item_ids)]
    return sorted([m for m in mentions if m not in general] + found, key=lambda mention: mention.start)


def _an_item_said_as_one(
    clean: str, match: re.Match[str], mentions: list[Mention], items: list[dict[str, Any]]
) -> bool:
    """ "The <options> one" says an item the order holds: not beside a name, not what an item becomes ("… so it's
    the black one"), not a value of an option named after it ("白色这个颜色")."""
    said_with_a_name = any(m.start < match.end() and match.start() < m.end for m in mentions)
    sentence = _SENTENCE_END.split(clean[: match.start()])[-1].rsplit("\n", 1)[-1]
    return not (said_with_a_name or _TARGET_START.search(sentence) or _names_an_option(clean[match.end() :], items))


def _units_of_named(items: list[dict[str, Any]], named: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The units of the products named that the order holds more than once: "the black one" tells those apart
    first ("the olive one and the gloves go back, the black one fits": the other jacket, not the gloves)."""
    products = [i.get("product_id", i["name"]) for i in items]
    named_products = {i.get("product_id", i["name"]) for i in named}
    return [i for i, p in zip(items, products, strict=True) if p in named_products and products.count(p) > 1]


def _names_an_option(after: str, items: list[dict[str, Any]]) -> bool:
    """The words go on with an option's name: "白色这个颜色" says a value of the colour, not "that white one"."""
    after = after.lstrip()
    return any(after.startswith(name) for i in items for option in i["options"] for name in option_names_zh(option))


def _one_described(words: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate whose options the words describe better than any other's, if any; or else the smallest or
    the biggest of them, when the words say which ("the smaller one", "big suitcase", "小的那个")."""
    scored = sorted(((_options_described(words, item), k) for k, item in enumerate(candidates)), reverse=True)
    if scored and scored[0][0] and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return candidates[scored[0][1]]
    return _by_size(words, candidates)


# Words that pick one item of a product by its size. Chinese 小 / 大 only as a size is said ("小的那个", "大瓶的",
# "小音箱"), not "太大了".
_SMALLER = re.compile(r"\b(?:small(?:er|est)?|little|tiny)\b|(?<![太不很])小(?=[的瓶个号款盒件双台只块张本把条]|\s*$)")
_BIGGER = re.compile(
    r"\b(?:big(?:ger|gest)?|larg(?:e|er|est)|huge)\b|(?<![太不很])大(?=[的瓶个号款盒件双台只块张本把条]|\s*$)"
)


def _by_size(words: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The smallest or the biggest candidate, as the words say, where they differ in one option only and its
    values are sizes that compare (1L and 1.7L, 30ml and 100ml, S and L, 20 inch and 28 inch)."""
    smaller, bigger = bool(_SMALLER.search(words)), bool(_BIGGER.search(words))
    if smaller == bigger or len(candidates) < 2:
        return None
    differing = {k for item in candidates for k, v in item["options"].items() if v != candidates[0]["options"].get(k)}
    if len(differing) != 1:
        return None
    option = differing.pop()
    magnitudes = [_magnitude(str(item["options"].get(option, ""))) for item in candidates]
    sizes = [size for size in magnitudes if size is not None]
    if len(sizes) < len(candidates) or len(set(sizes)) < len(sizes):
        return None
    pick = min if smaller else max
    return candidates[sizes.index(pick(sizes))]


_SIZE_RANK = {"xxs": 0, "xs": 1, "s": 2, "small": 2, "m": 3, "medium": 3, "l": 4, "large": 4, "xl": 5, "xxl": 6}
# How much one of a unit is, in the smallest unit of its kind.
_UNIT_SIZE = {
    "ml": 1,
    "l": 1000,
    "g": 1,
    "kg": 1000,
    "mm": 1,
    "cm": 10,
    "m": 1000,
    "inch": 25.4,
    "in": 25.4,
    "ft": 304.8,
}


def _magnitude(value: str) -> float | None:
    """A value's size where it is one: its number in the smallest unit of its kind, or a size letter's rank."""
    value = value.strip().lower()
    if value in _SIZE_RANK:
        return _SIZE_RANK[value]
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*-?\s*([a-z]*)(?:\s+[a-z-]+)*", value)
    if not found:
        return None
    return float(found[1]) * _UNIT_SIZE.get(found[2], 1)


# How items of one list are joined: "A, B and C", "A; plus B", "A、B", "A (in red) & B", a bullet on the next
# line. A comma alone joins nothing ("return the helmet, the hose is fine"): a list ends with a joining word.
_JOINING = frozenset({"and", "or", "plus", "&", "+", ";", "；", "、", "和", "跟", "与", "及", "以及", "还有", "另外"})
_DETERMINERS = frozenset({"the", "my", "a", "an", "both", "also"})
_LISTING = frozenset({",", "，", "with", "in", *_DETERMINERS})
# Chinese sentences run on without a space ("…多久呀?另外水杯…").
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$|(?=[\u3400-\u9fff]))")
_JOINT_WORD = re.compile(r"[a-z0-9][a-z0-9.'-]*|[\u3400-\u9fff]+|[,;，；、&+]")
# An item a verb follows starts a clause of its own, not a list: "I love the watch and the headphones are broken".
_CLAUSE_AFTER = re.compile(r"\s*(?:is|are|was|were|has|have|had|'s|'re|isn't|aren't|wasn't|weren't|doesn't|don't)\b")


def _lists_joined(clean: str, mentions: list[Mention], describing: frozenset[str]) -> list[Mention]:
    """The mentions with each list of items said together made one: a list is read as a whole ("return the
    Bulb, the on-ear Headphones and the Smart Watch"), the words between its items are its own."""
    joints = [
        _line_after_line(clean, a, b)
        if "\n" in clean[a.end : b.start]
        else ("" if _CLAUSE_AFTER.match(clean, b.end) else _joint(clean[a.end : b.start], describing))
        for a, b in zip(mentions, mentions[1:], strict=False)
    ]
    merged, first = [], 0
    while first < len(mentions):
        last, at = first, first
        while at < len(joints) and joints[at]:  # a run of commas and joining words
            last = at + 1 if joints[at] == "joined" else last
            at += 1
        group = mentions[first : last + 1]
        merged.append(
            Mention(group[0].start, group[-1].end, tuple(dict.fromkeys(i for m in group for i in m.item_ids)))
        )
        first = last + 1
    return merged


# What may open a line before its item: a determiner, a count (一个, 一件), "还有".
_LINE_OPENINGS = _DETERMINERS | {
    "一个",
    "一件",
    "一台",
    "一双",
    "一套",
    "一副",
    "一把",
    "一条",
    "一只",
    "那个",
    "这个",
    "还有",
    "以及",
}


def _line_after_line(clean: str, a: Mention, b: Mention) -> str:
    """How an item on a later line joins the one before ("joined" or ""). Items written one a line, with list
    marks or none, are one list when the line of the first only names and describes it ("bought for my parents:
    the Water Bottle\n- the Bookshelf, black glass\n- the Puzzle, they don't like them, return them"): a line
    that asks ("- return the kettle\n- the mug → blue") is a request of its own, one that keeps its item
    ("the hose can stay\nthe helmet…") sets it aside, and a line without the marks of the list before it ends
    that list ("- the kettle\n- the mug\nthe toaster stays")."""
    line_end = clean.rfind("\n", a.end, b.start)
    if set(LIST_MARK.sub("", clean[line_end + 1 : b.start]).split()) - _LINE_OPENINGS:
        return ""
    line_start = clean.rfind("\n", 0, a.start) + 1
    if LIST_MARK.match(clean[line_start:]) and not LIST_MARK.match(clean[line_end + 1 :]):
        return ""  # a line without the marks of the list before it is no item of that list
    only_told = said_of(clean[line_start:line_end]) == Said.TELLS
    kept = only_told and set_aside(f"{clean[line_start : a.start]}{THIS}{clean[a.end : line_end]}", surely=True)
    return "joined" if only_told and not kept else ""


def _joint(between: str, describing: frozenset[str]) -> str:
    """What the words between two items say: "joined" (one list: a joining word or mark before the next item,
    after only words that describe the one before), "listing" (commas that may be one), or "" (anything else:
    "ITEM偏青色，能换成灰色的吗，跟OTHER配" says something of its own between them)."""
    if _SENTENCE_END.search(between):
        return ""
    for joining in ("as well as", "along with", "together with"):
        between = between.replace(joining, " and ")
    words = [part for word in _JOINT_WORD.findall(between) for part in _joining_apart(word)]
    # "… & the on-ear Headphones"
    while words and (words[-1] in _DETERMINERS or _an_option_word(words[-1], describing)):
        words.pop()
    if words and words[-1] in _JOINING and all(w in _LISTING or _an_option_word(w, describing) for w in words[:-1]):
        return "joined"
    return "listing" if words and all(w in _LISTING or _an_option_word(w, describing) for w in words) else ""


_CHINESE_JOINING = sorted((j for j in _JOINING if _has_chinese(j)), key=len, reverse=True)


def _joining_apart(word: str) -> list[str]:
    """A Chinese word with the joining word it runs into apart ("智能传感器款和" → "智能传感器款", "和")."""
    for joining in _CHINESE_JOINING:
        if word.endswith(joining) and len(word) > len(joining):
            return [word[: -len(joining)], joining]
    return [word]


def _an_option_word(word: str, describing: frozenset[str]) -> bool:
    """The word is one of the items' option words, or a Chinese word that is one with at most two characters
    after it ("中号", "智能传感器款"; not "蓝色不太好看")."""
    return word in describing or (
        _has_chinese(word)
        and any(_has_chinese(d) and word.startswith(d) and len(word) - len(d) <= 2 for d in describing)
    )


def _describing_words(items: list[dict[str, Any]]) -> frozenset[str]:
    """The words of the items' options, names and values, and the Chinese words for the values, that may stand
    beside an item in a list."""
    said = " ".join(f"{name} {value}" for item in items for name, value in item["options"].items())
    chinese = {spelling for item in items for spelling in _option_tokens(item["options"]) if _has_chinese(spelling)}
    return frozenset(_JOINT_WORD.findall(normalise(said))) | chinese


def _typos_fixed(clean: str, items: list[dict[str, Any]]) -> str:
    """The text with a misspelt word of an item's name written as the name has it ("keybaord", "flossr",
    "sunglases"): one slip in a word of six letters or more, towards one word of the order's names only. Read only
    where no item is named as written: a common word one slip away ("settle" from "kettle") names nothing then."""
    words = {w for item in items for w in re.findall(r"[a-z]{6,}", normalise(item["name"]))}

    def fixed(match: re.Match[str]) -> str:
        said = match.group()
        close = [] if said in words else [w for w in words if _one_slip(said, w)]
        return close[0] if len(close) == 1 else said

    return re.sub(r"[a-z]{5,}", fixed, clean)


def _one_slip(said: str, word: str) -> bool:
    """`said` is `word` with one letter wrong, missing or added, or two neighbours swapped."""
    if abs(len(said) - len(word)) > 1:
        return False
    start = next((k for k, (a, b) in enumerate(zip(said, word, strict=False)) if a != b), min(len(said), len(word)))
    swapped = said[start : start + 2][::-1] == word[start : start + 2] and said[start + 2 :] == word[start + 2 :]
    return (
        said[start + 1 :] == word[start + 1 :]  # one wrong
        or said[start:] == word[start + 1 :]  # one missing
        or said[start + 1 :] == word[start:]  # one added
        or swapped
    )


def _described_only(clean: str, items: list[dict[str, Any]]) -> list[Mention]:
    """Items a text names by their options alone ("the red one", "1000片的", "the purple ones", "S和L的"): the
    items holding every value said together ("蓝色750毫升的": the blue one of 750ml), all of them when some items
    share it ("the purple ones": two mats of three). A value every item has names none of them."""
    mentions: list[Mention] = []
    for start, end, holders in _values_said(clean, items):
        last = mentions[-1] if mentions else None
        if last and _DESCRIPTION_GOES_ON.fullmatch(clean[last.end : start]):
            # values said together describe one item: those holding both
            mentions[-1] = Mention(last.start, end, tuple(i for i in last.item_ids if i in holders))
        elif not last or start >= last.end:
            mentions.append(Mention(start, end, holders))
    return [mention for mention in mentions if mention.item_ids]


def _values_said(clean: str, items: list[dict[str, Any]]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Where the text says a value some items of the order have (not all), in order: its span and those items."""
    spelled = {item["item_id"]: set().union(*_value_descriptions(item["options"])) for item in items}
    said = []
    for token in set().union(*spelled.values()):
        holders = tuple(item_id for item_id, own in spelled.items() if token in own)
        if len(holders) < len(items):
            said += [(at, at + len(token), holders) for at in _all_where(clean, token) if _describes(clean, at, token)]
    # "2000片" is one value, not "2000" and "2000片"
    return sorted(v for v in said if not any(o[0] <= v[0] and v[1] <= o[1] and o != v for o in said))


# Between two values of one description: "the blue 750ml one", "蓝色750毫升的", "black-10".
_DESCRIPTION_GOES_ON = re.compile(r"[\s的-]*")
# A size written as one letter is a size where it stands beside Chinese, or after "size" or "the" at a word's end
# ("S和L的都退", "size M", "send back the L."), not in "it's" or "I'm".
_SIZE_LETTER_SAID = re.compile(r"(?:\b(?:size|the)\s+|[\u3400-\u9fff]\s*|^\s*)$")
_SIZE_LETTER_ENDS = re.compile(r"^\s*(?:[\u3400-\u9fff]|[.,!?;:)]|$)")
# Sizes in words, as English speakers say the letters.
_SIZE_IN_WORDS = {"xs": "extra small", "s": "small", "m": "medium", "l": "large", "xl": "extra large"}


def _value_descriptions(options: dict[str, Any]) -> list[list[str]]:
    """Each of the item's option values as a shopper describes an item by it: as `_value_spellings` spells it, a
    size letter in words ("the small one"), the number of a value that says more than its number ("the 11.5" of
    Men's 11.5, "the 1000-piece one" of 1000 pieces, "the two 30s", "the blue 750" of 750ml, "2 person" of
    2-person), and a word of a value in words ("the cellular one" of GPS + Cellular)."""
    described = []
    for option, value in options.items():
        if not str(value).strip():
            continue
        more = [normalise(zh) for zh in spellings_zh(option, str(value))]
        value = normalise(str(value))
        if "size" in option.lower() and value in _SIZE_IN_WORDS:
            more.append(_SIZE_IN_WORDS[value])
        numbers, words = re.findall(r"\d+(?:\.\d+)?", value), re.findall(r"[a-z]+", value)
        if len(numbers) == 1 and words:
            number = numbers[0]
            more += [number, f"{number}s", *(f"{number}-{w.rstrip('s')}" for w in words), value.replace("-", " ")]
        elif not numbers and len(words) > 1:
            more += [w for w in words if len(w) > 2 and w not in _VALUE_GLUE]
        described.append([value, *more])
    return described


# Words that join the words of a value, describing nothing alone ("GPS + Cellular", "For Men").
_VALUE_GLUE = frozenset({"and", "for", "with", "the", "without", "non"})


def _all_where(text: str, token: str) -> list[int]:
    """Every place `token` is said as a whole word or phrase (_where)."""
    found, at = [], 0
    while (start := _where(text[at:], token)) is not None:
        found.append(at + start)
        at += start + len(token)
    return found


def _describes(clean: str, at: int, token: str) -> bool:
    """The value said at `at` describes an item the order holds: not what an item is to become ("换成M码",
    "swap it for a medium"), and a one-letter size only where it is said as a size."""
    if _BECOMES.search(_CLAUSE_START.split(clean[:at])[-1]):
        return False
    return len(token) > 1 or bool(_SIZE_LETTER_SAID.search(clean[:at]) and _SIZE_LETTER_ENDS.match(clean[at + 1 :]))


_CLAUSE_START = re.compile(r"[,，;；.!?。！？\n]")
# What an item is to become: a value after these in its clause ("能换成10寸的金色吗"), or just after these
# ("换38.5", "swap it for a medium", "should have been grid"; not "please take the small one back").
_BECOMES = re.compile(
    r"换成|改成|换为|改为|应该是|换(?:个|一个|一双|一件)?\s*$|"
    r"(?:->|[→⇒]|\b(?:for|into|to|with)|\bshould (?:be|become|have been))\s+(?:(?:a|an|the|one|size|some)\s+){0,2}$"
)


def _item_spellings(clean: str, items: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Each item's names as a text may say them: its name, its Chinese name, its aliases, its head noun, and the
    words shoppers use for its product."""
    spellings = {
        item["item_id"]: {
            normalise(n)
            for n in (item["name"], item.get("name_zh"), *item.get("aliases", ()))
            if n and (len(n) > 2 or (len(n) == 2 and _has_chinese(n)))  # "X8" is too short, 耳机 is a word
        }
        for item in items
    }
    in_full = any(_mentions(clean, name) for names in spellings.values() for name in names)
    described = "".join(rf"|{re.escape(word)}" for word in _describing_words(items) if word.isalnum())
    for item_id, nouns in _head_nouns(items).items():
        # "the thermostat"; beside an item named in full, only as a noun of its own ("the helmet and the Espresso
        # Machine", "- helmet: red", "the olive jacket"), since a last word can be a common one ("type set to
        # charcoal")
        spellings[item_id] |= {
            n for n in nouns if not in_full or re.search(_ITEM_NOUN.format(described, re.escape(n)), clean)
        }
    for item_id, words in _product_words(items, _said_alone(clean)).items():
        spellings[item_id] |= words
    return spellings


def _said_alone(clean: str) -> frozenset[str]:
    """The Chinese characters the text says as words of their own (刀 in 刀到了是钝的, not 锁 in 锁不住), as rjieba's
    dictionary cuts it: a one-character product word names an item only there."""
    if not _has_chinese(clean):
        return frozenset()
    return frozenset(w for w in rjieba.cut(clean, False) if len(w) == 1 and _has_chinese(w))


def _product_words(items: list[dict[str, Any]], said_alone: frozenset[str]) -> dict[str, set[str]]:
    """Each item's product words (头盔 for a Bicycle Helmet, "tee" for a T-Shirt) that no other product of the order
    shares or is called, or that say more of its name than of the other's (台灯: a Desk Lamp's, beside a Floor
    Lamp). A one-character word (刀, 锁) counts where the text says it alone (`said_alone`)."""
    # as the text is read: "T恤" is "t 恤"
    words = {item["item_id"]: {normalise(w): n for w, n in product_words(item["name"]).items()} for item in items}
    products = {item["item_id"]: normalise(item["name"]) for item in items}
    called = {*products.values(), *(name.split()[-1] for name in products.values() if name.split())}
    return {
        item_id: {
            w
            for w, says in own.items()
            if (len(w) > 1 or w in said_alone)
            and w not in called
            and not any(words[o].get(w, 0) >= says and products[o] != products[item_id] for o in words)
        }
        for item_id, own in words.items()
    }


def _meant(segment: str, before: str, candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Which of the items a name fits its words describe (when the words said with it before it do not: "the
    blue headphones", "红色的Running Shoes"): the best described in the words after the name, or else before it
    ("把34英寸 塑料的Skateboard换成…"); all of them when none is described ("the helmets")."""
    described, meant = _best_described(segment, candidates)
    if described == 0 and len(candidates) > 1:
        described, meant = _best_described(before, candidates)
    if described == 0 and len(candidates) > 1:
        return candidates
    return [meant]


# Where the words said with a name before it may start: a mark, 把.
_PHRASE_START = re.compile(r"[,，、;；:：。.!?！？把将]")


def _said_with(before: str) -> str:
    """The few words said just before a name, in its clause: "the blue" of "return the blue headphones"."""
    clause = _PHRASE_START.split(before)[-1]
    if _has_chinese(clause):
        return clause[-12:]
    words = clause.split()[-3:]
    after_determiner = max((k + 1 for k, word in enumerate(words) if word in _DETERMINERS), default=0)
    return " ".join(words[after_determiner:])


def _words_before(clean: str, said: list[tuple[str, str]]) -> list[str]:
    """For each name said, the words between it and the sentence, colon or name before it: a name's segment runs
    to the next name (_said), so the words before a name are the segment of the one before it."""
    if not said:
        return []
    first = len(clean) - sum(len(name) + len(segment) for name, segment in said)
    return [re.split(r"[。；;！？!?:：\n]", words)[-1] for words in [clean[:first], *(seg for _, seg in said[:-1])]]


# A word said as an item of its own: after a determiner (and the item's options: "the olive jacket"), a list
# mark ("- hat", "2. hat") or a "+" ("bed + bowl"), and not as an option's link word. Formatted with the options'
# words ("|olive|black") and the word.
_ITEM_NOUN = (
    r"(?:^|\b(?:the|my|this|that|a|an|both|and|your)\s+(?:(?:(?!x)x{})\s+){{0,2}}|(?:[-•*,;:+]|\b\d\.)\s*){}\b"
    r"(?!\s+(?:to|of|as)\b)"
)


def _best_described(segment: str, candidates: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """How many current options the best-described candidate has said, and that candidate."""
    scored = [(_options_described(segment, i), i) for i in candidates]
    best = max(score for score, _ in scored)
    return best, _said_first(segment, [i for score, i in scored if score == best])


def _said_first(segment: str, tied: list[dict[str, Any]]) -> dict[str, Any]:
    """Of items of one product described equally well, the one whose own option values are said first:
    in "Skateboard (34 inch, plastic, plain) (want one: 28 inch, bamboo)" both boards are plastic and
    plain, and the item as it is comes before what it should become."""

    def first(item: dict[str, Any]) -> float:
        others = [set(_option_tokens(other["options"])) for other in tied if other is not item]
        own = [token for token in _option_tokens(item["options"]) if not all(token in o for o in others)]
        found = [_where(segment, token) for token in own]
        return min((at for at in found if at is not None), default=float("inf"))

    return min(tied, key=first)  # min keeps the first of equals: the order's own order


def _option_values(items: list[dict[str, Any]], values: Iterable[str]) -> frozenset[str]:
    return frozenset(normalise(str(v)) for v in [*(v for item in items for v in item["options"].values()), *values])


# A last word that is also a verb of every sentence ("Watering Can": "can I return it?") names no item alone.
_AUXILIARIES = frozenset({"can", "will", "may", "must", "might", "should", "would", "could"})


def _head_nouns(items: list[dict[str, Any]]) -> dict[str, set[str]]:
    """The last word of each item's name when no other product of the order ends with it and it is no
    option value, singular and plural: a customer says "the thermostat" or "the mats", not "the Smart
    Thermostat"."""
    values = {normalise(str(v)) for item in items for v in item["options"].values()}
    heads = {}
    for item in items:
        words = re.findall(r"[a-z][a-z-]+", normalise(item["name"]))
        if words and len(words[-1]) > 2 and words[-1] not in values and words[-1] not in _AUXILIARIES:
            heads[item.get("product_id", item["name"])] = words[-1]
    shared = {head for head in heads.values() if list(heads.values()).count(head) > 1}
    nouns: dict[str, set[str]] = {}
    for item in items:
        head = heads.get(item.get("product_id", item["name"]))
        if head and head not in shared:
            plural = f"{head}es" if head.endswith(("s", "x", "ch", "sh")) else f"{head}s"
            nouns[item["item_id"]] = {head, plural}
    return nouns


def _value_spellings(options: dict[str, Any]) -> list[list[str]]:
    """Each of the item's option values as a customer may say it: as sold, or in Chinese (红色, 500片)."""
    return [
        [normalise(str(v)), *(normalise(zh) for zh in spellings_zh(k, str(v)))]
        for k, v in options.items()
        if str(v).strip()
    ]


def _option_tokens(options: dict[str, Any]) -> list[str]:
    return [spelling for spellings in _value_spellings(options) for spelling in spellings]


# What a Latin word or a number is made of: its edges are where these stop. Python's \w counts Chinese characters
# too, and "邮编77219" says 77219 as much as "zip 77219" does.
_LATIN = "A-Za-z0-9_"


def _mentions(text: str, token: str) -> bool:
    """`token` appears as a whole word or phrase ("no" is not in "none", "8gb" is not in "128gb").

    Chinese has no spaces between words, so a Chinese token only needs to appear.
    """
    return _where(text, token) is not None


def _where(text: str, token: str) -> int | None:
    """Where `token` is first said as a whole word or phrase (_mentions), or None."""
    if _has_chinese(token):
        return at if (at := text.find(token)) >= 0 else None
    # a "+" joins a token to a word of its own ("wi-fi+cellular") or sets options apart ("3 ft+材料那项玻璃")
    found = re.search(rf"(?<![{_LATIN}.-])(?<![{_LATIN}]\+){re.escape(token)}(?![{_LATIN}-])(?!\+[{_LATIN}])", text)
    return found.start() if found else None


def item_segments(text: str, items: list[dict[str, Any]], values: Iterable[str] = ()) -> dict[str, str]:
    """The part of the text about each of several items: from its name to the next item name said.

    When the order holds the same product twice ("the black Smart Watch -> the same again, and the
    silver Smart Watch into a gold one"), each mention goes to the item whose current options it
    names. The only item of its product named again gets the words after each mention ("把…换成Office Chair，
    哦说反了，是把Office Chair换成灰色的"). An item never named gets the whole text. `values` are option values the
    products come in, besides the items' own."""
    clean = normalise(text)
    segments: dict[str, str] = {}
    names = {normalise(item["name"]) for item in items}
    said = _said(clean, _occurrences(clean, names, items, values))
    for k, (name, segment) in enumerate(said):
        if k + 1 < len(said):
            segment = _NEXT_ITEM_LEAD.split(segment, maxsplit=1)[0]
        named = [i for i in items if normalise(i["name"]) == name]
        candidates = [i for i in named if i["item_id"] not in segments]
        if candidates:
            segments[_best_described(segment, candidates)[1]["item_id"]] = segment
        elif len(named) == 1:
            segments[named[0]["item_id"]] += segment
    return {item["item_id"]: segments.get(item["item_id"], clean) for item in items}


# Where the words about the next item start before its name: a joining word in the clause that ends with the
# name ("…换成白色，还有黑色 M 码那款的 Helmet", "… into white, and the black medium Helmet"): what follows it
# describes the next item as it is, not what the one before should become.
_NEXT_ITEM_LEAD = re.compile(r"(?:还有|以及|另外|\b(?:and|also|plus)\b)(?=[^,，;；。.!?！？\n]*$)")


# "compartment set to laptop". Not a colon: "items: Tea Kettle" names one.
_SET_TO = re.compile(r"\b(?:set|changed|switched)\s+to\s*$", re.IGNORECASE)


def _said_as_an_option(before: str, option_names: frozenset[str]) -> bool:
    """The words before a name make it an option's value: "… set to", "compartment of"."""
    if _SET_TO.search(before):
        return True
    linked = before.rstrip()
    return linked.endswith(" of") and any(linked[:-3].rstrip().endswith(name) for name in option_names)


def _said(clean: str, occurrences: list[tuple[int, int, str]]) -> list[tuple[str, str]]:
    """Each name said, in order, with the text after it up to the next name said."""
    ends = [start for start, _, _ in occurrences[1:]] + [len(clean)] if occurrences else []
    return [(name, clean[end:until]) for (_, end, name), until in zip(occurrences, ends, strict=True)]


def _occurrences(
    clean: str, names: set[str], items: list[dict[str, Any]], values: Iterable[str] = ()
) -> list[tuple[int, int, str]]:
    """Where each of `names` is said in `clean`, in order: start, end, name; not where it is said as the value of
    one of the items' options ("compartment set to laptop", "compartment of laptop", not "both pairs of sneakers").

    A name that is also an option value of the order's items (or one of `values`) names the product at its
    last mention only: in "the Backpack into a polyester laptop version, and the Laptop into an i5
    one" the first "laptop" is the backpack's compartment."""
    option_names = frozenset(normalise(str(k)) for item in items for k in item["options"])
    values = _option_values(items, values)
    occurrences = sorted(
        (match.start(), match.end(), name)
        for name in names
        # Chinese has no spaces: a Chinese name is said wherever it appears (只取消耳机)
        for match in re.finditer(
            re.escape(name) if _has_chinese(name) else rf"(?<![\w]){re.escape(name)}(?![\w])", clean
        )
        if not _said_as_an_option(clean[: match.start()], option_names)
        and not _inside_a_longer_word(clean, match.start(), match.end(), name)
    )
    occurrences = [
        (start, end, name)
        for start, end, name in occurrences
        if name not in values or not any(later > start and said == name for later, _, said in occurrences)
    ]
    # "earbuds" inside "wireless earbuds" is the same mention, not a second one
    occurrences = [
        o for o in occurrences if not any(s <= o[0] and o[1] <= e and o != (s, e, n) for s, e, n in occurrences)
    ]
    return occurrences


def _inside_a_longer_word(clean: str, start: int, end: int, name: str) -> bool:
    """A Chinese name said inside a longer product word (滑板 in 滑板板面, the deck) names something else."""
    if not _has_chinese(name):
        return False
    return any(
        at <= start and end <= at + len(longer)
        for longer in longer_words(name)
        for at in (m.start() for m in re.finditer(re.escape(longer), clean))
    )


def _options_described(segment: str, item: dict[str, Any]) -> int:
    """How many of the item's current options the text after its name says, before any target."""
    # "for deck material of bamboo" starts the target; "black for the color" only names the option, and so
    # does an arrow after an option's name ("came with material => glass")
    for name in item["options"]:
        segment = re.sub(rf"(\b{re.escape(normalise(str(name)))})\s*(?:=>|->|[→⇒])", r"\1:", segment)
        option = rf"\bfor (?:the )?{re.escape(normalise(str(name)))}\b"
        segment = re.sub(rf"{option}(?=\s*(?::|=|\bof\b|\bset to\b|\bbeing\b))", " -> ", segment)
        segment = re.sub(option, " ", segment)
    described = _TARGET_START.split(segment, maxsplit=1)[0]  # the item as it is, not what it becomes
    return sum(any(_mentions(described, s) for s in spellings) for spellings in _value_descriptions(item["options"]))


def keeps_as_is(text: str) -> bool:
    """The customer says this item stays as it is ("keep it", "unchanged", "不变")."""
    return bool(_KEEP.search(text))


def correction(text: str, before: str = "") -> tuple[str, str] | None:
    """(meant, said by mistake) when the message puts right a value said `before` (agents.reading.correction);
    the mistake is "" when the message does not name it and it is not a slip of one said before ("oops I mean
    dark"). An order id is put right with or without its "#": the id itself is replaced wherever it was said."""
    fix = correction_read(text, before)
    if fix is None:
        return None
    meant, mistaken = (value.lstrip("#") for value in fix)
    return None if not meant or meant.lower() == mistaken.lower() else (meant, mistaken)


def corrected(earlier: str, fix: tuple[str, str]) -> str:
    """`earlier` with the value said by mistake replaced by the one meant (whole words only), or with
    the value meant said last when the mistake was not named."""
    right, wrong = fix
    if not wrong:
        return f"{earlier} {right}"
    if _has_chinese(wrong):
        return earlier.replace(wrong, right)
    return re.sub(rf"(?<![{_LATIN}.]){re.escape(wrong)}(?![{_LATIN}])", right, earlier, flags=re.IGNORECASE)


def value_said(text: str, value: str) -> bool:
    """Whether `text` says `value` as a whole word or phrase, whatever its case."""
    return bool(value.strip()) and _mentions(normalise(text), normalise(value))
