"""Knowledge gaps: the questions the knowledge base missed, grouped by meaning, biggest first."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from knowledge.models import MissedQuestion

# e5 query vectors of two phrasings of one question sit above ~0.9; unrelated ones in the 0.7s–0.8s.
SAME_QUESTION_SIMILARITY = 0.9
MAX_QUESTIONS = 2000  # the newest; grouping is quadratic in the number of distinct questions
MAX_EXAMPLES = 5


@dataclass
class KnowledgeGap:
    question: str  # the most asked wording, offered as the FAQ entry's question
    language: str
    count: int
    last_asked: datetime
    missed_ids: list[int] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


def knowledge_gaps(*, limit: int = 50) -> list[KnowledgeGap]:
    """Unanswered missed questions grouped greedily: each joins the first group whose centroid is
    close enough, so paraphrases in one language (or across zh/en) count as one gap."""
    rows = list(
        MissedQuestion.objects.filter(answered_at__isnull=True)
        .order_by("-created_at")
        .values_list("pk", "question", "language", "embedding", "created_at")[:MAX_QUESTIONS]
    )
    if not rows:
        return []
    vectors = np.asarray([row[3] for row in rows], dtype=np.float32)
    sums = np.zeros_like(vectors)
    centroids = np.zeros_like(vectors)  # row g: the unit mean of group g
    members: list[list[int]] = []
    for index, vector in enumerate(vectors):
        groups = len(members)
        similarity = centroids[:groups] @ vector if groups else np.empty(0)
        best = int(np.argmax(similarity)) if groups else -1
        if best < 0 or similarity[best] < SAME_QUESTION_SIMILARITY:
            best = groups
            members.append([])
        members[best].append(index)
        sums[best] += vector
        centroids[best] = sums[best] / np.linalg.norm(sums[best])
    gaps = []
    for group in members:
        wordings = Counter(rows[i][1].strip() for i in group)
        languages = Counter(rows[i][2] for i in group)
        gaps.append(
            KnowledgeGap(
                question=wordings.most_common(1)[0][0],
                language=languages.most_common(1)[0][0],
                count=len(group),
                last_asked=max(rows[i][4] for i in group),
                missed_ids=[rows[i][0] for i in group],
                examples=[wording for wording, _ in wordings.most_common(MAX_EXAMPLES)],
            )
        )
    gaps.sort(key=lambda gap: (-gap.count, -gap.last_asked.timestamp()))
    return gaps[:limit]


def questions_answered_recently(*, limit: int = 20) -> list[MissedQuestion]:
    """The latest answered missed question of each answer (an FAQ entry or article), newest first: the
    knowledge-gaps page offers to turn each into a conversation test."""
    latest = (
        MissedQuestion.objects.filter(answered_by__isnull=False)
        .order_by("answered_by_id", "-answered_at")
        .distinct("answered_by_id")
        .values_list("pk", flat=True)
    )
    return list(
        MissedQuestion.objects.filter(pk__in=latest).select_related("answered_by").order_by("-answered_at")[:limit]
    )
