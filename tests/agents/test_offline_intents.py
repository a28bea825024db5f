"""The offline intent classifier, the emotion scorer and the shipped exemplars: pure functions, no database.

The kNN side is exercised with a fake `neighbours` function; the learned intent reading is the real one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from agents.intents.emotion import (
    EMOTION_SENSITIVE_THRESHOLD,
    NEGATIVE_THRESHOLD,
    emotion_score,
    is_offensive,
)
from agents.intents.exemplars import exemplars_load
from agents.intents.offline.classify import (
    CONFIDENT,
    UNSURE,
    IntentScore,
    classify_offline,
    clause_intents,
    knn_vote,
)
from agents.intents.offline.clauses import split_clauses
from agents.route import ITEM_CHANGES, one_kind
from agents.taxonomy import Intent

# --- a fake kNN -------------------------------------------------------------------------------------------

Fake = Callable[[list[str]], list[list[tuple[str, float]]]]


def fake_neighbours(table: dict[str, Intent], *, k: int = 10, calls: list[list[str]] | None = None) -> Fake:
    """Texts containing a key of `table` get k close exemplars of its intent; anything else gets far, mixed ones."""

    def neighbours(texts: list[str]) -> list[list[tuple[str, float]]]:
        if calls is not None:
            calls.append(list(texts))
        out = []
        for text in texts:
            hit = next((intent for key, intent in table.items() if key.lower() in text.lower()), None)
            if hit is None:
                mixed = [Intent.FAQ, Intent.PRICE_QUERY, Intent.REPAIR, Intent.CHITCHAT, Intent.INVOICE]
                out.append([(mixed[i % len(mixed)].value, 0.80 - 0.002 * i) for i in range(k)])
            else:
                out.append([(hit.value, 0.95 - 0.002 * i) for i in range(k)])
        return out

    return neighbours


def intents_of(scores: list[IntentScore]) -> list[Intent]:
    return [s.intent for s in scores]


# --- split_clauses ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        (
            "Plus: before #W5270061 goes out, can you switch the lamp into the black one?",
            "before #W5270061 goes out, can you switch the lamp into the black one",
        ),
        ("If I order at 4pm, when can I collect it?", "If I order at 4pm, when can I collect it"),
        ("发货前，帮我把颜色改成白色", "发货前，帮我把颜色改成白色"),
    ],
)
def test_a_clause_that_only_sets_a_time_or_condition_stays_with_the_next(text: str, clause: str) -> None:
    assert clause in split_clauses(text)


def test_a_when_question_is_a_clause_of_its_own() -> None:
    assert split_clauses("When will it arrive, can I change the address?") == [
        "When will it arrive",
        "can I change the address",
    ]


def test_split_compare_and_price_into_two_clauses() -> None:
    clauses = split_clauses("对比 Find X8 和 X9 的区别，并告诉我 X9 国补后多少钱")
    assert clauses == ["对比 Find X8 和 X9 的区别", "告诉我 X9 国补后多少钱"]


@pytest.mark.parametrize(
    "text",
    [
        "compare X8 and X9",
        "what's the difference between the Find X8 and the Find X9",
        "Find X8 和 X9 哪个好",
        "does it also support 5G",
        "Enco X3 和 Pad 3 一起买多少钱",
    ],
)
def test_a_bare_and_between_names_does_not_split(text: str) -> None:
    assert split_clauses(text) == [text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我要退货，顺便开张发票", ["我要退货", "开张发票"]),
        ("X9 有货吗？多少钱？", ["X9 有货吗", "多少钱"]),
        ("I want to cancel my order and get a refund", ["I want to cancel my order", "get a refund"]),
        ("where is my package? also, can I get an invoice", ["where is my package", "can I get an invoice"]),
        ("查一下物流，另外我想换个颜色", ["查一下物流", "我想换个颜色"]),
        ("price of the X9, plus is it waterproof", ["price of the X9", "is it waterproof"]),
        ("您好，我想退货", ["您好", "我想退货"]),
    ],
)
def test_split_on_punctuation_and_connectors(text: str, expected: list[str]) -> None:
    assert split_clauses(text) == expected


def test_split_keeps_short_fragments_with_their_neighbour() -> None:
    assert split_clauses("X9, 256GB, blue, in stock?") == ["X9, 256GB, blue, in stock"]


def test_split_empty_and_punctuation_only() -> None:
    assert split_clauses("") == []
    assert split_clauses("   ") == []
    assert split_clauses("？？？") == ["？？？"]


# --- clause_intents: the learned reading -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("我要退货", Intent.RETURN),
        ("I want my money back", Intent.RETURN),
        ("退款到哪了", Intent.ORDER_QUERY),
        ("track my refund", Intent.ORDER_QUERY),
        ("what is your refund policy", Intent.POLICY_INQUIRY),
        ("七天无理由退货有什么规则", Intent.POLICY_INQUIRY),
        ("is there a cancellation fee", Intent.POLICY_INQUIRY),
        ("cancel my order", Intent.CANCEL_ORDER),
        ("取消订单", Intent.CANCEL_ORDER),
        ("unsubscribe me from the newsletter", Intent.FAQ),
        ("what payment methods do you accept", Intent.FAQ),
        ("转人工", Intent.HUMAN_REQUEST),
        ("let me talk to a human agent", Intent.HUMAN_REQUEST),
        ("我要投诉快递员", Intent.COMPLAINT),
        ("I want to file a complaint", Intent.COMPLAINT),
        ("屏幕碎了能修吗", Intent.REPAIR),
        ("我要开企业专票", Intent.INVOICE),
        ("I need an invoice", Intent.INVOICE),
        ("我要换货", Intent.EXCHANGE),
        ("收货地址填错了", Intent.MODIFY_ORDER),
        ("change my shipping address", Intent.MODIFY_ORDER),
        ("我的快递到哪了", Intent.LOGISTICS_QUERY),
        ("where is my package", Intent.LOGISTICS_QUERY),
        ("Find X9 有货吗", Intent.INVENTORY_CHECK),
        ("X9 国补后多少钱", Intent.PRICE_QUERY),
        ("how much is the Pad 3", Intent.PRICE_QUERY),
        ("对比一下 X8 和 X9", Intent.PRODUCT_COMPARE),
        ("does the X9 support wireless charging", Intent.PARAMS_QUERY),
        ("推荐一款拍照好的手机", Intent.PRODUCT_RECOMMEND),
        ("my card keeps getting declined", Intent.FAULT_DIAGNOSIS),
        ("I can't register", Intent.FAULT_DIAGNOSIS),
        ("手机充不进电", Intent.FAULT_DIAGNOSIS),
        ("how do I delete my account", Intent.USAGE_TUTORIAL),
        ("忘记密码了", Intent.USAGE_TUTORIAL),
        ("hi", Intent.CHITCHAT),
        ("好的，谢谢", Intent.CHITCHAT),
        ("你是机器人吗", Intent.CHITCHAT),
        ("售后咨询", Intent.CHITCHAT),
        # requests in words the first rules lacked
        ("any update on W7971892?", Intent.ORDER_QUERY),
        ("还没发货能不能撤销？", Intent.CANCEL_ORDER),
        ("能改成512G的吗", Intent.MODIFY_ORDER),
        ("刚下单选错内存了", Intent.MODIFY_ORDER),
        ("my card on file expired, can you charge a different card for my order", Intent.MODIFY_ORDER),
        ("use my Visa ending 4421 for order W1359773 instead of the Mastercard", Intent.MODIFY_ORDER),
        ("订单能换张卡付吗", Intent.MODIFY_ORDER),
        ("订单W4396373的门牌号写错了", Intent.MODIFY_ORDER),
    ],
)
def test_keyword_intent_first(text: str, intent: Intent) -> None:
    found = clause_intents(text)
    assert found, text
    assert found[0][0] is intent
    assert 0.0 < found[0][1] <= 1.0


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # an order named by its id counts as the word "order"
        ("I want to change the payment method on #W7425646.", Intent.MODIFY_ORDER),
        ("please charge order W7425646 to my other credit card", Intent.MODIFY_ORDER),
        ("Can you kill order W7425646?", Intent.CANCEL_ORDER),
        ("Hi, is it possible to stop an order before it ships?", Intent.CANCEL_ORDER),
        ("I no longer want order #W1234567", Intent.CANCEL_ORDER),
        ("please scrap #W1234567", Intent.CANCEL_ORDER),
        ("Can I back out of order #W1234567?", Intent.CANCEL_ORDER),
        ("Can #W1234567 be stopped before it ships?", Intent.CANCEL_ORDER),
        ("could my order get called off", Intent.CANCEL_ORDER),
        ("订单 #W1234567 还能拦截吗", Intent.CANCEL_ORDER),
        ("don't send #W1234567, I don't need it", Intent.CANCEL_ORDER),
        ("订单 #W1234567 不要了", Intent.CANCEL_ORDER),
        ("#W1234567 我不想要了，帮我撤掉", Intent.CANCEL_ORDER),
        ("I changed my mind about my order", Intent.CANCEL_ORDER),
        # an option wanted in place of the one ordered
        ("can I get the thermostat in white instead of black?", Intent.EXCHANGE),
        ("I'd like the yoga mat to be the 4mm blue one instead", Intent.EXCHANGE),
        ("I'd prefer the 30MP version, everything else the same", Intent.EXCHANGE),
        ("I want to pay with my visa instead of the mastercard", Intent.MODIFY_ORDER),
        ("what payment methods do you accept?", Intent.FAQ),
        ("Can I trade the Cycling Helmet I got?", Intent.EXCHANGE),
        # an item of an order to change, however the request is put
        ("Can I still change the Bluetooth Speaker", Intent.MODIFY_ORDER),
        ("can u change the Bluetooth Speaker and get these options", Intent.MODIFY_ORDER),
        ("Would it be possible to update the Electric Toothbrush", Intent.MODIFY_ORDER),
        ("If not I'd like the Espresso Machine (mine's 1L 19 bar manual) to be something in 2L", Intent.MODIFY_ORDER),
        # the wrong method charged, another one to use
        ("frustrating - the wrong card got charged for #W7602708", Intent.MODIFY_ORDER),
        ("Hi, I paid for order #W2806889 with the wrong thing", Intent.MODIFY_ORDER),
        ("please use gift card, id gift_card_8893815 instead", Intent.MODIFY_ORDER),
        ("I would like to settle order #W1234567 with my PayPal instead", Intent.MODIFY_ORDER),
        ("please make #W1234567 paid by my visa", Intent.MODIFY_ORDER),
        ("#W1234567 换成用 PayPal 付款", Intent.MODIFY_ORDER),
        # the payment moved off is refunded as part of the change
        (
            "Order #W1234567: I want it paid with gift card gift_card_1234567 and the original method refunded",
            Intent.MODIFY_ORDER,
        ),
        ("I'd like #W1234567 charged to my paypal and the old card refunded", Intent.MODIFY_ORDER),
        ("订单 #W1234567 改用礼品卡支付，原来的卡退款", Intent.MODIFY_ORDER),
        # an item sent back is a return, however it is said; a change given up is no change
        ("收到的Desk Lamp想寄回", Intent.RETURN),
        ("这个Backpack我想退回去，钱退到信用卡就行", Intent.RETURN),
        ("I'd like to ship the Desk Lamp back for my money", Intent.RETURN),
        ("#W1234567还没发货的话就撤了吧，旧的还能用，不打算换新的了", Intent.CANCEL_ORDER),
        ("not swapping it for anything after all, just cancel #W1234567", Intent.CANCEL_ORDER),
    ],
)
def test_shop_language_for_changes_to_an_order(text: str, intent: Intent) -> None:
    # an exchange and an item change are one request: the order's status names it (agents.route.one_kind)
    assert one_kind(clause_intents(text)[0][0], intent)


@pytest.mark.parametrize(
    "text",
    [
        "can you change the battery of my phone",
        "could you update the app for me",
        "how can i change some of my user details",
        "would it be possible to edit my personal information?",
    ],
)
def test_changing_a_part_or_the_app_is_no_change_of_an_order(text: str) -> None:
    assert Intent.MODIFY_ORDER not in [intent for intent, _ in clause_intents(text)]


@pytest.mark.parametrize(
    ("text", "repair"),
    [
        ("Let me fix the size: it should say M", False),
        ("Wrong address on my order, I need to fix it", False),
        ("can you fix it? the screen is cracked", True),
        ("my phone won't charge, where can I get it fixed", True),
        ("我要修手机", True),
        ("changed to one that comes in 30-50 lbs iron fixed this time", False),
        ("地址填错了，我改一下", False),
        # a repair done, told as the reason an order is not needed
        ("Thing is, I ended up fixing my old one", False),
        ("I've already repaired my old phone so I don't need the new one", False),
        ("I fixed it myself but it broke again, can you repair it?", True),
        ("我的旧手机已经修好了，订单不要了", False),
    ],
)
def test_fixing_what_was_said_is_no_repair(text: str, repair: bool) -> None:
    assert (Intent.REPAIR in [intent for intent, _ in clause_intents(text)]) is repair


@pytest.mark.parametrize("text", ["the Backpack ==> whichever has size large", "Backpack --> the green one"])
def test_an_arrow_of_any_length_turns_an_item_into_another(text: str) -> None:
    assert clause_intents(text)[0][0] in ITEM_CHANGES


@pytest.mark.parametrize(
    ("text", "faq"),
    [
        ("Use payment method paypal_5543657 for any difference", False),
        ("pay the difference with payment method credit_card_6361025", False),
        ("what payment methods do you accept", True),
        ("你们支持哪些支付方式", True),
    ],
)
def test_ones_own_payment_method_named_is_no_question_about_payment_methods(text: str, faq: bool) -> None:
    assert (Intent.FAQ in [intent for intent, _ in clause_intents(text)]) is faq


def test_the_id_of_what_was_just_named_stays_in_its_clause() -> None:
    assert split_clauses("please use gift card, id gift_card_8893815 instead") == [
        "please use gift card, id gift_card_8893815 instead"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Difference on the gift card (gift_card_4584785), please.",
        "the credit card (credit_card_7901829) works for the difference",
        "charge the difference to my PayPal",
        "差价补到我的礼品卡",
    ],
)
def test_what_pays_the_price_difference_of_a_change_is_no_comparison(text: str) -> None:
    assert Intent.PRODUCT_COMPARE not in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Charge or refund any difference on paypal_6121064",
        "refund the price difference to my card",
        "差价退到原卡",
        # money owed either way, without the word "difference"
        "补钱也好退钱也好，都用我的那张信用卡",
        "whether I owe you or you owe me, use my PayPal",
    ],
)
def test_what_refunds_the_price_difference_of_a_change_is_no_return(text: str) -> None:
    assert Intent.RETURN not in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize("text", ["Bookshelf，钱退回我的PayPal", "the Wall Clock, money back to my credit card please"])
def test_an_item_beside_where_its_refund_goes_is_a_return(text: str) -> None:
    assert clause_intents(text)[0][0] == Intent.RETURN


@pytest.mark.parametrize(
    "text",
    [
        "#W1234567 退 Desk Lamp",
        "#W1234567 退 Wall Clock 退款账户里那个PayPal",
        "#W1234567 return wall clock, refund to paypal",
    ],
)
def test_an_order_id_then_an_item_sent_back_is_a_return(text: str) -> None:
    """Terse: the order, 退 and an item (and where its refund goes) return the item, not cancel the order or ask
    about a refund."""
    assert clause_intents(text)[0][0] == Intent.RETURN


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I paid with my card, when do I get the refund for #W1234567?", Intent.ORDER_QUERY),
        ("I paid with my visa and want to return the lamp from #W1234567", Intent.RETURN),
    ],
)
def test_telling_how_an_order_was_paid_is_no_payment_change(text: str, intent: Intent) -> None:
    found = [i for i, _ in clause_intents(text)]
    assert Intent.MODIFY_ORDER not in found and intent in found


@pytest.mark.parametrize(
    "text",
    ["Bill or refund the difference via credit_card_7901829", "bill my visa for the difference", "just bill me"],
)
def test_billing_a_card_is_no_invoice(text: str) -> None:
    assert Intent.INVOICE not in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize(
    "text", ["I need an invoice for order #W1", "can you send me the bill for my order", "开张发票"]
)
def test_an_invoice_or_a_bill_asked_for_is_one(text: str) -> None:
    assert Intent.INVOICE in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize("text", ["Can I return part of order #W5565470", "I'd like to return both", "退货并退差价"])
def test_a_return_of_part_of_an_order_is_a_return(text: str) -> None:
    assert Intent.RETURN in [i for i, _ in clause_intents(text)]


def test_a_clause_is_never_cut_inside_brackets() -> None:
    text = "I'd like to change Cycling Helmet (the low, M, blue one) → one in high, L, black. Thanks"

    assert split_clauses(text)[0] == "I'd like to change Cycling Helmet (the low, M, blue one) → one in high, L, black"


@pytest.mark.parametrize(
    "text",
    [
        "In #W1, please make it the chair (black) into one with a high back",
        "please make it the Office Chair (fixed armrest) into one that is high-back",
        "switch the Desk Lamp into a medium AC adapter black unit",
        "before it ships can u change the Bluetooth Speaker so it's a new one with color set to red",
    ],
)
def test_an_item_turned_into_another_version_is_an_item_change(text: str) -> None:
    """Exchange or modification: which one is decided by the order's status (agents.route)."""
    assert clause_intents(text)[0][0] in (Intent.EXCHANGE, Intent.MODIFY_ORDER)


