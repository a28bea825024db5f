"""The offline harm classifier beside the safety gate's rules: it reads a reply's wording as a whole.

The rules (agents.safety.HARMFUL) catch the shapes they describe and nothing else; a reply that insults,
threatens or offers drugs in other words slips past them. This model is a multinomial logistic regression over
hashed word, word-pair and character n-gram features (Chinese: characters and their pairs and triples), so a
word it has not seen still shares pieces with ones it has ("idiots", "idiotic"; "蠢货", "蠢猪").

- It learns from `agents/harm_examples/` (replies written for it, harmful and harmless, with the hard cases of
  a phone shop: "kill the app", "爆款") and from what the store says anyway: the engine's own phrases in both
  languages (the translation catalogue) and the demo knowledge base, as harmless text.
- It is trained the first time a process needs it (about a second) and kept under VAR_DIR keyed by its
  training data, so the next process loads it.
- A reply is harmful when it is at least HARM_THRESHOLD likely to be harmful of any kind.
"""

from __future__ import annotations

import gettext
import hashlib
import json
import re
import threading
import unicodedata
import zlib
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings

from knowledge.chunking import sentences

CLASSES = ("", "abuse", "self_harm", "violence", "illegal_goods")  # "" is harmless
# Chosen by 5-fold cross-validation on the training examples (whose harmless half is mostly hard cases): there,
# 0.75 kept precision at 0.9 (en) and 1.0 (zh); a blocked good reply costs a person's time or a revision.
HARM_THRESHOLD = 0.75
DIMENSIONS = 1 << 18
ITERATIONS = 150
LEARNING_RATE = 0.5
L2 = 1e-4
_EXAMPLES = Path(__file__).resolve().parent / "harm_examples"
_CATALOGUE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"
_DEMO_KB = Path(settings.BASE_DIR) / "knowledge" / "demo_kb"
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[a-z][a-z0-9'*]*|\d+")
_PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}")
_lock = threading.Lock()


def _hashed(feature: str) -> int:
    return zlib.crc32(feature.encode()) & (DIMENSIONS - 1)


def features(text: str) -> np.ndarray:
    """The hashed feature indices of a text (each once), the bias feature first."""
    text = unicodedata.normalize("NFKC", text).lower()
    found = {"^"}
    for run in _CJK_RUN.findall(text):
        for size in (1, 2, 3):
            found.update(f"c{run[i : i + size]}" for i in range(len(run) - size + 1))
    words = _WORD.findall(text)
    found.update(f"w{word}" for word in words)
    found.update(f"b{first} {second}" for first, second in zip(words, words[1:], strict=False))
    for word in words:
        if len(word) > 3:
            padded = f"<{word}>"
            for size in (4, 5):
                found.update(f"g{padded[i : i + size]}" for i in range(len(padded) - size + 1))
    return np.fromiter(sorted({_hashed(feature) for feature in found}), dtype=np.int64)


def _store_phrases() -> list[str]:
    """Harmless text the store says anyway: the engine's phrases (English and Chinese) and the demo help
    articles, sentence by sentence."""
    phrases = []
    if _CATALOGUE.exists():
        with _CATALOGUE.open("rb") as file:
            catalogue = gettext.GNUTranslations(file)._catalog  # type: ignore[attr-defined]
        for msgid, msgstr in catalogue.items():
            if isinstance(msgid, str) and msgid:
                phrases += [_PLACEHOLDER.sub("x", msgid), _PLACEHOLDER.sub("x", str(msgstr))]
    for path in sorted(_DEMO_KB.glob("*")):
        phrases += sentences(re.sub(r"[#*`>|]", " ", path.read_text(encoding="utf-8")))
    return [phrase for phrase in phrases if len(phrase.strip()) >= 6]


def _training_set() -> tuple[list[str], list[int]]:
    texts, labels = [], []
    for path in sorted(_EXAMPLES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                example = json.loads(line)
                texts.append(example["text"])
                labels.append(CLASSES.index(example["category"] if example["harmful"] else ""))
    for phrase in _store_phrases():
        texts.append(phrase)
        labels.append(0)
    return texts, labels


def _trained(texts: list[str], labels: list[int]) -> np.ndarray:
    """Weights (DIMENSIONS × classes) by full-batch AdaGrad on the softmax loss, classes weighted to count
    alike, every row's features scaled to unit length."""
    rows = [features(text) for text in texts]
    lengths = np.array([len(row) for row in rows])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    indices = np.concatenate(rows)
    scale = np.repeat(1 / np.sqrt(lengths), lengths).astype(np.float32)
    row_of = np.repeat(np.arange(len(rows)), lengths)
    target = np.zeros((len(rows), len(CLASSES)), dtype=np.float32)
    target[np.arange(len(rows)), labels] = 1
    counts = np.bincount(labels, minlength=len(CLASSES)).astype(np.float32)
    row_weight = (len(labels) / (len(CLASSES) * np.maximum(counts, 1)))[labels].astype(np.float32)
    weights = np.zeros((DIMENSIONS, len(CLASSES)), dtype=np.float32)
    squares = np.full_like(weights, 1e-8)
    for _ in range(ITERATIONS):
        scores = np.add.reduceat(weights[indices] * scale[:, None], starts, axis=0)
        scores -= scores.max(axis=1, keepdims=True)
        probabilities = np.exp(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        error = (probabilities - target) * row_weight[:, None] / len(rows)
        gradient = np.stack(
            [np.bincount(indices, weights=scale * error[row_of, c], minlength=DIMENSIONS) for c in range(len(CLASSES))],
            axis=1,
        ).astype(np.float32)
        gradient += L2 * weights
        squares += gradient * gradient
        weights -= LEARNING_RATE * gradient / np.sqrt(squares)
    return weights


@cache
def model_weights() -> np.ndarray:
    """The trained weights, loaded from VAR_DIR when its training data is unchanged, else trained now."""
    texts, labels = _training_set()
    key = hashlib.sha256(json.dumps([texts, labels, ITERATIONS, LEARNING_RATE, L2]).encode()).hexdigest()[:16]
    path = Path(settings.VAR_DIR) / f"harm_model-{key}.npy"
    with _lock:
        if path.exists():
            return np.load(path)
        weights = _trained(texts, labels)
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob("harm_model-*.npy"):
            old.unlink(missing_ok=True)
        tmp = path.with_name(f"{path.stem}.tmp.npy")
        np.save(tmp, weights)
        tmp.replace(path)
        return weights


def harm_probabilities(text: str) -> dict[str, float]:
    """Each class's probability for `text` ("" is harmless)."""
    row = features(text)
    scores = model_weights()[row].sum(axis=0) / np.sqrt(len(row))
    scores = np.exp(scores - scores.max())
    return dict(zip(CLASSES, (scores / scores.sum()).tolist(), strict=True))


def harm_predicted(text: str) -> str | None:
    """The likeliest harmful class of `text` when harm of any kind is at least HARM_THRESHOLD likely, else None
    (a reply can sound like threat and self-harm at once: the kinds share the harmful share between them)."""
    probabilities = harm_probabilities(text)
    if 1 - probabilities[""] < HARM_THRESHOLD:
        return None
    return max(CLASSES[1:], key=probabilities.__getitem__)
