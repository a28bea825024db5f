"""Whether a message puts right a value the customer gave before, and which value it now means: two models learned
from the same examples (`examples/correction.<lang>.jsonl`: the message, what the customer said `before`, the
label, the value `meant` and the `slip` when the message names it).

- **Whether** (`CORRECTION`, a decision of agents.reading.decisions): the model reads the message with each value
  written as what it is to what was said before — the same value (`VSAID`), one that replaces a value of its
  kind (`VNEAR`: an id with two digits swapped, another number where a number was said) or a new one (`VNEW`) —
  and every word said before written `VSAID`, so that "sorry, I meant VNEAR" and "VNEAR*" read as corrections,
  while a new e-mail after an order id, "yes, VSAID", "that's not it" or "swap the X for the Y one" do not.
  Values are formats (ids, numbers, e-mails, phones); everything else is read as words.
- **Which value** (the value model): every run of up to MAX_SPAN words is scored as the value meant, the slip or
  neither by a small regression over its words, the words around it, its shape (a number and its unit, a
  Chinese word's length), a negation before it and whether it was said before. The slip is said the way the value
  meant is ("200号" / "100号"); words both share just before them belong to both ("体育西路"). When the message
  does not name the slip, an id or number it is a slip of in what was said before is the slip.

A correction re-reads what was said before with the value put right, so it is read only when the model is sure
(CORRECTION_AT) and a value can be found; a correction missed costs a turn at most (a later value still replaces
an earlier one).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import rjieba

from agents.reading.decisions import FITTED, Decision, likelihood

# Chosen on the examples' cross-validation (manage.py train_decisions), never on a benchmark.
CORRECTION_AT = 0.6
MAX_CHARS = 160  # a longer message tells more than a value put right
SAME, NEAR, NEW = "VSAID", "VNEAR", "VNEW"
# The value model: which span of a correction is the value meant, which the slip, learned from the examples'
# `meant` and `slip`. The likeliest span is the value meant when at least MEANT_AT likely (most spans are neither,
# so the value's own likelihood stays low), the likeliest span apart from it the slip at SLIP_AT (chosen on the
# examples).
MEANT, SLIP, NEITHER = 0, 1, 2
MEANT_AT = 0.05
SLIP_AT = 0.2
MAX_SPAN = 5
VALUE_DIMENSIONS = 1 << 16
VALUE_FITTED = FITTED / "correction_value.npz"

# Formats: an e-mail, a phone number, an order id or a long number, a number (a quantity, a size, a capacity).
_VALUE = re.compile(
    r"[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|\+\d[\d -]{6,}\d|\d{3}[ -]\d{3}[ -]\d{4}|"
    r"#?(?<![A-Za-z0-9])[A-Za-z]{0,2}\d[\d-]*(?:\.\d+)?[A-Za-z]{0,3}(?:\+\d+(?:\.\d+)?[A-Za-z]{0,3})*(?![A-Za-z0-9])"
)
_NEGATION = re.compile(
    r"\b(?:not|no|isn't|wasn't|instead of|rather than)\s+(?:the\s+|a\s+|an\s+)?$|(?:不是|而不是|不要|并非|并不是)\s*$",
    re.IGNORECASE,
)
_TOKEN = re.compile(
    rf"[A-Za-z]{{1,3}}-\d+|\d+(?:-[A-Za-z]+)+|{_VALUE.pattern}|[A-Za-z]+(?:['-][A-Za-z]+)*|[\u3400-\u9fff]+|\w+|[^\w\s]"
)
_CJK = re.compile(r"[\u3400-\u9fff]")


def typing_slip(a: str, b: str) -> str:
    """How two strings differ by one typing slip: "swap" (two neighbours swapped), "other" (a
    character changed, added or dropped), or "" (not one slip)."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
            return "swap"
        return "other" if len(diff) == 1 else ""
    if abs(len(a) - len(b)) != 1:
        return ""
    short, long_ = sorted((a, b), key=len)
    return "other" if any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_))) else ""


def _bare(value: str) -> str:
    return value.lstrip("#").lower()


