"""STORE_BACKEND=shopify against a local server that answers as Shopify's Admin GraphQL API documents."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.cache import cache

from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from stores.records import ItemsSwap, StoreError, StoreUnavailable
from stores.shopify import ShopifyStore
from tests.agents.engine import run_turn
from tests.fake_shopify import TOKEN, FakeShopify, fake_shopify  # noqa: F401 - the fixture

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def shopify(fake_shopify: FakeShopify) -> ShopifyStore:  # noqa: F811 - the fixture of the import above
    cache.delete_many(["store:shopify:breaker:open", "store:shopify:breaker:failures"])
    return ShopifyStore(url=fake_shopify.url, token=TOKEN, timeout_s=3)


def test_customers_and_orders_read_as_the_records_every_backend_gives(shopify: ShopifyStore) -> None:
    ada = shopify.customer("7001")
    assert ada is not None and (ada.first_name, ada.email, ada.phone) == ("Ada", "ada@example.com", "+12065550101")
    assert [(m.payment_method_id, m.brand, m.last_four) for m in ada.payment_methods] == [
        ("shopify_payments:4242", "Visa", "4242")
    ]
    assert [c.customer_id for c in shopify.customers_by_email("ADA@example.com")] == ["7001"]
    assert shopify.customer("7999") is None

    orders = shopify.orders("7001")
    assert [(o.order_id, o.status) for o in orders] == [("#S1001", "pending"), ("#S1002", "delivered")]
    pending = orders[0]
    assert [(line.item_id, line.name, line.options, line.price) for line in pending.items] == [
        ("501", "Trail Jacket", {"Color": "Black", "Size": "M"}, Decimal("120.00")),
        ("601", "Water Bottle", {"Capacity": "1L"}, Decimal("45.50")),
    ]
    assert pending.payments[0].payment_method_id == "shopify_payments:4242"
    assert shopify.orders("7001", statuses=["delivered"])[0].order_id == "#S1002"
    delivered = shopify.order_by_tracking("7001", "1Z999AA10123456784")
    assert delivered is not None and delivered.shipments[0].carrier == "UPS"
    assert [v.item_id for v in shopify.product_variants(["301"])] == ["501", "502", "503"]
    assert [v.in_stock for v in shopify.variants(["502", "503"])] == [True, False]


def test_another_customers_order_is_not_found(shopify: ShopifyStore) -> None:
    assert shopify.order("7001", "#S1003") is None  # Bo's
    assert shopify.order("7002", "S1003") is not None  # a name without its # is found too
    with pytest.raises(StoreError) as refused:
        shopify.order_cancel("7001", "#S1003", reason="no longer needed", key="k")
    assert refused.value.code == "order_not_found"


def test_the_writes_are_shopifys_mutations(shopify: ShopifyStore, fake_shopify: FakeShopify) -> None:  # noqa: F811
    moved = shopify.order_modify_address(
        "7001",
        "#S1001",
        address={"address1": "1 Pine St", "city": "Portland", "state": "OR", "country": "USA", "zip": "97204"},
        key="k1",
    )
    assert moved.status == "pending"
    assert fake_shopify.shop["orders"]["9001"]["shippingAddress"]["countryCode"] == "US"

    swapped = shopify.order_modify_items("7001", "#S1001", swap=ItemsSwap(["501"], ["502"], "x"), key="k2")
    assert swapped.status == "pending"
    assert sorted(line.item_id for line in shopify.order("7001", "#S1001").items) == ["502", "601"]  # type: ignore[union-attr]

    returned = shopify.order_return("7001", "#S1002", item_ids=["502"], payment_method_id="x", key="k3")
    assert returned.status == "return requested" and shopify.order("7001", "#S1002").status == "return requested"  # type: ignore[union-attr]

    cancelled = shopify.order_cancel("7001", "#S1001", reason="no longer needed", key="k4")
    assert cancelled.status == "cancelled" and shopify.order("7001", "#S1001").status == "cancelled"  # type: ignore[union-attr]
    assert fake_shopify.operations().count("OrderCancel") == 1


def test_what_shopify_refuses_keeps_its_reason_and_what_it_cannot_do_is_said(shopify: ShopifyStore) -> None:
    with pytest.raises(StoreError) as unavailable:
        shopify.order_modify_items("7001", "#S1001", swap=ItemsSwap(["501"], ["503"], "x"), key="k")
    assert unavailable.value.code == "shopify_refused"  # its userErrors carry no code: "Variant is not available"
    with pytest.raises(StoreError) as not_supported:
        shopify.order_modify_payment("7001", "#S1001", payment_method_id="paypal", key="k")
    assert not_supported.value.code == "not_supported"
    with pytest.raises(StoreError) as status:
        shopify.order_cancel("7001", "#S1002", reason="no longer needed", key="k")  # delivered
    assert status.value.code == "wrong_status"


def test_a_throttled_call_waits_and_goes_on_and_a_wrong_token_is_unavailable(
    shopify: ShopifyStore,
    fake_shopify: FakeShopify,  # noqa: F811
) -> None:
    fake_shopify.throttle_next = 2

    assert shopify.customer("7001") is not None
    assert fake_shopify.operations() == ["Customer", "Customer", "Customer"]
    fake_shopify.fail_next = 1
    assert shopify.orders("7001") != []  # a query after a 503 is tried again
    with pytest.raises(StoreUnavailable):
        ShopifyStore(url=fake_shopify.url, token="shpat_wrong", timeout_s=3).customer("7001")


@pytest.mark.usefixtures("exemplars", "parked_queue")
@pytest.mark.parametrize(
    ("language", "request_", "yes", "done"),
    [
        ("zh", "我要取消订单 #S1001，不需要了", "好的", "取消订单 #S1001"),
        ("en", "Please cancel order #S1001, I no longer need it", "yes", "cancelled"),
    ],
)
def test_a_cancellation_in_a_chat_is_a_shopify_order_cancel(
    fake_shopify: FakeShopify,  # noqa: F811
    settings: Any,
    language: str,
    request_: str,
    yes: str,
    done: str,
) -> None:
    settings.STORE_BACKEND, settings.SHOPIFY_ADMIN_URL, settings.SHOPIFY_ACCESS_TOKEN = (
        "shopify",
        fake_shopify.url,
        TOKEN,
    )
    cache.delete_many(["store:shopify:breaker:open", "store:shopify:breaker:failures"])
    ada = Customer.objects.create(external_id="7001", first_name="Ada", last_name="Lovelace", email="ada@example.com")
    chat = conversation_start(customer=ada, language=language)
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=ada)
    chat.refresh_from_db()

    assert run_turn(chat, request_).reply["awaiting"]["slot"] == "confirm"
    reply = run_turn(chat, yes).reply["text"]

    assert fake_shopify.shop["orders"]["9001"]["cancelledAt"] is not None
    assert done in reply
