"""A learned check of whether the hybrid search's candidates answer a question at all (abstention): its
features, its training data and its fitting. Measured by `manage.py train_ranking`; not yet used by the chat.

The hybrid search (knowledge.selectors) fuses a cosine with keyword evidence by hand-set weights and decides a
miss by the best cosine alone, so a passage that shares a question's topic but not its point ("gift receipts"
for "do you gift wrap?") is quoted. Here a logistic regression reads the candidates' signals — cosines, BM25,
the share of the question's words a passage and its article hold, how rare the rarest word its article lacks
is, its rank in each arm, whether it holds the kind of answer the question asks for (a price for "how much", a
duration for "how long") — for the best candidate, the best three and the ten, and gives the probability that
the knowledge base answers. It learns from help centres and shoppers' questions the project writes
(`knowledge/answer_sets/`, zh + en, a sixth of the questions answered by no article).

Measured with each store held out in turn, at THRESHOLD it keeps 91 % of the answerable questions and misses
73 % (en) and 63 % (zh) of the unanswerable ones. Wired into the chat it lifted honest misses on the help-centre
benchmark's development set from 0 to 23 % (en) and 14 to 19 % (zh) but lost 3–5 points of right facts, and it
misses short questions whose one generic word the article never says ("国补有什么规则？"), so the chat keeps the
search's own decision until the model beats it there. The order of the candidates stays the search's: a
regression over the same signals per candidate chose the passage holding the answer no more often (77 % en,
70 % zh first, stores held out, as the search).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from knowledge.embeddings import has_cjk


class Candidate(Protocol):
    """What the stage reads of a search result (knowledge.selectors.ScoredChunk)."""

    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def similarity(self) -> float: ...
    @property
    def signals(self) -> dict[str, float]: ...


ANSWER_SETS = Path(__file__).resolve().parent / "answer_sets"
CANDIDATES = 10  # of the hybrid search, read by the stage
SEARCH_DEPTH = 30  # the candidates kept for training (any CANDIDATES up to it can be fitted without a new search)
SIGNALS_VERSION = "1"
C = 1.0  # the regression's inverse penalty
# The probability below which the knowledge base does not know, read on the answer sets with each store held out.
THRESHOLD = 0.3
# What kind of answer a question wants, and what a passage holding one looks like: "how much" is answered by
# a price, "how long" by a duration, "how many" by a count. (question words, the answer's format)
ANSWER_KINDS = {
    "<amount>": (
        # a discount is asked for as an amount too: "do you do student discounts?" wants "¥300 off"
        re.compile(
            r"\bhow much\b|\bcosts?\b|\bprices?\b|\bfees?\b|\bcharges?\b|\bdiscounts?\b|\bcheaper\b|\bsav(?:e|ings?)\b|"
            r"多少钱|价格|价钱|费用|收费|几块|优惠|折扣|便宜|省多少",
            re.I,
        ),
        re.compile(r"[¥$€£]\s?\d|\d\s?(?:元|块|yuan|rmb|usd|dollars?)\b|\d元|\d+\s?%|\d折|\bfree\b|免费", re.I),
    ),
    "<duration>": (
        re.compile(r"\bhow long\b|\bhow soon\b|\bwhen\b|\buntil\b|多久|多长时间|几天|什么时候|何时|期限|有效期", re.I),
        re.compile(
            r"\d+\s?(?:business\s|working\s)?(?:minutes?|hours?|days?|weeks?|months?|years?)\b|"
            r"\d+\s?(?:分钟|小时|个?工作日|天|日|周|个月|月|年)|\d{1,2}\s?月\s?\d{1,2}\s?日",
            re.I,
        ),
    ),
    "<count>": (
        re.compile(r"\bhow many\b|\bup to\b|\bmaximum\b|\blimit\b|几个|几台|几次|几件|多少[个台次件]|最多|上限", re.I),
        re.compile(r"\b\d+\b|\d+\s?(?:个|台|次|件|张)", re.I),
    ),
}
# The search's signals (knowledge.selectors), then what this stage adds.
SIGNALS = (
    "similarity",
    "bm25",
    "article_words",
    "passage_words",
    "article_lacks",
    "phrase",
    "keyword_rank",
    "vector_rank",
)
FEATURES = (
    *SIGNALS,
    "below_best_similarity",
    "below_best_score",
    "position",
    "kind_held",
    "kind_missing",
    "other_language",
)


def kinds_asked(question: str) -> set[str]:
    return {kind for kind, (asked, _) in ANSWER_KINDS.items() if asked.search(question)}


def kinds_held(text: str) -> set[str]:
    return {kind for kind, (_, held) in ANSWER_KINDS.items() if held.search(text)}


def features(question: str, candidates: Sequence[Candidate]) -> np.ndarray:
    """One row per candidate (in the search's order)."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    wanted = kinds_asked(question)
    chinese = has_cjk(question)
    best_similarity = max(c.similarity for c in candidates)
    best_score = max(c.score for c in candidates)
    rows = []
    for position, candidate in enumerate(candidates):
        held = kinds_held(f"{candidate.heading} {candidate.text}") & wanted
        rows.append(
            [
                *(candidate.signals.get(name, 0.0) for name in SIGNALS),
                best_similarity - candidate.similarity,
                best_score - candidate.score,
                1 / (position + 1),
                float(bool(held)),
                float(bool(wanted) and not held),
                float(has_cjk(f"{candidate.heading} {candidate.text}") != chinese),
            ]
        )
    return np.array(rows, dtype=float)


def question_features(question: str, candidates: Sequence[Candidate]) -> np.ndarray:
    """One row for the question: the best candidate's features, the largest of the best three's and the mean of
    all, and whether the question is Chinese (its cosines sit higher)."""
    rows = features(question, candidates[:CANDIDATES])
    if not len(rows):
        return np.zeros(3 * len(FEATURES) + 1)
    return np.r_[rows[0], rows[:3].max(axis=0), rows.mean(axis=0), float(has_cjk(question))]


@dataclass(frozen=True)
class Ranking:
    key: str
    threshold: float  # the best candidate's probability below which the knowledge base does not know
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float

    def answerable(self, question: str, candidates: Sequence[Candidate]) -> float:
        """The probability that the candidates (in the search's order) answer the question."""
        return float(self.probabilities_of(question_features(question, candidates)[None, :])[0]) if candidates else 0.0

    def probabilities_of(self, rows: np.ndarray) -> np.ndarray:
        scores = ((rows - self.mean) / self.scale) @ self.weights + self.intercept
        return np.asarray(1 / (1 + np.exp(-scores)))

    def save(self, path: Path) -> None:
        fields = {
            "key": self.key,
            "threshold": self.threshold,
            "features": [f"{part}:{name}" for part in ("best", "top3", "mean") for name in FEATURES] + ["chinese"],
            "mean": [float(v) for v in self.mean],
            "scale": [float(v) for v in self.scale],
            "weights": [float(v) for v in self.weights],
            "intercept": self.intercept,
        }
        path.write_text(json.dumps(fields, indent=1) + "\n", encoding="utf-8")


# --- the answer sets and fitting ----------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    store: str  # its answer set's directory
    id: str
    lang: str
    document: str | None  # the article that answers it (a file name under docs/), None when none does
    text: str
    facts: tuple[str, ...]


def answer_sets() -> list[Path]:
    return sorted(p for p in ANSWER_SETS.iterdir() if (p / "questions.json").exists())


def questions(store: Path) -> list[Question]:
    return [
        Question(store.name, q["id"], q["lang"], q["document"], q["question"], tuple(q["facts"]))
        for q in json.loads((store / "questions.json").read_text(encoding="utf-8"))
    ]


def sets_key() -> str:
    """The hash of the answer sets and of the search's signals: what the candidates come from."""
    digest = hashlib.sha256(SIGNALS_VERSION.encode())
    for path in sorted(ANSWER_SETS.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(ANSWER_SETS).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def training_key() -> str:
    """What the fitted file must come from: the candidates, and the model's settings."""
    settings = json.dumps([sets_key(), CANDIDATES, C, THRESHOLD, FEATURES])
    return hashlib.sha256(settings.encode()).hexdigest()[:16]


def fit(rows: np.ndarray, answerable: np.ndarray) -> Ranking:
    """The regression over question rows; `answerable`: whether an article answers each question."""
    from sklearn.linear_model import LogisticRegression

    mean = rows.mean(axis=0)
    scale = np.where(rows.std(axis=0) > 0, rows.std(axis=0), 1.0)
    regression = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit((rows - mean) / scale, answerable)
    return Ranking(training_key(), THRESHOLD, mean, scale, regression.coef_[0], float(regression.intercept_[0]))


def training_rows(found: Sequence[tuple[Question, Sequence[Candidate]]]) -> tuple[np.ndarray, np.ndarray]:
    """One row per question, and whether an article answers it."""
    rows = np.array([question_features(question.text, candidates) for question, candidates in found])
    return rows, np.array([question.document is not None for question, _ in found])
