"""The replacement a customer asks for, matched against the real variants of the product (pure).

What a customer says about the new item is read as constraints on the product's options:
- option values, with or without their option's name ("the 75W one with Wi-Fi", "capacity: 1L");
- only the options that change: every option not mentioned stays as it is ("same but in blue",
  "其他配置不变，换成蓝色");
- "exactly the same options" (a new item identical to the old one), which is a valid request, read by a learned
  decision (agents.reading.same_options) when no value that differs is named.
Then: the variant with exactly those options, if it can be bought, is the answer. If it cannot, or
does not exist, the options not mentioned may change: one available variant is proposed, several are
offered (available ones only), none is said so with the values that do exist. A change the customer
did not ask for is never proposed, and neither is the same item unless they asked for it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from agents.reading.option_words import (
    option_names_zh,
    own_spellings_zh,
    said_alone_in_a_list,
    said_only_beside_name,
    spellings_beside_name_zh,
    spellings_zh,
)
from agents.reading.same_options import same_options_asked
from conversations.language import say, say_in_context, scripts_apart

# Values too common as words to count without their option's name next to them.
_NEEDS_NAME = {"yes", "no", "none", "true", "false", "on", "off", "s", "m", "l"}


@dataclass(frozen=True)
class Clarify:
    """No single replacement: what to tell the customer, with the variants they could pick."""

    message: str  # its %(versions)s are the choices, the other placeholders are filled from `values`
    values: dict[str, str]
    choices: tuple[str, ...] = ()
    asked: dict[str, str] = field(default_factory=dict)  # the options asked for that no variant fits
    offered: str = ""  # the one variant that has them, its other options not as asked: taken on a "yes"

    def said(self, language: str) -> str:
        versions = say_in_context("list separator", language, "; ").join(self.choices)
        return say(language, self.message, versions=versions, **self.values)


def _norm(text: str) -> str:
    return scripts_apart(unicodedata.normalize("NFKC", str(text))).lower().strip()


def _base(option: str) -> str:
    return option[:-3] if option.endswith("_zh") else option


def _values(options: dict[str, Any]) -> dict[str, set[str]]:
    """Each option (a Chinese spelling counts as its base option) with its spellings."""
    grouped: dict[str, set[str]] = {}
    for key, value in options.items():
        if str(value).strip():
            grouped.setdefault(_base(key), set()).add(_norm(value))
    return grouped


# Between a value and its Chinese option name after it ("蓝这个颜色", "红的颜色"), the value's 色/的/款 ending left out.
_THIS_ONE_ZH = r"(?:这个|这种|那个|那种|的)"
_LINK_BEFORE_NAME_ZH = rf"{_THIS_ONE_ZH}?\s*"
_COLOUR_OR_KIND_END = re.compile(r"(?:色|的|款)+$")
# Between an option's name and its value: punctuation ("size: M", "size - M") or a linking word, after
# the word "option", "setting" or "selection" when it is said ("water resistance option no", "color in gray",
# "armrest picked as none"), the value quoted or after an arrow when it is ('armrest = "none"', "waterproof => no").
_LINK = (
    r"(?:\s+(?:option|setting|selection|choice)s?)?"
    r"(?:\W{0,4}[\"'“‘]?|\W{0,2}\s*(?:(?:is\s+|being\s+)?(?:set|changed|switched|selected|picked|chosen)\s+(?:to|as)|of|is|=|being|"
    # "water resistance would be no", "the colour should be red", "size needs to be M", "colour becomes blue"
    r"(?:would|should|will|could|must|can|needs?\s+to|has\s+to|to)\s+be|becomes?|was|were|"
    r"at|as|in|namely)\s+[\"'“‘]?)"
)
# Between a value and its option's name after it: "S (size)", "S for its size", "20 hours in terms of
# battery life", "blue as the color option", "fixed (that's the armrest)".
_NAME_AFTER = (
    r"(?:\W{1,3}|\s+(?:for|in|as|in\s+terms\s+of)\s+(?:the\s+|its\s+|my\s+)?|"
    r"\W{0,3}\(?(?:that(?:\s+one)?'?s|that(?:\s+one)?\s+is|which\s+is)\s+(?:the\s+|its\s+)?|"
    rf"\s*{_THIS_ONE_ZH}\s*)"
)


# Between a Chinese option name and its value: "尺码是 m", "尺寸那栏是 s", "颜色那项灰", "size 为「s」", "尺码：l",
# "材质定的是铁", "颜色〈白〉", "通风【中等】".
_LINK_ZH = (
    r"\s*(?:这一?项|这一?栏|那一?项|那一?栏)?\s*(?:是|为|选的|选|挑|定的是|定的|用的|要|改成|换成|改为)?"
    r"\s*[:=]?\s*[「『〈《【〔\"'“‘]?\s*"
)
# A letter alone between Chinese words is a value, not a word ("换 s 的", "要 m 码"): scripts_apart set it apart.
_ALONE_AMONG_CHINESE = r"(?<=[\u3400-\u9fff] ){}(?= [\u3400-\u9fff])"


def _said_only_beside_name(option: str, value: str) -> bool:
    """A spelling that says a value only right after its option's name, unless the option lists it for itself (中等
    of a skin tone)."""
    return value in said_only_beside_name() and value not in own_spellings_zh(option)


def _as_a_word(value: str) -> str:
    """The value said as a word of its own; one that ends in a sign ends there, whatever follows ("80%配列")."""
    after = r"(?![\w+-])" if value[-1:].isalnum() else ""
    return rf"(?<![\w.+-]){re.escape(value)}{after}"


def _said(text: str, option: str, value: str) -> list[int]:
    """Where `value` of `option` is said in `text` (normalised): positions, empty when it is not."""
    name = "|".join(re.escape(_norm(n)) for n in (option, *option_names_zh(option)))
    name = f"(?:{name})"
    if _said_only_beside_name(option, value):  # "通风那栏是高": 高 is no value anywhere else
        # not the first half of a question word ("是否", "有没有", "是不是", "高不高"), nor 不 of "不用动", "不变"
        v = rf"{re.escape(value)}(?![否没不用变改动管])"
        beside = rf"{name}{_LINK_ZH}{v}"
        if value in said_alone_in_a_list():  # "换成黑, 3 英尺的", "(5 ft, 白, 玻璃)"
            beside += rf"|(?:^|(?<=[\s,;:(/、，；：（]|成|为|是|要|选)){v}(?=[\s,;)/、，；）]|$)"
        return [m.end() - len(value) for m in re.finditer(beside, text)]
    if any("\u3400" <= c <= "\u9fff" for c in value):
        # "500 片" is not said in "1500 片": a number starts where no digit is before it
        spelt = re.escape(value)
        if option_names_zh(option):  # also said with its option's Chinese name after it: "蓝这个颜色"
            stem = re.escape(_COLOUR_OR_KIND_END.sub("", value) or value)
            spelt = rf"(?:{spelt}|{stem}\s*{_LINK_BEFORE_NAME_ZH}{name})"
        found = list(re.finditer(r"(?<![\d.])" * value[0].isdigit() + spelt, text))
        # not inside the option's own name: "不防水" (no) is said in "防不防水" (waterproof or not) only as its name
        names = [(m.start(), m.end()) for m in re.finditer(name, text)] if found else []
        return [m.start() for m in found if not any(s < m.start() < e or s < m.end() < e for s, e in names)]
    word = _as_a_word(value)
    if value in _NEEDS_NAME:
        v = re.escape(value)
        # The value beside its option's name, either way round: "size: S", "size of M", "water resistance
        # set to no", "S size", "S (size)", "S for the size", "S in size", "no as water resistance".
        named = rf"{name}{_LINK}{v}\b|{name}{_LINK_ZH}{v}\b|\b{v}{_NAME_AFTER}{name}\b"
        if value in ("none", "no", "off", "false"):
            word = rf"(?:{name}{_LINK}(?:none|no|off|false)\b|\b(?:no|without(?:\s+an?)?)\s+{name}\b|{named})"
        elif len(value) == 1:
            # A size letter also as "in S", "the S one", or alone in a list of values ("low, S, blue").
            # Also a size letter first in a list ("simply S, medium"), just before "instead" ("a black S instead",
            # "v-neck, S in exchange") or last ("in v-neck, S").
            word = (
                rf"(?:{named}|{_ALONE_AMONG_CHINESE.format(v)}|\b{v}\s+one\b|\b(?:in|into)\s+(?:an?\s+|size\s+)?{v}\b|"
                rf"(?:(?<=[,;(/&\s])|(?<=[,;(/&]\s)){v}(?=\s*[,;)/&]|\s+(?:instead|in\s+exchange|this\s+time)\b|\s*[.!?]?\s*$))"
            )
        else:
            word = rf"(?:{named})"
    # Where the value itself is: a match may start with the option's name ("size: m").
    return [m.end() - len(value) if m.group().endswith(value) else m.start() for m in re.finditer(word, text)]


def wanted_options(text: str, current: dict[str, Any], variants: list[dict[str, Any]]) -> dict[str, str]:
    """{option: value} the text asks for, among the values the product has.

    When an option has several values said ("from black to white"), one differing from the
    current item wins, and of those the last said. A longer value hides the shorter one inside it
    ("rose gold" is not also "gold").
    """
    clean = _norm(text)
    now = _values(current)
    spellings = _spellings(variants)
    said = _ValuesSaid(spellings, now)
    said.read(clean)
    wanted = _last_changes(said.found, now)
    if said.unnamed and all(value in now.get(option, set()) for option, value in wanted.items()):
        # Nothing would change: "the same thing but brown" of brown lenses means the frame.
        said.unnamed_moved()
        wanted = _last_changes({option: mentions for option, mentions in said.found.items() if mentions}, now)
    return wanted


def _spellings(variants: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """option -> spelling -> canonical value (the first spelling), with Chinese and short spellings."""
    spellings: dict[str, dict[str, str]] = {}
    for variant in variants:
        for key, value in variant["options"].items():
            canonical = _norm(variant["options"].get(_base(key), value))
            spellings.setdefault(_base(key), {})[_norm(value)] = canonical
    _add_chinese_spellings(spellings)
    _add_short_spellings(spellings)
    return spellings


class _ValuesSaid:
    """The values a text says, each with where it is said, by option."""

    def __init__(self, spellings: dict[str, dict[str, str]], now: dict[str, set[str]]) -> None:
        self.spellings, self.now = spellings, now
        self.every = sorted(
            ((option, spelling, canonical) for option, by in spellings.items() for spelling, canonical in by.items()),
            key=lambda entry: -len(entry[1]),
        )
        self.owners: dict[str, list[str]] = {}  # a spelling several options have ("black": frame and lens colour)
        for option, spelling, _ in self.every:
            self.owners.setdefault(spelling, []).append(option)
        self.found: dict[str, list[tuple[int, str]]] = {}
        self.unnamed: list[tuple[str, int, str]] = []  # (option, where, spelling) of values several options have

    def read(self, clean: str) -> None:
        # An option's name is not one of its values: "bagged/bagless: bagged" says bagged only.
        taken: list[tuple[int, int]] = [
            (m.start(), m.end())
            for option, by in self.spellings.items()
            if any(spelling in _norm(option) for spelling in by)  # the name holds one of its values
            for m in re.finditer(re.escape(_norm(option)), clean)
        ]
        for option, spelling, canonical in self.every:
            for start in _said(clean, option, spelling):
                end = start + len(spelling)
                if any(s <= start < e or s < end <= e for s, e in taken) or not self._theirs(
                    clean, option, spelling, (start, end)
                ):
                    continue
                taken.append((start, end))
                self.found.setdefault(option, []).append((start, canonical))

    def _theirs(self, clean: str, option: str, spelling: str, where: tuple[int, int]) -> bool:
        """Whether a value several options have, said at `where`, is this option's."""
        shared = self.owners[spelling]
        if len(shared) == 1:
            return True
        named = _option_beside(clean, *where, shared)
        if named is not None:
            return named == option  # "black (frame color)" is the frame's, whichever option is read first
        # Said without its option, it describes the item as it is when one option has it now ("my sunglasses,
        # black polarized brown"); else the option read first takes it.
        holding = [o for o in shared if self.spellings[o][spelling] in self.now.get(o, set())]
        if len(holding) == 1 and holding[0] != option:
            return False
        self.unnamed.append((option, where[0], spelling))
        return True

    def unnamed_moved(self) -> None:
        """Each value said without its option goes to the one option it would change."""
        for option, start, spelling in self.unnamed:
            changing = [o for o in self.owners[spelling] if self.spellings[o][spelling] not in self.now.get(o, set())]
            if len(changing) == 1:
                self.found[option].remove((start, self.spellings[option][spelling]))
                self.found.setdefault(changing[0], []).append((start, self.spellings[changing[0]][spelling]))


