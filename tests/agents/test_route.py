"""The route plan: classified intents weighed against what the knowledge base knows (pure)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agents.reading.message import Reading
from agents.route import (
    KnowledgeHit,
    asks_own_order_state,
    clarify_picked,
    is_public_question,
    route_plan,
)
from agents.taxonomy import Intent


def _intent(name: str, confidence: float, text: str) -> dict[str, Any]:
    return {"name": name, "confidence": confidence, "text": text}


def _known(text: str, similarity: float = 0.9) -> KnowledgeHit:
    return KnowledgeHit(text=text, matched=True, similarity=similarity, document="help/warranty.md", chunk_id=7)


def _unknown(text: str) -> KnowledgeHit:
    return KnowledgeHit(text=text, matched=False, similarity=0.79)


def _routes(plan: list[Any]) -> list[tuple[str, str]]:
    return [(part.intent.value, part.via) for part in plan]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("logistics_query", "how long does shipping take?"),
        ("logistics_query", "发货要几天？"),
        ("repair", "How much is the extended warranty on a tablet"),
        ("repair", "延保多少钱一年"),
        ("return", "Can I return an opened phone?"),
        ("return", "拆封了还能退吗"),
        ("price_query", "how much does the protection plan cost"),
        ("out_of_scope", "Can I transfer CarePlus to my daughter?"),
    ],
)
def test_a_public_question_the_knowledge_base_knows_is_answered_from_it(name: str, text: str) -> None:
    plan = route_plan(intents=[_intent(name, 0.9, text)], knowledge=[_known(text)], entities={})

    assert [part.via for part in plan] == ["knowledge"]
    assert plan[0].intent in (Intent.FAQ, Intent.POLICY_INQUIRY, Intent.USAGE_TUTORIAL, Intent.FAULT_DIAGNOSIS)


@pytest.mark.parametrize(
    ("name", "text", "entities"),
    [
        ("cancel_order", "I want to cancel order #D1001", {"order_ids": ["#D1001"]}),
        ("cancel_order", "Could you cancel my order please", {}),
        ("return", "I'd like to return the earbuds I bought last week", {}),
        ("return", "我要退货", {}),
        ("return", "帮我把订单 #D1001 退了", {"order_ids": ["#D1001"]}),
        ("logistics_query", "where is my package?", {}),
        ("logistics_query", "我的快递到哪了", {}),
        ("order_query", "what's the status of #W1234567", {"order_ids": ["#W1234567"]}),
        ("price_query", "How much is the Pad 3?", {"products": ["Pad 3"]}),
    ],
)
def test_a_request_on_own_data_keeps_its_intent_even_when_the_knowledge_base_matches(
    name: str, text: str, entities: dict[str, Any]
) -> None:
    plan = route_plan(intents=[_intent(name, 0.9, text)], knowledge=[_known(text)], entities=entities)

    assert _routes(plan) == [(name, "intent")]


@pytest.mark.parametrize(
    ("name", "text"), [("return", "I'd like to return my earbuds"), ("price_query", "how much is the tablet?")]
)
def test_without_a_knowledge_match_the_classified_intent_stands(name: str, text: str) -> None:
    plan = route_plan(intents=[_intent(name, 0.9, text)], knowledge=[_unknown(text)], entities={})

    assert _routes(plan) == [(name, "intent")]


@pytest.mark.parametrize(
    "text",
    [
        "how long does shipping take?",
        "My husband will pick up the parcel for me, is that ok?",
        "快递可以让别人代收吗？",
    ],
)
def test_a_public_delivery_question_the_knowledge_base_does_not_know_is_a_knowledge_miss_not_a_lookup(
    text: str,
) -> None:
    """Saying the help centre does not know beats asking who the customer is for a question about no order."""
    clause = text.split(",")[0]
    hits = [_unknown(text), _unknown(clause)] if clause != text else [_unknown(text)]

    plan = route_plan(intents=[_intent("logistics_query", 0.9, clause)], knowledge=hits, entities={})

    assert _routes(plan) == [("faq", "knowledge")]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("exchange", "申请换新的话多久能寄过来"),
        ("return", "How long does a refund take after you receive the return?"),
        ("repair", "What does a screen repair cost out of warranty?"),
        ("cancel_order", "退订的话钱多久能退回来"),
    ],
)
def test_a_workflow_question_asking_for_information_the_knowledge_base_does_not_know_is_a_knowledge_miss(
    name: str, text: str
) -> None:
    """ "I couldn't find that" answers a question about how returns work; asking who the customer is does not."""
    plan = route_plan(intents=[_intent(name, 0.9, text)], knowledge=[_unknown(text)], entities={})

    assert _routes(plan) == [("faq", "knowledge")]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("exchange", "Can I exchange the keyboard for the one with clicky switches?"),
        ("return", "能退掉那个耳机吗"),
        ("cancel_order", "Could you cancel it?"),
        ("return", "What do I do to return my order #W2378156?"),
    ],
)
def test_a_request_put_as_a_question_still_starts_its_workflow_when_the_knowledge_base_does_not_know(
    name: str, text: str
) -> None:
    entities = {"order_ids": ["#W2378156"]} if "#W" in text else {}

    plan = route_plan(intents=[_intent(name, 0.9, text)], knowledge=[_unknown(text)], entities=entities)

    assert _routes(plan) == [(name, "intent")]


def test_a_product_the_customer_already_bought_asks_the_help_centre_not_the_catalogue() -> None:
    text = "I bought a Pad 3 last week and now it's cheaper, can I get the difference back?"

    plan = route_plan(
        intents=[_intent("price_query", 0.8, text)], knowledge=[_known(text)], entities={"products": ["Pad 3"]}
    )

    assert _routes(plan) == [("faq", "knowledge")]


def test_unclear_with_nothing_known_plans_nothing_so_the_bot_clarifies() -> None:
    text = "banana telephone"

    plan = route_plan(intents=[_intent("out_of_scope", 0.3, text)], knowledge=[_unknown(text)], entities={})

    assert plan == []


def test_a_low_confidence_human_request_never_escalates_by_itself() -> None:
    text = "Can I transfer CarePlus?"

    unknown = route_plan(intents=[_intent("human_request", 0.2, text)], knowledge=[_unknown(text)], entities={})
    known = route_plan(intents=[_intent("human_request", 0.2, text)], knowledge=[_known(text)], entities={})

    # a question of policy the help centre does not know is its honest miss, not a hand-over
    assert _routes(unknown) == [("faq", "knowledge")]
    assert _routes(known) == [("faq", "knowledge")]


@pytest.mark.parametrize(("confidence", "rule"), [(0.95, True), (0.9, False)])
def test_an_explicit_or_confident_human_request_is_kept(confidence: float, rule: bool) -> None:
    text = "I want to talk to a human"

    plan = route_plan(
        intents=[_intent("human_request", confidence, text)], knowledge=[_known(text)], entities={}, rule_human=rule
    )

    assert _routes(plan) == [("human_request", "intent")]


def test_every_part_of_a_multi_part_message_is_answered() -> None:
    whole = "How much is the Pad 3 and how long does shipping take?"
    price, shipping = "How much is the Pad 3", "how long does shipping take?"

    plan = route_plan(
        intents=[_intent("price_query", 0.95, price), _intent("logistics_query", 0.99, shipping)],
        knowledge=[_known(whole), _known(price, 0.86), _known(shipping)],
        entities={"products": ["Pad 3"]},
    )

    assert _routes(plan) == [("price_query", "intent"), ("faq", "knowledge")]
    assert plan[1].text == shipping


def test_a_clause_the_classifier_set_aside_is_answered_when_the_knowledge_base_knows_it() -> None:
    request, aside = "I want to cancel order #D1001", "also do you ship to Canada"

    plan = route_plan(
        intents=[_intent("cancel_order", 0.99, request)],
        knowledge=[_unknown(f"{request}, {aside}"), _unknown(request), _known(aside)],
        entities={"order_ids": ["#D1001"]},
    )

    assert _routes(plan) == [("cancel_order", "intent"), ("faq", "knowledge")]


@pytest.mark.parametrize(
    ("told", "asked"),
    [
        ("my parcel to France hasn't moved on tracking for over a week", "what now?"),
        ("My parcel says delivered but nothing came", "What should I do?"),
        ("我的快递显示签收了但是我没收到", "怎么办？"),
    ],
)
def test_asking_what_to_do_about_ones_own_parcel_gets_the_procedure_beside_the_lookup(told: str, asked: str) -> None:
    whole = f"{told}. {asked}"

    plan = route_plan(
        intents=[_intent("logistics_query", 0.93, told), _intent("product_recommend", 0.6, asked.rstrip("?？"))],
        knowledge=[_known(whole), _known(told), _unknown(asked.rstrip("?？"))],
        entities={},
    )

    # the order is looked up, the help centre says what happens now; "what should I do" is no product question
    assert _routes(plan) == [("logistics_query", "intent"), ("faq", "knowledge")]
    assert plan[1].text == whole


def test_a_question_set_aside_beside_what_it_is_about_is_answered_with_the_whole_message() -> None:
    whole = "find x9 in green is sold out, how do i get pinged when you get more"
    told, asked = "find x9 in green is sold out", "how do i get pinged when you get more"

    plan = route_plan(
        intents=[_intent("inventory_check", 0.88, told)],
        knowledge=[_known(whole), _unknown(told), _unknown(asked)],
        entities={"products": ["Find X9"], "options": {"color": "green"}},
    )

    assert _routes(plan) == [("inventory_check", "intent"), ("faq", "knowledge")]
    assert plan[1].text == whole


@pytest.mark.parametrize(
    ("told", "asked"),
    [
        ("I want to cancel my order #D1001", "what should I do?"),  # the request's own question
        ("where is my parcel", "when will it get here?"),  # asks what became of it: the lookup answers
    ],
)
def test_no_help_centre_answer_is_added_beside_a_request_or_a_question_about_the_orders_state(
    told: str, asked: str
) -> None:
    whole = f"{told}, {asked}"
    entities = {"order_ids": ["#D1001"]} if "#D1001" in told else {}
    name = "cancel_order" if "cancel" in told else "logistics_query"

    plan = route_plan(
        intents=[_intent(name, 0.95, told)],
        knowledge=[_known(whole), _unknown(told), _unknown(asked)],
        entities=entities,
    )

    assert _routes(plan) == [(name, "intent")]


@pytest.mark.parametrize(
    ("name", "told", "asked"),
    [
        (
            "cancel_order",
            "the first part of my order came a week ago and the earbuds still haven't shipped",
            "Can I just cancel them?",
        ),
        ("return", "I want to return the phone but keep the free power bank that came with it", "is that ok?"),
        (
            "complaint",
            "Was told 9-12 for my delivery and the driver turned up at half two",
            "Do I get anything for that?",
        ),
        ("modify_order", "我想改收货地址，可是订单昨天已经发出去了", "怎么办？"),
        ("return", "我想退手机但是保留赠品充电宝", "可以吗？"),
    ],
)
def test_a_question_beside_a_request_about_no_named_order_gets_the_help_centres_answer_first(
    name: str, told: str, asked: str
) -> None:
    whole = f"{told}. {asked}"

    plan = route_plan(
        intents=[_intent(name, 0.92, told)],
        knowledge=[_known(whole), _known(told), _unknown(asked)],
        entities={},
    )

    # the rule first, then the request, which still asks for what it needs (the identity check, a ticket)
    assert _routes(plan) == [("faq", "knowledge"), (name, "intent")]
    assert plan[0].text == whole


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("can you cancel my order?", {}),  # the request and nothing else
        ("The earbuds of #W2 still haven't shipped. Can I just cancel them?", {"order_ids": ["#W2"]}),
    ],
)
def test_a_bare_request_or_one_about_a_named_order_gets_no_help_centre_answer_beside_it(
    text: str, entities: dict[str, Any]
) -> None:
    request = text.rsplit(". ", 1)[-1].rstrip("?")

    plan = route_plan(
        intents=[_intent("cancel_order", 0.95, request)],
        knowledge=[_known(text), _unknown(request)],
        entities=entities,
    )

    assert _routes(plan) == [("cancel_order", "intent")]


@pytest.mark.parametrize("text", ["battery swap price for find x9?", "screen repair cost for the pad 3?"])
def test_a_one_clause_question_is_a_question_though_its_clause_lost_the_question_mark(text: str) -> None:
    clause = text.rstrip("?")

    plan = route_plan(
        intents=[_intent("exchange", 0.66, clause)],
        knowledge=[_known(text), _known(clause)],
        entities={"products": ["Find X9"]},
    )

    assert _routes(plan) == [("faq", "knowledge")]


@pytest.mark.parametrize(
    ("text", "own"),
    [
        ("where is my order", True),
        ("I ordered a phone last week, when does it come", True),
        ("我的订单怎么还没发货", True),
        # a story told in the first person that asks how the store works is the help centre's
        ("我昨天买的耳机能退吗", False),
        ("my screen cracked on day three, does the accident plan cover it?", False),
        ("how long does delivery take", False),
        ("退货运费谁出", False),
    ],
)
def test_own_data_is_recognised_in_both_languages(text: str, own: bool) -> None:
    assert asks_own_order_state(text, {}) is own


@pytest.mark.parametrize(
    ("text", "public"),
    [
        ("Can I return an opened phone?", True),
        ("是否支持分期付款", True),
        ("Could you cancel it for me?", False),
        ("Please change the address", False),
        ("帮我查一下能不能退", False),
    ],
)
def test_public_questions_are_told_from_requests(text: str, public: bool) -> None:
    assert is_public_question(text, {}) is public


def _request(name: str, text: str) -> Any:
    from agents.route import PlannedPart

    return PlannedPart(Intent(name), text, 0.9, "intent")


def test_requests_in_one_message_are_split_where_another_is_announced() -> None:
    from agents.requests import requests_in_order

    message = (
        "Return the kettle from order #W1234567 please. Also, could I exchange the skateboard for the plastic one? "
        "It's order #W7654321, use my paypal."
    )
    parts = [
        _request("return", "Return the kettle from order #W1234567 please"),
        _request("exchange", "could I exchange the skateboard for the plastic one"),
        _request("return", "It's order #W7654321, use my paypal"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["return"] and now[0].text.startswith("Return the kettle")
    assert [p.intent.value for p in queued] == ["exchange"]
    assert queued[0].text.startswith("Also, could I exchange") and queued[0].text.endswith("use my paypal.")


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        ("Please cancel order #W1234567", [("cancel_order", "Please cancel order #W1234567")]),
        ("请帮我取消订单 #W1234567", [("cancel_order", "请帮我取消订单 #W1234567")]),
        ("What is your return policy?", []),
        ("你们的退货政策是什么？", []),
    ],
)
def test_a_message_with_one_request_or_none_is_answered_whole(message: str, parts: list[tuple[str, str]]) -> None:
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(*part) for part in parts], Reading(message))

    assert queued == [] and [p.text for p in now] == ([message] if parts else [])


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        (
            "订单#W2575533还没发，帮我改一下：E-Reader要32GB的；另外还有Garden Hose帮我改成绿色；另外还有Office Chair换成黑的",
            [
                ("modify_order", "订单#W2575533还没发，帮我改一下：E-Reader要32GB的"),
                ("modify_order", "另外还有Garden Hose帮我改成绿色"),
                ("modify_order", "另外还有Office Chair换成黑的"),
            ],
        ),
        (
            "Please return the kettle from #W1234567. Another thing: return the skateboard too.",
            [
                ("return", "Please return the kettle from #W1234567"),
                ("return", "Another thing: return the skateboard too"),
            ],
        ),
    ],
)
def test_an_orders_items_are_one_request_even_when_each_is_announced(
    message: str, parts: list[tuple[str, str]]
) -> None:
    """An order's items are changed or returned once: the items of one order make one request."""
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(*part) for part in parts], Reading(message))

    assert queued == [] and [p.text for p in now] == [message]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("趁#W1234567没发货，把Earbuds换成白色的。", "第二个是：那个#W7654321，Coffee Maker跟Smart Watch要退"),
        ("趁#W1234567没发货，把Earbuds换成白色的。", "②那个#W7654321，Coffee Maker跟Smart Watch要退"),
        ("While #W1234567 hasn't shipped, make the Earbuds white. ", "Secondly: #W7654321, the Coffee Maker goes back"),
    ],
)
def test_a_request_announced_by_its_number_is_a_request_of_its_own(first: str, second: str) -> None:
    from agents.requests import requests_in_order

    message = first + second
    scene, change = first.split("，" if "，" in first else ", ", 1)
    parts = [
        _request("modify_order", scene),
        _request("modify_order", change.strip()),
        _request("return", second.split("，" if "，" in second else ", ", 1)[1]),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["modify_order", "return"]
    assert "#W7654321" in queued[0].text and "#W7654321" not in now[0].text


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        (
            "修改订单#W1234567：Gaming Mouse换成黑色的，差价用gift_card_1234567。"
            "另一单#W7654321的Running Shoes、Water Bottle都偏小，想退货。",
            [
                ("modify_order", "修改订单#W1234567：Gaming Mouse换成黑色的"),
                ("modify_order", "差价用gift_card_1234567"),
                ("return", "想退货"),
            ],
        ),
        (
            "Please change the Gaming Mouse in #W1234567 to black, charge the difference to gift_card_1234567. "
            "The Running Shoes and the Water Bottle from #W7654321 are too small, I'd like to return them.",
            [
                ("modify_order", "Please change the Gaming Mouse in #W1234567 to black"),
                ("modify_order", "charge the difference to gift_card_1234567"),
                ("return", "I'd like to return them"),
            ],
        ),
    ],
)
def test_a_request_of_its_own_reads_its_whole_sentence(message: str, parts: list[tuple[str, str]]) -> None:
    """The items told at the start of the sentence that asks for the return are the return's, not the change's."""
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(*part) for part in parts], Reading(message))

    assert [p.intent.value for p in now + queued] == ["modify_order", "return"]
    assert "Running Shoes" in queued[0].text and "Running Shoes" not in now[0].text


