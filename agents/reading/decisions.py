"""Decisions about what a customer's message means, learned from examples instead of written as rules.

A decision (`Decision`) is a small set of labels, such as what an answer to "Shall I go ahead?" says. Its
language lives in example files beside this module (`examples/<decision>.<lang>.jsonl`: one example a line, its
`text`, its `label` and a short `why`), so a wording it misses is fixed by adding an example, never by a rule for
that sentence.

- A message is read through the bundled e5's query vector (multilingual: zh and en share one model) and hashed
  n-grams: words, word pairs, the first and the last word, character n-grams of longer words, Chinese characters
  and their pairs and triples, and whether it asks ("?"). The vector carries meaning across wordings it has not
  seen; the n-grams carry the small words a vector blurs ("no", "not", "别").
- A decision may be read in a context (`in_context`: the request an answer is about): its n-grams count once
  as they are and once joined to the context, so examples that name a context teach what words mean there.
- A multinomial logistic regression (scikit-learn) weighs them. `manage.py train_decisions` fits every decision,
  prints its cross-validated accuracy and writes `fitted/<decision>.npz` with the hash of its examples and
  settings; the files are committed (embedding the examples takes a while) and a test fails when one is stale.
  A process that finds a file stale fits that decision itself once and keeps it under VAR_DIR.
- Staff add examples in the admin (agents.reading.staff): the worker fits the decision again with them and
  puts the new model's key in the cache, where each process looks every TAUGHT_CHECK_S.
- Reading needs only numpy: the weights are applied by hand.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import re
import threading
import time
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from conversations.language import scripts_joined
from knowledge.embeddings import bundled_query_vectors

logger = logging.getLogger(__name__)

EXAMPLES = Path(__file__).resolve().parent / "examples"
FITTED = Path(__file__).resolve().parent / "fitted"
HASH_DIMENSIONS = 1 << 15
# The regression's inverse penalty and the weight of the meaning vector beside the n-grams: chosen by the
# examples' cross-validation (`manage.py train_decisions --search`), never on a benchmark.
C = 16.0
DENSE_WEIGHT = 2.0
FEATURES_VERSION = "3"

_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_CONTEXT = re.compile(r"⟦(\w+)⟧ ")
_WORD = re.compile(r"[a-z][a-z0-9']*|\d+")
# Where what follows is said not to be meant, up to the clause's end: "the items, not the address", "改地址，不是换
# 商品", "it's not a mistake". Grammar, not shop language: the words after it are read as negated words.
_NEGATION = re.compile(r"\b(?:not|no|never|nor|without|instead of|rather than|\w+n't)\b|不是|不要|不用|没有|别|而非")
# A clause that says something stays as it is ("the address is fine", "颜色不变") names what is not meant too.
_KEPT = re.compile(
    r"\b(?:is|are|'s|looks?|seems?)\s+(?:fine|ok|okay|right|correct|good)\b|\bkeep\b|\bstays?\b|\bunchanged\b|"
    r"\bas (?:it )?is\b|没问题|不变|不用动|不改|保持|照旧"
)
CLAUSE_END = re.compile(r"[,.;:!?，。；：！？、]")
NEAR_WORDS = 3  # how many words before and after a decision's marker are read apart
NEGATED_WORDS = 3  # how many words (or Chinese characters' pairs) after a negation are read as negated


@dataclass(frozen=True)
class Decision:
    name: str
    labels: tuple[str, ...]
    # A choice between things the message names (what a change changes): the meaning vector is read without
    # what the message says it does not mean ("the items, not the address"), which a vector of the whole
    # sentence blurs into both; the n-grams still see it, marked as negated.
    meaning_without_negated: bool = False
    # What the meaning vector reads of a text, when not all of it: the n-grams read the whole text. A clause's
    # request is read without the item it describes in brackets (agents.reading.intent).
    meaning_of: Callable[[str], str] | None = None
    # A second meaning vector read beside the first, of a smaller part of the text: the clause that names the
    # item decided on, whose own words ("ITEM换成S码的") a vector of the whole sentence blurs with the others'.
    meaning_also_of: Callable[[str], str] | None = None
    # A decision about one part of the text (what one item a message names is there for): `focus` cuts that
    # part out. The meaning vector reads the part alone; the n-grams read the whole text and, marked apart, the
    # part's own words, so that "love ITEM. exchange OTHER" is not read as "exchange ITEM".
    focus: Callable[[str], str] | None = None
    # The word that stands for the thing decided on (ITEM): the words just before and after it are read apart
    # ("keep ITEM", "except ITEM", "ITEM is fine", "ITEM leaks").
    marker: str = ""
    # The word that stands for the other things of the kind (OTHER): the words around the marker stop at it, so
    # that "keep OTHER and return ITEM" reads "and return" before ITEM, not "keep".
    beside: str = ""
    # A decision about a message in its context (whether it puts right what was said before): an example's text
    # is read as `framing(text, before)`, `before` being the example's field of that name.
    framing: Callable[[str, str], str] | None = None
    # The example's field `framing` reads beside the text: what was said `before`, or the `slot` asked for.
    context: str = "before"
    # Decisions whose readings this one's features hold (the item's clause runs on while ask-or-tell reads it
    # as telling): a model of theirs fitted again makes this one's stale too.
    reads_with: tuple[Decision, ...] = ()
    # Example files kept elsewhere that teach the decision too (one JSON object a line with its `text`, its
    # `language` and its label under this name): the intent exemplars the neighbours vote with.
    also: tuple[tuple[Path, str], ...] = ()

    def example_files(self) -> list[Path]:
        return sorted(EXAMPLES.glob(f"{self.name}.*.jsonl")) + [path for path, _ in self.also]

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """The meaning vectors the decision reads its texts by."""
        read = texts = [_context_apart(text)[1] for text in texts]
        if self.meaning_without_negated:
            read = [without_negated(text) for text in read]
        if self.focus:
            read = [self.focus(text) for text in read]
        if self.meaning_of:
            read = [self.meaning_of(text) for text in read]
        found = bundled_query_vectors([_scripts_joined(text) for text in read])
        if self.meaning_also_of:
            found = np.hstack(
                [found, bundled_query_vectors([_scripts_joined(self.meaning_also_of(text)) for text in texts])]
            )
        return found


@dataclass(frozen=True)
class Example:
    text: str
    label: str
    language: str


@dataclass(frozen=True, eq=False)  # one model is one object: readings are cached by it
class Fitted:
    key: str
    labels: tuple[str, ...]
    dense: np.ndarray  # (labels × vector) weights of the meaning vector
    hashed: np.ndarray  # (labels × HASH_DIMENSIONS) weights of the n-grams
    intercept: np.ndarray  # one per label

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.tmp.npz")
        np.savez_compressed(
            tmp,
            key=np.array(self.key),
            labels=np.array(self.labels),
            dense=self.dense.astype(np.float32),
            hashed=self.hashed.astype(np.float32),
            intercept=self.intercept.astype(np.float32),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Fitted:
        with np.load(path, allow_pickle=False) as data:
            return cls(
                key=str(data["key"]),
                labels=tuple(str(label) for label in data["labels"]),
                dense=data["dense"],
                hashed=data["hashed"],
                intercept=data["intercept"],
            )


def _scripts_joined(text: str) -> str:
    """The text without the spaces where Chinese meets Latin letters: the readers of names put them there
    (scripts_apart), customers type them or not, and the examples are written either way."""
    return scripts_joined(text.strip()) or "-"


def in_context(text: str, context: str) -> str:
    """The text as a decision read in a context reads it (the request the customer is answering about): its
    n-grams are counted once as they are and once joined to the context, so that one example file teaches what
    words mean anywhere and, from the examples that name a context, what they mean there ("cancel it" gives up a
    return but confirms a cancellation). The meaning vector reads the text alone."""
    return f"⟦{context}⟧ {text}" if context else text


def _norm(text: str, found: np.ndarray) -> float:
    """What a text's n-gram weights are divided by: the root of how many it has, not counting those joined to a
    context, so that a text read in a context weighs its own words as much as it does alone."""
    return float(np.sqrt(max(len(found) / (2 if _context_apart(text)[0] else 1), 1)))


def _context_apart(text: str) -> tuple[str, str]:
    """(context, text) of a text written by in_context; ("", text) for any other."""
    found = _CONTEXT.match(text)
    return (found.group(1), text[found.end() :]) if found else ("", text)


def _hashed(feature: str) -> int:
    return zlib.crc32(feature.encode()) & (HASH_DIMENSIONS - 1)


def _normalised(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def hashed_features(text: str, decision: Decision | None = None) -> np.ndarray:
    """The hashed n-gram indices of a message (each once), and of the decision's part in focus and the words
    around its marker (each marked apart); in a context (in_context), each also joined to it."""
    context, text = _context_apart(text)
    clean = _normalised(text)
    found = {"^"}
    if decision and decision.focus:
        found.update(
            _focus_features(_normalised(decision.focus(text)), decision.marker.lower(), decision.beside.lower())
        )
    words = _WORD.findall(clean)
    found.update(f"w{word}" for word in words)
    found.update(f"b{first} {second}" for first, second in zip(words, words[1:], strict=False))
    if words:
        found.update((f"s{words[0]}", f"e{words[-1]}"))
    for word in words:
        if len(word) > 3:
            padded = f"<{word}>"
            found.update(f"g{padded[i : i + 4]}" for i in range(len(padded) - 3))
    runs = _CJK_RUN.findall(clean)
    for run in runs:
        for size in (1, 2, 3):
            found.update(f"c{run[i : i + size]}" for i in range(len(run) - size + 1))
    if runs:
        found.update((f"S{runs[0][:2]}", f"E{runs[-1][-2:]}"))
    found.update(_negated(clean))
    if "?" in clean:
        found.add("?")
    if not words and not runs:
        found.add(f"only{clean[:8]}")  # an emoji or a sign alone
    if context:
        found.update([f"{context}|{feature}" for feature in found])
    return np.fromiter(sorted({_hashed(feature) for feature in found}), dtype=np.int64)


def _focus_features(part: str, marker: str, beside: str) -> set[str]:
    words = _WORD.findall(part)
    found = {f"fw{word}" for word in words}
    found.update(f"fb{first} {second}" for first, second in zip(words, words[1:], strict=False))
    for run in _CJK_RUN.findall(part):
        found.update(f"fc{run[i : i + size]}" for size in (1, 2) for i in range(len(run) - size + 1))
    if marker and (at := part.find(marker)) >= 0:
        before, after = part[:at], part[at + len(marker) :]
        if beside:
            before, after = before.rsplit(beside, 1)[-1], after.split(beside, 1)[0]
        found.update(f"p{word}" for word in _WORD.findall(before)[-NEAR_WORDS:])
        found.update(f"a{word}" for word in _WORD.findall(after)[:NEAR_WORDS])
        near_before, near_after = "".join(_CJK_RUN.findall(before[-6:])), "".join(_CJK_RUN.findall(after[:6]))
        found.update(f"pc{near_before[i : i + 2]}" for i in range(len(near_before) - 1))
        found.update(f"ac{near_after[i : i + 2]}" for i in range(len(near_after) - 1))
    return found


def without_negated(text: str) -> str:
    """The text with what it says is not meant cut out: from a negation to its clause's end, and a clause that
    says something stays as it is."""
    kept = []
    for clause in re.split(f"({CLAUSE_END.pattern})", _normalised(text)):
        negation = _NEGATION.search(clause)
        kept.append("" if _KEPT.search(clause) else clause[: negation.start()] if negation else clause)
    return "".join(kept)


def _negated(clean: str) -> set[str]:
    """The words (and Chinese character pairs) said not to be meant or to stay as they are, each marked as
    negated."""
    found: set[str] = set()
    for clause in CLAUSE_END.split(clean):
        if _KEPT.search(clause):
            found.update(f"n{word}" for word in _WORD.findall(clause))
            found.update(f"N{run[i : i + 2]}" for run in _CJK_RUN.findall(clause) for i in range(len(run) - 1))
        for negation in _NEGATION.finditer(clause):
            after = clause[negation.end() :]
            found.update(f"n{word}" for word in _WORD.findall(after)[:NEGATED_WORDS])
            run = next(iter(_CJK_RUN.findall(after[:8])), "")
            found.update(f"N{run[i : i + 2]}" for i in range(min(len(run) - 1, NEGATED_WORDS)))
    return found


def examples(decision: Decision) -> list[Example]:
    rows = []
    label_fields = dict(decision.also)
    for path in decision.example_files():
        language = path.suffixes[-2].lstrip(".") if len(path.suffixes) >= 2 else ""
        field = label_fields.get(path, "label")
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row[field] not in decision.labels:
                    raise ValueError(f"{path.name}: unknown label {row[field]!r} for {row['text']!r}")
                text = decision.framing(row["text"], row.get(decision.context, "")) if decision.framing else row["text"]
                rows.append(Example(text=text, label=row[field], language=row.get("language", language)))
    return rows


def training_key(decision: Decision, taught: Sequence[Example] = ()) -> str:
    """The hash of what a fitted file must come from: the decision's examples (and those staff `taught` it),
    its labels and the settings."""
    digest = hashlib.sha256()
    digest.update(
        repr(
            (decision.labels, decision.meaning_without_negated, HASH_DIMENSIONS, C, DENSE_WEIGHT, FEATURES_VERSION)
            + ((inspect.getsource(decision.focus), decision.marker, decision.beside) if decision.focus else ())
            + ((inspect.getsource(decision.meaning_of),) if decision.meaning_of else ())
            + ((inspect.getsource(decision.meaning_also_of),) if decision.meaning_also_of else ())
            + tuple(training_key(other) for other in decision.reads_with)
            # the framing and whatever it calls: its module
            + (
                (inspect.getsource(inspect.getmodule(decision.framing) or decision.framing),)
                if decision.framing
                else ()
            )
        ).encode()
    )
    for path in decision.example_files():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for row in taught:
        digest.update(json.dumps([row.text, row.label, row.language], ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


def _sparse(texts: Sequence[str], decision: Decision | None = None) -> Any:
    from scipy.sparse import csr_matrix

    indices = [hashed_features(text, decision) for text in texts]
    lengths = np.array([len(found) for found in indices])
    values = np.repeat([1 / _norm(text, found) for text, found in zip(texts, indices, strict=True)], lengths)
    return csr_matrix(
        (values, np.concatenate(indices), np.r_[0, np.cumsum(lengths)]), shape=(len(texts), HASH_DIMENSIONS)
    )


def fit(
    decision: Decision,
    rows: Sequence[Example],
    vectors: np.ndarray,
    *,
    c: float = C,
    dense_weight: float = DENSE_WEIGHT,
) -> Fitted:
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    matrix = hstack([csr_matrix(vectors * dense_weight), _sparse([row.text for row in rows], decision)]).tocsr()
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit(matrix, [decision.labels.index(row.label) for row in rows])
    if len(model.classes_) != len(decision.labels):
        raise ValueError(f"{decision.name}: every label needs examples ({decision.labels})")
    coefficients, intercept = model.coef_, model.intercept_
    if len(decision.labels) == 2:  # one row of weights, for the second label: the first's are zero
        coefficients, intercept = np.vstack([np.zeros_like(coefficients), coefficients]), np.r_[0.0, intercept]
    width = vectors.shape[1]
    return Fitted(
        key=training_key(decision),
        labels=decision.labels,
        dense=coefficients[:, :width] * dense_weight,
        hashed=coefficients[:, width:],
        intercept=intercept,
    )


def probabilities(
    model: Fitted, texts: Sequence[str], vectors: np.ndarray | None = None, decision: Decision | None = None
) -> np.ndarray:
    """Each text's probability of each label (rows: texts, columns: model.labels), read as `decision` reads."""
    if not texts:
        return np.zeros((0, len(model.labels)))
    vectors = bundled_query_vectors([text.strip() for text in texts]) if vectors is None else vectors
    scores = vectors @ model.dense.T + model.intercept
    for row, text in enumerate(texts):
        found = hashed_features(text, decision)
        scores[row] += model.hashed[:, found].sum(axis=1) / _norm(text, found)
    scores -= scores.max(axis=1, keepdims=True)
    exp = np.exp(scores)
    return exp / exp.sum(axis=1, keepdims=True)