def _last_changes(found: dict[str, list[tuple[int, str]]], now: dict[str, set[str]]) -> dict[str, str]:
    """Each option's value said last, of those differing from the item's own when there are any."""
    wanted = {}
    for option, mentions in found.items():
        different = [m for m in mentions if m[1] not in now.get(option, set())]
        wanted[option] = max(different or mentions)[1]
    return wanted


def _option_beside(text: str, start: int, end: int, options: list[str]) -> str | None:
    """Which of `options` is named right beside the value at text[start:end]: "black (frame color)",
    "brown for the frame color", "frame color: brown", "the brown frame" (an option's own first word
    when the others do not share it)."""
    after, before = text[end : end + 40], text[max(0, start - 40) : start]
    firsts = [_norm(o).split()[0] for o in options]
    names = {
        option: [re.escape(n) for n in (_norm(option), first) if n == _norm(option) or firsts.count(first) == 1]
        for option, first in zip(options, firsts, strict=True)
    }
    # The name after the value first: in "brown lens black frame", "black" is the frame's; but in a list
    # ("frame color => black + lens type => …") the next item's name is not this value's.
    for option, words in names.items():
        if re.match(r"\s*[+/,;&|]", after):
            break
        if any(re.match(rf"(?:{_NAME_AFTER})?\W{{0,3}}{word}\b", after) for word in words):
            return option
    for option, words in names.items():
        if any(re.search(rf"\b{word}{_LINK}$", before) for word in words):
            return option
    return None


