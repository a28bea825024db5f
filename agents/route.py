"""The route node's plan: which specialist answers each part of a message, weighing the classified
intents against what the knowledge base knows (pure: no ORM, no I/O).

The weighing, per part (clause) of the message, is documented in docs/routing.md:
1. an explicit human request (rule, or classified with confidence ≥ HUMAN_MIN) escalates;
   a low-confidence one never does by itself;
2. a request that acts on the customer's own data (a workflow asked for, an order id, "my order")
   keeps its intent: the knowledge base cannot cancel an order;
3. otherwise a knowledge match answers from the knowledge base: a question about returns, a public
   question with an order-ish intent ("how long does shipping take?"), a product question that names
   no product of the catalogue, an unclear or out-of-scope message;
4. what is left keeps its classified intent; clarify only when nothing matched at all.
A part the classifier dropped (an off-topic clause beside a request) is answered when the knowledge
base knows it, so every part of a multi-part message gets an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agents.intents.offline.classify import CONFIDENT, ORDER_REQUEST_MIN
from agents.intents.offline.clauses import asks_as_a_question, is_question
from agents.intents.offline.orders import names_an_order
from agents.reading.asks import Asks, asks_likelihood, asks_read
from agents.reading.message import Reading, TextReading
from agents.taxonomy import KNOWLEDGE_INTENTS, QUERY_INTENTS, WORKFLOW_INTENTS, Intent
from knowledge.chunking import query_words
from knowledge.hits import KnowledgeHit

HUMAN_MIN = 0.7  # a classified (not rule-matched) human request escalates only at this confidence
CLARIFY_BELOW = 0.5
PRIVATE_QUERIES = frozenset({Intent.ORDER_QUERY, Intent.LOGISTICS_QUERY})
CATALOGUE_QUERIES = QUERY_INTENTS - PRIVATE_QUERIES
# Never re-routed: small talk, feelings and complaints are answered by their own specialists.
_KEPT = frozenset({Intent.CHITCHAT, Intent.EMOTION_SENSITIVE, Intent.COMPLAINT})

_OWN_ENTITIES = ("order_ids", "tracking_numbers", "imei")
_BOUGHT = re.compile(
    r"\b(?:i|we)\s+(?:have\s+|had\s+|just\s+|already\s+)?(?:bought|purchased|ordered|paid for)\b|"
    r"我(?:已经|刚|之前)?(?:买了|买的|购买了|下单了)",
    re.I,
)


@dataclass(frozen=True)
class PlannedPart:
    intent: Intent
    text: str
    confidence: float
    via: str  # "intent" or "knowledge": why this specialist was chosen

    def as_json(self) -> dict[str, Any]:
        return {"name": self.intent.value, "text": self.text, "confidence": self.confidence, "via": self.via}


def uses_own_data(text: str, entities: dict[str, Any], reading: Reading | None = None) -> bool:
    """The message names the customer's order, parcel or device by id, or asks what became of their own or
    for something to be done to it (agents.reading.asks): "my screen broke, does the accident plan cost me
    anything?" says "my" and still asks how the store works."""
    asks = (reading or Reading(text)).of(text).asks
    return any(entities.get(key) for key in _OWN_ENTITIES) or asks in (Asks.OWN_STATE, Asks.REQUEST)


def asks_own_order_state(text: str, entities: dict[str, Any]) -> bool:
    """An order or delivery question that needs the customer's data: it names their order, parcel or
    device by id, or asks what became of their own or that the store act on it ("where is my parcel?",
    "我的快递到哪了", agents.reading.asks). A question about how collection, delivery or holding works is
    answered by the help centre even when it says "my order" ("how long will the shop keep my order?"): here,
    of a question already read as about orders or delivery, the likelier of the two readings stands."""
    if any(entities.get(key) for key in _OWN_ENTITIES):
        return True
    read = asks_likelihood(text)
    return read[Asks.OWN_STATE] + read[Asks.REQUEST] > read[Asks.POLICY]


def _own_state_asked(text: str, message: str, entities: dict[str, Any]) -> bool:
    """The part asks for the customer's own records, and so does the message it is a clause of: "my husband will
    pick up the parcel for me" tells of one's own parcel, and the message's "is that ok?" asks how the store works."""
    return asks_own_order_state(text, entities) and (text not in message or asks_own_order_state(message, entities))


