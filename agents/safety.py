"""The safety gate a bot reply passes before it is said (seed 003's SafetyAgent):

- harmful content the assistant must never say (abuse, self-harm, violence, illegal goods): the reply is
  blocked (an LLM's reply is first rewritten once, then replaced by the engine's draft: agents.nodes.reply).
  Offline rules describe the shape of such language in Chinese and English, a classifier (agents.harm_model)
  reads the wordings no rule describes; with an LLM and a MODERATION_MODEL configured, the provider's
  moderation endpoint is asked too;
- requests the store never makes: a sentence that asks the shopper for a card number, CVV, password, PIN or a
  one-time code, or points them to an email, link or handle that is not the store's own (STORE_DOMAINS, the
  site's hosts), is cut from the reply, even when it is quoted from the knowledge base (a document ingested
  before its check, or a sentence the check let through). Cut, not blocked: the rest of the reply (the fact the
  shopper asked about) is still true and still answers them, while a block would send the chat to a person for
  something the gate can mend itself; a reply with nothing left is blocked. Whether a sentence that names a
  secret or an outside email asks for it is the ingest's classifier (knowledge.injection), so "never share your
  code" stays; a link or handle elsewhere is cut as it is; the engine's own phrases (its code prompt) are its own;
- data leaks: full card and ID-card numbers, secrets (API keys) and the staff's internal notes are never said,
  and an email, a phone number, an order id or an order's address other than the verified customer's own is
  masked: the reply is revised;
- sensitive topics (health, money, law) get a disclaimer in the reply's language: revised.

Figures and promises an LLM wrote are checked against their evidence by agents.grounding, where the text is
written (the knowledge answer, the polish). The verdict (pass, revise or block; its categories; its
milliseconds; the revisions made on the way) is kept on the turn.
"""

from __future__ import annotations

import functools
import gettext
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop

from agents.harm_model import harm_predicted
from agents.llm.client import llm_moderation
from agents.pii import mask_pii
from conversations.language import say
from conversations.models import Customer
from knowledge.chunking import sentences
from knowledge.injection import sentences_withheld, store_domains, text_without
from knowledge.injection_model import Sentence, addresses
from stores.backend import store_backend
from stores.records import StoreUnavailable

PASS, REVISE, BLOCK = "pass", "revise", "block"


def _words(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.IGNORECASE)