def _add_chinese_spellings(spellings: dict[str, dict[str, str]]) -> None:
    """How a Chinese-writing shopper says each value of an English catalogue (红色, 500片, 两件套); a spelling two
    values of the option share ("小号" of small and XS) says neither."""
    for option, by in spellings.items():
        said: dict[str, set[str]] = {}
        for canonical in set(by.values()):
            beside_name = spellings_beside_name_zh(canonical) if option_names_zh(option) else ()
            for spelling in (*spellings_zh(option, canonical), *beside_name):
                said.setdefault(_norm(spelling), set()).add(canonical)
        for spelling, canonicals in said.items():
            if len(canonicals) == 1 and spelling not in by:
                by[spelling] = canonicals.pop()


_COLOURS_ZH = "黑白红蓝绿紫粉灰金银黄橙棕青"


def _add_short_spellings(spellings: dict[str, dict[str, str]]) -> None:
    """A word of a multi-word value that no other value has stands for the value: "Alexa" for
    "Amazon Alexa", "stainless" for "stainless steel", "75W" for "75W equivalent"."""
    words_of: dict[str, set[str]] = {}
    for option, by in spellings.items():
        for canonical in set(by.values()):
            words = set(re.findall(r"[a-z][a-z-]{2,}|\d+[a-z]+", canonical))
            if len(words) > 1 or canonical not in words:
                words_of[f"{option}\0{canonical}"] = words
            if colours := _colour_characters(by, canonical):
                words_of.setdefault(f"{option}\0{canonical}", set()).update(colours)
    for words in words_of.values():  # "512G" for "512GB"
        words |= {word[:-1] for word in words if re.fullmatch(r"\d+[gt]b", word)}
    counts: dict[str, int] = {}
    for words in words_of.values():
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    existing = {spelling for by in spellings.values() for spelling in by}
    for key, words in words_of.items():
        option, canonical = key.split("\0")
        for word in words:
            if counts[word] == 1 and word not in existing and word not in _NEEDS_NAME and word not in spellings:
                spellings[option].setdefault(word, canonical)