def test_a_trade_in_of_an_old_phone_is_no_exchange() -> None:
    assert Intent.EXCHANGE not in [i for i, _ in clause_intents("can I trade my old phone in?")]


def test_a_delivery_instead_of_another_is_no_item_exchange() -> None:
    assert Intent.EXCHANGE not in [i for i, _ in clause_intents("deliver it to my office instead of home")]


def test_offensive_comes_first() -> None:
    found = clause_intents("垃圾客服，我要退货")
    assert [i for i, _ in found][:2] == [Intent.EMOTION_SENSITIVE, Intent.RETURN]
    assert clause_intents("you idiots lost my package")[0][0] is Intent.EMOTION_SENSITIVE


def test_ticket_words_beat_business_words() -> None:
    # refund (ticket) outranks order (business); repair outranks price
    assert clause_intents("I want a refund for my order")[0][0] is Intent.RETURN
    assert clause_intents("how much does a screen repair cost")[0][0] is Intent.REPAIR


def test_are_you_a_human_is_small_talk_not_a_transfer() -> None:
    assert Intent.HUMAN_REQUEST not in [i for i, _ in clause_intents("are you a human?")]
    assert Intent.HUMAN_REQUEST not in [i for i, _ in clause_intents("你是真人吗")]


def test_chitchat_only_for_a_whole_clause() -> None:
    assert clause_intents("好的谢谢")[0][0] is Intent.CHITCHAT
    assert Intent.CHITCHAT not in [i for i, _ in clause_intents("好的，我没有收到货")]
    assert Intent.CHITCHAT not in [i for i, _ in clause_intents("thanks, where is my order")]


