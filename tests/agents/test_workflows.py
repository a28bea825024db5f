"""Workflows end to end, in zh and en: slots, verification, confirmation, the write, and the edges."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from conversations.models import Conversation, Customer, WorkflowState
from conversations.services import conversation_start, workflows_expire_idle
from stores.builtin.models import Order, PaymentMethod
from tests.agents.engine import run_turn
from tickets.models import Ticket

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def store() -> None:
    call_command("seed_demo", verbosity=0)


@pytest.fixture
def guest(store: None) -> Conversation:
    return conversation_start(customer=Customer.objects.create(external_id="guest_wf"))


@pytest.fixture
def li(store: None) -> Conversation:
    """李伟, already verified in this chat."""
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_li"), language="zh")
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    chat.refresh_from_db()
    return chat


@pytest.fixture
def emma(store: None) -> Conversation:
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_emma"))
    Conversation.objects.filter(pk=chat.pk).update(
        verified_customer=Customer.objects.get(external_id="demo_emma_wilson")
    )
    chat.refresh_from_db()
    return chat


def _awaiting(turn: object) -> str | None:
    awaiting = turn.reply.get("awaiting")  # type: ignore[attr-defined]
    return awaiting["slot"] if awaiting else None


def test_cancel_in_english_verifies_collects_confirms_and_writes_once(guest: Conversation) -> None:
    first = run_turn(guest, "I want to cancel an order")
    assert _awaiting(first) == "email"

    second = run_turn(guest, "My name is Emma Wilson and my zip code is 94105")
    assert _awaiting(second) == "order_id"

    third = run_turn(guest, "#D2004")  # its items were modified: it can no longer be cancelled
    assert _awaiting(third) == "order_id" and "can't be cancelled" in third.reply["text"]
    Order.objects.filter(external_id="#D2004").update(status="pending")

    run_turn(guest, "#D2004")
    reason = run_turn(guest, "I ordered it by mistake")
    assert _awaiting(reason) == "confirm"
    assert "Cancel order #D2004" in reason.reply["text"] and "ordered by mistake" in reason.reply["text"]

    done = run_turn(guest, "yes")
    assert "cancelled" in done.reply["text"]
    assert Order.objects.get(external_id="#D2004").status == "cancelled"

    again = run_turn(guest, "yes")
    assert Order.objects.get(external_id="#D2004").transactions.filter(kind="refund").count() == 1
    assert _awaiting(again) != "confirm" or "Cancel order" not in again.reply["text"]


@pytest.mark.parametrize(
    ("opening", "story", "shown", "reason"),
    [
        (
            "I want to cancel order #D1001",
            "my neighbour lent me his, so I'm sorted",
            "no longer needed",
            "no longer needed",
        ),
        # the customer reads the reason in their language; the store records it as it always does
        ("帮我取消订单 #D1001", "本来只是想看看运费，结果直接付款了", "原因：买错了", "ordered by mistake"),
    ],
)
def test_a_cancel_reason_told_as_a_story_is_read_by_meaning(
    li: Conversation, opening: str, story: str, shown: str, reason: str
) -> None:
    asked = run_turn(li, opening)
    assert _awaiting(asked) == "reason"

    confirm = run_turn(li, story)

    assert _awaiting(confirm) == "confirm" and shown in confirm.reply["text"]
    assert "mistake" not in confirm.reply["text"] or li.language == "en"
    run_turn(li, "yes" if li.language == "en" else "是的")
    assert Order.objects.get(external_id="#D1001").action_details == {"cancel_reason": reason}
    order = Order.objects.get(external_id="#D1001")
    assert order.status == "cancelled" and order.action_details["cancel_reason"] == reason


def test_a_question_asked_for_the_cancel_reason_is_not_taken_for_one(li: Conversation) -> None:
    run_turn(li, "帮我取消订单 #D1001")

    turn = run_turn(li, "退款多久到账？")

    assert "reason" not in WorkflowState.objects.get(conversation=li, status="active").slots
    assert Order.objects.get(external_id="#D1001").status == "pending"
    assert _awaiting(turn) == "reason"


def test_return_in_chinese_with_several_slots_in_one_message(li: Conversation) -> None:
    first = run_turn(li, "我要退货，订单 #D1003 里的 Enco X3 耳机，退到礼品卡")

    assert _awaiting(first) == "confirm"
    assert "退货：订单 #D1003" in first.reply["text"] and "gift_card_demo_li" in first.reply["text"]

    done = run_turn(li, "是的")

    order = Order.objects.get(external_id="#D1003")
    assert order.status == "return requested"
    assert order.action_details["return_payment_method_id"] == "gift_card_demo_li"
    assert "退货单" in done.reply["text"] and Ticket.objects.filter(kind="return", order_ref="#D1003").count() == 1


def test_a_return_outside_the_seven_day_window_is_refused(li: Conversation) -> None:
    turn = run_turn(li, "我要退货，订单 #D1004")

    assert "超过 7 天" in turn.reply["text"]
    assert Order.objects.get(external_id="#D1004").status == "delivered"


def test_exchange_keeps_the_product_and_changes_options(emma: Conversation) -> None:
    run_turn(emma, "I'd like to exchange an item from order #D2001")
    run_turn(emma, "the Find X9")
    options = run_turn(emma, "I want it in Star Black with 16GB+512GB")
    assert _awaiting(options) == "payment_method_id"

    confirm = run_turn(emma, "use paypal")
    assert _awaiting(confirm) == "confirm"
    run_turn(emma, "yes please")

    order = Order.objects.get(external_id="#D2001")
    assert order.status == "exchange requested"
    assert order.action_details["exchange_new_items"] == ["V-X9-BLK-512"]


@pytest.mark.parametrize(
    ("opening", "offered", "yes"),
    [
        (
            "I'd like to exchange the Find X9 from order #D2001 for the 16GB+512GB one",
            "changes its other options",
            "ok",
        ),
        ("订单 #D2001 的 Find X9 想换成 16GB+512GB 的", "其他规格也会跟着变", "可以"),
    ],
)
def test_a_version_that_changes_an_option_not_asked_for_is_offered_and_taken_only_on_a_yes(
    emma: Conversation, opening: str, offered: str, yes: str
) -> None:
    # Only the Star Black phone has 16GB+512GB; the customer's is Pearl White and no colour was named.
    offer = run_turn(emma, opening)
    assert _awaiting(offer) == "new_item_ids"
    assert offered in offer.reply["text"] and "Star Black" in offer.reply["text"]
    waiting = WorkflowState.objects.get(conversation=emma, status="active")
    assert waiting.progress["offered"] == {"V-X9-WHT-256": "V-X9-BLK-512"}
    assert not [key for key in waiting.slots if key.startswith("_")]  # progress is not hidden in the slots

    taken = run_turn(emma, yes)
    assert _awaiting(taken) == "payment_method_id"
    confirm = run_turn(emma, "paypal")
    assert _awaiting(confirm) == "confirm" and "Star Black" in confirm.reply["text"]
    assert Order.objects.get(external_id="#D2001").status == "delivered"  # nothing written before the yes


@pytest.mark.parametrize(
    ("opening", "yes"),
    [
        (
            "I'd like to exchange in order #D2001: the Find X9 for the 16GB+512GB one, and the Find X8 for Star Black",
            "ok",
        ),
        ("订单 #D2001 想换货：Find X9 换成 16GB+512GB 的，Find X8 换成星野黑", "可以"),
    ],
)
def test_items_said_after_one_that_is_offered_another_version_are_read_in_the_same_message(
    emma: Conversation, opening: str, yes: str
) -> None:
    from stores.builtin.models import OrderItem, Variant

    order = Order.objects.get(external_id="#D2001")
    white = Variant.objects.select_related("product").get(external_id="V-X8-WHT-256")
    OrderItem.objects.create(
        order=order, variant=white, product=white.product, name=white.product.name, options=white.options, price=1
    )
    offer = run_turn(emma, opening)
    assert _awaiting(offer) == "new_item_ids" and "Star Black" in offer.reply["text"]

    taken = run_turn(emma, yes)  # the Find X8's new colour was said with the first message

    assert _awaiting(taken) == "payment_method_id"
    confirm = run_turn(emma, "paypal")
    assert _awaiting(confirm) == "confirm"
    proposed = WorkflowState.objects.get(conversation=emma, status="active").slots["new_item_ids"]
    assert "V-X9-BLK-512" in proposed and "V-X8-BLK-256" in proposed


@pytest.mark.parametrize(
    ("language", "opening", "payment", "yes", "said"),
    [
        (
            "en",
            "I'd like to exchange the Find X9 from order #D2001 for Star Black",
            "paypal",
            "yes",
            "no longer allows",
        ),
        ("zh", "订单 #D2001 的 Find X9 想换成星野黑", "PayPal", "好的", "订单当前状态已不允许这项更改"),
    ],
)
def test_a_write_the_store_refuses_at_the_yes_is_explained_in_the_customers_language(
    emma: Conversation, language: str, opening: str, payment: str, yes: str, said: str
) -> None:
    Conversation.objects.filter(pk=emma.pk).update(language=language)
    emma.refresh_from_db()
    run_turn(emma, opening)
    confirm = run_turn(emma, payment)
    assert _awaiting(confirm) == "confirm"
    Order.objects.filter(external_id="#D2001").update(status="processed")  # changed in the store meanwhile

    refused = run_turn(emma, yes)

    assert said in refused.reply["text"] and "#D2001 is" not in refused.reply["text"]  # not the tool's own words
    assert Order.objects.get(external_id="#D2001").status == "processed"


@pytest.mark.parametrize(
    ("opening", "put_right"),
    [
        ("I'd like to exchange the Find X9 from order #D2001 for Star Black 12GB+256GB", "sorry, I meant 16GB+512GB"),
        ("订单 #D2001 的 Find X9 想换成星野黑 12GB+256GB 的", "说错了，是 16GB+512GB，不是 12GB+256GB"),
    ],
)
def test_a_value_put_right_at_the_confirmation_chooses_the_new_version_again(
    emma: Conversation, opening: str, put_right: str
) -> None:
    run_turn(emma, opening)
    first = run_turn(emma, "paypal")
    assert _awaiting(first) == "confirm" and "12GB+256GB" in first.reply["text"].split("Star Black")[-1]

    again = run_turn(emma, put_right)

    assert _awaiting(again) == "confirm"
    assert "(Star Black, 16GB+512GB" in again.reply["text"]  # only the value put right changed
    run_turn(emma, "yes" if emma.language == "en" else "是")
    assert Order.objects.get(external_id="#D2001").action_details["exchange_new_items"] == ["V-X9-BLK-512"]


def test_modify_the_address_of_a_pending_order(li: Conversation) -> None:
    run_turn(li, "我想修改订单 #D1001 的收货地址")
    confirm = run_turn(li, "天河路 1 号, 3 楼, 广州, 广东, 510000, 中国")
    assert _awaiting(confirm) == "confirm"

    run_turn(li, "确认")

    assert Order.objects.get(external_id="#D1001").address["city"] == "广州"


def test_a_no_writes_nothing_and_an_unclear_answer_is_asked_again(li: Conversation) -> None:
    run_turn(li, "我要取消订单 #D1001，不需要了")

    unclear = run_turn(li, "嗯……让我想想别的")
    assert _awaiting(unclear) == "confirm" and Order.objects.get(external_id="#D1001").status == "pending"

    declined = run_turn(li, "不")
    assert "未做任何更改" in declined.reply["text"]
    assert Order.objects.get(external_id="#D1001").status == "pending"


@pytest.mark.parametrize("answer", ["I don't mind, go ahead", "sounds good, no rush", "好的，不用急", "可以，不着急"])
def test_a_plain_yes_holding_a_no_word_goes_ahead(li: Conversation, answer: str) -> None:
    run_turn(li, "我要取消订单 #D1001，不需要了")

    run_turn(li, answer)

    assert Order.objects.get(external_id="#D1001").status == "cancelled"


@pytest.mark.parametrize(
    ("text", "said"), [("never mind, thanks", "nothing was changed"), ("不办了谢谢", "没有做任何更改")]
)
def test_giving_up_politely_ends_the_request_at_any_step(li: Conversation, text: str, said: str) -> None:
    run_turn(li, "我要退货")

    turn = run_turn(li, text)

    assert said in turn.reply["text"]
    assert not WorkflowState.objects.filter(conversation=li, status="active").exists()


def test_a_correction_replaces_the_order(li: Conversation) -> None:
    run_turn(li, "I want to return order #D1004")  # refused: out of the window
    turn = run_turn(li, "no, the other order: #D1003")

    state = WorkflowState.objects.get(conversation=li, status="active")
    assert state.slots["order_id"] == "#D1003"
    assert _awaiting(turn) == "payment_method_id"  # its only item needs no naming


def test_a_digression_is_answered_then_the_prompt_repeats(li: Conversation) -> None:
    run_turn(li, "我要退货，订单 #D1003")

    turn = run_turn(li, "对了，Find X9 多少钱？")

    assert "到手价 ¥3,499" in turn.reply["text"]
    assert _awaiting(turn) == "payment_method_id"
    assert WorkflowState.objects.get(conversation=li, status="active").kind == "return"


def test_cancel_words_end_the_workflow(li: Conversation) -> None:
    run_turn(li, "我要开发票")

    turn = run_turn(li, "算了")

    assert "没有做任何更改" in turn.reply["text"]
    assert not WorkflowState.objects.filter(conversation=li, status="active").exists()


def test_an_idle_workflow_expires_and_the_next_message_starts_fresh(li: Conversation) -> None:
    run_turn(li, "I need an invoice for order #D1003")
    WorkflowState.objects.filter(conversation=li).update(expires_at=timezone.now() - timedelta(minutes=1))

    assert workflows_expire_idle() == 1
    turn = run_turn(li, "company")

    assert WorkflowState.objects.get(conversation=li, kind="invoice").status == "expired"
    assert _awaiting(turn) != "invoice_title"


def test_a_paused_workflow_survives_a_restart(li: Conversation) -> None:
    from django.core.cache import cache

    from agents.intents.catalogue import catalogue_forget

    run_turn(li, "I need a special VAT invoice for order #D1003")
    cache.clear()
    catalogue_forget()  # nothing in memory survives a restart; the row does

    title = run_turn(li, "ACME Trading Ltd")
    assert _awaiting(title) == "tax_id"
    confirm = run_turn(li, "91440300MA5FXXXX1X")
    assert _awaiting(confirm) == "confirm"
    run_turn(li, "yes")

    assert Ticket.objects.get(kind="invoice", order_ref="#D1003").payload["tax_id"] == "91440300MA5FXXXX1X"


def test_repair_in_english(emma: Conversation) -> None:
    run_turn(emma, "My phone screen cracked, I need a repair")
    run_turn(emma, "IMEI 490154203237518")
    issue = run_turn(emma, "The screen is cracked after a fall")
    assert _awaiting(issue) == "warranty_status"
    run_turn(emma, "it's out of warranty")
    confirm = run_turn(emma, "I'll mail it in")
    assert _awaiting(confirm) == "confirm"

    done = run_turn(emma, "yes")

    assert "¥899" in done.reply["text"]
    assert Ticket.objects.get(kind="repair").payload["repair_type"] == "mail_in"


def test_three_failed_verifications_escalate_for_policy(guest: Conversation) -> None:
    run_turn(guest, "I want to cancel an order")
    run_turn(guest, "my email is nobody@example.com")
    run_turn(guest, "my email is someone@example.com")

    turn = run_turn(guest, "my email is whoever@example.com")

    assert turn.status == "escalated" and turn.escalation_reason == "policy"


def test_gift_card_balance_is_checked_before_a_payment_change(li: Conversation) -> None:
    refused = run_turn(li, "我想把订单 #D1001 的支付方式改成礼品卡")
    again = run_turn(li, "是")

    assert _awaiting(refused) == _awaiting(again) == "payment_method_id" and "余额" in refused.reply["text"]
    assert PaymentMethod.objects.get(external_id="gift_card_demo_li").balance == 200


def test_modify_the_default_address_in_english(emma: Conversation) -> None:
    first = run_turn(emma, "I want to change my default address")
    assert _awaiting(first) == "address"

    confirm = run_turn(emma, "77 Market Street, Unit 9, San Francisco, CA, 94103, USA")
    assert _awaiting(confirm) == "confirm" and "default shipping address" in confirm.reply["text"]
    run_turn(emma, "yes")

    customer = Customer.objects.get(external_id="demo_emma_wilson")
    assert customer.addresses.get(is_default=True).address1 == "77 Market Street"
    assert Order.objects.get(external_id="#D2001").address["address1"] == "500 Howard Street"  # orders keep theirs


def test_cancel_in_chinese_and_a_second_operation_without_verifying_again(li: Conversation) -> None:
    run_turn(li, "帮我取消订单 #D1001，买错了")
    run_turn(li, "确认")
    assert Order.objects.get(external_id="#D1001").status == "cancelled"

    confirm = run_turn(li, "另外我要给订单 #D1003 开个人发票，抬头写李伟")

    assert _awaiting(confirm) in {"invoice_title", "confirm"}


def test_return_in_english_step_by_step(emma: Conversation) -> None:
    Order.objects.filter(external_id="#D2001").update(delivered_at=timezone.now() - timedelta(days=1))
    first = run_turn(emma, "I'd like to return something")
    assert _awaiting(first) == "order_id"
    payment = run_turn(emma, "#D2001")  # its only item, the Find X9, needs no naming
    assert _awaiting(payment) == "payment_method_id"
    confirm = run_turn(emma, "back to the original payment method please")
    assert _awaiting(confirm) == "confirm" and "paypal_demo_emma" in confirm.reply["text"]

    run_turn(emma, "yes")

    assert Order.objects.get(external_id="#D2001").status == "return requested"


def test_exchange_in_chinese(emma: Conversation) -> None:
    confirm = run_turn(emma, "我要换货：订单 #D2001 的 Find X9 换成星野黑 16GB+512GB，差价用 paypal 支付")

    assert _awaiting(confirm) == "confirm" and "换货" in confirm.reply["text"]
    done = run_turn(emma, "好的")
    order = Order.objects.get(external_id="#D2001")
    assert "换货申请已提交" in done.reply["text"]
    assert order.status == "exchange requested" and order.action_details["exchange_new_items"] == ["V-X9-BLK-512"]


def test_an_out_of_stock_option_is_not_offered_as_the_new_item(li: Conversation) -> None:
    turn = run_turn(li, "订单 #D1003 的 Enco X3 耳机想换成黑色")

    assert _awaiting(turn) == "new_item_ids"
    assert Order.objects.get(external_id="#D1003").status == "delivered"


def test_repair_in_chinese_with_everything_up_front(li: Conversation) -> None:
    confirm = run_turn(li, "手机要维修，IMEI 490154203237518，充电充不进去，已经过保了，我想寄修")

    assert _awaiting(confirm) in {"issue_description", "confirm"}, (
        confirm.status,
        confirm.escalation_reason,
        confirm.intents,
        confirm.reply,
    )
    if _awaiting(confirm) == "issue_description":
        confirm = run_turn(li, "充电充不进去")
    assert _awaiting(confirm) == "confirm"
    done = run_turn(li, "是")
    assert "¥299" in done.reply["text"]


def test_modify_items_in_english_pays_the_difference(emma: Conversation) -> None:
    Order.objects.filter(external_id="#D2004").update(status="pending")

    confirm = run_turn(
        emma,
        "I want to change the items in my pending order #D2004: Find X8 to Pearl White. Use credit_card_demo_emma.",
    )
    assert _awaiting(confirm) == "confirm" and "only once" in confirm.reply["text"]
    run_turn(emma, "yes")

    order = Order.objects.get(external_id="#D2004")
    assert order.status == "pending (item modified)" and order.items.get().variant.external_id == "V-X8-WHT-256"


# --- several requests, order-aware intents, no dead loops -------------------------------------------


def test_two_requests_in_one_message_are_carried_out_one_after_the_other(li: Conversation) -> None:
    # given: an item change asked before an address change of the same pending order
    first = run_turn(
        li,
        "Please swap the Find X9 in order #D1001 for the Pearl White one. "
        "Also, for order #D1001 please ship it to 88 Market Street, Suite 5, San Francisco, CA 94105, USA",
    )

    # then: the address comes first, since changed items end all other changes of a pending order
    assert _awaiting(first) == "confirm" and "88 Market Street" in first.reply["text"]
    assert WorkflowState.objects.filter(conversation=li, status="queued").count() == 1

    second = run_turn(li, "Sounds good, please proceed.")
    assert Order.objects.get(external_id="#D1001").address["address1"] == "88 Market Street"
    assert "Now your other request (order change, order #D1001):" in second.reply["text"]

    if _awaiting(second) == "payment_method_id":
        second = run_turn(li, "the original card")
    assert _awaiting(second) == "confirm" and "Pearl White" in second.reply["text"]
    run_turn(li, "yes")

    order = Order.objects.get(external_id="#D1001")
    assert [i.variant.external_id for i in order.items.all()] == ["V-X9-WHT-256"]
    assert not WorkflowState.objects.filter(conversation=li, status__in=["active", "queued"]).exists()


@pytest.mark.parametrize(
    ("opening", "correction"),
    [
        (
            "Please ship order #D1010 to 12 Oak Street, Austin, TX 78701",
            "Apologies, #D1010 was a mistake, I meant #D1001.",
        ),
        ("请把订单 #D1010 寄到浙江省杭州市西湖区文三路 100 号 5 楼，邮编 310012", "抱歉，#D1010 写错了，我是说 #D1001"),
    ],
)
def test_a_mistaken_order_id_named_beside_the_meant_one_is_put_right(
    li: Conversation, opening: str, correction: str
) -> None:
    run_turn(li, opening)

    confirm = run_turn(li, correction)

    # the request goes on for the order meant: "was a mistake" is no reason to cancel it
    assert _awaiting(confirm) == "confirm" and "#D1001" in confirm.reply["text"]
    assert WorkflowState.objects.get(conversation=li, status="active").kind == "modify_order"


@pytest.mark.parametrize(
    ("opening", "correction", "language"),
    [
        (
            "Please cancel order #D1001, I ordered it by mistake. Also I want to return the earbuds from order #D1030.",
            "sorry typo, #D1003 not #D1030",
            "en",
        ),
        ("请帮我取消订单 #D1001，是误下单。另外订单 #D1030 的耳机我想退货。", "是#D1003，不是#D1030", "zh"),
        # the mistake not named: the order id one typing slip away is the one put right
        (
            "Please cancel order #D1001, I ordered it by mistake. Also I want to return the earbuds from order #D1030.",
            "Sorry my mistake, the correct order number is #D1003",
            "en",
        ),
        ("请帮我取消订单 #D1001，是误下单。另外订单 #D1030 的耳机我想退货。", "订单号打错了，应该是 #D1003", "zh"),
    ],
)
def test_an_order_id_put_right_for_the_second_request_leaves_the_first_alone(
    guest: Conversation, opening: str, correction: str, language: str
) -> None:
    Conversation.objects.filter(pk=guest.pk).update(language=language)
    guest.refresh_from_db()
    assert _awaiting(run_turn(guest, opening)) == "email"

    run_turn(guest, correction)
    first = run_turn(guest, "li.wei@example.com")

    # then: the cancellation still concerns #D1001; the return waits with the order put right
    assert _awaiting(first) == "confirm" and "#D1001" in first.reply["text"]
    queued = WorkflowState.objects.get(conversation=guest, status="queued")
    assert "#D1003" in queued.progress["pending"][0]["text"]
    assert queued.progress["pending"][0]["entities"]["order_ids"] == ["#D1003"]
    second = run_turn(guest, "yes" if language == "en" else "确认")
    assert Order.objects.get(external_id="#D1001").status == "cancelled"
    assert "#D1003" in second.reply["text"]
    assert WorkflowState.objects.get(conversation=guest, status="active").slots["order_id"] == "#D1003"


@pytest.mark.parametrize(
    ("chat", "text", "soothing"),
    [
        ("emma", "Really disappointed with the Find X9 I got. I want to return it, order #D2001", "I'm really sorry"),
        ("li", "太失望了，耳机戴着不舒服，我要退货，订单 #D1003", "非常抱歉"),
    ],
)
def test_a_disappointed_customer_gets_the_request_done_opened_with_a_soothing_line(
    chat: str, text: str, soothing: str, request: pytest.FixtureRequest
) -> None:
    conversation = request.getfixturevalue(chat)

    turn = run_turn(conversation, text)

    assert turn.status == "done" and turn.reply["text"].startswith(soothing)
    assert _awaiting(turn) in ("payment_method_id", "confirm")
    assert WorkflowState.objects.get(conversation=conversation, status="active").kind == "return"


def test_a_furious_customer_goes_to_a_person_even_beside_a_request(li: Conversation) -> None:
    turn = run_turn(li, "气死我了！！！太过分了，我要退货，订单 #D1003")

    assert turn.status == "escalated" and turn.escalation_reason == "emotion"


@pytest.mark.parametrize(
    ("opening", "correction", "reason"),
    [
        (
            "Please cancel order #D1001, I no longer need it",
            "hang on, I got that wrong: ordered by mistake rather than no longer needed",
            "ordered by mistake",
        ),
        ("帮我取消订单 #D1001，不需要了", "说错了，是误下单，不是不需要了", "ordered by mistake"),
        ("Please cancel order #D1001, I no longer need it", "sorry i meant ordered by mistake", "ordered by mistake"),
        ("帮我取消订单 #D1001，我买错了", "我是说不需要了", "no longer needed"),
        ("Please cancel order #D1001, it was a misclick", "no longer needed* sorry", "no longer needed"),
        # the mistaken value said again in other words than the first time
        ("帮我取消订单 #D1001，已经不想要了", "说错了，是买错了，不是不再需要", "ordered by mistake"),
    ],
)
def test_a_correction_inside_a_request_is_read_not_escalated(
    li: Conversation, opening: str, correction: str, reason: str
) -> None:
    run_turn(li, opening)

    turn = run_turn(li, correction)

    assert turn.status == "done" and _awaiting(turn) == "confirm"
    assert WorkflowState.objects.get(conversation=li, status="active").slots["reason"] == reason


@pytest.mark.parametrize(
    ("opening", "correction", "proof", "shown", "reason"),
    [
        (
            "Please cancel order #D1001, I don't want it anymore",
            "sorry, I meant ordered by mistake, not no longer needed",
            "Li Wei, zip code 518057",
            "ordered by mistake",
            "ordered by mistake",
        ),
        (
            "帮我取消订单 #D1001，已经不想要了",
            "抱歉，我说错了，是买错了，不是不再需要",
            "我叫李伟，邮编518057",
            "买错了",
            "ordered by mistake",
        ),
        # the reason told again, not read as putting a value right: the latest word counts (Workflow.restated)
        (
            "暂时用不上了，订单 #D1001 麻烦取消吧",
            "我刚才说错了，其实取消的原因是下单时点错了",
            "li.wei@example.com",
            "原因：买错了",
            "ordered by mistake",
        ),
        (
            "Please cancel #D1001, I ordered it by mistake",
            "sorry, scratch that reason: my brother gave me his, so I just don't need it any more",
            "li.wei@example.com",
            "no longer needed",
            "no longer needed",
        ),
        # the correction's words hold the request's own word (取消, cancel) too: the reason is still said again
        (
            "订单 #D1001 整单取消吧，别的店更便宜，这个不想要了",
            "刚刚说错了，取消的理由应该是点错了",
            "邮箱是li.wei@example.com，劳驾了",
            "原因：买错了",
            "ordered by mistake",
        ),
        (
            "Cancel the whole of #D1001 please, found it cheaper elsewhere so I don't want it",
            "wait, my mistake: the reason to cancel is that I ordered it by accident",
            "li.wei@example.com, much appreciated",
            "ordered by mistake",
            "ordered by mistake",
        ),
        # the reason meant first, the one said by mistake after it; the slip owned as a typo before the one meant
        (
            "想取消订单 #D1001，当时手滑点错了才下的单，麻烦了",
            "不好意思，理由应该是不需要了，前面写成点错了",
            "li.wei@example.com",
            "原因：不需要了",
            "no longer needed",
        ),
        (
            "订单 #D1001 帮我取消一下，是误购",
            "误购是我打错了，已经用不上了才对",
            "li.wei@example.com",
            "原因：不需要了",
            "no longer needed",
        ),
        (
            "Cancel #D1001 for me please, I clicked buy by accident",
            "sorry, the reason is that I have no use for it now; I wrote accident by mistake",
            "li.wei@example.com",
            "no longer needed",
            "no longer needed",
        ),
    ],
)
def test_a_correction_said_before_verification_is_applied_once_the_account_is_known(
    store: None, opening: str, correction: str, proof: str, shown: str, reason: str
) -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_put_right"))
    assert _awaiting(run_turn(chat, opening)) == "email"
    run_turn(chat, correction)

    confirm = run_turn(chat, proof)

    assert _awaiting(confirm) == "confirm" and shown in confirm.reply["text"]
    assert WorkflowState.objects.get(conversation=chat, status="active").slots["reason"] == reason


@pytest.mark.parametrize(
    ("opening", "proof", "shown"),
    [
        ("前两天下的订单 #D1001 想取消，型号选错了", "注册邮箱li.wei@example.com，劳驾了", "原因：买错了"),
        ("I'd like to cancel #D1001, picked the wrong model", "li.wei@example.com, much obliged", "ordered by mistake"),
    ],
)
def test_a_polite_answer_to_who_are_you_keeps_the_reason_given(
    store: None, opening: str, proof: str, shown: str
) -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_polite"))
    assert _awaiting(run_turn(chat, opening)) == "email"

    confirm = run_turn(chat, proof)

    assert _awaiting(confirm) == "confirm" and shown in confirm.reply["text"]
    assert WorkflowState.objects.get(conversation=chat, status="active").slots["reason"] == "ordered by mistake"


@pytest.mark.parametrize(
    "text",
    [
        "Return the Find X9 from #D1001 and send me an identical new one instead, it keeps freezing",
        "#D1001 的 Find X9 退一个，给我换个同样配置的新的，老是死机",
    ],
)
def test_a_swap_for_the_same_item_of_an_unshipped_order_is_never_read_as_cancelling_it(
    li: Conversation, text: str
) -> None:
    turn = run_turn(li, text)

    assert not WorkflowState.objects.filter(conversation=li, kind="cancel_order").exists()
    assert "cancel" not in turn.reply["text"].lower() and "取消订单" not in turn.reply["text"]


@pytest.mark.parametrize(
    "text",
    [
        "I want to return the Find X9 of #D1001, I need the Pearl White one",
        "老婆说要另一个颜色，#D1001 的 Find X9 退回去，给我换成浮光白的",
    ],
)
def test_an_unshipped_item_sent_back_for_another_version_is_changed_never_the_order_cancelled(
    li: Conversation, text: str
) -> None:
    run_turn(li, text)

    state = WorkflowState.objects.get(conversation=li, status="active")
    assert state.kind == "modify_order" and state.slots.get("order_id") == "#D1001"
    assert not WorkflowState.objects.filter(conversation=li, kind="cancel_order").exists()


@pytest.mark.parametrize(
    ("opening", "correction", "meant", "mistaken"),
    [
        (
            "Please ship order #D1001 to 812 Cedar Avenue, Suite 500, Houston, TX 77219, USA instead",
            "oops, the zip is 77129, not 77219",
            "77129",
            "77219",
        ),
        (
            "订单 #D1001 的收货地址改成 USA TX州 Houston市 812 Cedar Avenue Suite 500 邮编77219",
            "说错了，邮编应该是77129，不是77219",
            "77129",
            "77219",
        ),
    ],
)
def test_an_address_put_right_before_verification_is_the_one_proposed(
    store: None, opening: str, correction: str, meant: str, mistaken: str
) -> None:
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_zip_put_right"))
    assert _awaiting(run_turn(chat, opening)) == "email"
    run_turn(chat, correction)

    confirm = run_turn(chat, "Li Wei, zip code 518057")

    assert _awaiting(confirm) == "confirm"
    assert meant in confirm.reply["text"] and mistaken not in confirm.reply["text"]


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("我要退耳机", "#D1003"),  # the one delivered order holding earbuds
        ("I'd like to return the Enco X3 Earbuds I received", "#D1003"),
        ("Please ship my pending order to 88 Market Street, Suite 5, San Francisco, CA 94105, USA", "#D1001"),
        ("我那个还没发货的订单，地址改成广东省深圳市南山区科苑路15号", "#D1001"),
    ],
)
def test_an_order_described_without_its_id_is_found_among_the_customers(
    li: Conversation, text: str, order: str
) -> None:
    turn = run_turn(li, text)

    assert WorkflowState.objects.get(conversation=li, status="active").slots.get("order_id") == order
    assert _awaiting(turn) != "order_id"


@pytest.mark.parametrize(
    "text",
    [
        "Could you swap my Find X9 for the Pearl White one? It hasn't shipped yet.",
        "我的 Find X9 还没发货，想换成浮光白",
    ],
)
def test_an_exchange_worded_change_of_an_order_said_to_be_unshipped_changes_that_order(
    li: Conversation, text: str
) -> None:
    run_turn(li, text)

    state = WorkflowState.objects.get(conversation=li, status="active")
    assert state.kind == "modify_order" and state.slots.get("order_id") == "#D1001"


@pytest.mark.parametrize(
    ("typo", "fix"),
    [
        ("I need to change the address of order #D1010 please", "not #D1010, sorry - #D1001"),
        ("订单 #D1010 的地址要改一下", "不是 #D1010，是 #D1001"),
    ],
)
def test_an_order_id_put_right_while_verifying_keeps_the_request(guest: Conversation, typo: str, fix: str) -> None:
    assert _awaiting(run_turn(guest, typo)) == "email"

    turn = run_turn(guest, fix)

    assert _awaiting(turn) == "email"
    state = WorkflowState.objects.get(conversation=guest, status="active")
    assert state.kind == "modify_order"


def test_an_order_found_by_its_products_is_still_checked(li: Conversation) -> None:
    turn = run_turn(li, "I want to return the Pad 3 I got")  # delivered 20 days ago

    assert "#D1004" in turn.reply["text"] and "7 days" in turn.reply["text"]


def test_an_order_the_message_does_not_single_out_is_asked_for(li: Conversation) -> None:
    turn = run_turn(li, "I'd like to return something I received")  # two delivered orders

    assert _awaiting(turn) == "order_id"


@pytest.mark.parametrize(
    "switch",
    [
        "ugh, the earbuds were a disappointment. returning them instead, order #D1003",
        "算了太失望了，我还是退货吧，订单 #D1003",
        # the product named, as a request of its own kind
        "I was hoping to return the Enco X3 earbuds I received with order #D1003",
        "我想把订单 #D1003 的 Enco X3 耳机退货，退到原卡",
        # described by its options and given up for a refund: no answer to "which new version?"
        "Enco X3（白色那副）不换了，退款吧，钱退回礼品卡",
        "the Enco X3, the white pair - no swap after all, just refund it",
        # the return said unsurely beside a complaint about the item, the question left for it
        "说真的，Enco X3用着不太行，想return一下，单号#D1003，refund原卡",
        "Thinking again: got them, but the Enco X3 just aren't right. Want to return, order #D1003, refund my card",
    ],
)
def test_a_request_after_a_feeling_switches_from_the_request_waiting_for_options(li: Conversation, switch: str) -> None:
    waiting = run_turn(li, "I want to exchange the earbuds from order #D1003")
    assert _awaiting(waiting) == "new_item_ids"

    run_turn(li, switch)

    assert WorkflowState.objects.get(conversation=li, status="active").kind == "return"


@pytest.mark.parametrize(
    "answer",
    [
        "我想的是退一个白色的耳机，换个黑色的",
        "I'd like to return the white earbuds and get the black ones instead",
        # the message opens with the version wanted; a return said after it is more of the answer
        "把Enco X3换成黑色的吧；另外耳机白色那副不想要了，退回去",
        "make the Enco X3 the black ones please; also the white pair, I'm sending it back",
    ],
)
def test_an_item_sent_back_for_the_version_named_answers_which_version(li: Conversation, answer: str) -> None:
    """The exchange goes on with its order: not restarted as a request that asks again which order."""
    waiting = run_turn(li, "I want to exchange the earbuds from order #D1003")
    assert _awaiting(waiting) == "new_item_ids"

    turn = run_turn(li, answer)

    assert _awaiting(turn) != "order_id" and "intent_switch" not in turn.flags
    state = WorkflowState.objects.get(conversation=li, status="active")
    assert state.kind == "exchange" and state.slots["order_id"] == "#D1003"


def test_changing_an_item_of_a_pending_order_is_a_modification_not_an_exchange(li: Conversation) -> None:
    turn = run_turn(li, "我想把订单 #D1001 里的 Find X9 换成浮光白，其他配置不变，用原来的信用卡")

    assert _awaiting(turn) == "confirm"
    assert "修改订单 #D1001" in turn.reply["text"] and "Pearl White" in turn.reply["text"]
    assert WorkflowState.objects.get(conversation=li, status="active").kind == "modify_order"


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        (
            "Change the Find X9 in order #D1001 to Pearl White 16GB+512GB, use my credit card",
            "oh sorry, Star Black then",
        ),
        ("订单 #D1001 的 Find X9 换成浮光白 16GB+512GB，用原来的信用卡", "那就星野黑吧"),
        # the colour put right as a slip: the slip is not read as wanted too
        (
            "Change the Find X9 in order #D1001 to Pearl White 16GB+512GB, use my credit card",
            "Sorry, the colour is Star Black. I typed Pearl White by accident.",
        ),
        ("订单 #D1001 的 Find X9 换成浮光白 16GB+512GB，用原来的信用卡", "颜色是星野黑，浮光白是我打错了"),
    ],
)
def test_the_answer_to_not_available_keeps_the_other_options_asked_for(
    li: Conversation, asked: str, answer: str
) -> None:
    # No white Find X9 has 512 GB: told so, the customer changes only the colour and still wants 512 GB.
    unavailable = run_turn(li, asked)
    assert _awaiting(unavailable) == "new_item_ids", (unavailable.reply, unavailable.intents)

    confirm = run_turn(li, answer)

    assert _awaiting(confirm) == "confirm" and "16GB+512GB" in confirm.reply["text"]
    run_turn(li, "yes" if answer.isascii() else "是")
    assert Order.objects.get(external_id="#D1001").items.get().variant.external_id == "V-X9-BLK-512"


def test_a_no_op_change_is_never_proposed(li: Conversation) -> None:
    turn = run_turn(li, "Change the Find X9 in order #D1001 to Star Black")

    assert _awaiting(turn) == "new_item_ids"
    assert "confirm" not in str(turn.reply["awaiting"])


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        ("I'd like to change an item in my pending order #D1001", "just the Find X9."),
        ("订单 #D1001 还没发货，我想改一下里面的商品", "就Find X9。"),
    ],
)
def test_an_item_changed_into_itself_is_never_proposed(li: Conversation, request_: str, answer: str) -> None:
    """ "Just the phone" names the item; read as "the same phone again", it would change nothing."""
    run_turn(li, request_)

    turn = run_turn(li, answer)

    assert _awaiting(turn) == "new_item_ids", turn.reply
    assert not WorkflowState.objects.get(conversation=li, status="active").slots.get("new_item_ids")


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        (
            "Please pay #D1002 with gift_card_demo_li instead. Also, I'd like another version of one item of #D1002",
            "yes",
        ),
        ("订单 #D1002 改用 gift_card_demo_li 付款。另外 #D1002 里有个商品我想换个配置", "是"),
    ],
)
def test_an_item_change_waiting_behind_a_payment_change_asks_which_items(li: Conversation, text: str, yes: str) -> None:
    Order.objects.filter(external_id="#D1002").update(status="pending")
    PaymentMethod.objects.filter(external_id="gift_card_demo_li").update(balance=10_000)
    assert _awaiting(run_turn(li, text)) == "confirm"

    turn = run_turn(li, yes)

    assert _awaiting(turn) == "item_ids", turn.reply


@pytest.mark.parametrize(
    "text",
    [
        "Before #D1001 ships, please swap the Find X9 for an identical new one, same specs, on my credit card",
        "订单 #D1001 还没发货，Find X9 想换一个同款同规格的新的，用原来的信用卡",
    ],
)
def test_an_identical_new_one_asked_for_is_proposed(li: Conversation, text: str) -> None:
    """Asked for in words, the same version is the change the customer wants (a faulty unit replaced)."""
    turn = run_turn(li, text)
    if _awaiting(turn) == "payment_method_id":
        turn = run_turn(li, "the original card" if text.isascii() else "原来的信用卡")

    assert _awaiting(turn) == "confirm", turn.reply
    slots = WorkflowState.objects.get(conversation=li, status="active").slots
    assert slots["new_item_ids"] == slots["item_ids"]


def test_the_same_prompt_is_never_sent_more_than_twice_in_a_row(li: Conversation) -> None:
    asked = run_turn(li, "I want to cancel an order")
    again = run_turn(li, "hmm")
    offered = run_turn(li, "whatever")
    handed = run_turn(li, "blah")

    assert _awaiting(asked) == _awaiting(again) == "order_id" and asked.reply["text"] != offered.reply["text"]
    assert asked.reply["awaiting"]["prompt"] in again.reply["text"]
    assert "Talk to a person" in offered.reply["quick_replies"]
    assert handed.status == "escalated"


def test_a_question_while_verification_is_pending_is_answered_and_not_a_failure(guest: Conversation) -> None:
    run_turn(guest, "I want to cancel an order")

    for _ in range(3):
        aside = run_turn(guest, "how long does shipping take?")
        assert aside.status == "done" and "24 hours" in aside.reply["text"]
        assert _awaiting(aside) == "email" and "To continue" in aside.reply["text"]

    verified = run_turn(guest, "It's Emma Wilson, 94105")
    assert _awaiting(verified) == "order_id"


def test_a_public_question_never_asks_who_the_customer_is(guest: Conversation) -> None:
    english = run_turn(guest, "how long does shipping take?")
    chinese = run_turn(guest, "发货要几天？")

    assert english.reply["awaiting"] is None and english.reply["sources"]
    assert chinese.reply["awaiting"] is None and chinese.reply["sources"]


def test_an_order_refused_twice_ends_the_request_with_what_can_be_done(li: Conversation) -> None:
    run_turn(li, "I want to return something")
    refused = run_turn(li, "#D1001")  # pending: it cannot be returned
    again = run_turn(li, "yes it's #D1001")

    assert _awaiting(refused) == "order_id" and "can't be returned" in refused.reply["text"]
    assert again.reply["awaiting"] is None and "cancelled" in again.reply["text"]
    assert not WorkflowState.objects.filter(conversation=li, status="active").exists()


def test_an_address_sent_line_by_line_is_put_together(emma: Conversation) -> None:
    Order.objects.filter(external_id="#D2004").update(status="pending")
    run_turn(emma, "Please change the shipping address of order #D2004")

    street = run_turn(emma, "100 Main Street")
    unit = run_turn(emma, "Apartment 4")
    confirm = run_turn(emma, "Austin TX 78701")

    assert _awaiting(street) == _awaiting(unit) == "address"
    assert "Got it so far: street: 100 Main Street" in street.reply["text"]
    assert "apt/unit: Apartment 4" in unit.reply["text"] and "Sorry" not in unit.reply["text"]
    assert _awaiting(confirm) == "confirm" and "city: Austin; state: TX; zip: 78701" in confirm.reply["text"]
    run_turn(emma, "yes")
    assert Order.objects.get(external_id="#D2004").address["address1"] == "100 Main Street"


def test_an_order_is_sent_to_the_accounts_default_address_when_asked(li: Conversation) -> None:
    Order.objects.filter(external_id="#D1001").update(address={"address1": "旧地址 1 号", "city": "广州"})

    confirm = run_turn(li, "订单 #D1001 请寄到我的默认地址")

    assert _awaiting(confirm) == "confirm" and "南山区科技园路 8 号" in confirm.reply["text"]
    run_turn(li, "确认")
    assert Order.objects.get(external_id="#D1001").address["address1"] == "南山区科技园路 8 号"


def test_the_method_an_order_is_already_paid_with_is_refused_before_the_confirmation(emma: Conversation) -> None:
    Order.objects.filter(external_id="#D2004").update(status="pending")

    same = run_turn(emma, "Can I pay for order #D2004 with my mastercard ending 5100 instead?")
    other = run_turn(emma, "then PayPal")

    assert _awaiting(same) == "payment_method_id" and "already paid with credit_card_demo_emma" in same.reply["text"]
    assert _awaiting(other) == "confirm" and "paypal_demo_emma" in other.reply["text"]


def test_a_payment_method_named_by_its_last_digits_in_chinese(li: Conversation) -> None:
    PaymentMethod.objects.filter(external_id="gift_card_demo_li").update(balance=5000)
    same = run_turn(li, "订单 #D1001 改用尾号4242的卡付款")
    gift = run_turn(li, "那用礼品卡")

    assert _awaiting(same) == "payment_method_id" and "已经是用 credit_card_demo_li 支付的" in same.reply["text"]
    assert _awaiting(gift) == "confirm" and "gift_card_demo_li" in gift.reply["text"]


def test_what_was_said_before_the_order_id_is_read_once_it_arrives(li: Conversation) -> None:
    # "my phone": Li has two, the Find X9 of #D1001 and the Find X8 of #D1002, so the order is asked for
    asked = run_turn(li, "I'd like my phone in Pearl White instead, keep the rest")
    after = run_turn(li, "#D1001")

    assert _awaiting(asked) == "order_id"
    assert _awaiting(after) not in ("order_id", "item_ids", "new_item_ids")
    assert "Pearl White" in after.reply["text"] or _awaiting(after) == "payment_method_id"


@pytest.mark.parametrize(
    ("language", "unclear", "pick", "asked_text"),
    [("en", "blorp zibble wug", "yes", "Did you mean: "), ("zh", "紫色香蕉会打电话跳舞", "第一个", "您是想：")],
)
def test_the_answer_to_a_clarifying_question_carries_on_with_the_unclear_message(
    store: None, language: str, unclear: str, pick: str, asked_text: str
) -> None:
    from agents.dialog import INTENT_LABELS
    from agents.models import Subtask

    chat = conversation_start(customer=Customer.objects.create(external_id=f"guest_{language}"), language=language)

    asked = run_turn(chat, unclear)
    picked = run_turn(chat, pick)

    first = asked.reply["quick_replies"][0]
    assert asked.route == "clarify" and f"{asked_text}{first}" in asked.reply["text"]
    subtask = Subtask.objects.filter(turn=picked).first()
    assert subtask is not None and subtask.text == unclear  # the picked intent answers the first message
    assert INTENT_LABELS[subtask.intent][language] == first


def test_a_refund_to_a_method_the_policy_does_not_allow_is_refused_before_the_confirmation(
    emma: Conversation,
) -> None:
    refused = run_turn(emma, "I'd like to return the Find X9 from order #D2001, refund to credit_card_demo_emma")
    allowed = run_turn(emma, "ok, back to the original payment then")

    assert _awaiting(refused) == "payment_method_id"
    assert "only go back to the original payment method or to a gift card: paypal_demo_emma" in refused.reply["text"]
    assert _awaiting(allowed) == "confirm" and "refund to paypal_demo_emma" in allowed.reply["text"]


@pytest.mark.parametrize(("text", "lead"), [("I want to change the payment method of #D2004", "Which payment method")])
def test_the_payment_methods_to_choose_from_are_said_in_the_prompt(emma: Conversation, text: str, lead: str) -> None:
    Order.objects.filter(external_id="#D2004").update(status="pending")

    asked = run_turn(emma, text)

    assert _awaiting(asked) == "payment_method_id" and lead in asked.reply["text"]
    assert "mastercard ending 5100 (credit_card_demo_emma)" in asked.reply["text"]
    assert "PayPal paypal_demo_emma" in asked.reply["text"]


def test_a_chinese_address_without_a_zip_code_asks_for_it(li: Conversation) -> None:
    asked = run_turn(li, "麻烦把 #D1001 的收货地址改成浙江省杭州市西湖区文三路 100 号 5 楼")
    confirm = run_turn(li, "邮编 310012")

    assert _awaiting(asked) == "address" and "请补充其余部分（邮编）" in asked.reply["text"]
    assert _awaiting(confirm) == "confirm" and "邮编: 310012" in confirm.reply["text"]
    run_turn(li, "是的")
    assert Order.objects.get(external_id="#D1001").address["city"] == "杭州市"


def test_a_request_right_after_an_order_was_named_is_about_that_order(li: Conversation) -> None:
    run_turn(li, "订单D1001")
    reason = run_turn(li, "取消订单")

    assert _awaiting(reason) == "reason" and "#D1001" in str(
        WorkflowState.objects.get(conversation=li, status="active").slots
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("D1001 能不能改成 512G 的黑色", "16GB+512GB"),  # a short order id, and options that say an item change
        ("订单 D1001 的手机我想换成白色的，其他不变", "浮光白"),  # the order's only item, a colour by its character
        ("订单 #D1001 的 Find X9 换成浮光白，用原来的信用卡", "浮光白"),  # a colour by its trade name, said as a change
    ],
)
def test_chinese_item_changes_in_customers_words(li: Conversation, text: str, expected: str) -> None:
    asked = run_turn(li, text)
    confirm = run_turn(li, "用原来的卡") if _awaiting(asked) == "payment_method_id" else asked

    assert _awaiting(confirm) == "confirm" and expected in confirm.reply["text"]


def test_a_gift_card_that_does_not_cover_the_order_is_refused_when_named(li: Conversation) -> None:
    turn = run_turn(li, "我想换一张卡付 D1001 这一单，用礼品卡")

    assert _awaiting(turn) == "payment_method_id" and "余额（¥200）不足以支付订单金额 ¥3,999" in turn.reply["text"]


def test_the_only_item_of_an_order_needs_no_naming(li: Conversation) -> None:
    turn = run_turn(li, "#D1003 的耳机我想退掉，钱退回礼品卡")

    assert _awaiting(turn) == "confirm" and "Enco X3 Earbuds" in turn.reply["text"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [("D1001 不想要了", "no longer needed"), ("Please return D1001, I don't need it anymore", "no longer needed")],
)
def test_an_unwanted_order_not_yet_shipped_is_cancelled_not_returned(li: Conversation, text: str, reason: str) -> None:
    turn = run_turn(li, text)

    assert _awaiting(turn) == "confirm" and "#D1001" in turn.reply["text"]
    assert WorkflowState.objects.get(conversation=li, status="active").slots.get("reason") == reason


def test_a_short_order_id_after_from_is_read_in_english(emma: Conversation) -> None:
    Order.objects.filter(external_id="#D2001").update(delivered_at=timezone.now() - timedelta(days=1))

    turn = run_turn(emma, "I'd like to send the phone from D2001 back")

    assert _awaiting(turn) == "payment_method_id" and "#D2001" in turn.reply["text"]


def test_a_card_refused_twice_ends_the_request_and_the_next_one_starts(li: Conversation) -> None:
    run_turn(
        li, "把订单 #D1001 的支付方式改成礼品卡。另外，订单 #D1001 请改寄到广东省广州市天河区天河路 1 号，邮编 510000"
    )
    again = run_turn(li, "就用礼品卡")

    assert "已为您停止办理" in again.reply["text"] and "接下来办理您的另一项请求" in again.reply["text"]
    assert _awaiting(again) == "confirm" and "天河区天河路 1 号" in again.reply["text"]


@pytest.mark.parametrize(
    ("request_text", "answer"),
    [
        ("I want to cancel an order", "Wilson, Emma - zip 94105"),
        ("I want to cancel an order", "first name Emma, surname Wilson, zip 94105"),
        ("我想取消一个订单", "Emma Wilson就是我本人，邮编94105"),
        ("我想取消一个订单", "姓Wilson名Emma，邮编是94105哈"),
    ],
)
def test_a_name_and_zip_are_recognised_in_either_order_of_the_name(
    guest: Conversation, request_text: str, answer: str
) -> None:
    run_turn(guest, request_text)

    verified = run_turn(guest, answer)

    assert _awaiting(verified) == "order_id"


@pytest.mark.parametrize(
    ("request_text", "fix", "proof"),
    [
        (
            "I'd like to exchange the Find X9 from order #D2001 for the Star Black 12GB+256GB one",
            "sorry typo, 16GB+512GB not 12GB+256GB",
            "My name is Emma Wilson and my zip code is 94105",
        ),
        (
            "我想把订单 #D2001 里的 Find X9 换成星野黑 12GB+256GB 的",
            "不好意思打错了，是16GB+512GB，不是12GB+256GB",
            "我叫 Emma Wilson，邮编 94105",
        ),
    ],
)
def test_a_value_put_right_before_the_customer_is_verified_is_the_one_used(
    guest: Conversation, request_text: str, fix: str, proof: str
) -> None:
    run_turn(guest, request_text)
    run_turn(guest, fix)
    run_turn(guest, proof)
    confirm = run_turn(guest, "paypal")
    assert _awaiting(confirm) == "confirm"
    run_turn(guest, "yes")

    assert Order.objects.get(external_id="#D2001").action_details["exchange_new_items"] == ["V-X9-BLK-512"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Please drop the earbuds from order #D1002, I don't need them anymore", "cancels the whole order"),
        ("#D1002 只取消耳机，不需要了", "会取消整个订单"),
    ],
)
def test_taking_one_item_out_of_an_order_is_told_it_cancels_the_whole_order(
    li: Conversation, text: str, said: str
) -> None:
    Order.objects.filter(external_id="#D1002").update(status="pending")

    turn = run_turn(li, text)

    assert _awaiting(turn) == "confirm" and said in turn.reply["text"]
    assert "Find X8" in turn.reply["text"] and "Enco X3" in turn.reply["text"]  # every item is listed


def test_an_order_named_by_one_of_its_items_is_cancelled_without_that_warning(li: Conversation) -> None:
    Order.objects.filter(external_id="#D1002").update(status="pending")

    turn = run_turn(li, "Please cancel #D1002, the order with the earbuds, I don't need it anymore")

    assert _awaiting(turn) == "confirm" and "Cancel order #D1002" in turn.reply["text"]
    assert "whole order" not in turn.reply["text"]


@pytest.mark.parametrize(
    ("opening", "fix", "shown"),
    [
        ("Please ship #D1001 to 12 Oak Street, Austin, TX 78701", "oops, I meant 78710", "zip: 78710"),
        ("把订单 #D1001 改寄到广东省广州市天河区天河路 1 号，邮编 510630", "邮编写错了，是 510603", "510603"),
        ("订单 #D1001 请改寄到广东省深圳市南山区科苑路15号，邮编518057", "邮编写错了，是518075", "518075"),
    ],
)
def test_a_zip_put_right_while_confirming_an_address_is_confirmed_again(
    li: Conversation, opening: str, fix: str, shown: str
) -> None:
    first = run_turn(li, opening)
    assert _awaiting(first) == "confirm"

    again = run_turn(li, fix)

    assert _awaiting(again) == "confirm" and shown in again.reply["text"]
    run_turn(li, "yes" if li.language == "en" else "是")
    assert Order.objects.get(external_id="#D1001").address["zip"] in fix


@pytest.mark.parametrize(
    ("language", "opening", "correction", "email", "noted", "meant"),
    [
        (
            "en",
            "Please change the address of order #D1001 to 12 Oak Street, Springfield, IL 62704, USA",
            "Sorry, typo: the zip code is 62705, not 62704.",
            "li.wei@example.com",
            "Noted: 62705, not 62704.",
            "62705",
        ),
        (
            "en",
            "Please change the address of order #D1001 to 12 Oak Street, Springfield, IL 62704, USA",
            "oops, I meant 62705, not 62704. my bad",  # an apology after it
            "li.wei@example.com",
            "Noted: 62705, not 62704.",
            "62705",
        ),
        (
            "zh",
            "请把订单 #D1001 的收货地址改成广东省广州市天河区体育西路100号，邮编 510620",
            "是体育西路200号，不是体育西路100号",
            "邮箱是 li.wei@example.com",
            "是 体育西路200号，不是 体育西路100号",
            "体育西路200号",
        ),
    ],
)
def test_a_value_put_right_during_the_identity_check_is_kept_and_is_no_failed_attempt(
    guest: Conversation, language: str, opening: str, correction: str, email: str, noted: str, meant: str
) -> None:
    Conversation.objects.filter(pk=guest.pk).update(language=language)
    guest.refresh_from_db()
    assert _awaiting(run_turn(guest, opening)) == "email"

    fixed = run_turn(guest, correction)

    assert noted in fixed.reply["text"] and _awaiting(fixed) == "email"
    assert WorkflowState.objects.get(conversation=guest, status="active").progress.get("verify_failures", 0) == 0
    confirm = run_turn(guest, email)
    assert _awaiting(confirm) == "confirm" and meant in confirm.reply["text"]
    run_turn(guest, "yes" if language == "en" else "确认")
    address = Order.objects.get(external_id="#D1001").address
    assert meant in " ".join(str(v) for v in address.values())


def _product(product_id: str, name: str, variants: list[tuple[str, dict[str, str]]]) -> dict[str, object]:
    return {
        "name": name,
        "product_id": product_id,
        "variants": {
            item_id: {"item_id": item_id, "options": options, "available": True, "price": 50.0}
            for item_id, options in variants
        },
    }


@pytest.fixture
def ada(store: None) -> Conversation:
    """A verified shopper whose pending order #T0000009 holds a jacket and a camera that share a colour."""
    from stores.builtin.taubench import store_import_taubench

    jacket = [("3000000001", {"size": "S", "color": "red"}), ("3000000002", {"size": "XL", "color": "navy"})]
    jacket.append(("3000000003", {"size": "XL", "color": "black"}))
    camera = [("3000000011", {"resolution": "1080p", "color": "silver"})]
    camera.append(("3000000012", {"resolution": "5K", "color": "black"}))
    address = {
        "address1": "1 Main St",
        "address2": "",
        "city": "Austin",
        "country": "USA",
        "state": "TX",
        "zip": "78701",
    }
    items = [
        {"name": name, "product_id": pid, "item_id": iid, "price": 50.0, "options": options}
        for name, pid, (iid, options) in (
            ("Fleece Jacket", "4000000001", jacket[0]),
            ("Action Camera", "4000000002", camera[0]),
        )
    ]
    store_import_taubench(
        data={
            "products": {
                "4000000001": _product("4000000001", "Fleece Jacket", jacket),
                "4000000002": _product("4000000002", "Action Camera", camera),
            },
            "users": {
                "ada_park_1234": {
                    "user_id": "ada_park_1234",
                    "name": {"first_name": "Ada", "last_name": "Park"},
                    "address": address,
                    "email": "ada.park@example.com",
                    "payment_methods": {
                        "credit_card_1234567": {
                            "source": "credit_card",
                            "id": "credit_card_1234567",
                            "brand": "visa",
                            "last_four": "4242",
                        }
                    },
                    "orders": ["#T0000009"],
                }
            },
            "orders": {
                "#T0000009": {
                    "order_id": "#T0000009",
                    "user_id": "ada_park_1234",
                    "address": address,
                    "items": items,
                    "status": "pending",
                    "fulfillments": [],
                    "payment_history": [
                        {"transaction_type": "payment", "amount": 100.0, "payment_method_id": "credit_card_1234567"}
                    ],
                }
            },
        }
    )
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_ada"))
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="ada_park_1234"))
    chat.refresh_from_db()
    return chat


