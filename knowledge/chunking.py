"""Heading-aware chunking with overlap, cutting at Chinese and English sentence ends (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import rjieba
import snowballstemmer

MAX_CHARS = 500
# A chunk starts with the last sentence of the one before when that sentence is this short, so an
# answer cut in two is found whole; a longer one is not carried: a chunk never starts mid-sentence,
# since its text is what a reply quotes.
OVERLAP_CHARS = 160
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
STOP_WORDS = set(
    "the a an my is are was do does did what how when where why who i you your to of in on for and or can could "
    "it its this that with be me we our us if not no yes have has please there any about from by at as".split()
) | set("的 了 吗 呢 吧 啊 是 我 你 他 她 它 我们 你们 怎么 什么 如何 请问 一下 可以 能 有 没有 在 和 与".split())
_WORD = re.compile(r"\w+")
# A line break ends a sentence too: a chunk keeps one between list items that end without punctuation.
# An English ";" does not: the clause after it ("…on the back; no scratches on the screen.") quoted alone
# reads as a fragment.
# Nor does the full stop of a numbered list's "2." (at a line's start, or after a space in flattened text).
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])|(?<=[.])(?<!^\d\.)(?<!^\d\d\.)(?<!\s\d\.)(?<!\s\d\d\.)\s+|\n+", re.M)
_LIST_ITEM = re.compile(r"^(?:[-*+•]|\d{1,2}[.)、])\s+")
_ENDS = (".", "!", "?", "。", "！", "？", "；")  # what ends a sentence (an English ";" does not)


@dataclass(frozen=True)
class TextChunk:
    heading: str  # "Returns › 7-day rule"
    text: str


_ENGLISH = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)  # a shop's vocabulary is small; the stemmer is pure Python
def word_stem(word: str) -> str:
    """An English word's Snowball stem ("discounts", "discounted" → "discount"); anything else
    (Chinese, numbers, codes) as it is. Indexed and searched alike, so a question's inflection
    finds the passage's."""
    return _ENGLISH.stemWord(word) if word.isascii() and word.isalpha() else word


# English writes a verb and its particle apart and their noun as one word: "set up" / "setup", "back up"
# / "backup", "pick up" / "pickup", "log in" / "login", "check out" / "checkout". Either way of writing
# it finds the other. Any word before a particle is joined, not only verbs: a pair no one writes as one
# word ("batteries in") is a word no question and no passage holds apart from that same pair.
_PARTICLES = frozenset("up in out on off over back down away".split())


def _tokens(text: str) -> list[str]:
    tokens = [token for token in rjieba.cut_for_search(text.lower()) if token.strip()]
    compounds = [
        (i + 1, f"{word}{particle}")
        for i, (word, particle) in enumerate(zip(tokens, tokens[1:], strict=False))
        if particle in _PARTICLES and word.isascii() and word.isalpha() and len(word) > 1 and word not in STOP_WORDS
    ]
    for at, compound in reversed(compounds):
        tokens.insert(at + 1, compound)
    return tokens


def search_text(text: str) -> str:
    """Words separated by spaces (rjieba for Chinese), lower case, English ones stemmed: what the
    'simple' tsvector indexes."""
    return " ".join(map(word_stem, _tokens(text)))


def sentences(text: str) -> list[str]:
    """Chinese and English sentences, in order."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def query_words(text: str, *, stem: bool = True) -> list[str]:
    """The words of a question that carry its meaning, in order and once each: segmented and
    stemmed like the index, without stop words, punctuation or lone Latin letters."""
    words = (t for t in _tokens(text) if _WORD.search(t) and t not in STOP_WORDS and (len(t) > 1 or not t.isascii()))
    return list(dict.fromkeys(map(word_stem, words) if stem else words))


_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def meaning_terms(text: str) -> set[str]:
    """What a text is about, for matching a question with the sentences that answer it: its query
    words, and for Chinese also each pair of adjacent characters (a question rarely cuts its words
    where the answer does: 多久到账 / 到账时间)."""
    terms = set(query_words(text))
    for run in _CJK_RUN.findall(text):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return {term for term in terms if term not in STOP_WORDS}


def joined(text: str, following: str) -> str:
    """Two runs of sentences as one: Chinese needs no space after its full stop."""
    if not text:
        return following
    return f"{text}{'' if text.endswith(('。', '！', '？', '；')) else ' '}{following}".strip()


def _blocks(lines: list[str]) -> list[str]:
    """A section's paragraphs (its wrapped lines joined) and list items, each on a line of its own: a list
    item that ends without a full stop is still a sentence of its own, for the reply that quotes it."""
    blocks: list[list[str]] = []
    for line in (line.strip() for line in lines):
        if not line or _LIST_ITEM.match(line) or not blocks or not blocks[-1]:
            blocks.append([])
        if line:
            blocks[-1].append(line)
    return [re.sub(r"\s+", " ", " ".join(block)) for block in blocks if block]


def _pack(heading: str, body: list[str]) -> list[TextChunk]:
    chunks, current, last = [], "", ""
    for sentence, starts_block in ((s, i == 0) for block in body for i, s in enumerate(sentences(block))):
        if current and len(current) + len(sentence) + 1 > MAX_CHARS:
            chunks.append(TextChunk(heading, current))
            current = last if len(last) <= OVERLAP_CHARS and last != current else ""
        if starts_block and current and not current.endswith(_ENDS):
            current = f"{current}\n{sentence}"  # the item before ends without punctuation: the break is its end
        else:
            current = joined(current, sentence)
        # a clause after "；" belongs to its sentence: the carried sentence starts where the sentence does
        last = f"{last}{sentence}" if last.endswith("；") else sentence
        while len(current) > MAX_CHARS * 2:  # one huge "sentence" (no punctuation): hard cut
            chunks.append(TextChunk(heading, current[:MAX_CHARS]))
            current = last = current[MAX_CHARS - OVERLAP_CHARS // 2 :]
    if current:
        chunks.append(TextChunk(heading, current))
    return chunks


def chunk_markdown(text: str, *, title: str = "") -> list[TextChunk]:
    """Split by headings (keeping the heading path), then pack sentences into overlapping chunks. The lines of a
    fenced code block stay lines, its fences dropped."""
    path: list[tuple[int, str]] = []
    sections: list[tuple[str, list[str]]] = [(title, [])]
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            sections[-1][1].append("")
            continue
        if fenced:  # a code block's lines are records (a template, a log): each stands alone, none is a heading
            sections[-1][1].extend((line, ""))
            continue
        match = _HEADING.match(line)
        if match:
            level = len(match.group(1))
            path = [(lvl, name) for lvl, name in path if lvl < level] + [(level, match.group(2))]
            sections.append((" › ".join(name for _, name in path), []))
        else:
            sections[-1][1].append(line)
    chunks: list[TextChunk] = []
    for heading, lines in sections:
        body = _blocks(lines)
        if body:
            chunks.extend(_pack(heading or title, body))
    return chunks