def _colour_characters(by: dict[str, str], canonical: str) -> set[str]:
    """A Chinese colour said by its colour character: "白色" for "浮光白", "黑的" for "星野黑", when no other value
    of the option has that character."""
    found: set[str] = set()
    for spelling in [sp for sp, c in by.items() if c == canonical]:
        for colour in set(_COLOURS_ZH) & set(spelling):
            if not any(colour in sp and c != canonical for sp, c in by.items()):
                found |= {f"{colour}色", f"{colour}的"}
    return found


def _label(options: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in options.items() if not key.endswith("_zh"))


def variant_options(variant: dict[str, Any]) -> dict[str, str]:
    """A variant's options as a customer's asks are read ({option: value}, normalised, Chinese spellings left out)."""
    return {key: _norm(value) for key, value in variant["options"].items() if not key.endswith("_zh")}


def match_replacement(
    text: str, item: dict[str, Any], variants: list[dict[str, Any]], asked_before: dict[str, str] | None = None
) -> str | Clarify | None:
    """The variant id `text` asks for to replace `item`, a Clarify, or None when it names none.

    `variants` are every variant of the item's product: {item_id, options, available}. `asked_before`
    are the options an earlier answer asked for that no variant had: an answer that names some options
    keeps the others asked for ("black, water resistant" → not available → "oh, blue then" means blue
    and water resistant), as a shop assistant would hear it.
    """
    by_id = [v["item_id"] for v in variants if v["item_id"] in text and v["item_id"] != item["item_id"]]
    if by_id:
        return by_id[0]
    current = {key: _norm(value) for key, value in item["options"].items() if not key.endswith("_zh")}
    wanted = wanted_options(text, item["options"], variants)
    if wanted and asked_before:
        wanted = {**asked_before, **wanted}
    changed = {key: value for key, value in wanted.items() if current.get(key) != value}
    if not changed:
        return _same_version(item, variants) if same_options_asked(text, item["name"]) else None
    target = {**current, **changed}
    exact = [v for v in variants if variant_options(v) == target]
    if exact and exact[0]["available"]:
        return str(exact[0]["item_id"])
    return _other_versions(item, variants, changed, exact_exists=bool(exact))


