"""Examples staff teach the learned decisions in the admin (agents.models.DecisionExample), as they teach the
intent classifier its exemplars: a wording a decision reads wrong in their shop is fixed by an example, not a
rule.

An example is checked (a label the decision has, some text, a reason) and saved; then the decision is fitted
again in the worker, on the shipped example files and every active staff example, and written under VAR_DIR by
its key, which goes to the cache (an example saved while the broker is out is fitted with the next one). Each
process looks at that key every TAUGHT_CHECK_S (agents.reading.decisions) and reads the new model from then on;
until it is written, the model before it reads.
"""

from __future__ import annotations

import logging

from django.core.cache import cache
from django.db import transaction

from agents.models import DecisionExample
from agents.queue import decision_refit_queue_on_commit
from agents.reading.catalogue import DECISIONS
from agents.reading.decisions import (
    Decision,
    Example,
    examples,
    fit_and_keep,
    stored,
    taught_cache_key,
    training_key,
)
from conversations.language import detect_language

logger = logging.getLogger(__name__)


class ExampleRefused(ValueError):
    """What is wrong with an example, said to the member of staff who wrote it."""


def decision_named(name: str) -> Decision:
    try:
        return next(decision for decision in DECISIONS if decision.name == name)
    except StopIteration:
        raise ExampleRefused(f"there is no decision {name!r}") from None


def taught_examples(decision: Decision) -> list[Example]:
    """The active examples staff taught the decision, oldest first."""
    rows = DecisionExample.objects.filter(decision=decision.name, active=True).order_by("id")
    return [Example(text=r.text, label=r.label, language=r.language) for r in rows if r.label in decision.labels]


def decision_example_check(example: DecisionExample) -> Decision:
    """The decision the example teaches; ExampleRefused when it cannot teach it. Its text and reason are
    tidied."""
    decision = decision_named(example.decision)
    example.text = " ".join(example.text.split())
    example.why = example.why.strip()
    if not example.text:
        raise ExampleRefused("an example needs its text")
    if example.label not in decision.labels:
        raise ExampleRefused(f"{example.decision} reads {', '.join(decision.labels)}, not {example.label!r}")
    if not example.why:
        raise ExampleRefused("say why the example is there")
    return decision


def decision_example_save(example: DecisionExample) -> DecisionExample:
    """Check and save an example (new or changed), then fit its decision again once the save is committed."""
    decision = decision_example_check(example)
    example.language = example.language or detect_language(example.text)
    with transaction.atomic():
        example.save()
        decision_refit_queue_on_commit(decision.name)
    return example


def decision_refit(name: str) -> str:
    """Fit the decision on its example files and what staff taught it, keep the model under VAR_DIR and tell
    every process its key; returns the key."""
    decision = decision_named(name)
    taught = taught_examples(decision)
    key = training_key(decision, taught)
    if stored(decision, key) is None:
        fit_and_keep(decision, [*examples(decision), *taught], key)
    if taught:
        cache.set(taught_cache_key(decision), key, timeout=None)
    else:
        cache.delete(taught_cache_key(decision))
    logger.info("decision %s fitted with %d taught examples (key %s)", name, len(taught), key)
    return key
