"""The ranking stage's training data: the answer sets' questions with the hybrid search's candidates, searched in
knowledge bases that exist only inside a rolled-back transaction."""

from __future__ import annotations

from django.db import transaction

from knowledge.ranking import READ_FIRST, Question, answer_sets, questions
from knowledge.readers import SUPPORTED_TYPES
from knowledge.selectors import ScoredChunk, chunk_search_hybrid
from knowledge.services import chunk_statistics_refresh, file_ingest, knowledge_version_renew


def ranking_candidates() -> list[tuple[Question, list[ScoredChunk]]]:
    """Every answer set's questions with the hybrid search's candidates, the sets ingested into throw-away
    knowledge bases ("ranking-<set>") inside one transaction that is rolled back; the knowledge version is
    renewed inside it (so the search lists the new documents) and after it (so nothing cached from it is
    read again)."""
    found: list[tuple[Question, list[ScoredChunk]]] = []
    try:
        with transaction.atomic():
            for store in answer_sets():
                for path in sorted((store / "docs").iterdir()):
                    if path.suffix.lower() in SUPPORTED_TYPES:
                        file_ingest(kb_name=f"ranking-{store.name}", path=path)
            chunk_statistics_refresh()
            knowledge_version_renew()
            for store in answer_sets():
                for question in questions(store):
                    candidates, _ = chunk_search_hybrid(query=question.text, k=READ_FIRST, kb=f"ranking-{store.name}")
                    found.append((question, candidates))
            transaction.set_rollback(True)
    finally:
        knowledge_version_renew()
    return found