# What a reply must never say, whoever asked for it. Each category is described by the shape of its language:
# an insult aimed at the customer, a push towards self-harm or a method, a threat or a weapon's recipe, an offer
# of what no store may sell. A word alone is not enough where it has a harmless sense in a shop ("kill the app",
# "a bomb of a deal", "杀毒软件", "爆款"): it needs the person it is aimed at, or a verb that offers or makes.
_INSULT = r"(?:idiot|moron|imbecile|stupid|dumb|loser|pathetic|worthless|useless|ugly|cow|pig|scum|retard\w*)"
_INSULT_NOUN = r"(?:idiot|moron|imbecile|loser|cow|pig|scum|retard)"
_INSULT_ZH = r"(?:白痴|傻[逼瓜B]|蠢货|蠢猪|废物|脑残|智障|穷鬼|贱人)"
_DRUGS = r"(?:cocaine|heroin|meth(?:amphetamine)?|molly|mdma|ecstasy|fentanyl|marijuana|drugs)"
HARMFUL: dict[str, re.Pattern[str]] = {
    "abuse": _words(
        rf"\byou(?:'re| are)\s+(?:\w+\s+){{0,3}}{_INSULT}\b(?!-)",
        rf"\byou\s+(?:\w+\s+)?{_INSULT_NOUN}\b(?!-)",
        rf"(?:^|[.!?,]\s*)(?:listen|look|hey)?,?\s*{_INSULT_NOUN}[,!.]",
        r"\b(?:shut up|get lost|screw you|piss off|f\W?u\W?c\W?k (?:you|off))\b",
        rf"[你您](?:真|就|简直)?(?:是|这种|这个|个)[^。！？\n]{{0,6}}{_INSULT_ZH}",
        rf"{_INSULT_ZH}(?:客户|东西|一个)",
        r"傻[逼B]|脑残|智障|你妈(?!妈)|滚(?:开|蛋|远点|出去|吧)|闭嘴|没素质的东西|脑子有病",
    ),
    "self_harm": _words(
        r"\b(?:kill|hurt|harm|cut)\s+yourself\b",
        r"\b(?:commit suicide|end (?:it all|your life)|(?:should|just|might as well) end it|better off dead)\b",
        r"\bjump off (?:a|the) (?:bridge|building|roof|cliff)\b",
        r"\b(?:overdose|slit (?:your )?wrists?|nobody would miss you)\b",
        r"(?:自杀|割腕|跳楼|跳河|烧炭|上吊|安眠药|去死|不如死了|死了算了|一了百了|结束(?:你的|自己的)?生命)",
    ),
    "violence": _words(
        r"\b(?:i|we)(?:'ll| will|'m going to| am going to)\s+(?:\w+\s+){0,4}(?:hurt|kill|beat|stab|shoot|punch) "
        r"you\b",
        r"\b(?:someone|somebody)\s+(?:will|'ll)\s+(?:pay you a visit|hurt you|\w+ your (?:legs|arms|neck|face))",
        r"\b(?:break|smash) your (?:legs|arms|neck|face|kneecaps)\b|\bi know where you live\b|\bstabs? you\b",
        r"\b(?:pipe bomb|molotov|detonator|homemade explosive|(?:make|build|assemble) (?:a |an )?(?:bomb|explosive)s?)",
        r"\b(?:untraceable gun|gun nobody can trace|3d[- ]print\w* (?:a |the )?(?:gun|frame|receiver))",
        r"(?:弄死你|打死你|砍你|捅你|挨揍|打断.{0,3}腿|(?:把|给)你[^。！？\n]{0,6}砸了|我知道你家)",
        r"(?:自制|制作|做|组装)[^。！？\n]{0,10}(?:炸药|炸弹|雷管|燃烧瓶|手枪|枪支)|(?:炸药|雷管|燃烧瓶)",
    ),
    "illegal_goods": _words(
        rf"\b(?:sell|sells|selling|stock|ship|hook you up with|supply)\b[^.!?\n]{{0,25}}\b{_DRUGS}\b",
        r"\b(?:cocaine|heroin|methamphetamine|mdma|fentanyl)\b",
        r"\b(?:fake|forged|counterfeit)\s+(?:ids?|passports?|driver'?s licen[cs]es?|licen[cs]es?|invoices?|"
        r"receipts?|diplomas?|degrees?|certificates?|banknotes?|money)\b",
        r"\b(?:replica|counterfeit|knock-?off)\s+(?:rolex|\w+\s+(?:watch|watches|bags?|handbags?))\b",
        r"\b(?:unregistered (?:hand)?guns?|no background check|firearms? without (?:a )?licen[cs]e)\b",
        r"(?:毒品|冰毒|K粉|海洛因|大麻|摇头丸|假身份证|假证|高仿|一比一复刻|复刻[^。！？\n]{0,4}验不出)",
        r"假的?(?:毕业证|学位证|驾照|发票|护照)|(?:代开|虚开)(?:发票|增值税)",
        r"(?:手枪|枪支|子弹)[^。！？\n]{0,10}(?:现货|出售|有货|发给你|包邮)|不用任何证件",
    ),
}
_SECRET = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abp]-[A-Za-z0-9-]{10,})\b"
)
_CARD = re.compile(r"(?<![\d*])(?:\d[ -]?){12,18}\d(?![\d*])")
_CN_ID = re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_PHONE = re.compile(r"(?<![\d*])(?:\+\d[\d\s-]{7,}\d|1[3-9]\d{9})(?!\d)")
# What may be an order id: the store's ids are "#D1001", "#W2378156"; a reply may drop the "#" (not the letter).
_ORDER_ID = re.compile(r"#([A-Za-z]{0,2}\d{4,12})(?![\d*])|(?<![\w#*])([A-Za-z]{1,2}\d{4,12})(?![\d*])")