# A condition is no request: "if I want to return it, how long do I have?", "换新的话几天能寄到".
_CONDITION = re.compile(
    r"\b(?:if|in case|suppose|supposing)\s+(?:i|we)\b[^,;?.!]*|"
    r"(?:如果|要是|假如|万一)[^，,；。？?！]*|[^，,；。？?！]*的话",
    re.IGNORECASE,
)


def is_public_question(text: str, entities: dict[str, Any], reading: Reading | None = None) -> bool:
    """A question about how the store works, asked without the customer's own data or a request. What a
    condition says is supposed, not told: "if I return it, do I get back the duties I paid?" asks for
    no order and states none."""
    reading = reading or Reading(text)
    return (
        is_question(text)
        and not uses_own_data(text, entities, reading)
        and not _asks_beside(_CONDITION.sub(" ", text), reading)
    )


_PARTS = re.compile(r"(?<=[,.;!?，。；！？])\s*")


def _asks_beside(text: str, reading: Reading) -> bool:
    """A part of the message that is no question asks the store to act ("I want to return it, how long do I
    have?"). Whether a question asks the store ("can you cancel my order?") or how it works ("can I return a
    used item?") is the asks reading's."""
    parts = [part for part in _PARTS.split(text) if part.strip()]
    return any(reading.of(part).asks_the_store and not is_question(part) for part in parts)


def _knowledge_takes(
    intent: Intent,
    confidence: float,
    text: str,
    entities: dict[str, Any],
    reading: Reading,
    hit: KnowledgeHit | None = None,
    message: str = "",
    alone: bool = True,
) -> bool:
    """Would a knowledge match answer this part better than its classified intent?"""
    if intent in WORKFLOW_INTENTS and confidence >= ORDER_REQUEST_MIN and alone and names_an_order(text):
        # "Charge order W1 to my Visa ending 1234 instead": an unsure guess at the one request of a
        # message, about an order the customer names, goes to the workflow, which asks for what it needs
        # and writes nothing without a yes. Beside other clauses ("Can #W1 still be altered? I'd like
        # the Skateboard …") an unsure guess is more often the wrong kind.
        return False
    if confidence < CLARIFY_BELOW:  # an unsure guess, even of a complaint, yields to what the KB knows
        return True
    if intent in _KEPT:
        return False
    if intent in KNOWLEDGE_INTENTS or intent in (Intent.OUT_OF_SCOPE, Intent.HUMAN_REQUEST):
        return True
    if intent in WORKFLOW_INTENTS:
        # The clause of a one-clause message has lost its question mark ("screen repair cost for the x9?");
        # the rest of the message can tell whose order it is ("I picked the wrong colour when I ordered. Can it
        # still be changed?").
        asked = message if alone and not is_question(text) else text
        if is_public_question(asked, entities, reading) and not uses_own_data(message, entities, reading):
            return True
        return _told_before_a_question(text, message, entities, reading)
    if intent in PRIVATE_QUERIES:
        return not _own_state_asked(text, message, entities)
    if intent in CATALOGUE_QUERIES:
        # A product named asks the catalogue, unless the customer already bought it ("I bought a Pad 3
        # and now it's cheaper, do I get the difference refunded?" asks how the store works) or the
        # question is about something the catalogue does not hold and the passage is about.
        return not entities.get("products") or bool(_BOUGHT.search(text)) or beyond_catalogue(text, hit, entities)
    return False


# What the catalogue itself answers about a product: its price, stock, options and specs. These
# words in a question are no sign that the help centre is meant.
_CATALOGUE_WORDS = frozenset(
    word
    for said in (
        "how much price prices cost costs expensive cheap cheaper pricing stock available availability sell sold "
        "buy order spec specs specification colour color colours colors size storage version model models "
        "difference compare better new get there have "
        # the catalogue's price answer states the national subsidy and the price after it
        "subsidy subsidies government national after "
        "多少钱 价格 价钱 售价 多少 钱 贵 便宜 库存 有货 现货 卖 买 颜色 配置 参数 规格 版本 型号 区别 对比 新 款 "
        "国补 国补后 国家补贴 补贴 补贴后 到手 到手价"
    ).split()
    for word in (said, *query_words(said))
)


def beyond_catalogue(text: str, hit: KnowledgeHit | None, entities: dict[str, Any]) -> bool:
    """A product question about something the catalogue does not know and the knowledge passage is
    about: "what does a renewed Find X9 in grade B cost?" (the renewed-devices price list), "Find X9 分24期
    每月还多少" (the instalment terms). The catalogue would quote the new device's price; the question's
    own words beside the product's name, its options and price or stock words are what it asks about,
    and the passage that names one of them answers it."""
    if hit is None or not hit.matched:
        return False
    known = set(_CATALOGUE_WORDS)
    for name in [*entities.get("products", []), *(entities.get("options") or {}).values()]:
        known.update(query_words(str(name)))
    asked = set(query_words(text)) - known
    return bool(asked & set(query_words(hit.passage)))


