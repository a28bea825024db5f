"""Small talk, read from a word list (`data/small_talk.json`, zh + en): whether a whole clause is only greetings,
thanks, acknowledgements and fillers, and whether a whole message is a greeting the bot answers without a model.

Both the clause splitter (a greeting stands alone: "您好，…") and the classifier (small talk when nothing of
substance was read) ask the first; the recognition's fast path asks the second. The list is a closed class of
words, not shop language, so it is matched exactly: a clause is small talk when it can be cut, end to end, into
phrases of the list. Case, spaces, punctuation, emojis, apostrophes and repeated letters do not count, so
"Hellooo!!", "ok thanks :)" and "嗯嗯，好的" need no entries of their own. Only the shape of a menu's topic header
("手机类-售前咨询") and a platform's emoticon codes are patterns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_WORD_LIST = Path(__file__).resolve().parent / "data" / "small_talk.json"

# platform emoticon codes ("#E-s12", WeChat's "[微笑]") count as emojis
_EMOTICON_CODE = re.compile(r"#E-[A-Za-z]+\d+|\[[\u4e00-\u9fff]{1,4}\]")
_NOT_SAID = re.compile(r"[\W_]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]")
_REPEATED = re.compile(r"([a-z])\1+")  # "hellooo", "okkk"; Chinese doubles its words ("看看"), so they stay
# A bare topic header, as menus send it: "售后咨询", "手机类-售前咨询", "收货后疑问解答"
_TOPIC_HEADER = re.compile(
    r"^(?:[\u4e00-\u9fffA-Za-z0-9]{1,6}类)?[\s\-—_]*[\u4e00-\u9fff]{0,6}(?:咨询|答疑|疑问解答|问题解答)$"
)


def _said(text: str) -> str:
    """What is left to match: lower case, without apostrophes, separators, emojis or repeated letters."""
    text = _REPEATED.sub(r"\1", text.lower().replace("'", "").replace("’", ""))
    return _NOT_SAID.sub("", text)


@dataclass(frozen=True)
class _Phrases:
    said: frozenset[str]
    longest: int

    @classmethod
    def of(cls, *lists: list[str]) -> _Phrases:
        said = frozenset(_said(phrase) for words in lists for phrase in words) - {""}
        return cls(said, max(map(len, said)))


@dataclass(frozen=True)
class _WordList:
    small_talk: _Phrases
    greetings: _Phrases
    around_greetings: _Phrases  # the greetings and what softens them ("thanks again", "谢谢亲")


@cache
def _word_list() -> _WordList:
    data = json.loads(_WORD_LIST.read_text(encoding="utf-8"))
    greetings, softeners = data["greetings"].values(), data["softeners"].values()
    return _WordList(
        small_talk=_Phrases.of(*data["small_talk"].values()),
        greetings=_Phrases.of(*greetings),
        around_greetings=_Phrases.of(*greetings, *softeners),
    )


def _cuts(said: str, phrases: _Phrases) -> list[set[int]]:
    """For each position of `said`, where the phrases that end there start; empty when nothing reaches it."""
    starts: list[set[int]] = [set() for _ in range(len(said) + 1)]
    reached = [True] + [False] * len(said)
    for at in range(len(said)):
        if not reached[at]:
            continue
        for end in range(at + 1, min(len(said), at + phrases.longest) + 1):
            if said[at:end] in phrases.said:
                reached[end] = True
                starts[end].add(at)
    return starts if reached[-1] else []


def is_small_talk(text: str) -> bool:
    """The whole clause is a greeting, thanks, an acknowledgement, a filler or a bare topic header."""
    if _TOPIC_HEADER.match(text.strip()):
        return True
    said = _said(_EMOTICON_CODE.sub(" ", text))
    if not said:
        return bool(text.strip())  # only emojis, emoticon codes or punctuation
    return bool(_cuts(said, _word_list().small_talk))


def is_greeting(text: str) -> bool:
    """The whole message greets, thanks or says goodbye ("hi", "thanks a lot!", "谢谢亲"): at least one greeting,
    the rest softeners."""
    said = _said(text)
    words = _word_list()
    starts = _cuts(said, words.around_greetings)
    return bool(starts) and _holds_a_greeting(said, starts, words.greetings)


def _holds_a_greeting(said: str, starts: list[set[int]], greetings: _Phrases) -> bool:
    """Some way of cutting `said` into the phrases found uses a greeting."""
    # walk back from the end over every cut; a cut piece that is a greeting settles it
    seen, todo = set(), [len(said)]
    while todo:
        end = todo.pop()
        for start in starts[end]:
            if said[start:end] in greetings.said:
                return True
            if start not in seen:
                seen.add(start)
                todo.append(start)
    return False
