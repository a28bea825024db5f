"""Every store tool: happy path, not found, not yours, unverified; the write effects of τ-bench retail."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command

from agents.tools import TOOLS, ToolContext, ToolError, tool_call
from conversations.models import Customer
from stores.builtin.models import Order, PaymentMethod
from tickets.models import Ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def store() -> None:
    call_command("seed_demo", verbosity=0)


@pytest.fixture
def li(store: None) -> ToolContext:
    return ToolContext(conversation_id=None, customer=Customer.objects.get(external_id="demo_li_wei"), language="zh")


@pytest.fixture
def emma(store: None) -> ToolContext:
    return ToolContext(conversation_id=None, customer=Customer.objects.get(external_id="demo_emma_wilson"))


@pytest.fixture
def anonymous(store: None) -> ToolContext:
    return ToolContext(conversation_id=None, customer=None)


def _refused(ctx: ToolContext, name: str, args: dict[str, Any], code: str) -> None:
    with pytest.raises(ToolError) as excinfo:
        tool_call(name, ctx, args)
    assert excinfo.value.code == code


def test_every_tool_has_an_openai_definition_marked_read_or_write() -> None:
    expected = {
        "product_search",
        "get_inventory_info",
        "get_price_info",
        "get_order_info",
        "get_logistics_info",
        "product_compare",
        "product_recommend",
        "create_return_order",
        "create_exchange_order",
        "create_repair_order",
        "generate_invoice",
        "cancel_pending_order",
        "modify_pending_order",
        "modify_default_address",
        "transfer_to_human",
    }
    assert expected <= set(TOOLS)
    for tool in TOOLS.values():
        definition = tool.openai_definition()
        assert definition["type"] == "function" and definition["function"]["parameters"]["type"] == "object"
        assert tool.kind in {"read", "write"}
        assert not {"user_id", "customer_id", "customer"} & set(
            definition["function"]["parameters"].get("properties", {})
        )


# --- catalogue -------------------------------------------------------------------------------


def test_price_with_and_without_the_national_subsidy(anonymous: ToolContext) -> None:
    with_subsidy = tool_call("get_price_info", anonymous, {"product": "X9", "apply_subsidy": True})
    without = tool_call("get_price_info", anonymous, {"product": "Find X9", "apply_subsidy": False})

    cheapest = with_subsidy["variants"][0]
    assert (cheapest["price"], cheapest["subsidy"], cheapest["final_price"]) == (3999.0, 500.0, 3499.0)
    assert without["variants"][0]["final_price"] == 3999.0
    assert with_subsidy["subsidy_rule"]["max_amount"] == 500.0


def test_inventory_by_option(anonymous: ToolContext) -> None:
    blue = tool_call("get_inventory_info", anonymous, {"product": "Find X8", "color": "ocean blue"})

    assert [v["available"] for v in blue["variants"]] == [False]
    _refused(anonymous, "get_inventory_info", {"product": "Find X8", "color": "gold"}, "variant_not_found")
    _refused(anonymous, "get_inventory_info", {"product": "Nokia 3310"}, "product_not_found")


def test_compare_search_and_recommend(anonymous: ToolContext) -> None:
    table = tool_call("product_compare", anonymous, {"products": ["X8", "X9"]})
    assert [p["name"] for p in table["products"]] == ["Find X8", "Find X9"]
    assert "processor" in table["spec_keys"]

    phones = tool_call("product_search", anonymous, {"category": "phone", "price_max": 3500})
    assert [p["name"] for p in phones["products"]] == ["Find X8"]

    picks = tool_call("product_recommend", anonymous, {"budget_max": 3000, "tags": ["camera"]})
    assert picks["recommendations"][0]["name"] == "Find X8"
    _refused(anonymous, "product_compare", {"products": ["X8"]}, "bad_arguments")


# --- private reads ---------------------------------------------------------------------------------


def test_order_and_logistics_for_the_owner(li: ToolContext) -> None:
    order = tool_call("get_order_info", li, {"order_id": "#D1002"})
    assert order["status"] == "processed" and {i["name"] for i in order["items"]} == {"Find X8", "Enco X3 Earbuds"}

    shipment = tool_call("get_logistics_info", li, {"tracking_number": "SF1234567890"})
    assert shipment["order_id"] == "#D1002"
    assert shipment["shipments"][0]["estimated_arrival"] and shipment["shipments"][0]["events"]


def test_private_tools_refuse_an_unverified_customer(anonymous: ToolContext) -> None:
    for name, args in [
        ("get_order_info", {"order_id": "#D1002"}),
        ("get_logistics_info", {"tracking_number": "SF1234567890"}),
        ("cancel_pending_order", {"order_id": "#D1001", "reason": "ordered by mistake"}),
    ]:
        _refused(anonymous, name, args, "verification_required")


def test_another_customers_order_looks_exactly_like_a_missing_one(emma: ToolContext) -> None:
    _refused(emma, "get_order_info", {"order_id": "#D1002"}, "order_not_found")
    _refused(emma, "get_order_info", {"order_id": "#NOPE"}, "order_not_found")
    _refused(emma, "get_logistics_info", {"tracking_number": "SF1234567890"}, "tracking_not_found")
    _refused(emma, "cancel_pending_order", {"order_id": "#D1001", "reason": "ordered by mistake"}, "order_not_found")
    assert Order.objects.get(external_id="#D1001").status == "pending"


def test_a_customer_cannot_be_passed_as_an_argument(emma: ToolContext) -> None:
    _refused(emma, "get_order_info", {"order_id": "#D1002", "user_id": "demo_li_wei"}, "bad_arguments")
    _refused(emma, "get_order_info", {"order_id": "#D1002", "customer_id": 1}, "bad_arguments")


def test_read_results_are_cached_per_customer_and_invalidated_by_writes(li: ToolContext) -> None:
    first = tool_call("get_order_info", li, {"order_id": "#D1001"})
    second = tool_call("get_order_info", li, {"order_id": "#D1001"})
    assert "cached" not in first and second["cached"] is True

    tool_call("cancel_pending_order", li, {"order_id": "#D1001", "reason": "no longer needed"})
    after = tool_call("get_order_info", li, {"order_id": "#D1001"})
    assert "cached" not in after and after["status"] == "cancelled"


def test_an_order_changed_outside_the_tools_is_not_served_from_the_cache(
    li: ToolContext, django_capture_on_commit_callbacks: Any
) -> None:
    tool_call("get_order_info", li, {"order_id": "#D1001"})  # cached

    with django_capture_on_commit_callbacks(execute=True):  # staff cancel it in the admin
        order = Order.objects.get(external_id="#D1001")
        order.status = "cancelled"
        order.save()
    after = tool_call("get_order_info", li, {"order_id": "#D1001"})

    assert "cached" not in after and after["status"] == "cancelled"


def test_an_import_expires_every_customers_cached_reads(
    li: ToolContext, django_capture_on_commit_callbacks: Any
) -> None:
    from stores.builtin.taubench import store_export_taubench, store_import_taubench

    tool_call("get_order_info", li, {"order_id": "#D1001"})  # cached
    data = store_export_taubench()
    data["orders"]["#D1001"]["status"] = "cancelled"

    with django_capture_on_commit_callbacks(execute=True):  # bulk writes: no signal per row
        store_import_taubench(data=data)
    after = tool_call("get_order_info", li, {"order_id": "#D1001"})

    assert "cached" not in after and after["status"] == "cancelled"


# --- writes (τ-bench retail effects) ----------------------------------------------------------------


def test_cancel_refunds_every_payment_and_opens_a_ticket(li: ToolContext) -> None:
    result = tool_call("cancel_pending_order", li, {"order_id": "#D1001", "reason": "ordered by mistake"})

    order = Order.objects.get(external_id="#D1001")
    assert (order.status, order.action_details) == ("cancelled", {"cancel_reason": "ordered by mistake"})
    assert list(order.transactions.values_list("kind", "amount")) == [
        ("payment", Decimal("3999.00")),
        ("refund", Decimal("3999.00")),
    ]
    assert Ticket.objects.get(kind="cancel", order_ref="#D1001").reference == result["ticket"]
    _refused(li, "cancel_pending_order", {"order_id": "#D1001", "reason": "ordered by mistake"}, "wrong_status")
    assert order.transactions.count() == 2  # no second refund


def test_cancel_reason_must_be_one_of_the_two(li: ToolContext) -> None:
    _refused(li, "cancel_pending_order", {"order_id": "#D1001", "reason": "changed my mind"}, "bad_arguments")


def test_cancel_to_a_gift_card_credits_it_at_once(store: None) -> None:
    zhang = Customer.objects.get(external_id="demo_zhang_min")
    order = Order.objects.get(external_id="#D3001")
    Order.objects.filter(pk=order.pk).update(status="pending")

    tool_call("cancel_pending_order", ToolContext(None, zhang), {"order_id": "#D3001", "reason": "no longer needed"})

    assert PaymentMethod.objects.get(external_id="gift_card_demo_zhang").balance == Decimal("1999.00")


def test_return_goes_to_the_original_method_or_a_gift_card(li: ToolContext) -> None:
    _refused(
        li,
        "create_return_order",
        {"order_id": "#D1004", "item_ids": ["V-PAD3-GRY-128"], "payment_method_id": "nope"},
        "payment_method_not_found",
    )
    _refused(
        li,
        "create_return_order",
        {"order_id": "#D1001", "item_ids": ["V-X9-BLK-256"], "payment_method_id": "credit_card_demo_li"},
        "wrong_status",
    )
    _refused(
        li,
        "create_return_order",
        {"order_id": "#D1003", "item_ids": ["V-X9-BLK-256"], "payment_method_id": "gift_card_demo_li"},
        "item_not_in_order",
    )

    result = tool_call(
        "create_return_order",
        li,
        {"order_id": "#D1003", "item_ids": ["V-ENCO-WHT"], "payment_method_id": "gift_card_demo_li"},
    )

    order = Order.objects.get(external_id="#D1003")
    assert order.status == "return requested"
    assert order.action_details == {"return_items": ["V-ENCO-WHT"], "return_payment_method_id": "gift_card_demo_li"}
    assert "深圳市南山区科技路 8 号 退货中心（518057）" in result["instructions"]  # RETURN_ADDRESS_ZH


def test_exchange_keeps_the_product_and_records_the_price_difference(emma: ToolContext) -> None:
    _refused(
        emma,
        "create_exchange_order",
        {
            "order_id": "#D2001",
            "item_ids": ["V-X9-WHT-256"],
            "new_item_ids": ["V-X8-BLK-256"],
            "payment_method_id": "paypal_demo_emma",
        },
        "different_product",
    )

    tool_call(
        "create_exchange_order",
        emma,
        {
            "order_id": "#D2001",
            "item_ids": ["V-X9-WHT-256"],
            "new_item_ids": ["V-X9-BLK-512"],
            "payment_method_id": "paypal_demo_emma",
        },
    )

    order = Order.objects.get(external_id="#D2001")
    assert order.status == "exchange requested"
    assert order.action_details["exchange_price_difference"] == 500.0
    assert order.action_details["exchange_new_items"] == ["V-X9-BLK-512"]


def test_modify_items_once_pays_the_difference_and_changes_the_status(emma: ToolContext) -> None:
    Order.objects.filter(external_id="#D2004").update(status="pending")
    args = {
        "order_id": "#D2004",
        "change": "items",
        "item_ids": ["V-X8-BLK-256"],
        "new_item_ids": ["V-X8-WHT-256"],
        "payment_method_id": "credit_card_demo_emma",
    }

    tool_call("modify_pending_order", emma, args)

    order = Order.objects.get(external_id="#D2004")
    assert order.status == "pending (item modified)"
    assert order.items.get().variant.external_id == "V-X8-WHT-256"
    assert order.transactions.last().amount == Decimal("0.00")
    _refused(emma, "modify_pending_order", args, "wrong_status")


def test_modify_payment_and_address_of_a_pending_order(li: ToolContext) -> None:
    _refused(
        li,
        "modify_pending_order",
        {"order_id": "#D1001", "change": "payment", "payment_method_id": "gift_card_demo_li"},
        "insufficient_balance",
    )
    _refused(
        li,
        "modify_pending_order",
        {"order_id": "#D1001", "change": "payment", "payment_method_id": "credit_card_demo_li"},
        "same_payment_method",
    )
    _refused(li, "modify_pending_order", {"order_id": "#D1001", "change": "address"}, "bad_arguments")

    tool_call(
        "modify_pending_order",
        li,
        {
            "order_id": "#D1001",
            "change": "address",
            "address": {"address1": "1 Xinhua Rd", "city": "广州", "country": "中国", "zip": "510000"},
        },
    )

    assert Order.objects.get(external_id="#D1001").address["city"] == "广州"


def test_repair_invoice_and_default_address(li: ToolContext) -> None:
    repair = tool_call(
        "create_repair_order",
        li,
        {
            "imei": "490154203237518",
            "issue_description": "屏幕碎了",
            "warranty_status": "out_of_warranty",
            "repair_type": "mail_in",
        },
    )
    assert repair["estimated_cost"] == 899 and repair["repair_order_id"].startswith("RP-")

    _refused(
        li,
        "generate_invoice",
        {"order_id": "#D1003", "invoice_type": "special", "invoice_title": "ACME"},
        "tax_id_required",
    )
    _refused(
        li,
        "generate_invoice",
        {"order_id": "#D1001", "invoice_type": "personal", "invoice_title": "李伟"},
        "wrong_status",
    )
    invoice = tool_call(
        "generate_invoice",
        li,
        {"order_id": "#D1003", "invoice_type": "special", "invoice_title": "ACME Ltd", "tax_id": "91440300MA5FXXXX1X"},
    )
    assert invoice["invoice_id"].startswith("INV-")

    tool_call(
        "modify_default_address", li, {"address1": "2 New Rd", "city": "深圳", "country": "中国", "zip": "518000"}
    )
    assert li.customer.addresses.get(is_default=True).address1 == "2 New Rd"


def test_transfer_to_human_is_a_tool_anyone_can_call(anonymous: ToolContext) -> None:
    assert tool_call("transfer_to_human", anonymous, {"summary": "wants a discount"})["transfer"] is True


VALID_ARGS: dict[str, dict[str, Any]] = {
    "get_order_info": {"order_id": "#D1002"},
    "list_orders": {},
    "get_logistics_info": {"order_id": "#D1002"},
    "cancel_pending_order": {"order_id": "#D1001", "reason": "ordered by mistake"},
    "modify_pending_order": {"order_id": "#D1001", "change": "payment", "payment_method_id": "gift_card_demo_li"},
    "create_return_order": {"order_id": "#D1003", "item_ids": ["V-ENCO-WHT"], "payment_method_id": "gift_card_demo_li"},
    "create_exchange_order": {
        "order_id": "#D1003",
        "item_ids": ["V-ENCO-WHT"],
        "new_item_ids": ["V-ENCO-BLK"],
        "payment_method_id": "gift_card_demo_li",
    },
    "create_repair_order": {
        "imei": "490154203237518",
        "issue_description": "no sound",
        "warranty_status": "in_warranty",
        "repair_type": "in_store",
    },
    "generate_invoice": {"order_id": "#D1003", "invoice_type": "personal", "invoice_title": "Li Wei"},
    "modify_default_address": {"address1": "1 Road", "city": "Shenzhen", "country": "China", "zip": "518000"},
}


@pytest.mark.parametrize("name", sorted(VALID_ARGS))
def test_every_private_tool_refuses_an_unverified_customer(anonymous: ToolContext, name: str) -> None:
    assert TOOLS[name].private
    _refused(anonymous, name, VALID_ARGS[name], "verification_required")


@pytest.mark.parametrize("name", sorted(n for n, a in VALID_ARGS.items() if "order_id" in a))
def test_every_order_tool_treats_another_customers_order_as_missing(emma: ToolContext, name: str) -> None:
    with pytest.raises(ToolError) as excinfo:
        tool_call(name, emma, VALID_ARGS[name])

    assert excinfo.value.code in {"order_not_found", "payment_method_not_found"}
    assert not Ticket.objects.exists()