def test_no_keyword_for_plain_off_topic_text() -> None:
    assert clause_intents("what's the capital of France") == []
    assert clause_intents("今天天气不错") == []


# --- emotion ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "我想查一下订单",
        "what's the price of the X9",
        "",
        "Find X9",
        # a request put politely, on an order not shipped yet, is no complaint
        "订单应该还没发货，麻烦帮我改一下地址",
        "趁还没发货，麻烦处理一下",
    ],
)
def test_neutral_is_about_half(text: str) -> None:
    assert 0.4 <= emotion_score(text) <= 0.6


@pytest.mark.parametrize("text", ["质量很好，非常满意", "thank you so much, great service!", "物流很快，好评"])
def test_positive(text: str) -> None:
    assert emotion_score(text) > 0.65


@pytest.mark.parametrize(
    "text",
    [
        "质量太差了",
        "服务很差，非常失望",
        "this is terrible",
        "worst purchase ever",
        "还没到，都好几天了",
        "都一个星期了还没发货，太慢了",
    ],
)
def test_negative(text: str) -> None:
    assert emotion_score(text) < NEGATIVE_THRESHOLD


@pytest.mark.parametrize(
    "text",
    [
        "气死我了！！！你们什么破服务",
        "I'm furious, this is absolutely unacceptable!!!",
        "THIS IS RIDICULOUS I WANT MY MONEY BACK",
        "垃圾客服",
        "you people are idiots",
    ],
)
def test_very_negative_crosses_the_sensitive_threshold(text: str) -> None:
    assert emotion_score(text) < EMOTION_SENSITIVE_THRESHOLD


