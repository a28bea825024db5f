"""Three-level intent recognition (seed 000), plus entities and emotion for every message.

1. Rule fast path: human requests and bare greetings/thanks/bye, no model call.
2. Intent cache: normalised text → intents, 30 minutes, only results with confidence ≥ 0.7.
3. LLM JSON classification (small or main model by complexity), falling back to the offline
   classifier (exemplar nearest neighbours + priority keyword rules) when the LLM is not
   configured, fails, times out or answers with bad JSON.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache

from agents.intents import emotion, offline, rules
from agents.intents.emotion import EMOTION_SENSITIVE_THRESHOLD, emotion_score, is_offensive
from agents.intents.entities.catalogue import Catalogue
from agents.intents.entities.extract import extract_entities
from agents.intents.exemplars import EXEMPLARS_FILE
from agents.intents.offline.classify import IntentScore, Neighbours, classify_offline
from agents.intents.rules import is_prompt_injection, normalise, rule_fast_path
from agents.llm.client import LLMResult, LLMUnavailable, llm_chat, llm_enabled
from agents.llm.prompts import INTENT_SCHEMA, intent_classification_messages, parse_json_object
from agents.llm.router import tier_for
from agents.pii import mask_pii
from agents.taxonomy import Intent
from conversations.models import IntentLevel

logger = logging.getLogger(__name__)

CACHE_MIN_CONFIDENCE = 0.7
RULE_CONFIDENCE = 0.95


def _classifier_version() -> str:
    """Changes whenever the shipped exemplars, the rules or the emotion words change, so cached intents never
    outlive them."""
    sources = [
        Path(inspect.getfile(emotion)),
        Path(inspect.getfile(rules)),
        *sorted(Path(inspect.getfile(offline)).parent.glob("*.py")),
        EXEMPLARS_FILE,
    ]
    return hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:12]


_CACHE_VERSION = _classifier_version()


@dataclass
class Recognition:
    intents: list[IntentScore]
    entities: dict[str, Any]
    emotion_score: float
    level: str
    cache_hit: bool = False
    flags: list[str] = field(default_factory=list)
    llm_usage: list[LLMResult] = field(default_factory=list)

    @property
    def top(self) -> IntentScore:
        return self.intents[0]

    def as_json(self) -> list[dict[str, Any]]:
        return [{"name": s.intent.value, "confidence": round(s.confidence, 3), "text": s.text} for s in self.intents]


def _cache_key(text: str) -> str:
    return f"intent:{_CACHE_VERSION}:{hashlib.sha256(normalise(text).encode()).hexdigest()}"


def intent_cache_get(text: str) -> list[IntentScore] | None:
    raw = cache.get(_cache_key(text))
    if not raw:
        return None
    try:
        return [IntentScore(intent=Intent(i["name"]), confidence=float(i["confidence"]), text=i["text"]) for i in raw]
    except (KeyError, TypeError, ValueError):
        return None


def intent_cache_put(text: str, intents: list[IntentScore]) -> bool:
    """Store only confident results: a cached guess would be repeated for 30 minutes."""
    if not intents or intents[0].confidence < CACHE_MIN_CONFIDENCE:
        return False
    payload = [{"name": s.intent.value, "confidence": s.confidence, "text": s.text} for s in intents]
    cache.set(_cache_key(text), payload, timeout=settings.INTENT_CACHE_TTL_S)
    return True


def _llm_classify(text: str, context: str = "") -> tuple[list[IntentScore], LLMResult]:
    """Raises LLMUnavailable or ValueError (bad JSON, unknown intent): the caller falls back."""
    result = llm_chat(
        intent_classification_messages(mask_pii(text), mask_pii(context)),
        tier=tier_for(text),
        schema=("intents", INTENT_SCHEMA),
    )
    data = parse_json_object(result.text)
    entries = data.get("intents")
    if not isinstance(entries, list) or not entries:
        raise ValueError("no intents in the answer")
    scores: list[IntentScore] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ValueError("an intent entry is not an object")
        intent = Intent(entry["intent"])  # ValueError for a name we don't know
        confidence = float(entry.get("confidence", 0.0))
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence {confidence} outside 0..1")
        part = str(entry.get("text") or "")
        # The part must be the customer's own words: anything else (a paraphrase, an invention) is
        # replaced by the whole message, so routing never reads words the customer did not write.
        part = part if part.strip() and part.strip() in text else text
        if intent not in {s.intent for s in scores}:
            scores.append(IntentScore(intent=intent, confidence=confidence, text=part.strip()))
    return scores, result


def _with_emotion(intents: list[IntentScore], text: str, score: float) -> list[IntentScore]:
    """Offensive or very negative messages are emotion_sensitive whatever else they ask (seed 000).

    Except a complaint that is negative without being offensive: being unhappy is what a complaint
    is, and the complaint specialist answers it with an apology and a high-priority ticket, which a
    person picks up anyway. Escalating it instead would lose the ticket.
    """
    offensive = is_offensive(text)
    if any(s.intent == Intent.COMPLAINT for s in intents) and not offensive:
        return [s for s in intents if s.intent != Intent.EMOTION_SENSITIVE]
    if any(s.intent == Intent.EMOTION_SENSITIVE for s in intents):
        return intents
    if offensive or score < EMOTION_SENSITIVE_THRESHOLD:
        return [IntentScore(intent=Intent.EMOTION_SENSITIVE, confidence=0.9, text=text), *intents]
    return intents


def recognize(
    text: str, *, catalogue: Catalogue | None = None, neighbours: Neighbours | None = None, context: str = ""
) -> Recognition:
    """Intents (best first), entities, emotion and the level that decided, for one message.

    `context` (the customer's orders, the help-centre passages that match) goes to the LLM only."""
    entities = extract_entities(text, catalogue or Catalogue())
    score = emotion_score(text)
    flags = ["prompt_injection"] if is_prompt_injection(text) else []

    ruled = rule_fast_path(text)
    if ruled is not None:
        ruled_intents = [IntentScore(intent=ruled, confidence=RULE_CONFIDENCE, text=text)]
        if ruled != Intent.HUMAN_REQUEST:
            ruled_intents = _with_emotion(ruled_intents, text, score)
        return Recognition(ruled_intents, entities, score, IntentLevel.RULE, flags=flags)

    cached = intent_cache_get(text)
    if cached is not None:
        return Recognition(cached, entities, score, IntentLevel.CACHE, cache_hit=True, flags=flags)

    usage: list[LLMResult] = []
    intents: list[IntentScore] | None = None
    level = IntentLevel.CLASSIFIER
    if llm_enabled():
        try:
            intents, result = _llm_classify(text, context)
            usage.append(result)
            level = IntentLevel.LLM
        except (LLMUnavailable, ValueError, KeyError, TypeError) as exc:
            logger.info("LLM intent classification fell back to the offline classifier: %s", exc)
            intents = None
    if intents is None:
        from agents.intents.exemplar_index import neighbours as exemplar_neighbours

        intents = classify_offline(text, neighbours or exemplar_neighbours)
    intents = _with_emotion(intents, text, score)
    intent_cache_put(text, intents)
    return Recognition(intents, entities, score, level, flags=flags, llm_usage=usage)
