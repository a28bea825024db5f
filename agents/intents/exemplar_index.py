"""The offline classifier's memory: labelled exemplars with embeddings, searched in pgvector.

Shipped exemplars are synced into the table (embeddings cached under var/ so a re-sync embeds only
new text); staff add their own in the admin. Every search reads the table, so an exemplar counts
from the moment it is saved, with no restart.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from pgvector.django import CosineDistance

from agents.intents.exemplars import exemplars_load
from agents.models import ExemplarSource, IntentExemplar
from agents.taxonomy import Intent
from knowledge.embeddings import embedder_get, query_vectors

NEIGHBOURS_K = 10
_sync_lock = threading.Lock()


def _cache_path() -> Path:
    return Path(settings.VAR_DIR) / "exemplar_embeddings.npz"


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def _embed_cached(texts: list[str]) -> np.ndarray:
    """Query-side embeddings (exemplars are messages, like what they are compared with)."""
    path = _cache_path()
    cached: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as archive:
            cached = {key: archive[key] for key in archive.files}
    missing = [t for t in dict.fromkeys(texts) if _key(t) not in cached]
    if missing:
        vectors = embedder_get().queries(missing)
        cached.update({_key(t): v for t, v in zip(missing, vectors, strict=True)})
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, allow_pickle=False, **cached)
        tmp.replace(path)
    return np.stack([cached[_key(t)] for t in texts])


def shipped_exemplars() -> list[tuple[str, str, str]]:
    return [
        (exemplar.intent.value, exemplar.language, exemplar.text.strip()[:500])
        for exemplar in exemplars_load()
        if exemplar.text.strip()
    ]


def exemplars_sync() -> int:
    """Make the shipped exemplars in the table match the shipped file; return how many were added."""
    shipped = shipped_exemplars()
    wanted = set(shipped)
    with _sync_lock, transaction.atomic():
        existing = set(
            IntentExemplar.objects.filter(source=ExemplarSource.SHIPPED).values_list("intent", "language", "text")
        )
        stale = existing - wanted
        if stale:
            for intent, language, text in stale:
                IntentExemplar.objects.filter(
                    source=ExemplarSource.SHIPPED, intent=intent, language=language, text=text
                ).delete()
        new = [row for row in shipped if row not in existing]
        new = list(dict.fromkeys(new))
        if new:
            vectors = _embed_cached([text for _, _, text in new])
            IntentExemplar.objects.bulk_create(
                [
                    IntentExemplar(
                        intent=intent, language=language, text=text, embedding=vector, source=ExemplarSource.SHIPPED
                    )
                    for (intent, language, text), vector in zip(new, vectors, strict=True)
                ],
                ignore_conflicts=True,
            )
    return len(new)


def exemplars_ensure() -> None:
    """Sync if the table has no shipped exemplars (a fresh or emptied database)."""
    if not IntentExemplar.objects.filter(source=ExemplarSource.SHIPPED).exists():
        exemplars_sync()


def exemplar_add(*, intent: Intent | str, language: str, text: str) -> IntentExemplar:
    """A staff exemplar, embedded now; it takes part in the very next classification."""
    text = text.strip()
    vector = embedder_get().queries([text])[0]
    exemplar, _ = IntentExemplar.objects.update_or_create(
        intent=intent,
        language=language,
        text=text,
        defaults={"embedding": vector, "source": ExemplarSource.STAFF, "active": True},
    )
    return exemplar


def exemplar_change(
    exemplar_id: int, *, intent: Intent | str, language: str, text: str, active: bool
) -> IntentExemplar:
    """A staff edit: a new wording is a new exemplar (embedded now) in place of the old one."""
    exemplar = IntentExemplar.objects.get(pk=exemplar_id)
    if text.strip() != exemplar.text:
        exemplar.delete()
        exemplar = exemplar_add(intent=intent, language=language, text=text)
    IntentExemplar.objects.filter(pk=exemplar.pk).update(active=active, intent=intent, language=language)
    exemplar.refresh_from_db()
    return exemplar


def neighbours(texts: list[str], *, k: int = NEIGHBOURS_K) -> list[list[tuple[str, float]]]:
    """For each text, its k nearest active exemplars as (intent, cosine similarity), best first."""
    if not texts:
        return []
    exemplars_ensure()
    vectors = query_vectors(texts)
    results = []
    for vector in vectors:
        rows = (
            IntentExemplar.objects.filter(active=True)
            .annotate(distance=CosineDistance("embedding", vector))
            .order_by("distance")
            .values_list("intent", "distance")[:k]
        )
        results.append([(intent, 1.0 - float(distance)) for intent, distance in rows])
    return results
