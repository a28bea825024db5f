"""Several requests in one message: which clauses are requests of their own, and the order they are taken in
(pure: no ORM, no I/O). The route plan (agents.route) says which specialist answers each part; this says,
for the requests among them, which one is handled now and which wait their turn: an item change waits
for the other changes of its order, a clause that only tells what happened is not a request, and two
clauses after one announcement are one request.
"""

from __future__ import annotations

import re

from agents.intents.offline.classify import CONFIDENT
from agents.intents.offline.orders import names_an_order, order_ids
from agents.intents.word_lists import word_list, words_pattern
from agents.reading.asks import Asks
from agents.reading.message import Reading
from agents.route import CLARIFY_BELOW, ITEM_CHANGES, PlannedPart, one_kind
from agents.taxonomy import WORKFLOW_INTENTS, Intent

_ANNOUNCED = word_list("discourse")["announcements"]
_ANOTHER_REQUEST_WORDS = frozenset(_ANNOUNCED["another request"])
# the second or a later point of a numbered list: "(1) … (2) …", "1) … 2) …", "1. … 2. …", "1、… 2、…"
_NUMBERED = re.compile(r"(?<![\w.])\(?[2-9]\)(?=\s)|(?:^|(?<=[.;!?。；]\s)|(?<=\n))[2-9]\.\s|(?<![\w.])[2-9二三四]、")
# A list mark opening a line announces more, as "also" does: another request, or more of the one before.
_BULLET = re.compile(r"(?<=\n)[ \t]*[-•*·][ \t]")
_ANNOUNCEMENT = re.compile(
    f"{words_pattern([*_ANNOUNCED['another request'], *_ANNOUNCED['more']]).pattern}|{_NUMBERED.pattern}|"
    f"{_BULLET.pattern}",
    re.IGNORECASE,
)


def _announces_its_own(announcement: str) -> bool:
    """The words announce a request of its own ("Another thing: …", "2) …"), not maybe more of the one before
    ("also", "plus")."""
    return " ".join(announcement.lower().split()) in _ANOTHER_REQUEST_WORDS or bool(_NUMBERED.match(announcement))


def _changes_items(text: str, reading: Reading) -> bool:
    """A modification that is not of the address or the payment method changes items."""
    from agents.workflows.addresses import parse_address

    return not parse_address(text) and reading.of(text).change in (None, "items")


# An item turned into another version of itself ("the helmet -> one in high", "the 75W one"). The
# words say less than the arrows: "the correct one is 377 River Road…" gives an address.
_ITEM_CHANGE = re.compile(r"->|[→⇒➔➜➡⟶⇨]|=>|[换改]成.{0,12}的")


def _change_kind(text: str, reading: Reading) -> str | None:
    """What a modification changes: "items", "address", "payment", "default_address", or None when it does not
    say (agents.reading.change; an address written out, or an arrow to another version, when the words do not)."""
    from agents.workflows.addresses import parse_address

    if kind := reading.of(text).change:
        return kind
    if parse_address(text):
        return "address"
    return "items" if _ITEM_CHANGE.search(text) else None


def _kinds_of_change(earlier: str, later: str, reading: Reading, *, announced: bool) -> set[str | None]:
    """What the request told so far and the clause after it change. A card named after an item change,
    unannounced and for no order of its own, pays the change's difference ("…换成浮光白，用原来的信用卡")."""
    kinds = (_change_kind(earlier, reading), _change_kind(later, reading))
    if kinds == ("items", "payment") and not announced and not order_ids(later):
        return {"items"}
    return set(kinds)