def _kind(value: str) -> str:
    """What a value is, by its form: an e-mail, an id (letters before digits, or five digits and more), a number."""
    if "@" in value:
        return "email"
    bare = _bare(value)
    return "id" if re.match(r"[a-z]+\d", bare) or len(re.sub(r"\D", "", bare)) >= 5 else "number"


def _relation(value: str, before: list[str]) -> str:
    """SAME when the value was said before, NEAR when it replaces one of its kind said before, NEW otherwise. An id
    replaces one whose two digits it swaps: one digit apart is no sign, a store's order numbers run in sequence
    (#W1001, #W1003). A number replaces any number (a quantity, a size); an e-mail one a slip away."""
    bare = _bare(value)
    if any(_bare(said) == bare for said in before):
        return SAME
    kind = _kind(value)
    slip = {"id": ("swap",), "email": ("swap", "other")}.get(kind)
    near = [said for said in before if _kind(said) == kind and (not slip or typing_slip(_bare(said), bare) in slip)]
    return NEAR if near else NEW


def framed(text: str, before: str) -> str:
    """The message as the decision reads it: every value written as what it is to what was said before, and
    every word said before that is not one the examples wrap around values written as said."""
    said = _VALUE.findall(before)
    text = _VALUE.sub(lambda value: _relation(value.group(), said), text)
    before_words = set(_words(before)) - frame_words()
    return "".join(
        SAME if word.lower() in before_words and len(word) > 1 and not word.isupper() else word
        for word in _pieces(text)
    )


def _pieces(text: str) -> list[str]:
    """The text cut into its words (rjieba's for Chinese) and what lies between them, nothing lost."""
    pieces, at = [], 0
    for token, start in _tokens(text):
        if start > at:
            pieces.append(text[at:start])
        pieces.append(token)
        at = start + len(token)
    return [*pieces, text[at:]]


CORRECTION = Decision("correction", ("correction", "none"), framing=framed)


def correction_read(text: str, before: str = "") -> tuple[str, str] | None:
    """(meant, said by mistake) when the message puts right a value said before; the mistake is "" when the
    message does not name it ("oops I meant dark"). None when it puts nothing right, or no value can be found."""
    if not text.strip() or len(text) > MAX_CHARS:
        return None
    if likelihood(CORRECTION, framed(text, before))["correction"] < CORRECTION_AT:
        return None
    return values_put_right(text, before)


@dataclass(frozen=True)
class _Message:
    """A message cut for the value model, with what was said before it: read once for all its spans."""

    text: str
    tokens: list[tuple[str, int]]
    words: list[str]  # the tokens, lower case
    shapes: list[str]
    said_words: set[str]
    said_values: list[str]

    @classmethod
    def read(cls, text: str, before: str) -> _Message:
        tokens = list(_tokens(text))
        return cls(
            text=text,
            tokens=tokens,
            words=[token.lower() for token, _ in tokens],
            shapes=[_shape(token) for token, _ in tokens],
            said_words=set(_words(before)),
            said_values=_VALUE.findall(before),
        )


@dataclass(frozen=True)
class _Span:
    """Words of the message next to each other, a candidate for the value meant or the slip."""

    text: str
    start: int  # the first token's index
    end: int  # after the last token's


def values_put_right(text: str, before: str) -> tuple[str, str] | None:
    """(meant, slip) in a message read as a correction: the span of its words the value model reads likeliest as
    the value meant, and as the slip (a span apart from it); or, when the message does not name the slip, the one
    value said before that the value meant is a typing slip of."""
    message = _Message.read(text, before)
    spans = _spans(message)
    if not spans:
        return None
    found = value_probabilities(message, spans)
    best = int(found[:, MEANT].argmax())
    if found[best, MEANT] < MEANT_AT:
        return None
    meant = spans[best]
    apart = [
        k
        for k, span in enumerate(spans)
        if (span.end <= meant.start or span.start >= meant.end) and found[k, SLIP] >= SLIP_AT
    ]
    # The slip is said the way the value meant is ("200号" and "100号", "星野黑" and "浮光白"): of the likely
    # slips, one of the same shape first.
    slip = max(apart, key=lambda k: (_same_shape(message.shapes, spans[k], meant), found[k, SLIP]), default=None)
    if slip is None:
        return meant.text, _replaced(meant.text, message.said_values)
    return _with_shared_words(message, meant, spans[slip])