@pytest.mark.parametrize(
    ("language", "answer"),
    [
        ("en", "the Fleece Jacket to a navy XL one, and the Action Camera to the black 5K one"),
        ("zh", "Fleece Jacket 换成 navy XL 的，Action Camera 换成 black 5K 的"),
    ],
)
def test_an_answer_about_several_items_gives_each_item_only_its_own_words(
    ada: Conversation, language: str, answer: str
) -> None:
    # Only the jacket is being changed; the camera's "black" in the same answer is not the jacket's colour.
    Conversation.objects.filter(pk=ada.pk).update(language=language)
    ada.refresh_from_db()
    asked = run_turn(ada, "For order #T0000009 I want to change the Fleece Jacket")
    assert _awaiting(asked) == "new_item_ids", asked.reply["text"]

    confirm = run_turn(ada, answer)

    assert _awaiting(confirm) == "payment_method_id", confirm.reply["text"]  # for any price difference
    assert WorkflowState.objects.get(conversation=ada, status="active").slots["new_item_ids"] == ["3000000002"]


@pytest.mark.parametrize(("text", "language"), [("I want to return something", "en"), ("我想退货", "zh")])
def test_a_question_with_choices_names_them_so_it_reads_whole_once_the_buttons_are_gone(
    li: Conversation, text: str, language: str
) -> None:
    turn = run_turn(li, text)

    choices = turn.reply["awaiting"]["choices"]
    assert choices and all(choice in turn.reply["text"] for choice in choices)
    assert set(choices) <= set(turn.reply["quick_replies"])


@pytest.mark.parametrize("answer", ["还是用礼品卡吧，刚才说错了", "oops I meant the gift card"])
def test_a_payment_named_for_the_difference_keeps_the_item_change(li: Conversation, answer: str) -> None:
    """A payment method said alone, even read as putting something right, puts right the method, never the kind of
    change: the confirmation stays an item change."""
    asked = run_turn(li, "订单 #D1001 的 Find X9 换成浮光白，其他配置不变")
    assert _awaiting(asked) == "payment_method_id"

    turn = run_turn(li, answer)

    state = WorkflowState.objects.get(conversation=li, status="active")
    assert state.slots["change"] == "items" and "Pearl White" in turn.reply["text"]