@pytest.mark.parametrize(
    ("hypothetical", "lived"),
    [
        ("要是我一直没去取会怎么样？", "我的快递一直没到，都好几天了"),
        ("What happens if I never pick it up?", "I never got my refund and nobody answers, this is terrible"),
    ],
)
def test_asking_what_would_happen_is_not_a_complaint(hypothetical: str, lived: str) -> None:
    assert emotion_score(hypothetical) >= NEGATIVE_THRESHOLD
    assert emotion_score(lived) < NEGATIVE_THRESHOLD


def test_negation_flips() -> None:
    assert emotion_score("不好") < 0.5 < emotion_score("好")
    assert emotion_score("不满意") < 0.5 < emotion_score("满意")
    assert emotion_score("not good") < 0.5 < emotion_score("good")
    assert emotion_score("bad") < emotion_score("not bad")
    assert emotion_score("没有问题") >= 0.5


def test_negation_does_not_leak_from_unrelated_characters() -> None:
    # 特别 contains 别, 还没用 is "not used yet": neither negates what follows
    assert emotion_score("特别实惠") > 0.6
    assert emotion_score("到货了还没用，是正品") > 0.5


def test_intensifiers_punctuation_caps_and_emojis() -> None:
    assert emotion_score("非常差") < emotion_score("差")
    assert emotion_score("very bad") < emotion_score("bad")
    assert emotion_score("太慢了！！！") < emotion_score("太慢了")
    assert emotion_score("到底什么时候发货？？？") < emotion_score("什么时候发货")
    assert emotion_score("WHERE IS MY ORDER") < emotion_score("where is my order")
    assert emotion_score("收到了 😡") < 0.5 < emotion_score("收到了 😊")


