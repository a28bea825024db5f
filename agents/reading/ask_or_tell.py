"""Whether a clause asks the store to act, asks it to act on what was told before, or only tells: a learned
decision, kept with the turn's reading (agents.reading.message) and read where the clauses of a message become
requests (agents.requests) and where a question is told from a request (agents.route).

Read by agents.reading.decisions from `examples/ask_or_tell.<lang>.jsonl`. "I made a mistake on #W1" tells what
happened and "can you change the address?" asks: the request of "I made a mistake on #W1, can you change the
address?" is the one the second clause asks. "Can you fix it?" asks that something be done and names nothing of
its own, so the clause before says what ("the street on the parcel is my old one"). "Could you tell me when it ships?"
and "I'd like to know if I can return it" only ask to know, as a condition does ("if I return it, …"); asking
leave ("can I still exchange the boots?") asks.
"""

from __future__ import annotations

from enum import StrEnum

from agents.reading.decisions import Decision, likelihood
from agents.reading.intent import ids_as_words


class Said(StrEnum):
    ASKS = "asks"  # the store is asked to act, or leave is asked, and the clause says what is to be done
    REFERS_BACK = "refers_back"  # the store is asked to act on what was told before ("can you fix it?")
    TELLS = "tells"  # what happened, an item, a fact, a feeling, or a question only to know


ASK_OR_TELL = Decision("ask_or_tell", tuple(said.value for said in Said), framing=ids_as_words)


def said_of(clause: str) -> Said:
    """The likeliest of the three."""
    if not clause.strip():
        return Said.TELLS
    read = likelihood(ASK_OR_TELL, ids_as_words(clause))
    return Said(max(read, key=lambda label: read[label]))
