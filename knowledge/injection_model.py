"""The classifier behind knowledge.injection: is a sentence of a help article addressed to whoever answers
customers (the assistant, staff), asking shoppers for secrets or to send money or data elsewhere, or ordering
a giveaway? Language lives in the examples, not in rules (STYLE B6b).

- It learns from `knowledge/injection_examples/*.jsonl` (sentences written for it in en and zh, each with its
  neighbouring sentences where they matter, a label, a kind and a `why`), from whole articles with their planted
  sentences marked (`knowledge/injection_documents/*.jsonl`, read as an ingest reads them), and from the demo
  knowledge base read as ordinary text.
- It reads a sentence through the bundled e5's passage and query vectors of the sentence, the mean of its neighbours'
  passage vectors (whatever embeddings server the search uses: it was fitted on e5's), hashed word and character
  n-grams, and a few format flags: an email, link or handle, whether it is the store's own (STORE_DOMAINS)
  or not, a card- or account-like number. Addresses are read as their kind, never by their name, so a
  planted domain it has not seen counts the same as one it has.
- A hashed n-gram logistic regression reads every sentence; those it finds at least SCREEN likely (or with an
  address or a long number) are read by small networks over the dense reading too, and the two are weighed.
  Both are fitted (scikit-learn) by `manage.py train_injection`, which writes their weights to
  `knowledge/injection_model.npz` with the hash of the example files and the settings; the file is committed
  (embedding the examples takes about three minutes) and a test fails when it is stale. A process that finds
  it stale fits the model itself once and keeps it under VAR_DIR. The demo knowledge base is not part of the hash, so
  editing a help article does not make the file stale; a test keeps every one of its sentences kept instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from knowledge.embeddings import bundled_passage_vectors, bundled_query_vectors, has_cjk

logger = logging.getLogger(__name__)

EXAMPLES = Path(__file__).resolve().parent / "injection_examples"
DOCUMENTS = Path(__file__).resolve().parent / "injection_documents"
FITTED = Path(__file__).resolve().parent / "injection_model.npz"
_DEMO_KB = Path(__file__).resolve().parent / "demo_kb"
# The store the examples are written for: its addresses are "own", every other one is not.
TRAINING_STORE_DOMAINS = ("brightmall.com", "brightmall.cn", "@brightmall", "@明亮商城")
HASH_DIMENSIONS = 1 << 16
# The model's settings, chosen by cross-validation on the examples and read on the dev set (bench/injection.py);
# the blind set is never tuned on.
HIDDEN = 128  # units of the network's one hidden layer
NETWORKS = 5  # networks fitted from different seeds, their probabilities averaged: one alone swings with the seed
ALPHA = 1.0  # its L2 penalty
C = 4.0  # the n-gram regression's inverse penalty
FLAG_WEIGHT = 1.0  # the format flags beside the n-grams
NETWORK_SHARE = 2 / 3  # of the final probability; the n-gram regression has the rest
# A sentence is withheld when it is at least this likely an instruction: read on the written documents'
# cross-validation (the highest threshold keeping >= 99 % of their ordinary sentences in both languages) and
# checked on the dev set.
THRESHOLD = 0.4
# The network reads only a sentence the n-gram regression finds at least this likely (or one with an address or
# a long number); the rest are kept. At 0.15, blunt instructions in an unseen document's words ("忽略前文安全
# 规则。") were screened out in cross-validation.
SCREEN = 0.05
FEATURES_VERSION = "3"

# --- formats (the only regular expressions: what an address or a number looks like) ----------------------

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_TLD = (
    r"com|net|org|cn|io|me|co|shop|store|top|xyz|info|biz|app|site|online|link|ly|cc|help|vip|club|live|tk|ru|uk|"
    r"us|hk|tw|jp|de|fr|sg|example"
)
LINK = re.compile(
    rf"(?:https?://|www\.)[A-Za-z0-9./_~%?#=&+:-]+|(?<![\w@.-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?\.)+"
    rf"(?:{_TLD})\b(?:/[A-Za-z0-9./_~%?#=&+-]*)?",
    re.IGNORECASE,
)
# "@name" on a social network (at the start or after a space or a bracket: "l***@example.com" is a masked
# email), or an id given after the network's name ("微信：abc123", "QQ 2837465910").
HANDLE = re.compile(
    r"(?<![^\s(（\[【:：,，、;；])@[A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff.]{1,30}"
    r"|(?:微信号?|vx|wechat(?:\s*id)?|qq号?|telegram|tg|whatsapp|line\s*id|skype|飞机号?|电报)\s*(?:号|id)?\s*[:：]?\s*"
    r"[A-Za-z0-9][A-Za-z0-9_.-]{4,}",
    re.IGNORECASE,
)
LONG_NUMBER = re.compile(r"(?<![\d])(?:\d[ -]?){11,18}\d(?!\d)")  # a card or bank account, not a phone
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[a-z][a-z0-9'_]*|\d+")


@dataclass(frozen=True)
class Address:
    kind: str  # email, link, handle
    value: str
    own: bool | None  # None: the store's domains are not known


def _host(kind: str, value: str) -> str:
    if kind == "email":
        return value.rsplit("@", 1)[-1].lower()
    if kind == "link":
        return re.sub(r"^(?:https?://)?(?:www\.)?", "", value.lower()).split("/", 1)[0].split(":", 1)[0]
    return value.lower()


def _registrable(host: str) -> str:
    """The part of a host name a company registers: shop.example.com → example.com, a.b.co.uk → b.co.uk."""
    labels = host.strip(".").split(".")
    size = 3 if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in {"co", "com", "net", "org", "ac"} else 2
    return ".".join(labels[-size:])


def _is_own(kind: str, value: str, domains: Sequence[str]) -> bool:
    if kind == "handle":
        name = re.sub(r"^.*?[:：]\s*|^@", "", value.strip()).lower()
        if not LINK.fullmatch(name):
            return any(d.startswith("@") and d[1:].lower() == name for d in domains)
        kind, value = "link", name  # "addresses ending in @shop.example" names a domain
    host = _host(kind, value)
    return any(
        not d.startswith("@") and (host == d or host.endswith("." + d) or _registrable(host) == _registrable(d))
        for d in (d.lower() for d in domains)
    )


def addresses(text: str, domains: Sequence[str]) -> list[Address]:
    """The emails, links and handles in `text`, each marked own or not (None when `domains` is empty)."""
    found: list[Address] = []
    rest = text
    for kind, pattern in (("email", EMAIL), ("link", LINK), ("handle", HANDLE)):
        for match in pattern.finditer(rest):
            value = match.group().rstrip(".,;:!?)")
            found.append(Address(kind, value, _is_own(kind, value, domains) if domains else None))
        rest = pattern.sub(" ", rest)  # an email's domain is no link of its own
    return found


def _neutral(text: str, domains: Sequence[str], *, marked: bool) -> str:
    """`text` with each address replaced by its kind (marked: and whether it is the store's own), and long
    numbers by one token: the model learns what an address is used for, never which one it was."""

    def replace(kind: str) -> Any:
        def token(match: re.Match[str]) -> str:
            if not marked:
                return {"email": "name@email", "link": "website.link", "handle": "@handle"}[kind]
            own = _is_own(kind, match.group(), domains) if domains else None
            return f" z{kind}{'unknown' if own is None else 'own' if own else 'other'} "

        return token

    for kind, pattern in (("email", EMAIL), ("link", LINK), ("handle", HANDLE)):
        text = pattern.sub(replace(kind), text)
    return LONG_NUMBER.sub(" zlongnumber " if marked else "0000 0000 0000 0000", text)


def embedding_text(text: str) -> str:
    """What the sentence's vector is taken of."""
    return _neutral(text, (), marked=False)


def _hashed(feature: str) -> int:
    return zlib.crc32(feature.encode()) & (HASH_DIMENSIONS - 1)


def hashed_features(text: str, domains: Sequence[str]) -> np.ndarray:
    """The hashed n-gram indices of a sentence (each once): words, word pairs, the first word or two (an
    imperative's place), character 4-grams of longer words, and Chinese characters in ones, twos and threes."""
    text = _neutral(unicodedata.normalize("NFKC", text), domains, marked=True).lower()
    found: set[str] = set()
    words = _WORD.findall(_CJK_RUN.sub(" ", text))
    found.update(f"w{word}" for word in words)
    found.update(f"b{a} {b}" for a, b in zip(words, words[1:], strict=False))
    start = text.lstrip(" \"'“‘(（[【-*•0123456789.、)")
    first = _WORD.match(start)
    if first:
        found.add(f"^{first.group()}")
        following = _WORD.findall(start[: first.end() + 30])
        found.add(f"^^{' '.join(following[:2])}")
    for word in words:
        if len(word) > 3:
            padded = f"<{word}>"
            found.update(f"g{padded[i : i + 4]}" for i in range(len(padded) - 3))
    for run in _CJK_RUN.findall(text):
        for size in (1, 2, 3):
            found.update(f"c{run[i : i + size]}" for i in range(len(run) - size + 1))
    cjk_start = _CJK_RUN.match(start)
    if cjk_start:
        found.add(f"^c{cjk_start.group()[:2]}")
    return np.fromiter(sorted({_hashed(feature) for feature in found}), dtype=np.int64)


FLAGS = ("email", "link", "handle", "own address", "other address", "long number", "context", "chinese")
_ADDRESS_FLAGS = 6  # the first six: an address or a long number


def format_flags(text: str, domains: Sequence[str], *, context: bool) -> np.ndarray:
    found = addresses(text, domains)
    kinds = {address.kind for address in found}
    return np.array(
        [
            "email" in kinds,
            "link" in kinds,
            "handle" in kinds,
            any(address.own for address in found),
            any(address.own is False for address in found),
            bool(LONG_NUMBER.search(text)),
            context,
            has_cjk(text),
        ],
        dtype=np.float32,
    )


# --- the model ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """What the model reads: a sentence and its neighbours in the text ("" at either end)."""

    text: str
    before: str = ""
    after: str = ""


# The dense reading of a sentence: its passage and query vectors (a request reads differently from a fact as a
# query: without them fewer planted sentences were withheld on the dev set, at the same share kept), the mean
# passage vector of its neighbours, and the format flags.
DENSE = 3 * 384 + len(FLAGS)
_FLAGS_AT = 1152


@dataclass(frozen=True)
class Fitted:
    key: str
    threshold: float
    mean: np.ndarray  # of the dense reading, for standardising; a missing context reads as the mean
    scale: np.ndarray
    hidden: np.ndarray  # each network's (DENSE × HIDDEN) weights, its biases, its output weights and bias
    hidden_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    hashed: np.ndarray  # the n-gram regression's weights, its flags' weights and its intercept
    flags: np.ndarray
    intercept: float

    _ARRAYS = ("mean", "scale", "hidden", "hidden_bias", "out", "out_bias", "hashed", "flags")

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.tmp.npz")
        arrays: dict[str, Any] = {name: getattr(self, name) for name in self._ARRAYS}
        arrays |= {"threshold": self.threshold, "intercept": self.intercept}
        np.savez_compressed(tmp, key=np.array(self.key), **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Fitted:
        with np.load(path, allow_pickle=False) as data:
            return cls(
                key=str(data["key"]),
                threshold=float(data["threshold"]),
                intercept=float(data["intercept"]),
                **{name: data[name] for name in cls._ARRAYS},
            )


def dense_rows(sentences: Sequence[Sentence], domains: Sequence[str]) -> np.ndarray:
    """The dense reading of each sentence (NaN where it has no neighbours), its texts embedded in two calls."""
    texts = list(dict.fromkeys(embedding_text(t) for s in sentences for t in (s.text, s.before, s.after) if t))
    passages = dict(zip(texts, bundled_passage_vectors(texts), strict=True))
    own = list(dict.fromkeys(embedding_text(s.text) for s in sentences))
    queries = dict(zip(own, bundled_query_vectors(own), strict=True))
    rows = np.full((len(sentences), DENSE), np.nan, dtype=np.float32)
    for row, sentence in enumerate(sentences):
        text = embedding_text(sentence.text)
        rows[row, :384] = passages[text]
        rows[row, 384:768] = queries[text]
        around = [passages[embedding_text(t)] for t in (sentence.before, sentence.after) if t]
        if around:
            rows[row, 768:1152] = np.mean(around, axis=0)
        rows[row, _FLAGS_AT:] = format_flags(sentence.text, domains, context=bool(sentence.before or sentence.after))
    return rows


def _standardised(dense: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.nan_to_num((dense - mean) / scale, nan=0.0)


def _sigmoid(scores: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(scores, -50, 50)))


def _networks(model: Fitted, dense: np.ndarray) -> np.ndarray:
    """The networks' mean probability for each dense row."""
    x = _standardised(dense, model.mean, model.scale)
    hidden = np.maximum(np.einsum("nd,sdh->snh", x, model.hidden) + model.hidden_bias[:, None, :], 0)
    return np.asarray(_sigmoid(np.einsum("snh,sh->sn", hidden, model.out) + model.out_bias[:, None]).mean(axis=0))


def _hashed_scores(model: Fitted, sentences: Sequence[Sentence], domains: Sequence[str], flags: np.ndarray) -> Any:
    scores = FLAG_WEIGHT * flags @ model.flags + model.intercept
    for row, sentence in enumerate(sentences):
        indices = hashed_features(sentence.text, domains)
        scores[row] += model.hashed[indices].sum() / np.sqrt(max(len(indices), 1))
    return scores


def _screened(words: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Which sentences the network reads: those the n-gram regression finds at least SCREEN likely, and every
    one with an address or a long number."""
    return np.asarray((words >= SCREEN) | flags[:, :_ADDRESS_FLAGS].any(axis=1))


# A table row as the readers write it (knowledge.tables): "Column: cell, Column: cell." / "列：格，列：格。"
_CELL = re.compile(r"^[^:：,，。.]{1,30}[:：]\s*\S")
_CELL_BREAK = re.compile(r"[，,]\s*(?=[^:：,，。.]{1,30}[:：])")


def row_cells(text: str) -> list[str]:
    """The cells of a sentence that is a table row (at least two labelled cells) whose value is as long as a
    sentence, else none: a cell planted in a row is read alone, not diluted by the row's ordinary cells, while a
    short value ("说明：全额退款", "Refund: full") is a label that reads like an order only out of its row."""
    cells = [cell.strip().rstrip("。.") for cell in _CELL_BREAK.split(text)]
    if len(cells) < 2 or not all(_CELL.match(cell) for cell in cells):
        return []
    return [cell for cell in cells if _sentence_long(re.split(r"[:：]", cell, maxsplit=1)[1])]


def _sentence_long(text: str) -> bool:
    """At least four words, two Chinese characters counting as one."""
    return len(_CJK_RUN.sub(" ", text).split()) + sum(map(len, _CJK_RUN.findall(text))) / 2 >= 4


def probabilities(sentences: Sequence[Sentence], domains: Sequence[str], model: Fitted | None = None) -> np.ndarray:
    """How likely each sentence is an instruction (0–1): the most likely of the sentence and, for a table row,
    each of its cells (read in the row's place)."""
    pairs = [(row, cell) for row, s in enumerate(sentences) for cell in row_cells(s.text)]
    rows = [row for row, _ in pairs]
    cells = [Sentence(cell, sentences[row].before, sentences[row].after) for row, cell in pairs]
    found = _read([*sentences, *cells], domains, model)  # one batch: the embeddings are taken in one call
    read = found[: len(sentences)]
    np.maximum.at(read, np.array(rows, dtype=int), found[len(sentences) :])
    return read


def _read(sentences: Sequence[Sentence], domains: Sequence[str], model: Fitted | None = None) -> np.ndarray:
    """The network's reading of each sentence's meaning and the n-gram regression's of its words, weighed
    NETWORK_SHARE to the rest. A sentence the n-gram regression screens out is 0 without its embeddings being
    taken (two e5 calls a sentence are most of an ingest's time otherwise)."""
    found = np.zeros(len(sentences))
    if not sentences:
        return found
    model = model or fitted()
    flags = np.stack([format_flags(s.text, domains, context=bool(s.before or s.after)) for s in sentences])
    words = _sigmoid(_hashed_scores(model, sentences, domains, flags))
    read = _screened(words, flags)
    if read.any():
        dense = dense_rows([s for s, r in zip(sentences, read, strict=True) if r], domains)
        found[read] = NETWORK_SHARE * _networks(model, dense) + (1 - NETWORK_SHARE) * words[read]
    return found


# --- training ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    sentence: Sentence
    withhold: bool
    domains: tuple[str, ...]  # the store's, as the example is read
    group: int  # copies of one example share a group (cross-validation keeps them together)
    language: str
    kind: str
    source: str  # the example file, or "demo_kb"


def _rows(directory: Path) -> list[dict[str, Any]]:
    """The JSON lines of a directory's files, in file order, each with its file's name as "file"."""
    rows = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append({**json.loads(line), "file": path.name})
    return rows


def examples() -> list[dict[str, Any]]:
    """The written examples (`knowledge/injection_examples/*.jsonl`)."""
    return _rows(EXAMPLES)


def training_key() -> str:
    """The hash of what the fitted file must come from: the example files and the model's settings."""
    digest = hashlib.sha256()
    model_settings = [
        FEATURES_VERSION,
        HASH_DIMENSIONS,
        FLAG_WEIGHT,
        C,
        HIDDEN,
        NETWORKS,
        ALPHA,
        NETWORK_SHARE,
        THRESHOLD,
        SCREEN,
    ]
    digest.update(json.dumps([model_settings, TRAINING_STORE_DOMAINS]).encode())
    for path in [*sorted(EXAMPLES.glob("*.jsonl")), *sorted(DOCUMENTS.glob("*.jsonl"))]:
        digest.update(path.parent.name.encode() + b"/" + path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def in_context(texts: Sequence[str]) -> list[Sentence]:
    """The sentences of consecutive passages (a document's chunks), each with the sentences before and after
    it in the document; a chunk's overlap with the one before is read once."""
    from knowledge.chunking import sentences

    flat: list[str] = []
    for text in texts:
        for sentence in sentences(text):
            if not flat or flat[-1] != sentence:
                flat.append(sentence)
    return [
        Sentence(text, flat[i - 1] if i else "", flat[i + 1] if i + 1 < len(flat) else "")
        for i, text in enumerate(flat)
    ]


HEADING_SEPARATOR = " › "  # between the parts of a chunk's heading path (knowledge.chunking)


def document_sentences(chunks: Sequence[Any], title: str) -> tuple[list[Sentence], list[Sentence]]:
    """A document as the check reads it: its headings and title, each with the first sentence under it (the
    title with the document's first), and its sentences with their neighbours across chunks."""
    from knowledge.chunking import sentences

    batch = in_context([chunk.text for chunk in chunks])
    parts = list(dict.fromkeys(p for c in chunks for p in c.heading.split(HEADING_SEPARATOR) if p.strip()))
    parts += [title] if title.strip() and title not in parts else []
    under: dict[str, str] = {}
    for chunk in chunks:
        for part in chunk.heading.split(HEADING_SEPARATOR):
            under.setdefault(part, next(iter(sentences(chunk.text)), ""))
    labels = [Sentence(part, after=under.get(part) or next((s.text for s in batch), "")) for part in parts]
    return labels, batch


def demo_sentences() -> list[Sentence]:
    """Every sentence of the demo knowledge base with its neighbours, as an ingest reads it."""
    from knowledge.readers import document_read

    found: list[Sentence] = []
    for path in sorted(_DEMO_KB.glob("*")):
        document = document_read(path.name, path.read_bytes(), max_bytes=1 << 24)
        found += in_context([chunk.text for chunk in document.chunks])
    return found


def plain_text(text: str) -> str:
    """Text compared without Markdown's marks and with its spaces collapsed, so a sentence is found in a passage
    however the reader laid it out."""
    return re.sub(r"\s+", " ", re.sub(r"[*_`|>#]+|<!--|-->", " ", text)).strip()


def documents() -> list[dict[str, Any]]:
    """The written documents (`knowledge/injection_documents/*.jsonl`)."""
    return _rows(DOCUMENTS)


def labelled_document(document: dict[str, Any]) -> list[tuple[Sentence, bool]]:
    """Every sentence of a written document as an ingest reads it (knowledge.readers), each with whether it is
    planted: it holds a piece of a planted sentence (the ingest may split one planted sentence in two, and
    reads a table row whole)."""
    from knowledge.chunking import sentences
    from knowledge.readers import document_read

    read = document_read(f"{document['id']}.md", document["text"].encode(), max_bytes=1 << 24)
    labels, batch = document_sentences(read.chunks, read.title)
    pieces = [piece for planted in document["planted"] for piece in map(plain_text, sentences(planted)) if piece]
    return [(sentence, any(piece in plain_text(sentence.text) for piece in pieces)) for sentence in [*labels, *batch]]


def training_set() -> list[Example]:
    """The examples read with the store's domains known; those with an address read again without them (an
    address marked `outside` is then no reason to withhold: whose it is cannot be told); the written documents'
    sentences in their context, with their store's domains; and the demo knowledge base as ordinary text."""
    rows: list[Example] = []
    for group, row in enumerate(examples()):
        sentence = Sentence(row["text"], row.get("before", ""), row.get("after", ""))
        withhold = row["label"] == "withhold"
        language = "zh" if has_cjk(row["text"]) else "en"
        rows.append(Example(sentence, withhold, TRAINING_STORE_DOMAINS, group, language, row["kind"], row["file"]))
        if addresses(row["text"], ()):
            unknown = withhold and not row.get("outside", False)
            rows.append(Example(sentence, unknown, (), group, language, row["kind"], row["file"]))
    group = len(rows)
    for document in documents():
        domains = tuple(document.get("domains", TRAINING_STORE_DOMAINS))
        group += 1  # a document's sentences are one group: cross-validation never splits a document
        for sentence, planted in labelled_document(document):
            language = "zh" if has_cjk(sentence.text) else "en"
            rows.append(Example(sentence, planted, domains, group, language, "document", document["file"]))
    start = group + 1
    for offset, sentence in enumerate(demo_sentences()):
        language = "zh" if has_cjk(sentence.text) else "en"
        rows.append(Example(sentence, False, (), start + offset, language, "ordinary", "demo_kb"))
    return rows


def training_rows(rows: Sequence[Example]) -> np.ndarray:
    """The dense reading of every training row (the flags as each row's domains make them)."""
    dense = dense_rows([row.sentence for row in rows], ())
    for index, row in enumerate(rows):
        if row.domains:
            dense[index, _FLAGS_AT:] = format_flags(
                row.sentence.text, row.domains, context=bool(row.sentence.before or row.sentence.after)
            )
    return dense


def fit(rows: Sequence[Example], dense: np.ndarray) -> Fitted:
    """The network (a scikit-learn Pipeline: standardise, then one hidden layer) and the n-gram regression,
    both fitted on the rows."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    labels = np.array([row.withhold for row in rows])
    mean = np.nanmean(dense, axis=0)
    filled = np.where(np.isnan(dense), mean, dense)  # a missing context is the average one
    networks = [
        Pipeline(
            [
                ("standardise", StandardScaler()),
                ("network", MLPClassifier((HIDDEN,), alpha=ALPHA, max_iter=1000, random_state=seed)),
            ]
        ).fit(filled, labels)
        for seed in range(NETWORKS)
    ]
    scaler: Any = networks[0].named_steps["standardise"]  # the same for every seed
    mlps: list[Any] = [network.named_steps["network"] for network in networks]
    hashed = [hashed_features(row.sentence.text, row.domains) for row in rows]
    lengths = np.array([len(h) for h in hashed])
    grams = sparse.csr_matrix(
        (np.repeat(1 / np.sqrt(np.maximum(lengths, 1)), lengths), np.concatenate(hashed), np.r_[0, np.cumsum(lengths)]),
        shape=(len(rows), HASH_DIMENSIONS),
    )
    regression = LogisticRegression(C=C, class_weight="balanced", max_iter=5000).fit(
        sparse.hstack([grams, sparse.csr_matrix(FLAG_WEIGHT * dense[:, _FLAGS_AT:])], format="csr"), labels
    )
    weights = regression.coef_[0].astype(np.float32)
    return Fitted(
        key=training_key(),
        threshold=THRESHOLD,
        mean=scaler.mean_.astype(np.float32),
        scale=scaler.scale_.astype(np.float32),
        hidden=np.stack([mlp.coefs_[0] for mlp in mlps]).astype(np.float32),
        hidden_bias=np.stack([mlp.intercepts_[0] for mlp in mlps]).astype(np.float32),
        out=np.stack([mlp.coefs_[1][:, 0] for mlp in mlps]).astype(np.float32),
        out_bias=np.array([mlp.intercepts_[1][0] for mlp in mlps], dtype=np.float32),
        hashed=weights[:HASH_DIMENSIONS],
        flags=weights[HASH_DIMENSIONS:],
        intercept=float(regression.intercept_[0]),
    )


def training_probabilities(model: Fitted, rows: Sequence[Example], dense: np.ndarray) -> np.ndarray:
    """The model's probabilities for training rows whose dense reading is in hand (no embedding call)."""
    network = _networks(model, dense)
    words = _sigmoid(
        np.array(
            [
                _hashed_scores(model, [row.sentence], row.domains, dense[index : index + 1, _FLAGS_AT:])[0]
                for index, row in enumerate(rows)
            ]
        )
    )
    found = NETWORK_SHARE * network + (1 - NETWORK_SHARE) * words
    return np.where(_screened(words, dense[:, _FLAGS_AT:]), found, 0.0)


def cross_validated(rows: Sequence[Example], dense: np.ndarray, *, folds: int = 5) -> np.ndarray:
    """Each row's probability from a model fitted without its group (stratified, seeded)."""
    from sklearn.model_selection import StratifiedGroupKFold

    labels = np.array([row.withhold for row in rows])
    groups = np.array([row.group for row in rows])
    found = np.zeros(len(rows))
    for train, test in StratifiedGroupKFold(folds, shuffle=True, random_state=0).split(dense, labels, groups):
        model = fit([rows[i] for i in train], dense[train])
        found[test] = training_probabilities(model, [rows[i] for i in test], dense[test])
    return found


_lock = threading.Lock()


@cache
def fitted() -> Fitted:
    """The fitted model: the committed file when it comes from the current examples, else one fitted from them
    under VAR_DIR (fitted now, once, when there is none: a minute or so)."""
    key = training_key()
    if FITTED.exists():
        model = Fitted.load(FITTED)
        if model.key == key:
            return model
    path = Path(settings.VAR_DIR) / f"injection_model-{key}.npz"
    with _lock:
        if path.exists():
            return Fitted.load(path)
        logger.warning(
            "knowledge/injection_model.npz does not match knowledge/injection_examples/; fitting the injection "
            "classifier now (manage.py train_injection writes the file to commit)"
        )
        rows = training_set()
        model = fit(rows, training_rows(rows))
        for old in path.parent.glob("injection_model-*.npz"):
            old.unlink(missing_ok=True)
        model.save(path)
        return model