def likelihood(decision: Decision, text: str) -> dict[str, float]:
    """Each of the decision's labels with its probability for the text. A turn reads one message several
    times (whether it gives up, whether it answers): it is read once per model."""
    return _likelihood(decision, fitted(decision), text)


def surest(decision: Decision, text: str, *, at: float, nothing: str) -> str | None:
    """The likeliest label for the text when it is not `nothing` and at least `at` likely, else None."""
    read = likelihood(decision, text)
    best = max(read, key=lambda label: read[label])
    return best if best != nothing and read[best] >= at else None


@lru_cache(maxsize=4096)
def _likelihood(decision: Decision, model: Fitted, text: str) -> dict[str, float]:
    row = probabilities(model, [text], decision.vectors([text]), decision)[0]
    return dict(zip(model.labels, map(float, row), strict=True))


def training_vectors(decision: Decision, rows: Sequence[Example]) -> np.ndarray:
    return decision.vectors([row.text for row in rows])


def cross_validated(
    decision: Decision,
    rows: Sequence[Example],
    vectors: np.ndarray,
    *,
    folds: int = 5,
    c: float = C,
    dense_weight: float = DENSE_WEIGHT,
) -> np.ndarray:
    """Each example's probabilities from a model fitted without its fold (folds stratified by label, seeded)."""
    from sklearn.model_selection import StratifiedKFold

    labels = [row.label for row in rows]
    found = np.zeros((len(rows), len(decision.labels)))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(np.zeros(len(rows)), labels):
        model = fit(decision, [rows[i] for i in train], vectors[train], c=c, dense_weight=dense_weight)
        found[test] = probabilities(model, [rows[i].text for i in test], vectors[test], decision)
    return found