def test_complaint_phrases() -> None:
    assert emotion_score("等了十天了还没发货") < 0.4
    assert emotion_score("I've been waiting for two weeks and still nothing") < 0.4


def test_score_range_and_determinism() -> None:
    texts = ["", "好", "差" * 50, "!!!" * 20, "terrible " * 40, "great " * 40, "😡" * 10, "ABC DEF GHI"]
    for text in texts:
        score = emotion_score(text)
        assert 0.0 <= score <= 1.0
        assert emotion_score(text) == score


def test_emotion_is_fast() -> None:
    messages = ["我的订单怎么还没到，都三天了！！！", "thanks, the Find X9 arrived and it's great", "退款进度"] * 400
    start = time.perf_counter()
    for message in messages:
        emotion_score(message)
        is_offensive(message)
    assert (time.perf_counter() - start) / len(messages) < 0.001


@pytest.mark.parametrize(
    "text",
    [
        "垃圾客服",
        "你们是骗子",
        "傻逼",
        "滚",
        "你妈的",
        "妈的又坏了",
        "you idiot",
        "wtf is this",
        "this is a scam",
        "fuck you",
        "what a stupid bot",
        "screw you",
    ],
)
def test_offensive(text: str) -> None:
    assert is_offensive(text)


@pytest.mark.parametrize(
    "text",
    [
        "怎么滚动截屏",
        "手机发烫，像滚烫的水",
        "垃圾桶图标在哪",
        "USB 接口坏了",
        "I need to reset my damn password",
        "the screen will die soon?",
        "我想退货",
        "is this a genuine product",
        "破壁机有吗",
        "我妈的手机拿去修了，有没有备用机",
        "想给你妈妈买个平板吗",
        "",
    ],
)
def test_not_offensive(text: str) -> None:
    assert not is_offensive(text)


def test_thresholds_are_ordered() -> None:
    assert 0.0 < EMOTION_SENSITIVE_THRESHOLD < NEGATIVE_THRESHOLD < 0.5


# --- kNN vote -------------------------------------------------------------------------------------------------