def test_an_announced_change_of_another_orders_items_is_a_request_of_its_own() -> None:
    from agents.requests import requests_in_order

    message = "Please return the kettle from #W1234567. Another thing: return the skateboard from #W7654321."
    parts = [
        _request("return", "Please return the kettle from #W1234567"),
        _request("return", "Another thing: return the skateboard from #W7654321"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["return", "return"]
    assert "#W7654321" in queued[0].text and "#W7654321" not in now[0].text


@pytest.mark.parametrize(
    ("message", "described"),
    [
        (
            "退货，订单 #W1234567，商品 Desk Lamp。另外Wall Clock（颜色那项黑，尺寸那项12吋的那个）\n退到原信用卡",
            "Wall Clock（颜色那项黑，尺寸那项12吋的那个）",
        ),
        (
            "Returning the desk lamp from #W1234567. Also the wall clock, the black 12 inch one. Refund to my card.",
            "Also the wall clock, the black 12 inch one",
        ),
    ],
)
def test_an_announced_item_that_asks_nothing_is_more_of_the_request_before(message: str, described: str) -> None:
    """Told by its options after "also", an item with no request of its own is one more item to send back."""
    from agents.requests import requests_in_order

    parts = [_request("return", message[: message.find(described)]), _request("modify_order", described)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and [(p.intent.value, p.text) for p in now] == [("return", message)]


@pytest.mark.parametrize(
    ("message", "described", "asked"),
    [
        (
            "#W1234567里那个黑色12吋的Wall Clock；另外Desk Lamp我也想退，钱退回原卡。\n另一件：取消#W7654321",
            "#W1234567里那个黑色12吋的Wall Clock",
            "另外Desk Lamp我也想退",
        ),
        (
            "From #W1234567 the black 12 inch Wall Clock; and also the Desk Lamp, I'd like to return both. "
            "Another thing: cancel #W7654321",
            "From #W1234567 the black 12 inch Wall Clock",
            "and also the Desk Lamp, I'd like to return both",
        ),
    ],
)
def test_an_item_only_described_is_part_of_the_request_that_follows_it(
    message: str, described: str, asked: str
) -> None:
    """The first clause names an item and asks nothing; the next says what to do with it and one more."""
    from agents.requests import requests_in_order

    cancel = message[message.find("取消") if "取消" in message else message.find("cancel") :]
    parts = [_request("modify_order", described), _request("return", asked), _request("cancel_order", cancel)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["return", "cancel_order"]
    assert now[0].text.startswith(message[:6]) and "#W7654321" not in now[0].text


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        (
            "#W7654321还能取消吗？对了还有，#W1234567里那个黑色12吋的Wall Clock，还有Desk Lamp（白色）我想退货",
            ["#W7654321还能取消吗", "#W1234567里那个黑色12吋的Wall Clock", "Desk Lamp（白色）我想退货"],
        ),
        (
            "Can #W7654321 still be cancelled? Oh and also, from #W1234567 the black 12 inch Wall Clock, "
            "and the white Desk Lamp, I want to return those",
            [
                "Can #W7654321 still be cancelled?",
                "from #W1234567 the black 12 inch Wall Clock",
                "the white Desk Lamp, I want to return those",
            ],
        ),
    ],
)
def test_an_item_only_described_after_another_request_is_part_of_the_next(message: str, clauses: list[str]) -> None:
    from agents.requests import requests_in_order

    intents = ["cancel_order", "modify_order", "return"]
    parts = [_request(intent, clause) for intent, clause in zip(intents, clauses, strict=True)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["cancel_order", "return"]
    assert "Wall Clock" in queued[0].text and "Desk Lamp" in queued[0].text


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        (
            "两件事\n- 想退#W1234567的Desk Lamp，钱退回就那张PayPal（paypal_1234567）。\n"
            "- 帮我爸妈下的单#W7654321，他们搬家了，改寄到12 Main Street, Austin, TX 78701",
            ["想退#W1234567的Desk Lamp", "就那张PayPal（paypal_1234567）", "他们搬家了", "改寄到12 Main Street"],
        ),
        (
            "Two things\n- return the Desk Lamp from #W1234567, money back to my PayPal (paypal_1234567).\n"
            "- my parents' order #W7654321, they moved, send it to 12 Main Street, Austin, TX 78701",
            [
                "return the Desk Lamp from #W1234567",
                "money back to my PayPal (paypal_1234567)",
                "they moved",
                "send it to 12 Main Street",
            ],
        ),
    ],
)
def test_a_refund_method_stays_with_its_return_and_a_list_mark_opens_the_next_request(
    message: str, clauses: list[str]
) -> None:
    """The PayPal named after the return is where its money goes, not a payment change; the next line, for
    another order, is a request of its own."""
    from agents.requests import requests_in_order

    intents = ["return", "modify_order", "modify_order", "modify_order"]
    parts = [_request(intent, clause) for intent, clause in zip(intents, clauses, strict=True)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["return", "modify_order"]
    assert "paypal_1234567" in now[0].text and "#W7654321" not in now[0].text
    assert "#W7654321" in queued[0].text and "paypal_1234567" not in queued[0].text


@pytest.mark.parametrize(
    ("message", "sent_back", "instead"),
    [
        (
            "想换货，订单 #W1234567：退一个Makeup Kit，换个基础款的",
            "想换货，订单 #W1234567：退一个Makeup Kit",
            "换个基础款的",
        ),
        (
            "Order #W1234567: send the helmet back, and get me the white one in size S instead",
            "Order #W1234567: send the helmet back",
            "get me the white one in size S instead",
        ),
    ],
)
def test_an_item_sent_back_to_get_another_version_is_exchanged(message: str, sent_back: str, instead: str) -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    parts = [PlannedPart(Intent.RETURN, sent_back, 0.5, "intent"), _request("exchange", instead)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and [(p.intent.value, p.text) for p in now] == [("exchange", message)]


@pytest.mark.parametrize(
    ("message", "sent_back", "described", "instead"),
    [
        (
            "订单 #W1234567：退一个Garden Hose，长度用的50 ft、颜色用的黑的那个，换个新的，配置一模一样",
            "订单 #W1234567：退一个Garden Hose",
            "长度用的50 ft、颜色用的黑的那个",
            "换个新的，配置一模一样",
        ),
        (
            "Order #W1234567: sending back a garden hose, the 50 ft black vinyl one, please get me a new one just the same",
            "Order #W1234567: sending back a garden hose",
            "the 50 ft black vinyl one",
            "please get me a new one just the same",
        ),
    ],
)
def test_an_item_sent_back_and_described_to_get_another_is_exchanged(
    message: str, sent_back: str, described: str, instead: str
) -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    parts = [
        PlannedPart(Intent.RETURN, sent_back, 0.85, "intent"),
        _request("modify_order", described),
        _request("exchange", instead),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and [(p.intent.value, p.text) for p in now] == [("exchange", message)]


@pytest.mark.parametrize(
    ("message", "swap", "difference"),
    [
        (
            "换货，单号#W1234567\n1. Yoga Mat换成TPE的\n2. 差价：账户里那张信用卡",
            "换货，单号#W1234567",
            "2. 差价：账户里那张信用卡",
        ),
        (
            "Exchange on #W1234567:\n1) the yoga mat to the TPE one\n2) for the difference, my PayPal please",
            "Exchange on #W1234567:\n1) the yoga mat to the TPE one",
            "2) for the difference, my PayPal please",
        ),
    ],
)
def test_a_numbered_line_that_says_what_pays_the_difference_is_part_of_the_swap(
    message: str, swap: str, difference: str
) -> None:
    from agents.requests import requests_in_order

    parts = [_request("exchange", swap), _request("modify_order", difference)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and [(p.intent.value, p.text) for p in now] == [("exchange", message)]


def test_a_clause_that_only_continues_a_request_is_not_another_one() -> None:
    from agents.requests import requests_in_order

    message = "我要退货，订单 #D1003 里的 Enco X3 耳机，退到礼品卡"
    parts = [_request("return", "我要退货"), _request("return", "退到礼品卡")]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and now[0].text == message


@pytest.mark.parametrize(
    ("message", "told", "asked", "wanted"),
    [
        (
            "I made a mistake on order #W1234567, can you change the address?",
            ("cancel_order", "I made a mistake on order #W1234567"),
            ("modify_order", "can you change the address"),
            "modify_order",
        ),
        (
            "订单 #W1234567 我下错了，帮我把地址改一下",
            ("cancel_order", "订单 #W1234567 我下错了"),
            ("modify_order", "帮我把地址改一下"),
            "modify_order",
        ),
        (  # an ask that names nothing of its own acts on what the clause before told
            "The address on my order is wrong. Can you fix it? It needs to go to 12 Oak Street, Austin, TX 78701",
            ("modify_order", "The address on my order is wrong"),
            ("repair", "Can you fix it"),
            "modify_order",
        ),
        (
            "I ordered the wrong size on #W1234567, could you sort that out for me?",
            ("modify_order", "I ordered the wrong size on #W1234567"),
            ("repair", "could you sort that out for me"),
            "modify_order",
        ),
        (
            "订单 #W1234567 的收货地址填错了，能帮我处理一下吗？",
            ("modify_order", "订单 #W1234567 的收货地址填错了"),
            ("repair", "能帮我处理一下吗"),
            "modify_order",
        ),
        (  # both ask: the first asked is the request
            "Cancel order #W1234567, can you refund it to my card?",
            ("cancel_order", "Cancel order #W1234567"),
            ("return", "can you refund it to my card"),
            "cancel_order",
        ),
    ],
)
def test_a_clause_that_tells_what_happened_yields_to_the_clause_that_asks(
    message: str, told: tuple[str, str], asked: tuple[str, str], wanted: str
) -> None:
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(*told), _request(*asked)], Reading(message))

    assert [p.intent.value for p in now] == [wanted] and now[0].text == message and queued == []


def test_a_new_address_beside_a_clause_that_sounds_like_a_cancellation_changes_the_address() -> None:
    from agents.requests import requests_in_order

    message = "I'm moving, so I don't want #W1234567 going to my old flat. New address: 12 Oak Street, Austin, TX 78701"
    parts = [
        _request("cancel_order", "I'm moving, so I don't want #W1234567 going to my old flat"),
        _request("modify_order", "New address: 12 Oak Street"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and queued == []


def test_an_item_change_paid_by_a_card_is_its_own_request_after_an_address_change() -> None:
    from agents.requests import requests_in_order

    message = (
        "I need to change where #W1234567 goes: 12 Oak Street, Austin, TX 78701. Still time to change #W1234567? "
        "Just the kettle, currently white, I'd rather have the black color; my visa for any difference."
    )
    parts = [
        _request("modify_order", "I need to change where #W1234567 goes"),
        _request("modify_order", "Still time to change #W1234567"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and "12 Oak Street" in now[0].text
    assert [p.intent.value for p in queued] == ["modify_order"] and queued[0].text.startswith("Still time")


def test_a_request_of_another_kind_for_another_order_is_its_own_even_unannounced() -> None:
    from agents.requests import requests_in_order

    message = (
        "Order #W1234567 hasn't shipped, I need to change the kettle to the 2L one. "
        "Sending back the lamp and the mug from #W7654321, refund to my gift card please."
    )
    parts = [
        _request("modify_order", "I need to change the kettle to the 2L one"),
        _request("return", "Sending back the lamp and the mug from #W7654321"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and "#W7654321" not in now[0].text
    assert [p.intent.value for p in queued] == ["return"] and queued[0].text.startswith("Sending back")


def test_a_payment_change_then_an_item_change_said_by_the_way_are_two_requests() -> None:
    from agents.requests import requests_in_order

    message = (
        "Payment update for #W1234567: use my PayPal, the one saved as paypal_1234 please. By the way, can I "
        "still change the kettle in #W1234567 to the white color?"
    )
    parts = [
        _request("modify_order", "Payment update for #W1234567: use my PayPal"),
        _request("modify_order", "can I still change the kettle in #W1234567 to the white color"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and now[0].text.endswith("please.")
    assert [p.intent.value for p in queued] == ["modify_order"] and queued[0].text.startswith("By the way")


def test_an_exchange_for_a_delivered_order_changes_no_delivery() -> None:
    from agents.requests import requests_in_order

    message = "Exchange for delivered order #W1234567: the Vacuum Cleaner, I want the bagless one."
    parts = [
        _request("exchange", "Exchange for delivered order #W1234567: the Vacuum Cleaner"),
        _request("exchange", "I want the bagless one"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["exchange"] and now[0].text == message and queued == []


def test_two_clauses_after_one_announcement_are_one_request_never_an_empty_one() -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    message = (
        "First: cancel order #W3260419, I no longer need it. Second: Before #W6883544 goes out, can you switch the "
        "Backpack, I want the one with black for the color instead?"
    )
    parts = [
        _request("cancel_order", "First: cancel order #W3260419, I no longer need it"),
        PlannedPart(Intent.CANCEL_ORDER, "Second: Before #W6883544 goes out", 0.57, "intent"),
        PlannedPart(Intent.EXCHANGE, "I want the one with black for the color instead", 0.71, "intent"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["cancel_order"]
    assert [(p.intent.value, p.text[:31]) for p in queued] == [("exchange", "Second: Before #W6883544 goes o")]


def test_after_one_announcement_the_clause_that_asks_the_store_is_the_request() -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    message = (
        "Please return the Tea Kettle from #W1748126 to my gift card. Then, second thing, the Tablet I got in "
        "#W1326557 isn't what I hoped, can it be exchanged?"
    )
    parts = [
        _request("return", "Please return the Tea Kettle from #W1748126 to my gift card"),
        PlannedPart(Intent.RETURN, "the Tablet I got in #W1326557 isn't what I hoped", 0.38, "intent"),
        PlannedPart(Intent.EXCHANGE, "can it be exchanged", 0.36, "intent"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["return"]
    assert [p.intent.value for p in queued] == ["exchange"]


@pytest.mark.parametrize(
    "message",
    [
        "The address on #W6554908 is my old one, sorry. The right one is 111 Sunset Drive, San Diego, CA 92179 USA.",
        "#W6554908 的地址是旧的那个。新的是：上海市浦东新区世纪大道100号",
    ],
)
def test_an_address_called_the_old_one_and_then_given_is_one_request(message: str) -> None:
    from agents.requests import requests_in_order

    told, given = re.split(r"(?<=[.。])\s*", message, maxsplit=1)
    parts = [_request("modify_order", told.rstrip(".。")), _request("modify_order", given.rstrip(".。"))]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and queued == [] and now[0].text == message


def test_a_payment_change_announced_before_an_exchange_worded_item_change_is_its_own_request() -> None:
    from agents.requests import requests_in_order

    message = (
        "First: for my pending order I'd like credit_card_7898168 to be the payment method. Second: Order "
        "#W3746173 - change the Makeup Kit, the medium one, I want the exact same item again"
    )
    parts = [
        _request("modify_order", "First: for my pending order I'd like credit_card_7898168"),
        _request("exchange", "I want the exact same item again"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and now[0].text.endswith("payment method.")
    assert [p.intent.value for p in queued] == ["exchange"] and queued[0].text.startswith("Second: Order")


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        pytest.param(  # the order is named after every "plus": they all belong to the first request
            "i want return the Backpack (the small navy one) plus Digital Camera plus Water Bottle, order is "
            "#W8951014, refund please to my gift card",
            [
                ("return", "i want return the Backpack (the small navy one) plus Digital Camera"),
                ("return", "refund please to my gift card"),
            ],
            id="items-listed-with-plus-before-the-order",
        ),
        pytest.param(
            "Order #W8668939, I'm returning the Grill (medium) plus Water Bottle in black, refund gift_card_1994993",
            [("return", "Order #W8668939, I'm returning the Grill (medium)"), ("return", "refund gift_card_1994993")],
            id="more-items-of-a-return-after-its-order",
        ),
        pytest.param(  # the gift card pays the item change's difference
            "In #W3746173, please make it the Makeup Kit in Brand C, rest unchanged; use my gift card, "
            "gift_card_5683713.",
            [
                ("modify_order", "In #W3746173, please make it the Makeup Kit in Brand C"),
                ("modify_order", "rest unchanged"),
            ],
            id="a-method-named-after-an-item-change",
        ),
        pytest.param(
            "Could you replace the Bluetooth Speaker (black) into one that is blue; also Mechanical Keyboard, the "
            "clicky one -> the variant with linear for the switch type? Order #W3864587. the PayPal for any "
            "difference.",
            [
                ("exchange", "Could you replace the Bluetooth Speaker (black) into one that is blue"),
                (
                    "modify_order",
                    "also Mechanical Keyboard, the clicky one -> the variant with linear for the switch type",
                ),
            ],
            id="more-items-of-one-change-before-the-order",
        ),
        pytest.param(  # "charge or refund" the card: the difference of the exchange, no payment change
            "Exchange on #W2002395: the Garden Hose, replacing it with exactly 100ft as length & my Smart Thermostat "
            "- I'd like the same compatibility but stainless steel. Please charge or refund gift card, id "
            "gift_card_6117300.",
            [
                ("exchange", "Exchange on #W2002395: the Garden Hose, replacing it with exactly 100ft as length"),
                ("exchange", "my Smart Thermostat - I'd like the same compatibility but stainless steel"),
            ],
            id="charge-or-refund-pays-the-difference",
        ),
        pytest.param(  # texting: "pay diff w/" the card is the item change's difference too
            "order #W8296441 not shipped yet right? want to switch Gaming Mouse that I got in optical, RGB, wired ==> "
            "identical except black, pay diff w/ gift card number gift_card_5701566",
            [
                ("modify_order", "want to switch Gaming Mouse that I got in optical"),
                ("modify_order", "RGB, wired ==> identical except black"),
                ("modify_order", "pay diff w/ gift card number gift_card_5701566"),
            ],
            id="pay-diff-pays-the-difference",
        ),
    ],
)
def test_clauses_that_continue_a_request_make_one_request(message: str, clauses: list[tuple[str, str]]) -> None:
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(name, text) for name, text in clauses], Reading(message))

    assert queued == [] and [p.text for p in now] == [message]


def test_an_item_change_waits_for_the_other_changes_of_its_order() -> None:
    from agents.requests import requests_in_order

    message = "Please change the mouse in order #W1234567 to the wireless one. Also ship order #W1234567 to 1 Main St, Austin TX 78701"
    parts = [
        _request("modify_order", "Please change the mouse in order #W1234567 to the wireless one"),
        _request("modify_order", "Also ship order #W1234567 to 1 Main St"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert "ship order #W1234567" in now[0].text and "mouse" in queued[0].text


@pytest.mark.parametrize(
    "message",
    [
        "I gave the wrong address for #W2040365. The correct one is 377 River Road Suite 307 Chicago IL 60644 USA.",
        "The address on #W2040365 is wrong; the right one: 12 Oak Lane, Austin, TX 78701, USA",
    ],
)
def test_the_address_that_follows_an_address_change_belongs_to_it(message: str) -> None:
    from agents.requests import requests_in_order

    first, second = re.split(r"(?<=[.;]) ", message, maxsplit=1)
    parts = [_request("modify_order", first.rstrip(".;")), _request("modify_order", second)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and [p.text for p in now] == [message]


@pytest.mark.parametrize(
    ("message", "payment", "items"),
    [
        (
            "I have two things. Put #W2273069 on my PayPal instead please. And hi! Still time to edit #W2273069? "
            "Want to change my Smart Watch for the leather one",
            "Put #W2273069 on my PayPal instead please",
            "Still time to edit #W2273069? Want to change my Smart Watch for the leather one",
        ),
        (
            "I want to change the payment method on my pending order. And I need to change an item in an order "
            "that hasn't shipped.",
            "I want to change the payment method on my pending order",
            "I need to change an item in an order that hasn't shipped",
        ),
        ("我要把订单改成用礼品卡支付，另外把耳机换成白色的", "我要把订单改成用礼品卡支付", "另外把耳机换成白色的"),
        (
            "payment for #W3746173 -> credit_card_7898168, my credit card. Plus: in #W3746173, please make the "
            "Makeup Kit a Brand C one, rest unchanged",
            "payment for #W3746173 -> credit_card_7898168, my credit card",
            "in #W3746173, please make the Makeup Kit a Brand C one, rest unchanged",
        ),
    ],
)
def test_a_payment_change_beside_an_item_change_is_its_own_request_and_goes_first(
    message: str, payment: str, items: str
) -> None:
    from agents.requests import requests_in_order

    parts = [_request("modify_order", items), _request("modify_order", payment)]
    now, queued = requests_in_order(message, sorted(parts, key=lambda p: message.find(p.text)), Reading(message))

    assert len(now) == 1 and len(queued) == 1
    assert payment in now[0].text and items not in now[0].text
    assert items in queued[0].text


@pytest.mark.parametrize(
    ("name", "text", "entities"),
    [
        ("cancel_order", "Can you kill order W7425646?", {"order_ids": ["#W7425646"]}),
        ("exchange", "I'd like the mat on #W7425646 to be the blue one", {"order_ids": ["#W7425646"]}),
        ("modify_order", "我的订单 #D1001 能不能换个地方送", {"order_ids": ["#D1001"]}),
    ],
)
def test_an_unsure_request_on_a_named_order_goes_ahead(name: str, text: str, entities: dict[str, Any]) -> None:
    # The workflow asks for what it needs and writes nothing without a yes: no clarifying detour.
    plan = route_plan(intents=[_intent(name, 0.3, text)], knowledge=[_unknown(text)], entities=entities)

    assert _routes(plan) == [(name, "intent")]


def test_an_unsure_request_without_an_order_is_still_clarified() -> None:
    text = "I changed my mind about it"

    plan = route_plan(intents=[_intent("cancel_order", 0.3, text)], knowledge=[_unknown(text)], entities={})

    assert plan == []


def test_a_bare_order_id_asks_about_that_order() -> None:
    plan = route_plan(
        intents=[_intent("out_of_scope", 0.3, "W7425646")],
        knowledge=[_unknown("W7425646")],
        entities={"order_ids": ["#W7425646"]},
    )

    assert _routes(plan) == [("order_query", "intent")]


OFFERED: list[tuple[str, tuple[str, ...]]] = [
    ("cancel_order", ("Cancel an order", "取消订单")),
    ("modify_order", ("Change an order", "修改订单")),
    ("human_request", ("Talk to a person", "转人工")),
]


@pytest.mark.parametrize(
    ("answer", "picked"),
    [
        ("Change an order", "modify_order"),
        ("修改订单", "modify_order"),
        ("I'd like to talk to a person", "human_request"),
        ("the second one", "modify_order"),
        ("3", "human_request"),
        ("第一个", "cancel_order"),
        ("yes", "cancel_order"),
        ("是的", "cancel_order"),
        ("no", None),
        ("what are your opening hours?", None),
    ],
)
def test_the_answer_to_a_clarifying_question_picks_an_offered_intent(answer: str, picked: str | None) -> None:
    assert clarify_picked(answer, Reading(answer).whole, OFFERED) == picked


@pytest.mark.parametrize("text", ["Any cost can go on my card.", "any difference on my paypal"])
def test_a_sentence_starting_with_any_is_not_a_question_without_a_question_mark(text: str) -> None:
    assert not is_public_question(text, {})


@pytest.mark.parametrize(
    ("text", "entities", "needs_data"),
    [
        ("where is my order?", {}, True),
        ("when will my parcel arrive?", {}, True),
        ("has my package shipped yet", {}, True),
        ("my order still hasn't come", {}, True),
        ("what's the status of my order?", {}, True),
        ("how long does it take for #W1234567?", {"order_ids": ["#W1234567"]}, True),
        ("check my order please", {}, True),
        ("我的快递到哪了", {}, True),
        ("我的订单什么时候到？", {}, True),
        ("how long will the shop keep my order?", {}, False),
        ("can my neighbour collect my parcel for me?", {}, False),
        ("what happens if my package is damaged in transit?", {}, False),
        ("how long does shipping take?", {}, False),
        ("我的订单可以让别人代取吗？", {}, False),
        ("我的包裹能在门店保留几天？", {}, False),
    ],
)
def test_an_order_question_needs_the_customers_data_only_when_it_asks_about_their_own_order(
    text: str, entities: dict[str, Any], needs_data: bool
) -> None:
    assert asks_own_order_state(text, entities) is needs_data
    plan = route_plan(intents=[_intent("logistics_query", 0.9, text)], knowledge=[_known(text)], entities=entities)
    assert [part.via for part in plan] == ["intent" if needs_data else "knowledge"]


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        (
            "I got my phone with the student discount, am I covered if the price goes down?",
            ["I got my phone with the student discount", "am I covered if the price goes down"],
        ),
        ("can I pick my order up in a shop? is there a fee", ["can I pick my order up in a shop", "is there a fee"]),
        ("我用学生优惠买的手机，降价了能保价吗", ["我用学生优惠买的手机", "降价了能保价吗"]),
    ],
)
def test_clauses_that_only_make_sense_together_are_answered_as_one_question(message: str, clauses: list[str]) -> None:
    plan = route_plan(
        intents=[_intent("faq", 0.8, clause) for clause in clauses],
        knowledge=[_known(message), *(_known(clause) for clause in clauses)],
        entities={},
    )

    assert [(part.text, part.via) for part in plan] == [(message, "knowledge")]


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        ("x9换个电池要多久，能当天拿走吗", ["x9换个电池要多久", "能当天拿走吗"]),
        (
            "How long does a battery swap take? Can I wait in the shop for it?",
            ["How long does a battery swap take?", "Can I wait in the shop for it?"],
        ),
    ],
)
def test_a_question_that_finds_nothing_alone_is_answered_with_the_rest_of_the_message(
    message: str, clauses: list[str]
) -> None:
    plan = route_plan(
        intents=[_intent("faq", 0.8, clause) for clause in clauses],
        knowledge=[_known(message), _known(clauses[0]), _unknown(clauses[1])],
        entities={},
    )

    assert [(part.text, part.via) for part in plan] == [(message, "knowledge")]


def test_questions_that_stand_alone_keep_their_own_answers() -> None:
    message = "How long is the warranty, and do you ship to Hong Kong?"
    clauses = ["How long is the warranty", "do you ship to Hong Kong?"]

    plan = route_plan(
        intents=[_intent("faq", 0.8, clause) for clause in clauses],
        knowledge=[_known(message), *(_known(clause) for clause in clauses)],
        entities={},
    )

    assert [part.text for part in plan] == clauses


def _passage(text: str, passage: str, similarity: float = 0.9) -> KnowledgeHit:
    return KnowledgeHit(
        text=text, matched=True, similarity=similarity, document="help/x.md", chunk_id=3, passage=passage
    )


@pytest.mark.parametrize(
    ("text", "passage"),
    [
        ("How much is a grade B Find X9 renewed?", "Certified Renewed phones › Prices: Grade B Find X9 ¥2,899"),
        ("Find X9分24期的话每个月还多少钱", "信用卡分期付款 › 期数与手续费: Find X9：12 期免息；24 期需要手续费"),
    ],
)
def test_a_product_question_about_what_the_catalogue_does_not_hold_is_answered_from_the_passage(
    text: str, passage: str
) -> None:
    plan = route_plan(
        intents=[_intent("price_query", 0.9, text)],
        knowledge=[_passage(text, passage)],
        entities={"products": ["Find X9"]},
    )

    assert _routes(plan) == [("faq", "knowledge")]


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("How much is the Find X9?", {}),
        ("Find X9 黑色多少钱", {"color": "黑色"}),
        ("is the black Find X9 in stock", {"color": "black"}),
    ],
)
def test_a_product_question_the_catalogue_answers_stays_with_the_catalogue(text: str, options: dict[str, str]) -> None:
    # The passage shares the product's name, its colour and price words: none of that is beyond the catalogue.
    passage = "Student discount › Prices: a black Find X9 at ¥3,999 costs ¥3,699, 黑色 Find X9 售价 3999 元, in stock"
    plan = route_plan(
        intents=[_intent("price_query", 0.9, text)],
        knowledge=[_passage(text, passage)],
        entities={"products": ["Find X9"], "options": options},
    )

    assert _routes(plan) == [("price_query", "intent")]


@pytest.mark.parametrize("text", ["召回有没有补偿啊", "is there any compensation for the recall"])
def test_an_unsure_complaint_yields_to_what_the_knowledge_base_knows(text: str) -> None:
    plan = route_plan(intents=[_intent("complaint", 0.33, text)], knowledge=[_known(text)], entities={})

    assert _routes(plan) == [("faq", "knowledge")]


def test_a_sure_complaint_keeps_its_specialist() -> None:
    text = "this is the third time my parcel is late, I'm furious"
    plan = route_plan(intents=[_intent("complaint", 0.9, text)], knowledge=[_known(text)], entities={})

    assert _routes(plan) == [("complaint", "intent")]


@pytest.mark.parametrize(
    "text",
    [
        "申请换新的话多久能寄过来",
        "If I want to return it, how long do I have?",
        "要是我想退货，运费谁出",
        "if I return something from abroad do I get back the customs tax I paid?",
        "如果我买的手机降价了，能退差价吗",
        # what the customer tells of their own purchase is the story around a policy question
        "I paid customs on my order, if I return it do I get that back?",
    ],
)
def test_a_request_inside_a_condition_is_a_public_question(text: str) -> None:
    assert is_public_question(text, {})


@pytest.mark.parametrize(
    "text",
    [
        "如果可以的话帮我取消订单",
        "I want to return it, how long do I have?",
    ],
)
def test_a_request_beside_a_condition_stays_a_request(text: str) -> None:
    assert not is_public_question(text, {})


@pytest.mark.parametrize(
    ("message", "statement", "question"),
    [
        (
            "I bought a renewed Pad 3 ten days ago and I don't like it. Can I still send it back?",
            "I bought a renewed Pad 3 ten days ago and I don't like it",
            "Can I still send it back?",
        ),
        ("我分了24期，现在整单退货。之前扣的手续费能退吗", "现在整单退货", "之前扣的手续费能退吗"),
    ],
)
def test_the_one_question_beside_a_request_is_searched_with_the_whole_message_when_that_finds_closer(
    message: str, statement: str, question: str
) -> None:
    intents = [_intent("return", 0.9, statement), _intent("policy_inquiry", 0.8, question)]
    closer = [_known(message, 0.93), _unknown(statement), _known(question, 0.90)]
    farther = [_known(message, 0.85), _unknown(statement), _known(question, 0.90)]

    in_context = route_plan(intents=intents, knowledge=closer, entities={})
    alone = route_plan(intents=intents, knowledge=farther, entities={})

    assert [(p.intent.value, p.text) for p in in_context] == [("return", statement), ("policy_inquiry", message)]
    assert [(p.intent.value, p.text) for p in alone] == [("return", statement), ("policy_inquiry", question)]


def test_two_questions_of_their_own_keep_their_own_answers_beside_a_request() -> None:
    message = "Cancel my order. How long is the warranty? Do you ship to Macau?"
    parts = ["Cancel my order.", "How long is the warranty?", "Do you ship to Macau?"]
    intents = [_intent("cancel_order", 0.9, parts[0]), _intent("faq", 0.8, parts[1]), _intent("faq", 0.8, parts[2])]
    knowledge = [_known(message, 0.95), _unknown(parts[0]), _known(parts[1], 0.9), _known(parts[2], 0.9)]

    plan = route_plan(intents=intents, knowledge=knowledge, entities={})

    assert [p.text for p in plan] == parts


def test_what_pays_the_difference_of_an_item_change_is_no_payment_change_of_its_own() -> None:
    from agents.requests import requests_in_order

    message = "Change the helmet in #W1234567 to the L one. Charge the difference to my PayPal paypal_1"
    parts = [
        _request("modify_order", "Change the helmet in #W1234567 to the L one"),
        _request("modify_order", "Charge the difference to my PayPal paypal_1"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and now[0].text == message


def test_a_request_that_says_what_it_changes_after_its_clause_is_read_to_the_end() -> None:
    from agents.requests import requests_in_order

    message = (
        "put #W2273069 on my PayPal instead please. And hi! Still time to edit #W2273069? "
        "Want to change my Smart Watch for the leather one"
    )
    parts = [
        _request("modify_order", "put #W2273069 on my PayPal instead please"),
        _request("modify_order", "Still time to edit #W2273069"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert "PayPal" in now[0].text and "Smart Watch" not in now[0].text
    assert "Smart Watch" in queued[0].text


def test_an_announced_request_of_another_kind_is_its_own_before_any_order_is_named() -> None:
    from agents.requests import requests_in_order

    message = (
        "Exchange please: the Perfume so it's the 100ml woody one. Another thing: how do I return something? "
        "It's the Smartphone from #W3155037"
    )
    parts = [
        _request("exchange", "Exchange please: the Perfume so it's the 100ml woody one"),
        _request("return", "how do I return something"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert "Smartphone" not in now[0].text and "Smartphone" in queued[0].text


def test_a_request_and_what_follows_from_it_stay_one() -> None:
    from agents.requests import requests_in_order

    message = "cancel my order and refund me"
    parts = [_request("cancel_order", "cancel my order"), _request("return", "refund me")]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == []


def test_more_items_of_the_same_change_stay_one_request() -> None:
    from agents.requests import requests_in_order

    message = (
        "Order #W2575533 (still pending): change the E-Reader → the 32GB one and also the Portable Charger "
        "over to an identical one and also my Garden Hose → the green one."
    )
    parts = [
        _request("modify_order", "Order #W2575533 (still pending): change the E-Reader → the 32GB one"),
        _request("modify_order", "also the Portable Charger over to an identical one"),
        _request("modify_order", "also my Garden Hose → the green one"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and now[0].text == message


@pytest.mark.parametrize(
    "message",
    [
        # "was delivered" tells how far the order got: it asks for no change of the delivery address
        "My order #W2421430 was delivered, but I need to trade my Fleece Jacket that came with size, which is S "
        "=> one with size, which is XL, the Yoga Mat, in exchange for one with thickness => 5mm",
        "我的订单 #W2421430 已经签收了，夹克换成 XL 的，瑜伽垫换成 5mm 的",
    ],
)
def test_clauses_of_one_exchange_stay_one_request(message: str) -> None:
    from agents.requests import requests_in_order

    cut = message.index("=> one") if "=>" in message else message.index("瑜伽垫")
    parts = [_request("exchange", message[:cut].rstrip("，, ")), _request("exchange", message[cut:])]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert queued == [] and now[0].text == message


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        # the request's own words, ending its question: no spec table
        ("the one with the water resistance yes + the color black (would like 20 hours) on W6729841?", False),
        ("get these options: the battery life 20 hours", False),
        ("颜色要黑色的", False),
        # a question of its own beside the request
        ("how much is the Find X9?", True),
        ("Find X9 多少钱", True),
    ],
)
def test_a_store_query_beside_an_item_change_counts_only_when_it_asks_itself(query: str, kept: bool) -> None:
    request = "Can I still change the Bluetooth Speaker"

    plan = route_plan(
        intents=[_intent("modify_order", 0.8, request), _intent("params_query", 0.6, query)],
        knowledge=[],
        entities={"order_ids": ["#W6729841"]},
    )

    assert ("params_query" in [part.intent.value for part in plan]) is kept


@pytest.mark.parametrize(
    ("message", "clauses", "second"),
    [
        # announced in other words: "on top of that", "PS", "while you're at it"
        (
            "i want pay my order #W3657213 by credit card, id credit_card_9753331, not the other one. On top of that, "
            "I picked the wrong option on my order #W3657213: change the Camera to the 30MP one",
            [
                ("modify_order", "i want pay my order #W3657213 by credit card, id credit_card_9753331"),
                ("modify_order", "I picked the wrong option on my order #W3657213"),
            ],
            "On top of that",
        ),
        (
            "can I switch the payment on #W8955613 to credit_card_6044108? PS: Can I still change the Backpack to "
            "the small one",
            [
                ("modify_order", "can I switch the payment on #W8955613 to credit_card_6044108"),
                ("modify_order", "PS: Can I still change the Backpack to the small one"),
            ],
            "PS:",
        ),
        # a request put as an imperative, naming its own order
        (
            "Could you modify the Digital Camera in #W8645374? return #W7293142 Wireless Earbuds, refund gift_card_1",
            [
                ("modify_order", "Could you modify the Digital Camera in #W8645374"),
                ("return", "return #W7293142 Wireless Earbuds, refund gift_card_1"),
            ],
            "return #W7293142",
        ),
        # the second point of a numbered list, whatever the kinds of the two
        (
            "(1) Before #W1234567 ships, could I swap the Wristwatch for the same one again? Use gift_card_1234567 for "
            "any difference. (2) Can I get a refund for the Cycling Helmet, and then the Cycling Helmet w/ the size -> "
            "S? They came in #W7654321.",
            [
                ("exchange", "could I swap the Wristwatch for the same one again"),
                ("modify_order", "Use gift_card_1234567 for any difference"),
                ("return", "(2) Can I get a refund for the Cycling Helmet"),
                ("exchange", "the Cycling Helmet w/ the size -> S"),
            ],
            "(2)",
        ),
        (
            "1、订单 #W1234567 的手表换成同款新的 2、订单 #W7654321 的头盔退货",
            [("exchange", "订单 #W1234567 的手表换成同款新的"), ("return", "订单 #W7654321 的头盔退货")],
            "2、",
        ),
    ],
)
def test_a_second_request_is_told_by_how_customers_announce_it(
    message: str, clauses: list[tuple[str, str]], second: str
) -> None:
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request(name, text) for name, text in clauses], Reading(message))

    assert len(queued) == 1 and queued[0].text.startswith(second)


@pytest.mark.parametrize(
    "announcement", ["Separate thing:", "While I'm here:", "One other thing -", "While you're in there,"]
)
def test_a_request_announced_as_a_separate_thing_is_its_own(announcement: str) -> None:
    from agents.requests import requests_in_order

    message = (
        f"Can we move #W1234567 onto paypal_1234567? {announcement} on my unshipped order #W1234567 I'd like "
        "the Air Purifier swapped for the quiet one."
    )
    parts = [
        _request("modify_order", "Can we move #W1234567 onto paypal_1234567"),
        _request("modify_order", "on my unshipped order #W1234567 I'd like the Air Purifier"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert now[0].text.endswith("paypal_1234567?") and queued[0].text.startswith(announcement)


def test_what_pays_for_an_exchange_stays_with_it_when_another_request_follows() -> None:
    from agents.requests import requests_in_order

    message = (
        "First: please exchange the keyboard from #W1234567 for the linear one, I'll settle up with paypal_1234567. "
        "Second: need an exchange. Order #W7654321."
    )
    parts = [
        _request("exchange", "First: please exchange the keyboard from #W1234567 for the linear one"),
        _request("modify_order", "I'll settle up with paypal_1234567"),
        _request("exchange", "Second: need an exchange"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["exchange"] and "paypal_1234567" in now[0].text
    assert [p.intent.value for p in queued] == ["exchange"] and queued[0].text.startswith("Second")


@pytest.mark.parametrize(
    ("message", "told", "asked"),
    [
        (
            "The Garden Hose from #W1234567 is not what I wanted. Can I exchange?",
            "The Garden Hose from #W1234567 is not what I wanted",
            "Can I exchange",
        ),
        ("#W1234567 的水管不是我想要的，可以换货吗？", "#W1234567 的水管不是我想要的", "可以换货吗"),
    ],
)
def test_asking_leave_to_exchange_after_telling_what_went_wrong_is_an_exchange(
    message: str, told: str, asked: str
) -> None:
    from agents.requests import requests_in_order

    now, queued = requests_in_order(message, [_request("return", told), _request("exchange", asked)], Reading(message))

    assert [p.intent.value for p in now] == ["exchange"] and queued == []


@pytest.mark.parametrize(
    ("change", "more"),
    [
        ("modify #W1234567: Digital Camera that's SD card 24MP 3x", "make it identical except 30MP"),
        ("把 #W1234567 的相机改一下，SD卡 24MP 那款", "换成 30MP 的"),
    ],
)
def test_a_memory_card_among_an_items_options_is_no_payment(change: str, more: str) -> None:
    from agents.requests import requests_in_order

    message = (
        f"Please pay #W1234567 with credit_card_1234567 instead. Also, {change}, {more}. Difference to paypal_7654321."
    )
    parts = [
        _request("modify_order", "Please pay #W1234567 with credit_card_1234567 instead"),
        _request("modify_order", change),
        _request("exchange", more),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert "credit_card_1234567" in now[0].text and len(queued) == 1
    assert change in queued[0].text and queued[0].text.endswith("paypal_7654321.")


def test_a_payment_change_for_one_of_the_orders_then_an_item_change_are_two_requests() -> None:
    from agents.requests import requests_in_order

    message = (
        "I'd like to change how I'm paying for one of my orders. While I'm here: on my unshipped order #W1234567 "
        "I'd like the Backpack ==> whichever has size in large. Any extra can go on gift_card_1234567."
    )
    parts = [
        _request("modify_order", "I'd like to change how I'm paying for one of my orders"),
        _request("exchange", "While I'm here: on my unshipped order #W1234567 I'd like the Backpack ==> whichever"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert now[0].text == "I'd like to change how I'm paying for one of my orders."
    assert [p.intent.value for p in queued] == ["exchange"] and queued[0].text.startswith("While I'm here")


def test_an_item_change_waits_for_a_change_that_names_no_order() -> None:
    from agents.requests import requests_in_order

    message = (
        "Please swap the Backpack on #W1234567 for the green one. Also, I'd like to change how I pay for one of "
        "my orders."
    )
    parts = [
        _request("modify_order", "Please swap the Backpack on #W1234567 for the green one"),
        _request("modify_order", "I'd like to change how I pay for one of my orders"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert "change how I pay" in now[0].text and queued[0].text.startswith("Please swap the Backpack")


@pytest.mark.parametrize(
    ("message", "described", "asked"),
    [
        (
            "Right, so the Smart Thermostat, the one with white as its color; and also the Makeup Kit from #W1234567 "
            "aren't what I hoped. Returning them, refund to gift_card_1234567.",
            "the one with white as its color",
            "Returning them",
        ),
        (
            "那个白色款的智能温控器，还有 #W1234567 里的化妆套装都不理想。我要退货，退到礼品卡。",
            "那个白色款的智能温控器",
            "我要退货",
        ),
    ],
)
def test_an_unsure_clause_that_only_describes_an_item_is_no_request_of_its_own(
    message: str, described: str, asked: str
) -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    parts = [PlannedPart(Intent.EXCHANGE, described, 0.54, "intent"), PlannedPart(Intent.RETURN, asked, 0.98, "intent")]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["return"] and now[0].text == message and queued == []


@pytest.mark.parametrize(
    ("told", "asked"),
    [
        ("which has not been dispatched: the Bluetooth Speaker", False),
        ("which is cheaper", True),
        ("还没发货的那个订单", False),
        ("发货了吗", True),
    ],
)
def test_a_clause_that_tells_of_an_order_beside_a_request_is_no_question(told: str, asked: bool) -> None:
    request = "I wish to alter an item on order #W1234567"

    plan = route_plan(
        intents=[_intent("modify_order", 0.9, request), _intent("logistics_query", 0.8, told)],
        knowledge=[_unknown(request), _unknown(told)],
        entities={"order_ids": ["#W1234567"]},
    )

    assert (("logistics_query", "intent") in _routes(plan)) is asked


@pytest.mark.parametrize(
    ("message", "first", "later"),
    [
        # an unsure clause that does not ask, beside a sure request of another kind, lists more of it
        (
            "I want to return the Dumbbell Set; and also Makeup Kit from #W1234567; refund to credit_card_1234567.",
            ("return", "I want to return the Dumbbell Set", 0.99),
            ("modify_order", "Makeup Kit from #W1234567", 0.35),
        ),
        # so does a guess too unsure to act on, said after an unsure request
        (
            "Hello, I want to modify the Garden Hose. Also Hiking Boots on my order #W1234567 while it's not sent yet.",
            ("modify_order", "I want to modify the Garden Hose", 0.64),
            ("cancel_order", "Hiking Boots on my order #W1234567 while it's not sent yet", 0.3),
        ),
        (
            "我想改一下花园水管。还有登山鞋，订单#W1234567还没发货。",
            ("modify_order", "我想改一下花园水管", 0.64),
            ("cancel_order", "登山鞋，订单#W1234567还没发货", 0.3),
        ),
        # the refund of the payment an order is moved off is part of the payment change
        (
            "订单 #W1234567 改用礼品卡支付，原来的卡退款",
            ("modify_order", "订单 #W1234567 改用礼品卡支付", 0.99),
            ("return", "原来的卡退款", 0.9),
        ),
        (
            "Please put #W1234567 on my paypal. The old card refunded, obviously.",
            ("modify_order", "Please put #W1234567 on my paypal", 0.99),
            ("return", "The old card refunded, obviously.", 0.9),
        ),
    ],
)
def test_a_later_clause_that_belongs_to_the_first_request_is_no_request_of_its_own(
    message: str, first: tuple[str, str, float], later: tuple[str, str, float]
) -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    parts = [PlannedPart(Intent(name), text, confidence, "intent") for name, text, confidence in (first, later)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == [first[0]] and now[0].text == message and queued == []


def test_an_unsure_request_that_asks_after_another_stays_its_own() -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    message = "I want to modify the Garden Hose in #W1234567. Also, could you cancel #W7654321?"
    parts = [
        PlannedPart(Intent.MODIFY_ORDER, "I want to modify the Garden Hose in #W1234567", 0.64, "intent"),
        PlannedPart(Intent.CANCEL_ORDER, "could you cancel #W7654321?", 0.3, "intent"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now] == ["modify_order"] and [p.intent.value for p in queued] == ["cancel_order"]


def test_an_unsure_request_about_a_named_order_goes_to_the_workflow_not_the_help_centre() -> None:
    text = "Please use my Visa ending 4421 for order W1359773 instead of the Mastercard."

    plan = route_plan(
        intents=[_intent("modify_order", 0.36, text)], knowledge=[_known(text, 0.83)], entities={"order_ids": ["#W1"]}
    )

    assert _routes(plan) == [("modify_order", "intent")]


def test_what_is_told_beside_a_request_is_its_context_not_a_question() -> None:
    told, request = "Never mind the laptop order I made yesterday", "I don't need it anymore - please don't send it"

    plan = route_plan(
        intents=[_intent("order_query", 0.54, told), _intent("cancel_order", 0.93, request)],
        knowledge=[_known(f"{told}, {request}"), _known(told, 0.84), _unknown(request)],
        entities={},
    )

    assert _routes(plan) == [("cancel_order", "intent")]


@pytest.mark.parametrize(
    ("story", "ask", "wanted"),
    [
        (
            "Quick one - #W7315020 hasn't gone out yet",
            "can I swap the headphones to the wireless version",
            "exchange",
        ),
        ("我下周不在家", "包裹能改寄到我妈家吗", "modify_order"),
    ],
)
def test_an_unsure_guess_beside_a_sure_request_is_the_story_around_it(story: str, ask: str, wanted: str) -> None:
    plan = route_plan(
        intents=[_intent("cancel_order", 0.51, story), _intent(wanted, 0.88, ask)],
        knowledge=[_unknown(f"{story}, {ask}"), _unknown(story), _unknown(ask)],
        entities={"order_ids": ["#W7315020"]} if "#W" in story else {},
    )

    assert _routes(plan) == [(wanted, "intent")]


@pytest.mark.parametrize("text", ["快递到哪了，怎么还没到", "where's the parcel? it still hasn't arrived"])
def test_where_the_parcel_is_is_asked_of_ones_own(text: str) -> None:
    assert asks_own_order_state(text, {})

    plan = route_plan(intents=[_intent("logistics_query", 0.99, text)], knowledge=[_known(text)], entities={})

    assert _routes(plan) == [("logistics_query", "intent")]


@pytest.mark.parametrize(
    ("told", "asked"),
    [
        ("下单的时候点错了颜色", "趁还没寄出能改成红色吗"),
        ("I picked the wrong colour on my order", "can it still be changed before it ships?"),
    ],
)
def test_a_request_put_as_a_question_is_one_when_the_message_says_whose_order(told: str, asked: str) -> None:
    plan = route_plan(
        intents=[_intent("modify_order", 0.8, asked)],
        knowledge=[_known(f"{told}, {asked}"), _known(told), _known(asked)],
        entities={},
    )

    # the request is kept; whether it can still be done is the help centre's rule, said before it
    assert _routes(plan) == [("faq", "knowledge"), ("modify_order", "intent")]
    assert plan[0].text == f"{told}, {asked}"


def test_an_unsure_request_beside_a_sure_one_is_kept_when_it_asks_for_something() -> None:
    first, second = "cancel #W1111111, I ordered it by mistake", "and could you put #W2222222 on my other card"

    plan = route_plan(
        intents=[_intent("cancel_order", 0.95, first), _intent("modify_order", 0.55, second)],
        knowledge=[_unknown(f"{first}, {second}"), _unknown(first), _unknown(second)],
        entities={"order_ids": ["#W1111111", "#W2222222"]},
    )

    assert _routes(plan) == [("cancel_order", "intent"), ("modify_order", "intent")]


def test_an_unsure_guess_beside_other_clauses_yields_to_the_help_centre() -> None:
    asked, wanted = "Is it too late to tweak #W1242543?", "I'd want the Skateboard replaced by a 31 inch one"

    plan = route_plan(
        intents=[_intent("cancel_order", 0.3, asked), _intent("modify_order", 0.9, wanted)],
        knowledge=[_unknown(f"{asked} {wanted}"), _known(asked, 0.86), _unknown(wanted)],
        entities={"order_ids": ["#W1242543"]},
    )

    assert ("cancel_order", "intent") not in _routes(plan) and ("modify_order", "intent") in _routes(plan)


@pytest.mark.parametrize(
    ("name", "confidence", "text"),
    [
        ("return", 0.13, "Do you offer gift wrapping?"),
        ("invoice", 0.26, "可以帮忙礼品包装、写贺卡吗"),
        ("price_query", 0.85, "Do you do an NHS or blue light discount?"),
        ("out_of_scope", 0.3, "AppleCare+能在你们这儿买吗"),
    ],
)
def test_a_question_of_policy_the_help_centre_does_not_know_is_its_honest_miss(
    name: str, confidence: float, text: str
) -> None:
    # not "Did you mean: Return an item?", nor "Which product do you mean?"
    plan = route_plan(intents=[_intent(name, confidence, text)], knowledge=[_unknown(text)], entities={})

    assert _routes(plan) == [("faq", "knowledge")]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("modify_order", "发票抬头写错了，还能改吗"),
        ("cancel_order", "I bought the cover 2 months ago but want to cancel it now, do i get anything back"),
    ],
)
def test_a_request_that_asks_whether_it_can_be_done_gets_the_rule_before_the_request(name: str, text: str) -> None:
    plan = route_plan(intents=[_intent(name, 0.92, text)], knowledge=[_known(text)], entities={})

    assert _routes(plan) == [("faq", "knowledge"), (name, "intent")]


@pytest.mark.parametrize(("name", "text"), [("cancel_order", "can you cancel my order?"), ("return", "我要退货")])
def test_a_bare_request_gets_no_help_article_beside_it(name: str, text: str) -> None:
    plan = route_plan(intents=[_intent(name, 0.95, text)], knowledge=[_known(text)], entities={})

    assert _routes(plan) == [(name, "intent")]


@pytest.mark.parametrize("announcement", ["再就是，", "对了，", "此外，", "还有一件事："])
def test_a_chinese_word_that_announces_more_starts_a_request_of_another_kind(announcement: str) -> None:
    from agents.requests import requests_in_order

    change = "麻烦把#W1234567里的Desk Lamp改成白色的"
    returned = "有几样东西要退：Running Shoes和Water Bottle（1000ml，不锈钢）"
    message = f"{change}。{announcement}{returned}，退到礼品卡。"
    parts = [_request("modify_order", change), _request("return", returned)]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert sorted(p.intent.value for p in now + queued) == ["modify_order", "return"]
    assert all(("Running Shoes" in p.text) == (p.intent == Intent.RETURN) for p in now + queued)


@pytest.mark.parametrize(
    ("change", "returned"),
    [
        (
            "订单#W1234567想改规格：Bluetooth Speaker换成蓝色的",
            "订单#W7654321里的Air Purifier（大号，HEPA）\n- Desk Lamp/颜色＝黑｜亮度＝高｜电源＝USB要退货，谢谢",
        ),
        (
            "For #W1234567 please switch the Bluetooth Speaker to the blue one",
            "from #W7654321 the Air Purifier (large, HEPA)\n- Desk Lamp / color=black | brightness=high | power=USB "
            "needs to go back, thanks",
        ),
    ],
)
def test_an_unsure_request_whose_item_is_described_at_length_is_still_a_request(change: str, returned: str) -> None:
    from agents.requests import requests_in_order
    from agents.route import PlannedPart

    message = f"1) {change}.\n2) {returned}"
    described, asked = returned.split("\n")
    parts = [
        _request("modify_order", change),
        PlannedPart(Intent.MODIFY_ORDER, f"2) {described}", 0.62, "intent"),
        PlannedPart(Intent.RETURN, asked, 0.69, "intent"),
    ]

    now, queued = requests_in_order(message, parts, Reading(message))

    assert [p.intent.value for p in now + queued] == ["modify_order", "return"]
    assert "Desk Lamp" in queued[0].text and "Air Purifier" in queued[0].text