def requests_in_order(
    text: str, parts: list[PlannedPart], reading: Reading
) -> tuple[list[PlannedPart], list[PlannedPart]]:
    """The parts to answer now and the requests to carry out after the first one, one at a time.

    Several requests in one message ("change the address of #W1, and swap the mouse in it for the
    wireless one") are carried out in the order they were asked, except that an item change comes
    after other changes: once its items are changed, a pending order can no longer be modified.
    Each request reads the part of the message from where it is asked to where the next one is.
    The first request of a message with one request reads the whole message.
    """
    requested = [part for part in parts if part.intent in WORKFLOW_INTENTS and part.via == "intent"]
    others = [part for part in parts if part not in requested]
    told = _Told(text, reading, _asked(text, requested, reading))
    if len(told.requests) <= 1:
        return others + [PlannedPart(r.intent, text, r.confidence, r.via) for r in told.requests], []
    planned = told.in_order()
    return others + planned[:1], planned[1:]


def _asked(text: str, requested: list[PlannedPart], reading: Reading) -> list[PlannedPart]:
    """The requests asked for, in the order said. A clause the classifier is unsure of that does not ask,
    beside a sure request of another kind, only describes something ("the thermostat, the one I ordered with
    white as its color; … Returning them") or lists more of it ("return the Dumbbell Set; and also Makeup Kit
    from #W1"): no request of its own. So is a guess too unsure to act on alone (kept only because it names an
    order) said after a request, however unsure that one is: "I want to modify the Garden Hose. Also Hiking
    Boots on my order #W1 while it's not sent yet" lists one more item; "not sent yet" says why it can still
    change."""
    sure = [part.intent for part in requested if part.confidence >= CONFIDENT]
    first = min((max(text.find(part.text), 0) for part in requested), default=0)

    def kept(part: PlannedPart) -> bool:
        asks = reading.of(part.text).asks_the_store
        if not (part.confidence >= CONFIDENT or not sure or any(one_kind(part.intent, i) for i in sure) or asks):
            return False
        if part.confidence < CLARIFY_BELOW and text.find(part.text) > first and not asks:
            return False
        return not (part.intent == Intent.RETURN and _refunds_the_method_moved_off(part, requested, reading))

    in_order = sorted(filter(kept, requested), key=lambda part: max(text.find(part.text), 0))
    return _given_up_for_another(text, in_order, reading)


# What may stand between an item given up and the version wanted instead: a comma, "and", "then".
_BETWEEN_HALVES = 6


def _given_up_for_another(text: str, asked: list[PlannedPart], reading: Reading) -> list[PlannedPart]:
    """An item given up (read as a return or a cancellation) right before a clause that asks for another version,
    for no other order, is the first half of one item change (a clause that only names a product asks for
    nothing: "cancel #W1, the order with the earbuds"): "Helmet退回去，给我换成白的", "退一个Makeup Kit，换个
    基础款", "Water Bottle不要了，给我换成红的", "send the helmet back, and get me the white one"."""
    halves = list(asked)
    k = 1
    while k < len(halves):
        wanted = halves[k]
        k += 1
        if wanted.intent not in ITEM_CHANGES or not reading.of(wanted.text).asks_the_store:
            continue
        if _change_kind(wanted.text, reading) not in ("items", None):
            continue
        # the clauses that only describe the item given up may stand between: "退一个Garden Hose，用料用的
        # vinyl…的那个，换个新的"; they are the first half's words
        first = k - 2
        while first > 0 and _describes_an_item(halves[first], reading):
            first -= 1
        given_up, last = halves[first], halves[k - 2]
        if given_up.intent not in (Intent.RETURN, Intent.CANCEL_ORDER):
            continue
        if not all(_said_next(text, halves[j], halves[j + 1]) for j in range(first, k - 1)):
            continue
        if not set(order_ids(wanted.text)) <= set(order_ids(given_up.text)):
            continue
        start = max(text.find(given_up.text), 0)
        words = text[start : max(text.find(last.text), 0) + len(last.text)]
        halves[first : k - 1] = [PlannedPart(wanted.intent, words, wanted.confidence, given_up.via)]
        k = first + 2
    return halves


