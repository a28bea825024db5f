"""Lexicon emotion scoring and offensive-language detection, Chinese and English.

Pure functions, no I/O, deterministic, well under a millisecond per chat message.

`emotion_score` maps a message to [0, 1]: 0.5 is neutral, lower is more negative. It sums lexicon
weights (longest match first), flips a weight after a nearby negation (不/没/not/never ...), scales it
after an intensifier (非常/太/very/so ...), then adds cues of their own: runs of "!!!" or "？？？",
shouting in ALL CAPS, complaint phrases and emojis. The sum `s` becomes `0.5 + 0.5 * tanh(s / 2.2)`.

`is_offensive` is narrower: insults, profanity aimed at someone and accusations of fraud
(垃圾客服, 傻逼, 滚, idiot, wtf, scam ...). A profane intensifier alone ("my damn password") lowers
the score but is not an insult.

The words are data (`data/emotion.json`): their weights, the harmless longer words that contain them, negations,
intensifiers, complaint phrases, the offensive words and emojis. Only formats are patterns here: how long a
customer has waited ("3天了", "for two weeks"), repeated punctuation, shouting and a hypothetical ("what if…").
"""

from __future__ import annotations

import math
import re

from agents.intents.word_lists import word_list, words_pattern

# A message scoring below this is very negative: the classifier adds EMOTION_SENSITIVE for it.
EMOTION_SENSITIVE_THRESHOLD = 0.15
# Below this a message counts as negative at all (used by the evaluation: "predicted negative").
NEGATIVE_THRESHOLD = 0.4

_DATA = word_list("emotion")
_ZH_WEIGHTS: dict[str, float] = _DATA["weights"]["zh"]
_EN_WEIGHTS: dict[str, float] = _DATA["weights"]["en"]
_UNPLEASANT_EMOJI, _PLEASANT_EMOJI = _DATA["emojis"]["unpleasant"], _DATA["emojis"]["pleasant"]
_ZH_INTENSIFIERS, _EN_INTENSIFIERS = tuple(_DATA["intensifiers"]["zh"]), frozenset(_DATA["intensifiers"]["en"])
_ZH_NEGATIONS, _EN_NEGATIONS = tuple(_DATA["negations"]["zh"]), frozenset(_DATA["negations"]["en"])
_ZH_FILLERS = tuple(_DATA["fillers"]["zh"])


def _every_way(combination: list[list[str]]) -> list[str]:
    """Every way through a list of word lists ('' leaves its place empty): ["you", "ur"], ["", "so"], ["dumb"]
    gives "you dumb", "you so dumb", "ur dumb", "ur so dumb"."""
    ways = [""]
    for words in combination:
        ways = [f"{way} {word}".strip() for way in ways for word in words]
    return ways


_ZH_HARMLESS = _DATA["harmless"]["zh"]
_ZH_RE = words_pattern([*_ZH_WEIGHTS, *_ZH_HARMLESS], edge="a-z")
_EN_RE = words_pattern(_EN_WEIGHTS, edge="a-z'")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_CAPS_WORD = re.compile(r"\b[A-Z]{3,}\b")
_WORD = re.compile(r"\b[A-Za-z]{3,}\b")
_EXCLAIM = re.compile(r"[!！]{2,}")
_QUESTION = re.compile(r"[?？]{2,}|[?？][!！]|[!！][?？]")
_ACRONYMS = frozenset({"NFC", "USB", "OLED", "LCD", "SIM", "GPS", "RAM", "ROM", "VAT", "ETA", "CEO", "LTE", "APP"})

# Frustration without a weighed word ("still not", "still waiting" are weighed words: counted twice, "my order,
# still not shipped, should be blue" read as anger), and how long it has gone on: a duration is a format.
_COMPLAINTS = words_pattern(_DATA["complaints"]["zh"] + _DATA["complaints"]["en"], edge="a-z")
_WAITED = re.compile(
    r"(?:几|好几|多少|十几|\d+)\s*天了|\bfor (?:over |more than )?(?:\d+|two|three|four|five|six|several|many) "
    r"(?:days|weeks|hours|months)\b"
)

# Asking what would happen ("要是一直没去取会怎么样", "what happens if I never pick it up?") describes
# no experience: its "never" and "一直没" are conditions, not complaints.
_HYPOTHETICAL = re.compile(
    r"会怎(?:么)?样|会怎么办|怎么处理|如果|要是|假如|万一|\bwhat (?:happens|if)\b|\bwhat would\b|"
    r"^\s*(?:and\s+)?if\b|\bin case\b|\bsuppose\b",
    re.IGNORECASE,
)


