"""What a run of conversation tests exercised, and what it never touched (after Rasa's end-to-end coverage): the
intents the engine read, the workflows it opened, the tools it called and the help articles it cited."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agents.taxonomy import Intent
from agents.tools import TOOLS
from conversation_tests.runner import TurnSeen
from conversations.models import WorkflowKind
from knowledge.models import Audience, Document, DocumentStatus

KINDS = ("intents", "workflows", "tools", "articles")


def coverage_of(turns: Iterable[TurnSeen]) -> dict[str, dict[str, list[str]]]:
    """{kind: {"exercised": [...], "untouched": [...]}} for each of KINDS, names sorted."""
    seen: dict[str, set[Any]] = {kind: set() for kind in KINDS}
    for turn in turns:
        seen["intents"].update(turn.intents)
        seen["workflows"].update(turn.workflows)
        seen["tools"].update(call["tool"] for call in turn.tools)
        seen["articles"].update(turn.articles)
    articles = (
        Document.objects.filter(status=DocumentStatus.READY, knowledge_base__audience=Audience.PUBLIC)
        .order_by("title", "language")
        .values_list("pk", "title", "language")
    )
    every: dict[str, dict[Any, str]] = {
        "intents": {intent.value: intent.value for intent in Intent},
        "workflows": {kind.value: kind.value for kind in WorkflowKind},
        "tools": {name: name for name in TOOLS},
        "articles": {pk: f"{title} ({language})" for pk, title, language in articles},  # a zh and an en faq
    }
    return {
        kind: {
            "exercised": sorted(name for key, name in every[kind].items() if key in seen[kind]),
            "untouched": sorted(name for key, name in every[kind].items() if key not in seen[kind]),
        }
        for kind in KINDS
    }