# Topics where the assistant's words are no professional advice.
DISCLAIMERS: dict[str, tuple[re.Pattern[str], str]] = {
    "health": (
        _words(
            r"\b(?:medical|medicine|dosage|diagnos\w*|symptoms?|pregnan\w*|allerg\w*)\b",
            r"(?:医疗|药物|剂量|诊断|症状|怀孕|过敏)",
        ),
        gettext_noop("This is general product information, not medical advice: please ask a doctor."),
    ),
    "financial": (
        _words(r"\b(?:invest\w*|loan|interest rate|credit score)\b", r"(?:投资|贷款|利率|征信)"),
        gettext_noop("This is general information, not financial advice."),
    ),
    "legal": (
        _words(r"\b(?:lawsuit|sue|legal advice|lawyer|attorney)\b", r"(?:起诉|诉讼|律师|法律意见)"),
        gettext_noop("This is general information, not legal advice."),
    ),
}


@dataclass
class SafetyVerdict:
    decision: str
    text: str
    categories: list[str] = field(default_factory=list)
    ms: float = 0.0
    revisions: list[str] = field(default_factory=list)  # why an LLM's text was rewritten or set aside first

    def as_json(self) -> dict[str, Any]:
        verdict = {"decision": self.decision, "categories": self.categories, "ms": round(self.ms, 3)}
        return verdict | ({"revisions": self.revisions} if self.revisions else {})


def harmful_categories(text: str) -> list[str]:
    """The kinds of harm `text` shows (abuse, self_harm, violence, illegal_goods): by the offline rules, else by
    the harm classifier (agents.harm_model, for wordings no rule describes), else by the provider's moderation
    when one is configured (its categories prefixed "moderation:")."""
    harmful = sorted(name for name, pattern in HARMFUL.items() if pattern.search(text))
    predicted = harmful or [category for category in [harm_predicted(text)] if category]
    return predicted or [f"moderation:{category}" for category in llm_moderation(text) or []]


def _luhn(digits: str) -> bool:
    total = 0
    for index, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _leaks_masked(
    text: str, customer_of_chat: Callable[[], Customer | None], support_contacts: tuple[str, ...], customer_text: str
) -> tuple[str, list[str]]:
    """The reply with what it must not say masked, and the kinds of leak found. The chat's customer is read
    only when the reply gives an email, a phone number or an order id, and then once."""
    found: list[str] = []
    customer_of_chat = functools.cache(customer_of_chat)
    customer = customer_of_chat() if _EMAIL.search(text) or _PHONE.search(text) else None
    own_emails = {contact.lower() for contact in support_contacts} | {
        (customer.email or "").lower() if customer else ""
    }
    own_phones = {re.sub(r"\D", "", contact) for contact in support_contacts} | {
        re.sub(r"\D", "", customer.phone) if customer and customer.phone else ""
    }
    own_phones.discard("")

    def secret(match: re.Match[str]) -> str:
        found.append("secret")
        return "[hidden]"

    def card(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group())
        if not 13 <= len(digits) <= 19 or not _luhn(digits):
            return match.group()
        found.append("card_number")
        return f"**** **** **** {digits[-4:]}"

    def id_card(match: re.Match[str]) -> str:
        found.append("id_number")
        return mask_pii(match.group())

    def email(match: re.Match[str]) -> str:
        if match.group().lower() in own_emails:
            return match.group()
        found.append("other_email")
        return mask_pii(match.group())

    def phone(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group())
        if any(digits.endswith(own) or own.endswith(digits) for own in own_phones):
            return match.group()
        found.append("other_phone")
        return digits[:3] + "****" + digits[-4:]

    text = _SECRET.sub(secret, text)
    text = _CN_ID.sub(id_card, text)
    text = _CARD.sub(card, text)
    text = _EMAIL.sub(email, text)
    text = _PHONE.sub(phone, text)
    text, others = _others_orders_masked(text, customer_of_chat, customer_text)
    return text, sorted(set(found + others))