def _same_version(item: dict[str, Any], variants: list[dict[str, Any]]) -> str | Clarify:
    """The item itself, asked for again with its own options ("the same one"), or what is available instead."""
    same = next((v for v in variants if v["item_id"] == item["item_id"]), None)
    if same is None or same["available"]:
        return str(item["item_id"])
    others = tuple(_label(v["options"]) for v in variants if v["available"])[:6]
    if others:
        message = gettext_noop(
            "The %(product)s with exactly these options is not available right now. Available versions: %(versions)s."
        )
    else:
        message = gettext_noop("The %(product)s with exactly these options is not available right now.")
    return Clarify(message, {"product": item["name"]}, choices=others)


def _other_versions(
    item: dict[str, Any], variants: list[dict[str, Any]], changed: dict[str, str], *, exact_exists: bool
) -> Clarify:
    """What to ask when no available version has exactly the options asked for: the available versions with the
    options named, or the options the product comes with."""
    fitting = [
        v
        for v in variants
        if v["available"]
        and v["item_id"] != item["item_id"]
        and all(variant_options(v).get(k) == x for k, x in changed.items())
    ]
    asked = _label(changed)
    if len(fitting) == 1 and not exact_exists:
        # The options named exist together only in a variant that changes options the customer did not name: a
        # proposal changes only what was asked, so this one is offered and the customer says whether it will do.
        return Clarify(
            gettext_noop(
                "The %(product)s with %(asked)s comes only as %(versions)s, which changes its other options too. "
                "Would you like that one?"
            ),
            {"product": item["name"], "asked": asked},
            choices=(_label(fitting[0]["options"]),),
            asked=changed,
            offered=str(fitting[0]["item_id"]),
        )
    if fitting:
        # An unavailable exact match, or several ways to fit: the customer picks.
        if exact_exists:
            message = gettext_noop(
                "The %(product)s with %(asked)s is not available as it is now; these available versions: "
                "%(versions)s. Which one would you like?"
            )
        else:
            message = gettext_noop(
                "The %(product)s with %(asked)s comes in these available versions: %(versions)s. Which one would "
                "you like?"
            )
        choices = tuple(_label(v["options"]) for v in fitting[:6])
        offered = str(fitting[0]["item_id"]) if len(fitting) == 1 else ""  # one choice: a yes takes it
        return Clarify(
            message, {"product": item["name"], "asked": asked}, choices=choices, asked=changed, offered=offered
        )
    existing = sorted(
        {_label({k: v["options"].get(k)}) for v in variants if v["available"] for k in changed if v["options"].get(k)}
    )
    return Clarify(
        gettext_noop("The %(product)s is not available with %(asked)s. Available options: %(options)s."),
        {"product": item["name"], "asked": asked, "options": "; ".join(existing) or "-"},
        choices=tuple(existing[:6]),
        asked=changed,
    )