def _same_shape(shapes: list[str], one: _Span, other: _Span) -> bool:
    return shapes[one.start : one.end] == shapes[other.start : other.end]


def _with_shared_words(message: _Message, meant: _Span, slip: _Span) -> tuple[str, str]:
    """The value meant and the slip, each with the words just before it that both share ("是体育西路200号，不是
    体育西路100号": the street is part of both values)."""
    words, tokens = message.words, message.tokens
    shared = 0
    while (
        shared < min(meant.start, slip.start)
        and words[meant.start - shared - 1] == words[slip.start - shared - 1]
        and re.search(r"\w", words[meant.start - shared - 1])
        and meant.start - shared - 1 != slip.end - 1
    ):
        shared += 1

    def said(span: _Span) -> str:
        start = tokens[span.start - shared][1]
        last, at = tokens[span.end - 1]
        return _trimmed(message.text[start : at + len(last)])

    return said(meant), said(slip)


def _replaced(meant: str, said: list[str]) -> str:
    """The one value said before that a value meant is a slip of ("#W4829137" after "#W4829173"), or ""."""
    if not _VALUE.fullmatch(meant) or _relation(meant, said) != NEAR:
        return ""
    near = {value for value in said if _kind(value) == _kind(meant) and typing_slip(_bare(value), _bare(meant))}
    return near.pop() if len(near) == 1 else ""


def _spans(message: _Message) -> list[_Span]:
    """Every run of one to MAX_SPAN words that punctuation does not cut."""
    spans, tokens = [], message.tokens
    for start in range(len(tokens)):
        for end in range(start + 1, min(start + MAX_SPAN, len(tokens)) + 1):
            if not re.search(r"\w", tokens[end - 1][0]):
                break
            first, (last, at) = tokens[start][1], tokens[end - 1]
            spans.append(_Span(_trimmed(message.text[first : at + len(last)]), start, end))
    return [span for span in spans if span.text]


def _span_features(message: _Message, span: _Span) -> set[str]:
    """What the value model reads of a span: its words, the words around it and their shapes, whether a negation
    stands before it, whether it was said before, and what the format value it holds is to the values said
    before."""
    words, shapes, start, end = message.words, message.shapes, span.start, span.end
    inside = words[start:end]
    found = {f"in:{word}" for word in inside} | {f"first:{inside[0]}", f"last:{inside[-1]}", f"len:{len(inside)}"}
    found |= {f"p1:{words[start - 1] if start else '^'}", f"n1:{words[end] if end < len(words) else '$'}"}
    found |= {f"p2:{' '.join(words[max(0, start - 2) : start])}", f"n2:{' '.join(words[end : end + 2])}"}
    said = message.said_words
    found.add("said" if all(word in said for word in inside) else "some said" if said & set(inside) else "new")
    if _negated(message.text, message.tokens[start][1]):
        found.add("negated")
    values = [token for token, _ in message.tokens[start:end] if _VALUE.fullmatch(token)]
    if values:
        found |= {f"value:{_relation(values[0], message.said_values)}", f"values:{len(values)}:{len(inside)}"}
    found.add(f"shape:{' '.join(shapes[start:end])}")
    found |= {f"p1shape:{shapes[start - 1] if start else '^'}", f"n1shape:{shapes[end] if end < len(shapes) else '$'}"}
    return found


def _shape(token: str) -> str:
    """What a token looks like: a number or an id, a Chinese word by its length, a short or long word, capitalised."""
    if re.search(r"\d", token):
        return "num"
    if _CJK.search(token):
        return f"zh{min(len(token), 3)}"
    if not re.search(r"\w", token):
        return "mark"
    return ("Aa" if token[0].isupper() else "a") + ("3" if len(token) <= 3 else "")


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATION.search(text[max(0, start - 16) : start]))


def _trimmed(run: str) -> str:
    return run.strip().rstrip("的").strip()


