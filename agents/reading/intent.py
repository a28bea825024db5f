"""What a clause asks for, of the intents the engine serves, a learned decision: a return, a question about the
returns policy, the state of the customer's refund, a product's price, a fault, small talk…

Read by agents.reading.decisions from `examples/intent.<lang>.jsonl` (contrasts between intents that share their
words, each with its why: "what is your refund policy" asks how the store works, "I want a refund" asks it to
act, "has my refund come through" asks about the customer's own refund) and from the intent exemplars the
neighbours vote with (agents/intents/data/exemplars.jsonl). It takes the place of keyword rules: a wording it
misses is taught by an example, and the offline classifier (agents.intents.offline.classify) weighs its reading
against the neighbours' vote.
"""

from __future__ import annotations

from pathlib import Path

from agents.reading.decisions import Decision, likelihood
from agents.taxonomy import Intent

# The exemplars the neighbours vote with (agents.intents.exemplars reads them), named by path: the offline
# classifier reads this decision, so this module imports nothing of agents.intents.
EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "intents" / "data" / "exemplars.jsonl"
INTENT = Decision("intent", tuple(intent.value for intent in Intent), also=((EXEMPLARS_FILE, "intent"),))


def intent_likelihood(text: str) -> list[tuple[Intent, float]]:
    """Every intent with its probability for the clause, likeliest first."""
    read = likelihood(INTENT, text)
    return sorted(((Intent(label), p) for label, p in read.items()), key=lambda pair: -pair[1])