def _describes_an_item(part: PlannedPart, reading: Reading) -> bool:
    """A clause read as an item change that asks nothing and names no other version or order: it tells which
    item ("颜色用的黑的那个", "the 50 ft vinyl one")."""
    return part.intent in ITEM_CHANGES and _only_describes(part.text, reading) and not order_ids(part.text)


def _said_next(text: str, before: PlannedPart, after: PlannedPart) -> bool:
    """Only a comma, "and" or "then" stands between the two clauses, no announcement."""
    end = max(text.find(before.text), 0) + len(before.text)
    between = text[end : max(text.find(after.text), end)]
    return len(between.strip()) <= _BETWEEN_HALVES and not _ANNOUNCEMENT.search(between)


class _Told:
    """The requests of a message as its clauses are read in order: a later clause is a request of its own
    when the one before has named its order and this one is announced ("Also, …", "另外…") or opens as a
    request naming its own order ("I'd like to change an item in order #W1…"); otherwise it is more of the
    one before ("cancel my order and refund me")."""

    def __init__(self, text: str, reading: Reading, asked: list[PlannedPart]) -> None:
        self.text, self.reading = text, reading
        self.requests = asked[:1]
        self.begins = [0]  # where each request's words start: at its announcement ("And one more thing: …")
        starts = [max(text.find(part.text), 0) for part in asked]  # where each clause is said
        ends = [*starts[1:], len(text)]  # where each clause's words end: where the next one is said
        for k in range(1, len(asked)):
            self._after(asked[k], starts[k], ends[k], previous=starts[k - 1])

    def _after(self, part: PlannedPart, here: int, following: int, *, previous: int) -> None:
        text = self.text
        announcement = _ANNOUNCEMENT.search(text, previous, here + min(len(part.text), 30))
        # An announcement ("Second: …") ends the words of the request before, and so does the end of a sentence:
        # in "…差价用gift_card_1。Running Shoes和Water Bottle都偏小，想退货" the return reads the shoes and the bottle.
        cut = min(announcement.start(), here) if announcement else _sentence_start(text, previous, here)
        if self._only_described_before(part, cut, following):
            # "#W1里的白的 Alexa 那款 Smart Thermostat；另外Makeup Kit…我想退货": the clause before only named an item;
            # the one that asks says what to do with it and one more
            self.requests[-1] = part
        elif _own_request(self, part, (cut, following), announcement):
            if cut > self.begins[-1]:
                self.requests.append(part)
                self.begins.append(cut)
            elif _surer_ask(part, self.requests[-1], self.reading):
                # Two clauses after one announcement ("Second: before #W1 goes out, can you switch…") are one
                # request: the one that asks the store ("…#W2 is not what I expected, could I exchange it?"),
                # else the surer reading of the two.
                self.requests[-1] = part
        elif (
            part.intent != self.requests[-1].intent
            and self.reading.of(part.text).asks_the_store
            and not self.reading.of(self.requests[-1].text).asks_the_store
        ):
            # One request told, then asked: in "I made a mistake on #W1, can you change the address?" the
            # first clause only says what happened; the clause that asks says what to do.
            self.requests[-1] = part
        elif (self.requests[-1].intent, part.intent) == (Intent.CANCEL_ORDER, Intent.MODIFY_ORDER) and _change_kind(
            text[self.begins[-1] :], self.reading
        ) == "address":
            # "I don't want #W1 going to my old place. New address: …": a new address is given to send
            # the order there, not to cancel it.
            self.requests[-1] = part

    def _only_described_before(self, part: PlannedPart, here: int, following: int) -> bool:
        """The request before is an item change that only describes an item (it asks nothing and names no other
        version), and this clause asks the store for a request of another kind (or reads as one), for no other order
        (its words start at `here`: its announcement, its sentence or itself)."""
        before = self.requests[-1]
        return (
            before.intent in ITEM_CHANGES
            and _only_describes(before.text, self.reading)
            and _requests(part.text, self.reading)
            and not one_kind(part.intent, before.intent)
            and set(order_ids(self.text[here:following])) <= set(order_ids(self.text[:here]))
        )

    def in_order(self) -> list[PlannedPart]:
        """Each request with its words, in the order asked, except that an item change waits for the other
        changes of its order: items can be changed (or exchanged) once, and then the order can no longer be
        modified."""
        begun = sorted(zip(self.begins, range(len(self.requests)), strict=True))
        segments: dict[int, str] = {}
        for position, (start, i) in enumerate(begun):
            end = begun[position + 1][0] if position + 1 < len(begun) else len(self.text)
            segments[i] = self.text[0 if position == 0 else start : end].strip()
        ordered = [i for _, i in begun]
        for i in list(ordered):
            request = self.requests[i]
            changes_items = request.intent == Intent.EXCHANGE or (
                request.intent == Intent.MODIFY_ORDER and _changes_items(segments[i], self.reading)
            )
            mine = set(order_ids(segments[i]))
            # a request that names no order may be for this one ("change how I pay for one of my orders")
            same_order = [
                j for j in ordered if j != i and (set(order_ids(segments[j])) & mine or not order_ids(segments[j]))
            ]
            if changes_items and same_order:
                ordered.remove(i)
                ordered.insert(max(ordered.index(j) for j in same_order) + 1, i)
        return [
            PlannedPart(self.requests[i].intent, segments[i], self.requests[i].confidence, "intent") for i in ordered
        ]