def test_knn_vote_shares_sum_to_one_and_rank() -> None:
    votes = knn_vote([("return", 0.95), ("return", 0.94), ("exchange", 0.93), ("faq", 0.85)])
    assert votes[0][0] is Intent.RETURN
    assert abs(sum(share for _, share in votes) - 1.0) < 1e-9
    assert knn_vote([]) == []


def test_knn_vote_ignores_unknown_labels() -> None:
    votes = knn_vote([("not_an_intent", 0.99), ("faq", 0.9)])
    assert [i for i, _ in votes] == [Intent.FAQ]


# --- classify_offline -----------------------------------------------------------------------------------------

TABLE = {
    "对比": Intent.PRODUCT_COMPARE,
    "多少钱": Intent.PRICE_QUERY,
    "退货": Intent.RETURN,
    "发票": Intent.INVOICE,
    "package": Intent.LOGISTICS_QUERY,
    "refund": Intent.RETURN,
    "hello": Intent.CHITCHAT,
    "你好": Intent.CHITCHAT,
    "usb-c": Intent.PARAMS_QUERY,
    "weather": Intent.OUT_OF_SCOPE,
}


def test_multi_intent_in_order_of_appearance() -> None:
    result = classify_offline("对比 Find X8 和 X9 的区别，并告诉我 X9 国补后多少钱", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.PRODUCT_COMPARE, Intent.PRICE_QUERY]
    assert result[0].text == "对比 Find X8 和 X9 的区别"
    assert result[1].text == "告诉我 X9 国补后多少钱"
    assert all(s.confidence >= CONFIDENT for s in result)


def test_clauses_go_to_neighbours_in_one_batch() -> None:
    calls: list[list[str]] = []
    classify_offline("我要退货，顺便开张发票", fake_neighbours(TABLE, calls=calls))
    assert calls == [["我要退货", "开张发票"]]


def test_duplicate_intents_merge() -> None:
    result = classify_offline("我要退货。退货怎么寄回？", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.RETURN]
    assert result[0].text == "我要退货"


def test_greeting_next_to_a_request_is_dropped() -> None:
    assert intents_of(classify_offline("你好，我要退货", fake_neighbours(TABLE))) == [Intent.RETURN]
    assert intents_of(classify_offline("hello! where is my package?", fake_neighbours(TABLE))) == [
        Intent.LOGISTICS_QUERY
    ]


def test_greeting_alone_is_chitchat() -> None:
    result = classify_offline("你好", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.CHITCHAT]
    assert result[0].confidence >= CONFIDENT


def test_nothing_matches_is_out_of_scope_with_low_confidence() -> None:
    result = classify_offline("what is the capital of France", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.OUT_OF_SCOPE]
    assert result[0].confidence < UNSURE


def test_close_off_topic_exemplars_give_out_of_scope() -> None:
    result = classify_offline("what's the weather like in Paris", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.OUT_OF_SCOPE]


def test_knn_only_match_is_confident_when_neighbours_agree() -> None:
    result = classify_offline("does it charge over usb-c", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.PARAMS_QUERY]
    assert result[0].confidence >= CONFIDENT


def test_ambiguous_neighbours_are_unsure() -> None:
    def split_vote(texts: list[str]) -> list[list[tuple[str, float]]]:
        labels = ["faq", "policy_inquiry"] * 5
        return [[(label, 0.88) for label in labels] for _ in texts]

    result = classify_offline("something vague about the thing", split_vote)
    assert len(result) == 1
    assert result[0].confidence < UNSURE


def test_keyword_wins_over_disagreeing_neighbours_but_less_sure() -> None:
    def always_faq(texts: list[str]) -> list[list[tuple[str, float]]]:
        return [[("faq", 0.93 - 0.001 * i) for i in range(10)] for _ in texts]

    agree = classify_offline("我要退货", fake_neighbours(TABLE))[0]
    disagree = classify_offline("我要退货", always_faq)[0]
    assert agree.intent is disagree.intent is Intent.RETURN
    assert disagree.confidence < agree.confidence
    assert agree.confidence >= CONFIDENT


def _always_modify(texts: list[str]) -> list[list[tuple[str, float]]]:
    return [[("modify_order", 0.97 - 0.001 * i) for i in range(10)] for _ in texts]


@pytest.mark.parametrize(
    "text",
    [
        "#W4321987 没发货前能改个款式不",
        "Is order #W4321987 not shipped yet? I would like a different size then",
        "没发货前能改个款式不",  # an order described by its state
    ],
)
def test_a_request_on_an_order_the_neighbours_are_sure_of_is_not_read_as_a_question(text: str) -> None:
    assert classify_offline(text, _always_modify)[0].intent is Intent.MODIFY_ORDER


@pytest.mark.parametrize("text", ["发货了吗？能改个款式不", "Has it shipped? I would like a different size then"])
def test_without_an_order_named_or_described_the_keywords_question_stands(text: str) -> None:
    assert Intent.LOGISTICS_QUERY in intents_of(classify_offline(text, _always_modify))


