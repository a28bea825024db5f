"""What the knowledge base knows about one part of a customer's message (pure data: the engine's
recognition finds it, its route and its knowledge specialist read it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class KnowledgeHit:
    """What the knowledge base knows about one part of a message (from recognition)."""

    text: str
    matched: bool  # the retrieval's miss decision, negated
    similarity: float = 0.0
    document: str = ""
    chunk_id: int | None = None
    passage: str = ""  # the start of the best passage, for the LLM's context

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnowledgeHit:
        return cls(
            text=str(data.get("text", "")),
            matched=bool(data.get("matched")),
            similarity=float(data.get("similarity") or 0.0),
            document=str(data.get("document") or ""),
            chunk_id=data.get("chunk_id"),
            passage=str(data.get("passage") or ""),
        )