# Asking for information (a time, an amount, a reason, the way to do something), not whether the
# store will do something: "can I exchange the keyboard for the clicky one?" is a request put as a
# question, "换新的话几天能寄到" is not.
_INFORMATION = re.compile(
    r"\bhow\s+(?:long|much|many|soon|fast|often|do|does)\b|\bwhen\b|\bwhat\b|\bwhich\b|\bwhy\b|"
    r"多久|多长时间|多少|几天|几个|什么时候|何时|为什么|为啥|怎么|如何",
    re.IGNORECASE,
)


def _told_before_a_question(text: str, message: str, entities: dict[str, Any], reading: Reading) -> bool:
    """What happened, told before a question about how the store works ("I dropped my phone and the screen
    cracked, does the warranty cover that?"): it asks nothing of its own, it is the question's context."""
    return reading.of(text).asks == Asks.OTHER and is_public_question(message, entities, reading)


def _unknown_but_public(
    intent: Intent, confidence: float, text: str, message: str, entities: dict[str, Any], reading: Reading
) -> bool:
    """A question about how the store works that the help centre does not know the answer to is still
    the help centre's: it says it does not know, and never asks who the customer is, which product is meant,
    or which of the bot's tasks was meant ("Do you offer gift wrapping?" is no return). What the part or the
    whole message asks is read by agents.reading.asks. A workflow's question, unless the guess at it is unsure,
    must ask for information, since "can I exchange…?" is how requests are put too. An order or delivery
    question ("my husband will pick up the parcel for me, is that ok?") may have lost the question's ending
    in its clause, so the whole message is read too."""
    if intent in WORKFLOW_INTENTS and confidence >= CLARIFY_BELOW:
        if text != message and _told_before_a_question(text, message, entities, reading):
            return True
        # the bot can act on it: unknown to the help centre, a request put as a question ("包裹能改寄到我妈家吗")
        # goes to its workflow, unless it asks for information ("换新一般几天能寄出")
        return is_public_question(text, entities, reading) and bool(_INFORMATION.search(_CONDITION.sub(" ", text)))
    if intent in _KEPT or any(entities.get(key) for key in _OWN_ENTITIES):
        return False
    if reading.of(text).asks == Asks.POLICY or (text in message and reading.of(message).asks == Asks.POLICY):
        return True
    if intent not in PRIVATE_QUERIES or _own_state_asked(text, message, entities):
        return False
    return is_public_question(text, entities, reading) or (
        text in message and is_public_question(message, entities, reading)
    )


def route_plan(
    *,
    intents: list[dict[str, Any]],
    knowledge: list[KnowledgeHit],
    entities: dict[str, Any],
    rule_human: bool = False,
    reading: Reading | None = None,
) -> list[PlannedPart]:
    """The parts to answer, in message order; empty when nothing matched (clarify).

    `intents` are the recognised ones ({"name", "confidence", "text"}), `knowledge` one hit per
    searched part (the whole message and each clause).
    """
    whole = knowledge[0] if knowledge else None  # the whole message is searched first
    message = whole.text if whole else ""
    said = _Said(
        message=message,
        entities=entities,
        reading=reading or Reading(message),
        hits={hit.text: hit for hit in knowledge},
        alone=len(intents) == 1,
        several=len(intents) > 1,
        rule_human=rule_human,
    )
    parts = [part for entry in intents if (part := _part_planned(entry, said)) is not None]
    covered = {entry.get("text") or "" for entry in intents}
    for hit in knowledge:  # parts the classifier set aside (off-topic beside a request) that the KB knows
        if hit.matched and hit.text not in covered and not _inside_planned(hit.text, parts):
            parts.append(PlannedPart(Intent.FAQ, hit.text, round(hit.similarity, 4), "knowledge"))
    if whole is not None and whole.matched:
        _whole_answered(parts, whole, knowledge[1:], said)
    parts = _whole_question(parts, whole, said.hits)
    if not parts and entities.get("order_ids") and len(intents) <= 1:
        # A bare order id ("W7425646") asks what became of that order.
        parts.append(PlannedPart(Intent.ORDER_QUERY, intents[0].get("text", "") if intents else "", 0.5, "intent"))
    return _dedupe(_beside_requests(_sure_requests(parts, said.reading), said.reading))