def _tokens(text: str) -> Iterable[tuple[str, int]]:
    """Format values and words with where they start: rjieba's words for Chinese, whole words otherwise."""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if not _CJK.search(token):
            yield token, match.start()
            continue
        at = match.start()
        for word in rjieba.cut(token, False):  # no guessed words: "浮光白是" is not "浮光" + "白是"
            yield word, at
            at += len(word)


def _words(text: str) -> list[str]:
    return [token.lower() for token, _ in _tokens(text) if re.search(r"\w", token)]


@lru_cache(maxsize=1)
def frame_words() -> frozenset[str]:
    """The words the examples' corrections say around values and hardly ever inside one ("sorry", "meant",
    "colour", 应该是): a word said before that is one of them is not written as said."""
    around: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for path in CORRECTION.example_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("label") != "correction":
                continue
            text = row["text"]
            for value in (row.get("meant"), row.get("slip")):
                if value:
                    inside.update(_words(value))
                    text = text.replace(value, " ")
            around.update(_words(text))
    return frozenset(word for word, n in around.items() if n >= 2 and n > 2 * inside[word])


def value_probabilities(message: _Message, spans: list[_Span]) -> np.ndarray:
    """Each span's probability of being the value meant, the slip, or neither (rows: spans)."""
    weights, intercept = _value_model()
    scores = np.array([weights[:, _indices(_span_features(message, span))].sum(axis=1) + intercept for span in spans])
    scores -= scores.max(axis=1, keepdims=True)
    exp = np.exp(scores)
    return exp / exp.sum(axis=1, keepdims=True)


def _indices(features: set[str]) -> np.ndarray:
    return np.fromiter(sorted({zlib.crc32(f.encode()) & (VALUE_DIMENSIONS - 1) for f in features}), dtype=np.int64)


def value_training_key() -> str:
    """The hash of what the value model must come from: the examples and this module, which reads the spans."""
    digest = hashlib.sha256(inspect.getsource(sys.modules[__name__]).encode())
    for path in CORRECTION.example_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _value_rows() -> tuple[list[np.ndarray], list[int]]:
    """The spans of every example's correction with their labels: the value meant, the slip, neither."""
    rows, labels = [], []
    for path in CORRECTION.example_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("label") != "correction" or not row.get("meant"):
                continue
            message = _Message.read(row["text"], row.get("before", ""))
            spans = _spans(message)
            said = [_same(span.text, row["meant"]) for span in spans]
            if not any(said):
                continue  # the value is not a run of words as this reader cuts them
            for span, meant in zip(spans, said, strict=True):
                rows.append(_indices(_span_features(message, span)))
                labels.append(
                    MEANT if meant else SLIP if row.get("slip") and _same(span.text, row["slip"]) else NEITHER
                )
    return rows, labels


def _same(one: str, other: str) -> bool:
    return one.lstrip("#").strip().lower() == other.lstrip("#").strip().lower()


def value_model_fit() -> tuple[np.ndarray, np.ndarray]:
    """Fit the value model on the examples: (weights, intercept)."""
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    rows, labels = _value_rows()
    lengths = np.array([len(row) for row in rows])
    matrix = csr_matrix(
        (np.ones(lengths.sum()), np.concatenate(rows), np.r_[0, np.cumsum(lengths)]),
        shape=(len(rows), VALUE_DIMENSIONS),
    )
    model = LogisticRegression(C=4.0, max_iter=5000).fit(matrix, labels)
    return model.coef_.astype(np.float32), model.intercept_.astype(np.float32)


def value_model_save() -> str:
    weights, intercept = value_model_fit()
    key = value_training_key()
    np.savez_compressed(VALUE_FITTED, key=np.array(key), weights=weights, intercept=intercept)
    _value_model.cache_clear()
    return key


@lru_cache(maxsize=1)
def _value_model() -> tuple[np.ndarray, np.ndarray]:
    """The committed value model when it comes from the current examples and code, else one fitted now."""
    if VALUE_FITTED.exists():
        with np.load(VALUE_FITTED, allow_pickle=False) as data:
            if str(data["key"]) == value_training_key():
                return data["weights"], data["intercept"]
    return value_model_fit()