def _others_orders_masked(
    text: str, customer_of_chat: Callable[[], Customer | None], customer_text: str
) -> tuple[str, list[str]]:
    """Order ids of other customers' orders masked ("#D1***"), and those orders' shipping addresses. Only the
    ids the store knows as orders count: a price or a tracking number that looks like one is left alone, and so
    is an id the customer just wrote (repeated while asking them to prove it is theirs). Whose order it is, is
    asked of the store; an id it cannot answer for now is masked too (the gate fails closed)."""
    candidates = {match.group(1) or match.group(2) for match in _ORDER_ID.finditer(text)} - {
        match.group(1) or match.group(2) for match in _ORDER_ID.finditer(customer_text)
    }
    if not candidates:
        return text, []
    found = []
    for order_id in sorted(candidates)[:_MAX_ORDER_IDS_CHECKED]:
        other, address = _order_of_another(order_id, customer_of_chat)
        if not other:
            continue
        text, masked = re.subn(
            rf"(?<![\w*])({re.escape(order_id)})(?!\d)", order_id[:2] + "*" * (len(order_id) - 2), text
        )
        found += ["other_order"] if masked else []
        for part in (address.get("address1"), address.get("address2")):
            if part and len(part) >= 5 and part in text:
                text = text.replace(part, "***")
                found.append("other_address")
    return text, found


_MAX_ORDER_IDS_CHECKED = 5  # a reply naming more is masked no further, but each check is a call to the store


def _order_of_another(order_id: str, customer_of_chat: Callable[[], Customer | None]) -> tuple[bool, dict[str, str]]:
    """(whether `order_id`, with or without its "#", is an order of someone other than the chat's customer, that
    order's shipping address)."""
    store = store_backend()
    try:
        for known_as in (f"#{order_id}", order_id):  # the store's id, with or without its "#"
            owner = store.order_owner(known_as)
            if owner is not None:
                break
        else:
            return False, {}
        customer = customer_of_chat()
        if customer is not None and owner.customer_id == customer.external_id:
            return False, {}
        order = store.order(owner.customer_id, known_as)
    except StoreUnavailable:
        return True, {}
    return True, order.address if order is not None else {}


# What a shopper may be asked to hand over that the store never asks for: a lookup table of the secrets' names
# (like a Rasa lookup table), not of phrasings. A sentence naming one goes to the ingest's classifier, which tells
# "send us your card number" from "we never ask for your card number".
_SECRET_NAMES = re.compile(
    r"\b(?:(?:credit|debit|bank) ?cards?|card (?:number|details)|cvv2?|cvc|pins?|passwords?|passcodes?|otp|"
    r"one[- ]time|codes?|logins?|credentials?|iban)\b|银行卡|信用卡|卡号|密码|验证码|动态码|校验码|安全码|卡密|口令",
    re.IGNORECASE,
)
# How likely a reply's sentence that names a secret or an outside email must read as a request to be cut: lower
# than an ingest's threshold, since a cut costs one sentence of a reply and a miss may cost a shopper their card
# (warnings such as "never share your code" read below 0.25).
REQUEST_THRESHOLD = 0.35
_CATALOGUE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"
_PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


@functools.cache
def _own_phrases() -> re.Pattern[str] | None:
    """The engine's own phrases (both languages) that name a secret: its verification prompt asks for the code it
    emailed, which is the store asking for its own code in its own words, not a request to cut."""
    if not _CATALOGUE.exists():
        return None
    with _CATALOGUE.open("rb") as file:
        catalogue = gettext.GNUTranslations(file)._catalog  # type: ignore[attr-defined]
    phrases = {
        text
        for msgid, msgstr in catalogue.items()
        if isinstance(msgid, str)
        for text in (msgid, str(msgstr))
        if text and _SECRET_NAMES.search(_PLACEHOLDER.sub("", text))
    }
    # a placeholder ("%(to)s") matches whatever the engine put there
    patterns = [".+?".join(map(re.escape, _PLACEHOLDER.split(p))) for p in sorted(phrases, key=len, reverse=True)]
    return re.compile("|".join(patterns)) if phrases else None


def _read_as_requests(
    found: list[str], indices: list[int], domains: Sequence[str], threshold: float | None
) -> set[int]:
    """Which of the sentences at `indices` the ingest's classifier reads as requests (with their neighbours)."""
    batch = [Sentence(found[i], found[i - 1] if i else "", found[i + 1] if i + 1 < len(found) else "") for i in indices]
    read = sentences_withheld(batch, domains=domains, threshold=threshold)
    return {i for i, out in zip(indices, read, strict=True) if out}