@dataclass(frozen=True)
class _Said:
    """What the route plan knows of the message its parts come from."""

    message: str
    entities: dict[str, Any]
    reading: Reading
    hits: dict[str, KnowledgeHit]  # what the knowledge base knows of the message and of each part, by text
    alone: bool  # one part only
    several: bool
    rule_human: bool  # a human asked for by the rules, not guessed by the classifier


def _part_planned(entry: dict[str, Any], said: _Said) -> PlannedPart | None:
    """Who answers one classified part: the knowledge base, the intent's specialist, or nobody."""
    intent = Intent(entry["name"])
    text = entry.get("text") or ""
    confidence = float(entry.get("confidence", 0.0))
    if said.several and _WHAT_TO_DO.search(text) and not query_words(_WHAT_TO_DO.sub(" ", text)):
        return None  # "what should I do?" after what happened asks about it, not for a product or a complaint
    if intent == Intent.HUMAN_REQUEST and (said.rule_human or confidence >= HUMAN_MIN):
        return PlannedPart(intent, text, confidence, "intent")
    hit = said.hits.get(text)
    if hit is not None and _knowledge_answers(intent, confidence, text, hit, said):
        return PlannedPart(_knowledge_intent(intent), text, round(hit.similarity, 4), "knowledge")
    if intent not in (Intent.OUT_OF_SCOPE, Intent.HUMAN_REQUEST) and confidence >= CLARIFY_BELOW:
        return PlannedPart(intent, text, confidence, "intent")
    if (
        intent in WORKFLOW_INTENTS
        and confidence >= ORDER_REQUEST_MIN
        and _order_named(text, said.entities, said.reading, alone=said.alone)
    ):
        return PlannedPart(intent, text, confidence, "intent")
    return None


def _knowledge_answers(intent: Intent, confidence: float, text: str, hit: KnowledgeHit, said: _Said) -> bool:
    message, entities, reading = said.message, said.entities, said.reading
    if not (hit.matched or _unknown_but_public(intent, confidence, text, message, entities, reading)):
        return False
    return _knowledge_takes(intent, confidence, text, entities, reading, hit, message or text, alone=said.alone)


def _whole_answered(parts: list[PlannedPart], whole: KnowledgeHit, clauses: list[KnowledgeHit], said: _Said) -> None:
    """The knowledge base's answer to the whole message, where it answers what the parts do not."""
    answer = PlannedPart(Intent.FAQ, said.message, round(whole.similarity, 4), "knowledge")
    if _asks_about_the_rest(parts, clauses, said.message):
        parts.append(answer)
    elif _asks_beside_a_request(parts, said.message, said.entities, said.reading):
        # answered first: the request's own question to the customer ("confirm it's you") ends the reply
        parts.insert(next(i for i, p in enumerate(parts) if p.intent in _ACTED_ON), answer)


def _asks_about_the_rest(parts: list[PlannedPart], clauses: list[KnowledgeHit], message: str) -> bool:
    """The message asks what to do about what it tells, or a question the classifier set aside asks about
    it: "…hasn't moved on tracking for over a week. what now?", "the green one is sold out, how do I get
    pinged when you get more". Alone such a question finds no passage; the whole message, answered from the
    knowledge base beside the parts planned for the rest (the order lookup, the stock answer), does. Not
    beside a request, whose own question it is ("…, how soon can you do that?"), nor when the set-aside
    question asks what became of an order."""
    if not parts or any(p.via == "knowledge" or p.intent in WORKFLOW_INTENTS for p in parts):
        return False
    if _WHAT_TO_DO.search(message):
        return True
    return any(
        not hit.matched
        and not _inside_planned(hit.text, parts)
        and _INFORMATION.search(hit.text)
        and asks_read(hit.text) != Asks.OWN_STATE
        for hit in clauses
    )


# What the store acts on (a workflow starts, a complaint is filed) rather than answers.
_ACTED_ON = WORKFLOW_INTENTS | {Intent.COMPLAINT}