# Where a sentence ends; ". " only with its space (not in "1.5L").
_SENTENCE_ENDS = ("。", "！", "？", "!", "?", "\n", ". ")


def _sentence_start(text: str, after: int, here: int) -> int:
    """Where the sentence holding `here` starts, when it starts after `after`; else `here`."""
    last = max(((at + len(mark)) for mark in _SENTENCE_ENDS if (at := text.rfind(mark, after, here)) >= 0), default=-1)
    return here if last < 0 else here - len(text[last:here].lstrip())


def _own_request(told: _Told, part: PlannedPart, words: tuple[int, int], announcement: re.Match[str] | None) -> bool:
    """Whether the clause `part` is a request of its own rather than more of the one before; `words`: where the
    words it would read start (its announcement, its sentence, or itself) and where the next clause starts."""
    text, before = told.text, told.requests[-1]
    cut, following = words
    same_kind = one_kind(part.intent, before.intent)
    kinds = _kinds_of_change(
        text[told.begins[-1] : cut], text[cut:following], told.reading, announced=bool(announcement)
    )
    earlier_orders = set(order_ids(text[told.begins[-1] : cut]))
    if _refund_destination(told, part, announcement):
        return False
    if same_kind and _more_items(part, kinds, (earlier_orders, set(order_ids(text[cut:following]))), announcement):
        return False
    # A change of the items beside a change of the payment or the address is a request of its own, order named
    # or not: they are carried out one after the other, the items last. An exchange changes only items: two
    # exchange clauses are never two kinds of change.
    pair = {part.intent, before.intent}
    if Intent.MODIFY_ORDER in pair and pair <= ITEM_CHANGES and None not in kinds and len(kinds) == 2:
        return True
    # Announced ("Another thing: …") and of another kind, it is its own request even before the first one has
    # named its order: "exchange the perfume … Another thing: how do I return …"; but a clause that asks nothing,
    # names no other version and no other order only describes one more item of the request before: "退货：#W1
    # 的 Kettle。另外Wall Clock（颜色那项白…的那个）".
    if announcement and not same_kind:
        return not _only_describes(part.text, told.reading) or not set(order_ids(text[cut:following])) <= set(
            order_ids(text[told.begins[-1] : cut])
        )
    # The request before is whole when its order was named before this one is announced: in "return the
    # backpack plus the camera plus …, order is #W1" each "plus" still belongs to the first.
    opens = names_an_order(part.text) and told.reading.of(part.text).asks_the_store
    if names_an_order(text[told.begins[-1] : cut]) and (announcement or opens):
        return True
    # Of another kind and for another order, named before the next request: "…change the mouse in #W1.
    # Sending back the shoes and the puzzle from #W2, refund to my gift card."
    ahead = set(order_ids(text[cut:following]))
    return not same_kind and bool(earlier_orders) and bool(ahead) and not ahead & earlier_orders