def _without_fillers(window: str) -> str:
    """The words before a Chinese match without the fillers that may stand after a negation: 不是很 -> 不."""
    trimmed = True
    while trimmed:
        trimmed = False
        for filler in _ZH_FILLERS:
            if window.endswith(filler):
                window, trimmed = window[: -len(filler)], True
    return window


def _zh_modifier(text: str, start: int) -> tuple[bool, bool]:
    """Whether the Chinese match at `start` is negated / intensified by the few characters just before it."""
    window = re.split(r"[，。！？,.!?；;、\s]", text[max(0, start - 5) : start])[-1]
    intensified = any(window.endswith(w) for w in _ZH_INTENSIFIERS) or any(
        w in window[-3:] for w in ("非常", "特别", "十分", "超级")
    )
    negated = _without_fillers(window).endswith(_ZH_NEGATIONS)
    return negated, intensified and not negated


def _en_modifier(lower: str, start: int) -> tuple[bool, bool]:
    # only the last three words count
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", lower[max(0, start - 24) : start])[-3:]
    negated = any(word in _EN_NEGATIONS or word.partition("'")[0] in _EN_NEGATIONS for word in words)
    return negated, bool(words) and words[-1] in _EN_INTENSIFIERS


def _apply(weight: float, negated: bool, intensified: bool) -> float:
    if negated:
        # "not good" is bad; "not bad" is only mildly good
        weight = -0.8 * weight if weight > 0 else -0.4 * weight
    if intensified:
        weight *= 1.6
    return weight


def _raw_score(text: str) -> float:
    s = 0.0
    if _CJK_RE.search(text):
        for m in _ZH_RE.finditer(text):
            weight = _ZH_WEIGHTS.get(m.group())
            if weight is None:
                continue  # a harmless word that merely contains a weighed one
            neg, inten = _zh_modifier(text, m.start())
            s += _apply(weight, neg, inten)
    lower = text.lower()
    if _COMPLAINTS.search(lower) or _WAITED.search(lower):
        s -= 1.0
    if re.search(r"[a-z]", lower):
        for m in _EN_RE.finditer(lower):
            neg, inten = _en_modifier(lower, m.start())
            s += _apply(_EN_WEIGHTS[m.group()], neg, inten)
        caps = [w for w in _CAPS_WORD.findall(text) if w not in _ACRONYMS]
        words = _WORD.findall(text)
        if len(caps) >= 2 and len(caps) >= 0.5 * len(words):
            s = s * 1.4 - 0.8  # shouting
    for ch in text:
        if ch in _UNPLEASANT_EMOJI:
            s -= 1.2
        elif ch in _PLEASANT_EMOJI:
            s += 1.0
    if s < 0 and _HYPOTHETICAL.search(text):
        s *= 0.15
    if _EXCLAIM.search(text):
        s = s * 1.3 - 0.3 if s < 0 else s * 1.2
    if _QUESTION.search(text):
        s -= 0.8
    return s


def emotion_score(text: str) -> float:
    """0 (very negative) .. 0.5 (neutral) .. 1 (very positive)."""
    if not text:
        return 0.5
    if is_offensive(text):
        return round(min(0.5 + 0.5 * math.tanh(_raw_score(text) / 2.2), 0.1), 4)
    return round(0.5 + 0.5 * math.tanh(_raw_score(text) / 2.2), 4)


# --- offensive language ---------------------------------------------------------------------------

_OFFENSIVE = _DATA["offensive"]
_OFFENSIVE_WORDS = frozenset(
    [*_OFFENSIVE["zh"]["words"], *_OFFENSIVE["en"]["words"]]
    + [way for combination in _OFFENSIVE["en"]["combinations"] for way in _every_way(combination)]
)
_OFFENSIVE_RE = words_pattern([*_OFFENSIVE_WORDS, *_ZH_HARMLESS], edge="a-z0-9")


def is_offensive(text: str) -> bool:
    """True for insults, profanity aimed at someone and accusations of fraud, in Chinese or English."""
    said = re.sub(r"\*+", "*", text.lower())
    return any(" ".join(m.group().split()) in _OFFENSIVE_WORDS for m in _OFFENSIVE_RE.finditer(said))