_lock = threading.Lock()
_fitted: dict[str, tuple[Fitted, float]] = {}  # each decision's model and when it was last checked
# How often a process looks whether staff taught a decision (agents.reading.staff) since it read its model.
TAUGHT_CHECK_S = 30.0


def fitted(decision: Decision) -> Fitted:
    """The decision's model: the one fitted with what staff taught it when there is one (its key is in the
    cache, its file under VAR_DIR), else the committed file when it comes from the current examples, else one
    fitted from them under VAR_DIR (fitted now, once, when there is none). Read once per process and looked at
    again every TAUGHT_CHECK_S."""
    with _lock:
        held = _fitted.get(decision.name)
        now = time.monotonic()
        if held is not None and now - held[1] < TAUGHT_CHECK_S:
            return held[0]
        model = _current(decision, held[0] if held else None)
        _fitted[decision.name] = (model, now)
        return model


def taught_cache_key(decision: Decision) -> str:
    return f"decisions:{decision.name}:taught"


def _taught_key(decision: Decision) -> str | None:
    """The key of the model fitted with what staff taught the decision, None when they taught it nothing or
    the cache cannot say (the model held is kept then)."""
    from django.core.cache import cache

    try:
        return cache.get(taught_cache_key(decision))
    except Exception as exc:  # the cache's client raises its own errors; not knowing is no reason to fail a read
        logger.warning("cannot tell whether staff taught %s: %s", decision.name, exc)
        return None