def llm_replacements(
    text: str, items: list[dict[str, Any]], variants: dict[str, list[dict[str, Any]]]
) -> dict[str, str]:
    """{old item id: new variant id} read by the LLM (structured output), each checked against the
    catalogue: a variant of the same product, available, and the same item only when the customer
    asked for exactly the same options. Anything else is dropped, and the offline reading decides."""
    from agents.llm.client import LLMUnavailable, llm_chat
    from agents.llm.prompts import REPLACEMENT_SCHEMA, parse_json_object, replacement_messages
    from agents.pii import mask_pii

    if not items:
        return {}
    try:
        result = llm_chat(
            replacement_messages(text=mask_pii(text), items=items, variants=variants),
            tier="main",
            schema=("replacements", REPLACEMENT_SCHEMA),
        )
        answer = parse_json_object(result.text).get("replacements")
    except (LLMUnavailable, ValueError):
        return {}
    chosen: dict[str, str] = {}
    by_id = {item["item_id"]: item for item in items}
    for entry in answer if isinstance(answer, list) else []:
        if not isinstance(entry, dict):
            continue
        item = by_id.get(str(entry.get("item_id")))
        new_id = str(entry.get("new_item_id"))
        if item is None:
            continue
        sellable = {v["item_id"] for v in variants.get(item["product_id"], []) if v["available"]}
        same_asked = (
            new_id == item["item_id"]
            and bool(entry.get("same_options_asked"))
            and same_options_asked(text, item["name"])
        )
        if (new_id in sellable and new_id != item["item_id"]) or same_asked:
            chosen[item["item_id"]] = new_id
    return chosen