def test_offensive_message_is_emotion_sensitive_first() -> None:
    result = classify_offline("垃圾客服，我要退货", fake_neighbours(TABLE))
    assert intents_of(result) == [Intent.EMOTION_SENSITIVE, Intent.RETURN]


def test_very_negative_message_adds_emotion_sensitive() -> None:
    result = classify_offline("气死我了！！！太过分了，我要退货", fake_neighbours(TABLE))
    assert Intent.EMOTION_SENSITIVE in intents_of(result)
    assert Intent.RETURN in intents_of(result)


def test_refund_status_is_an_order_query_even_when_neighbours_say_return() -> None:
    result = classify_offline("where is my refund? it's been a week", fake_neighbours(TABLE))
    assert result[0].intent is Intent.ORDER_QUERY


def test_always_at_least_one_result_with_valid_fields() -> None:
    nb = fake_neighbours(TABLE)
    for text in ["", "?", "😀", "a", "订单", "x" * 2000]:
        result = classify_offline(text, nb)
        assert result
        for score in result:
            assert isinstance(score.intent, Intent)
            assert 0.0 <= score.confidence <= 1.0
            assert isinstance(score.text, str)


def test_empty_neighbour_lists_do_not_crash() -> None:
    result = classify_offline("some text", lambda texts: [[] for _ in texts])
    assert intents_of(result) == [Intent.OUT_OF_SCOPE]


# --- exemplars --------------------------------------------------------------------------------------------------


def exemplars_by_intent() -> dict[Intent, dict[str, list[str]]]:
    grouped: dict[Intent, dict[str, list[str]]] = {}
    for exemplar in exemplars_load():
        grouped.setdefault(exemplar.intent, {}).setdefault(exemplar.language, []).append(exemplar.text)
    return grouped


def test_every_intent_has_exemplars_in_both_languages() -> None:
    exemplars = exemplars_by_intent()
    for intent in Intent:
        if intent is Intent.OUT_OF_SCOPE:
            continue
        assert intent in exemplars, intent
        assert set(exemplars[intent]) == {"en", "zh"}, intent
        for language, texts in exemplars[intent].items():
            assert 20 <= len(texts) <= 150, (intent, language, len(texts))


def test_exemplars_are_clean_and_unambiguous() -> None:
    seen: dict[str, Intent] = {}
    for intent, by_language in exemplars_by_intent().items():
        for texts in by_language.values():
            assert len(texts) == len(set(texts)), intent
            for text in texts:
                assert text == text.strip() and text, (intent, text)
                assert seen.setdefault(text, intent) is intent, f"{text!r} under {seen[text]} and {intent}"


def test_chinese_exemplars_are_chinese() -> None:
    for intent, by_language in exemplars_by_intent().items():
        for text in by_language["zh"]:
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text), (intent, text)


@pytest.mark.parametrize(
    "text",
    [
        "my new place is Suite 665, 894 Hickory Lane, San Diego, CA 92133 USA - can #W4284542 go there instead?",
        "ship it to 584 Sunset Drive, Suite 270, Washington, DC, USA, postal code 20353 please",
        "Dear support, I have relocated.",
    ],
)
def test_a_new_address_said_about_an_order_is_an_address_change_in_one_clause(text: str) -> None:
    assert len(split_clauses(text)) == 1
    assert clause_intents(text)[0][0] is Intent.MODIFY_ORDER


def test_a_state_named_in_an_address_sent_instead_of_the_old_one_asks_for_no_exchange() -> None:
    text = (
        "Could you send #W6885344 to 690 Broadway Suite 737 Indianapolis IN zip 46226 USA instead of the old address?"
    )
    assert Intent.EXCHANGE not in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize("text", ["我搬家了", "新家在上海市浦东新区世纪大道 88 号"])
def test_a_customer_who_moved_wants_an_address_change(text: str) -> None:
    assert clause_intents(text)[0][0] is Intent.MODIFY_ORDER


@pytest.mark.parametrize(
    "text", ["Please change Skateboard", "could you change the Dumbbell Set", "pls modify my lamp"]
)
def test_asking_to_change_a_thing_is_an_order_change(text: str) -> None:
    assert clause_intents(text)[0][0] is Intent.MODIFY_ORDER


@pytest.mark.parametrize(
    "text",
    ["I ordered the wrong option", "Brand C for the brand, rest unchanged", "我选错颜色了", "其他配置不变，换成蓝色"],
)
def test_an_option_said_wrong_or_changed_with_the_rest_kept_is_an_item_change(text: str) -> None:
    assert Intent.MODIFY_ORDER in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize("text", ["please change my password", "can you change my email"])
def test_asking_to_change_the_account_is_no_order_change(text: str) -> None:
    assert Intent.MODIFY_ORDER not in [i for i, _ in clause_intents(text)]


@pytest.mark.parametrize("text", ["I bought 2 phones for order 12345", "I paid 300 dollars on order 44521"])
def test_numbers_beside_an_order_are_no_address(text: str) -> None:
    assert Intent.MODIFY_ORDER not in [i for i, _ in clause_intents(text)]