def _refund_destination(told: _Told, part: PlannedPart, announcement: re.Match[str] | None) -> bool:
    """A payment method named right after a return, for no order of its own and with no other change, is where its
    refund goes ("想退Hiking Boots，钱退到…就那张PayPal"), not a change of how an order is paid."""
    return (
        told.requests[-1].intent == Intent.RETURN
        and part.intent == Intent.MODIFY_ORDER
        and announcement is None
        and not order_ids(part.text)
        and _change_kind(part.text, told.reading) in ("payment", None)
    )


def _more_items(
    part: PlannedPart, kinds: set[str | None], orders: tuple[set[str], set[str]], announcement: re.Match[str] | None
) -> bool:
    """ "… and also the Garden Hose → green", "return the grill plus the bottle": more items of the same change
    or return as the clause before. An order's items are changed, exchanged or returned once, so once the
    request before has named its order, a clause that names no other order (`orders`: those named so far and
    those this clause names before the next one) adds to it even when announced ("…改E-Reader；另外还有
    Garden Hose…"); before an order is named, only a new request announced outright ("Another thing: …") is one
    of its own."""
    earlier, named = orders
    if not (part.intent == Intent.RETURN or (part.intent in ITEM_CHANGES and kinds <= {"items", None})):
        return False
    if earlier:
        return named <= earlier
    return not (announcement and _announces_its_own(announcement.group()))


def _requests(text: str, reading: Reading) -> bool:
    """The clause asks the store to act, by either learned reading: a long description of the item can outweigh
    "要退货" in one of them ("Desk Lamp/颜色＝黑｜亮度＝高｜电源＝USB 这个要退货")."""
    return reading.of(text).asks_the_store or reading.of(text).asks == Asks.REQUEST


def _only_describes(text: str, reading: Reading) -> bool:
    """The clause asks nothing (how the store works, what became of the customer's records, that the store act)
    and names no other version of an item."""
    return reading.of(text).asks == Asks.OTHER and not _ITEM_CHANGE.search(text)


def _surer_ask(part: PlannedPart, before: PlannedPart, reading: Reading) -> bool:
    asks, earlier_asks = reading.of(part.text).asks_the_store, reading.of(before.text).asks_the_store
    return (asks and not earlier_asks) or (asks == earlier_asks and part.confidence > before.confidence)


# The payment an order is moved off is refunded: "…paid with my gift card and the original method refunded",
# "原来的卡退款". Said beside a payment change, that refund is part of the change, not a return.
_OLD_METHOD_REFUNDED = re.compile(
    r"\b(?:original|old|previous|first|current|other)\s+(?:payment\s+)?(?:method|card|one|payment|account)\b"
    r".{0,15}\brefund\w*|\brefund\w*\s+(?:the|my|to\s+(?:the|my))\s+(?:original|old|previous|first|current)\s+"
    r"(?:payment\s+)?(?:method|card|payment|account)\b|"
    r"(?:原来|之前|原先|原)的?(?:卡|信用卡|银行卡|礼品卡|支付方式|付款方式|账户|paypal).{0,4}(?:退款|退回|退还|退)",
    re.IGNORECASE,
)


def _refunds_the_method_moved_off(part: PlannedPart, requested: list[PlannedPart], reading: Reading) -> bool:
    """ "订单 #W1 改用礼品卡支付，原来的卡退款": the refund of the old payment, beside a payment change, is
    part of that change."""
    return bool(_OLD_METHOD_REFUNDED.search(part.text)) and any(
        other.intent == Intent.MODIFY_ORDER and _change_kind(other.text, reading) == "payment" for other in requested
    )