def _asks_beside_a_request(parts: list[PlannedPart], message: str, entities: dict[str, Any], reading: Reading) -> bool:
    """A message that starts a request or a complaint and also asks how things work, about no order it
    names: "the first part of my order came a week ago and the earbuds still haven't shipped. Can I just
    cancel them?", "I want to return the phone but keep the free power bank, is that ok?", "the courier
    turned up a day late. Is there any compensation?". The help centre's answer (partial cancellation,
    gifts on return, late-delivery compensation) goes beside the request, which still asks what it
    needs: the customer learns the rule before the identity check, and a request the rule forbids is
    seen for what it is. An order named by id is being acted on: its request needs no explanation. A
    request and nothing more ("can you cancel my order?") is left alone; one that asks whether it can be
    done at all ("发票抬头开错了能重开吗", agents.reading.asks) or tells a question or situation beside it
    is not."""
    if any(p.via == "knowledge" and _asks_something(p.text, reading) for p in parts):
        return False  # a clause of its own asks the help centre (what only tells is dropped beside a request)
    if not any(p.intent in _ACTED_ON and p.via == "intent" for p in parts):
        return False
    if names_an_order(message) or any(entities.get(key) for key in _OWN_ENTITIES):
        return False
    if _WHAT_TO_DO.search(message) or reading.of(message).policy_too:
        return True
    return bool(is_question(message)) and not any(
        p.text.strip(" ?？.。!！") == message.strip(" ?？.。!！") for p in parts
    )


# Asking what to do or what happens next: the help centre's procedure is the answer, whatever the order.
_WHAT_TO_DO = re.compile(
    r"\bwhat\s+(?:now|next|happens\s+(?:now|next)|are\s+my\s+options)\b|\bwhat\s+(?:should|shall|do|can|must)\s+(?:i|we)\s+do\b|"
    r"\bhow\s+(?:do|can|should)\s+(?:i|we)\s+(?:report|claim|get|sort|fix|deal|handle|proceed)\b|"
    r"\bwho\s+(?:do|should)\s+(?:i|we)\s+(?:contact|call|ask)\b|怎么办|咋办|该怎么|怎么处理|如何处理|怎么弄|找谁",
    re.IGNORECASE,
)


def _sure_requests(parts: list[PlannedPart], reading: Reading) -> list[PlannedPart]:
    """Beside a request the classifier is sure of, an unsure guess at another request is the story
    around it when its clause tells rather than asks ("#W1 hasn't gone out yet" read as a cancellation,
    before "can I swap the headphones?"). A clause that asks the store for something is a request of its
    own, however unsure its kind ("…, and could you put #W2 on my other card?")."""
    sure = {p.intent for p in parts if p.via == "intent" and p.intent in WORKFLOW_INTENTS and p.confidence >= CONFIDENT}
    if not sure:
        return parts
    return [
        p
        for p in parts
        if not (
            p.via == "intent"
            and p.intent in WORKFLOW_INTENTS
            and p.confidence < CONFIDENT
            and not any(one_kind(p.intent, kind) for kind in sure)
            and not reading.of(p.text).asks_the_store
            and not is_question(p.text)
        )
    ]


def _whole_question(
    parts: list[PlannedPart], message: KnowledgeHit | None, hits: dict[str, KnowledgeHit]
) -> list[PlannedPart]:
    """One knowledge answer for the whole message when its clauses only make sense together.

    The clause splitter cuts "I paid the student price for my phone, does the price guarantee
    cover me?" and "can I pick my order up in a shop? is there a fee" in two, and a clause that is
    not a question of its own (a statement of circumstances, or a few words leaning on the clause
    before: "is there a fee", "possible?") finds a passage about something else, or none. So when every part
    is for the knowledge base, the message's own search matched, and one part does not stand alone,
    the message is answered whole. Questions that each stand alone keep their own answers."""
    if message is None or not message.matched:
        return parts
    answered_from_knowledge = all(p.via == "knowledge" or p.intent in KNOWLEDGE_INTENTS for p in parts)
    if not answered_from_knowledge:
        return _in_context(parts, message, hits)
    if len(parts) < 2:
        return parts
    if all(_stands_alone(p.text, hits) for p in parts):
        return parts
    return [PlannedPart(parts[0].intent, message.text, round(message.similarity, 4), "knowledge")]


def _stands_alone(text: str, hits: dict[str, KnowledgeHit]) -> bool:
    """A clause is a question of its own when it asks with words of its own and finds its own passage:
    "能当天拿走吗" after "x9换个电池要多久" asks about the battery swap, and alone finds nothing."""
    hit = hits.get(text)
    return is_question(text) and len(query_words(text)) >= 2 and (hit is None or hit.matched)