def test_a_request_the_comma_split_cut_apart_is_read_in_its_sentence() -> None:
    text = (
        "Can I still change the Air Purifier that has features set to night mode, room size set to large "
        "and filter type set to HEPA so it's the medium carbon quiet operation model? It hasn't shipped."
    )

    scores = classify_offline(text, lambda texts: [[] for _ in texts])

    assert Intent.MODIFY_ORDER in [s.intent for s in scores]


def test_two_changes_of_an_order_stay_two_requests_without_an_order_named() -> None:
    text = (
        "I have two things. I want to change the payment method on my pending order. "
        "And hello, I need to change an item in an order that hasn't shipped."
    )

    scores = classify_offline(text, lambda texts: [[] for _ in texts])

    assert [s.intent for s in scores].count(Intent.MODIFY_ORDER) == 2


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Can you fix the shipping address on #W1234567?", "modify_order"),
        ("Need to fix the address on my order, it's wrong", "modify_order"),
        ("Can you fix my phone? The screen is cracked", "repair"),
        ("订单 #D1001 请改寄到广东省深圳市南山区科苑路15号", "modify_order"),
        ("能不能帮我把这单送到浙江省杭州市西湖区文三路8号", "modify_order"),
    ],
)
def test_fixing_what_an_order_says_is_a_change_and_fixing_a_device_a_repair(text: str, intent: str) -> None:
    assert intents_of(classify_offline(text, fake_neighbours({})))[0].value == intent


@pytest.mark.parametrize(
    ("plain", "described"),
    [
        ("退掉Office Chair，还有一个", "退掉Office Chair（选的规格：颜色：灰的；扶手：有；材质：网布），还有一个"),
        (
            "send back the Office Chair and one more",
            "send back the Office Chair (chosen options: colour: grey; armrests: yes; material: mesh; back: high) "
            "and one more",
        ),
    ],
)
def test_an_item_described_in_brackets_leaves_the_request_what_it_was(plain: str, described: str) -> None:
    """However many options the brackets list, they describe the item sent back: no change of version."""
    from agents.reading.intent import intent_likelihood

    read_plain, read_described = intent_likelihood(plain)[0], intent_likelihood(described)[0]
    assert read_plain[0] is read_described[0] is Intent.RETURN
    assert read_described[1] > 0.5


# --- the whole message's reading leads ------------------------------------------------------------------------

_FAULT_EVERYWHERE = {"": Intent.FAULT_DIAGNOSIS}  # every clause's neighbours vote for a fault


@pytest.mark.parametrize(
    ("text", "meant", "story"),
    [
        (
            "my kettle stopped boiling after two months, can you get it repaired under the warranty?",
            Intent.REPAIR,
            Intent.FAULT_DIAGNOSIS,
        ),
        ("吸尘器吸力越来越小了，还在保修期，能帮我安排维修吗", Intent.REPAIR, Intent.FAULT_DIAGNOSIS),
        ("the lamp flickers all the time, I don't want another one, just refund me", Intent.RETURN, Intent.EXCHANGE),
        ("充电宝充不进电了，直接退款吧", Intent.RETURN, Intent.FAULT_DIAGNOSIS),
    ],
)
def test_what_a_message_tells_before_its_request_is_the_request_s_story(
    text: str, meant: Intent, story: Intent
) -> None:
    found = intents_of(classify_offline(text, fake_neighbours(_FAULT_EVERYWHERE)))
    assert found[0] is meant
    assert story not in found


@pytest.mark.parametrize("text", ["thank you so much, that fixed everything!", "太感谢了，问题都解决啦"])
def test_thanks_the_neighbours_take_for_a_question_are_small_talk(text: str) -> None:
    assert intents_of(classify_offline(text, fake_neighbours({"": Intent.FAQ}))) == [Intent.CHITCHAT]


@pytest.mark.parametrize("text", ["thank you so much, that sorted everything out!", "好的好的，谢谢你呀，辛苦啦"])
def test_thanks_far_from_every_exemplar_are_small_talk_not_off_topic(text: str) -> None:
    assert intents_of(classify_offline(text, fake_neighbours({}))) == [Intent.CHITCHAT]


@pytest.mark.parametrize(
    "text", ["明天北京会下雪吗？要不要穿羽绒服", "who won the football last night? was it a good game"]
)
def test_an_off_topic_question_the_neighbours_take_for_a_request_for_a_person_is_off_topic(text: str) -> None:
    found = classify_offline(text, fake_neighbours({"": Intent.HUMAN_REQUEST}))
    assert intents_of(found) == [Intent.OUT_OF_SCOPE]
    assert found[0].confidence < UNSURE  # the engine offers what it can do


@pytest.mark.parametrize(
    "text", ["我想把这双鞋退了，退款一般几天能到账？", "I'd like to return these boots, how long does the refund take?"]
)
def test_a_question_asked_beside_the_request_stays(text: str) -> None:
    found = intents_of(classify_offline(text, fake_neighbours({})))
    assert found[0] is Intent.RETURN
    assert len(found) == 2