def _requests_cut(
    text: str, customer_of_chat: Callable[[], Customer | None], support_contacts: tuple[str, ...]
) -> tuple[str, list[str]]:
    """The reply without the sentences that ask the shopper for a secret or send them to an address that is not
    the store's, and the kinds found (secret_request, outside_contact)."""
    own_phrases = _own_phrases()
    checked = own_phrases.sub(" ", text) if own_phrases else text
    found = sentences(checked)
    domains = store_domains()
    own_contacts = {contact.lower() for contact in support_contacts}
    outside: dict[int, list[str]] = {}
    for index, sentence in enumerate(found):
        others = [a for a in addresses(sentence, domains) if not a.own and a.value.lower() not in own_contacts]
        if others and any(a.kind == "email" for a in others):
            customer = customer_of_chat()  # a customer's own email may be told back to them
            own_email = (customer.email or "").lower() if customer else ""
            others = [a for a in others if a.value.lower() != own_email]
        if others:
            outside[index] = [a.kind for a in others]
    asking = [i for i, sentence in enumerate(found) if _SECRET_NAMES.search(sentence)]
    # A link or a handle elsewhere is cut as it is; an email or a named secret when the classifier reads the
    # sentence as a request (an email in a statement about someone is a leak: masked further on).
    emailed = sorted({i for i, kinds in outside.items() if kinds == ["email"] * len(kinds)} - set(asking))
    requested = _read_as_requests(found, asking, domains, REQUEST_THRESHOLD) | _read_as_requests(
        found, emailed, domains, None
    )
    cut: list[str] = []
    categories: set[str] = set()
    for index, sentence in enumerate(found):
        linked = any(kind != "email" for kind in outside.get(index, []))
        if linked or index in requested:
            cut.append(sentence)
            if index in requested and index in asking:
                categories.add("secret_request")
            if linked or (index in requested and index in outside):
                categories.add("outside_contact")
    if not cut:
        return text, []
    return text_without(text, cut), sorted(categories)


NOTE_MIN_CHARS = 8  # a note's sentence this long, said word for word, is a leak; "OK." is not


def _notes_masked(text: str, notes: Sequence[str]) -> tuple[str, bool]:
    """The reply with any sentence of a staff note it repeats word for word cut out."""
    found = False
    for note in notes:
        for sentence in sentences(note):
            if len(sentence) >= NOTE_MIN_CHARS and sentence in text:
                text, found = text.replace(sentence, "[…]"), True
    return text, found


def safety_check(
    text: str,
    *,
    language: str,
    customer: Callable[[], Customer | None],
    support_contacts: tuple[str, ...] = (),
    internal_notes: Sequence[str] = (),
    customer_text: str = "",
    disclaimers: bool = True,
) -> SafetyVerdict:
    """The gate's verdict on a reply about to be said; `customer` gives the chat's verified customer (or None),
    whose own email and phone a reply may give. `support_contacts`: the store's own addresses and numbers,
    which a reply may always give. `internal_notes`: the staff's notes on the chat, never said. `customer_text`:
    the message answered, whose order ids the reply may repeat. `disclaimers=False`: a part of a reply (a
    streamed sentence), whose disclaimer comes with the whole."""
    started = time.perf_counter()
    harmful = harmful_categories(text)
    if harmful:
        return SafetyVerdict(BLOCK, "", harmful, (time.perf_counter() - started) * 1000)  # never said
    customer = functools.cache(customer)  # read at most once for the requests and the leaks
    revised, categories = _requests_cut(text, customer, support_contacts)
    if categories and not re.search(r"\w", re.sub(r"\[\d+\]", "", revised)):
        return SafetyVerdict(BLOCK, "", categories, (time.perf_counter() - started) * 1000)  # nothing else said
    revised, leaks = _leaks_masked(revised, customer, support_contacts, customer_text)
    categories += leaks
    revised, noted = _notes_masked(revised, internal_notes)
    categories += ["internal_note"] if noted else []
    topics = [topic for topic, (pattern, _) in DISCLAIMERS.items() if disclaimers and pattern.search(revised)]
    if topics:
        revised = f"{revised}\n\n{' '.join(say(language, DISCLAIMERS[topic][1]) for topic in topics)}"
        categories += topics
    decision = REVISE if categories else PASS
    return SafetyVerdict(decision, revised, categories, (time.perf_counter() - started) * 1000)