def _in_context(parts: list[PlannedPart], message: KnowledgeHit, hits: dict[str, KnowledgeHit]) -> list[PlannedPart]:
    """The one question of a message that also tells or asks something else is searched with the
    rest of the message when that finds a closer passage: in "I paid in 24 instalments and I'm
    returning the whole order. Do I get the fees back?" the last clause alone is about fees in
    general; the message says which fees. Statements the knowledge base was asked about beside it
    are its context, not questions of their own."""
    asked = [p for p in parts if p.via == "knowledge" or p.intent in KNOWLEDGE_INTENTS]
    questions = [p for p in asked if is_question(p.text)] if len(asked) > 1 else asked
    if len(questions) != 1 or any(p.text == message.text for p in asked):
        return parts
    closest = max((hits[p.text].similarity for p in asked if p.text in hits), default=0.0)
    if message.similarity <= closest:
        return parts
    whole = PlannedPart(questions[0].intent, message.text, round(message.similarity, 4), "knowledge")
    return [whole if p is questions[0] else p for p in parts if p is questions[0] or p not in asked]


def _order_named(text: str, entities: dict[str, Any], reading: Reading, *, alone: bool) -> bool:
    """The part names an order of the customer's: by its id, or with one id elsewhere in the message
    when it says "my order" or is the message's only request ("I just moved! Can #W1 go to …")."""
    return names_an_order(text) or bool(entities.get("order_ids") and (alone or uses_own_data(text, {}, reading)))


def clarify_picked(answer: str, reading: TextReading, offered: list[tuple[str, tuple[str, ...]]]) -> str | None:
    """Which intent of a clarifying question the answer picks: its label ("Cancel an order", "取消订单"),
    its position ("the first one", "2", "第二个"), or a plain yes for the first. `offered` is each
    intent with its labels, in the order they were shown."""
    from agents.workflows.slots import normalise

    clean = normalise(answer).strip(" .!。！")
    for intent, labels in offered:
        if any(clean == normalise(label) or (len(clean) > 3 and normalise(label) in clean) for label in labels):
            return intent
    for index, words in enumerate(_ORDINALS[: len(offered)]):
        if re.fullmatch(rf"(?:the\s+)?(?:{words})(?:\s+one)?|(?:{words})(?:个|项)?", clean):
            return offered[index][0]
    if len(clean.split()) <= 4 and reading.yes_no is True:
        return offered[0][0] if offered else None
    return None


_ORDINALS = ["1|first|1st|一|第一", "2|second|2nd|二|第二", "3|third|3rd|三|第三"]


def _beside_requests(parts: list[PlannedPart], reading: Reading) -> list[PlannedPart]:
    """Beside a request to change an order, a store query counts only when it is asked as a question
    of its own ("change my speaker to the black 20-hour one" names options, it does not ask for a spec
    table; nor does "the one with the water resistance yes … on #W1?", the tail of the request's own
    question), and a knowledge question only when the knowledge base knows the answer."""
    if not any(part.intent in WORKFLOW_INTENTS and part.via == "intent" for part in parts):
        return parts
    return [
        part
        for part in parts
        if not (part.intent in QUERY_INTENTS and not asks_as_a_question(part.text))
        and not (part.intent in KNOWLEDGE_INTENTS and part.via == "intent")
        # "Never mind the laptop order I made yesterday, …, please don't send it": what is told beside a
        # request is its context, not a question for the help centre
        and not (part.via == "knowledge" and not _asks_something(part.text, reading))
    ]


def _asks_something(clause: str, reading: Reading) -> bool:
    return is_question(clause) or reading.of(clause).policy_too


ITEM_CHANGES = frozenset({Intent.MODIFY_ORDER, Intent.EXCHANGE})


def one_kind(one: Intent, other: Intent) -> bool:
    """The same request, or an exchange and an item change: which one an order gets depends on its status."""
    return one == other or {one, other} <= ITEM_CHANGES


def _knowledge_intent(intent: Intent) -> Intent:
    return intent if intent in KNOWLEDGE_INTENTS else Intent.FAQ


def _inside_planned(text: str, parts: list[PlannedPart]) -> bool:
    """The text is (part of) a part already planned, or holds them all (the whole message)."""
    return any(text in part.text or part.text in text for part in parts)


def _dedupe(parts: list[PlannedPart]) -> list[PlannedPart]:
    """One knowledge answer per text; one part per (intent, text)."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for part in parts:
        key = (part.via if part.via == "knowledge" else part.intent.value, part.text)
        if key not in seen:
            seen.add(key)
            kept.append(part)
    return kept