def local_path(decision: Decision, key: str) -> Path:
    return Path(settings.VAR_DIR) / "decisions" / f"{decision.name}-{key}.npz"


def stored(decision: Decision, key: str) -> Fitted | None:
    path = FITTED / f"{decision.name}.npz"
    if path.exists() and (model := Fitted.load(path)).key == key:
        return model
    local = local_path(decision, key)
    return Fitted.load(local) if local.exists() else None


def _current(decision: Decision, held: Fitted | None) -> Fitted:
    key = _taught_key(decision) or training_key(decision)
    if held is not None and held.key == key:
        return held
    if (model := stored(decision, key)) is not None:
        return model
    if held is not None:
        return held  # the taught model's file is not written yet: the one held reads until it is
    key = training_key(decision)
    if (model := stored(decision, key)) is not None:
        return model
    logger.warning(
        "agents/reading/fitted/%s.npz does not match its examples; fitting it now "
        "(manage.py train_decisions writes the file to commit)",
        decision.name,
    )
    return fit_and_keep(decision, examples(decision), key)


def fit_and_keep(decision: Decision, rows: Sequence[Example], key: str) -> Fitted:
    """Fit the decision on `rows` and keep it under VAR_DIR by its key, in place of older fits."""
    model = fit(decision, rows, training_vectors(decision, rows))
    model = replace(model, key=key)
    local = local_path(decision, key)
    for old in local.parent.glob(f"{decision.name}-*.npz"):
        old.unlink(missing_ok=True)
    model.save(local)
    return model
