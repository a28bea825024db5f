"""The catalogue (products, variants, prices, stock, subsidies, currency) read from the store's own system: the
same snapshot through the store API, the store's MCP server and Shopify, and the chat's product answers from it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from stores import wire
from stores.builtin.backend import BuiltinStore
from stores.catalogue import store_catalogue
from stores.records import StoreUnavailable
from stores.shopify import ShopifyStore
from tests.agents.engine import run_turn
from tests.fake_shopify import TOKEN, FakeShopify, fake_shopify  # noqa: F401 - the fixture
from tests.stores.conftest import McpServer, StoreServer, store_down

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_store() -> None:
    call_command("seed_demo", verbosity=0)


def test_the_store_api_and_the_mcp_server_give_the_catalogue_the_tables_hold(
    demo_store: None, store_server: StoreServer, store_mcp_server: McpServer
) -> None:
    tables = BuiltinStore().catalogue()

    assert store_server.client().catalogue() == tables
    assert store_mcp_server.client().catalogue() == tables
    assert tables.currency == "CNY" and len(tables.products) > 3 and tables.subsidies
    assert all(p.variants for p in tables.products)


def test_catalogue_pages_add_up_to_the_whole_catalogue(demo_store: None, store_server: StoreServer) -> None:
    api = store_server.client()
    asked: list[str] = []

    def page(cursor: str) -> Any:
        asked.append(cursor)
        return api._get(f"/catalogue?limit=2{'&cursor=' + cursor if cursor else ''}")

    paged = wire.catalogue_read(page)

    assert paged == BuiltinStore().catalogue()
    assert len(asked) == (len(paged.products) + 1) // 2 and asked[0] == ""


def test_a_shopify_catalogue_is_its_active_products_page_by_page(
    fake_shopify: FakeShopify,  # noqa: F811 - the fixture of the import above
) -> None:
    catalogue = ShopifyStore(url=fake_shopify.url, token=TOKEN).catalogue()

    assert catalogue.currency == "USD" and catalogue.subsidies == ()
    assert [(p.product_id, p.name, p.category) for p in catalogue.products] == [
        ("301", "Trail Jacket", "Jackets"),
        ("302", "Water Bottle", "Bottles"),
    ]
    jacket = catalogue.product("trail jacket")
    assert jacket is not None and jacket.tags == ("outdoor", "rain")
    assert [(v.item_id, str(v.price), v.in_stock) for v in jacket.variants] == [
        ("501", "120.00", True),
        ("502", "120.00", True),
        ("503", "130.00", False),
    ]
    assert fake_shopify.operations().count("Catalogue") == 2  # one product a page: the cursor was followed


def _visitor(language: str) -> Conversation:
    return conversation_start(customer=Customer.objects.create(external_id="guest_catalogue"), language=language)


@pytest.mark.usefixtures("exemplars", "parked_queue")
@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "Trail Jacket 多少钱", "$120"),
        ("en", "How much is the Trail Jacket?", "Trail Jacket from: $120"),
    ],
)
def test_a_price_question_is_answered_from_a_shopify_catalogue(
    fake_shopify: FakeShopify,  # noqa: F811
    settings: Any,
    language: str,
    question: str,
    said: str,
) -> None:
    """The product is only in the shop (not in the built-in tables): recognised and priced from its catalogue."""
    settings.STORE_BACKEND, settings.SHOPIFY_ADMIN_URL, settings.SHOPIFY_ACCESS_TOKEN = (
        "shopify",
        fake_shopify.url,
        TOKEN,
    )

    turn = run_turn(_visitor(language), question)

    assert said in turn.reply["text"]
    assert "Catalogue" in fake_shopify.operations()


@pytest.mark.usefixtures("demo_store", "exemplars", "parked_queue")
@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "预算 3000 元，推荐一款手机", "连不上订单系统"),
        ("en", "Recommend a phone under 3000 yuan", "can't reach the order system"),
    ],
)
def test_a_store_that_never_answered_its_catalogue_is_said_plainly(
    http_store: StoreServer, settings: Any, language: str, question: str, said: str
) -> None:
    """No catalogue was ever read (a new install whose store is down): a question that needs it is told so."""
    store_down(settings)

    turn = run_turn(_visitor(language), question)

    assert said in turn.reply["text"]
    with pytest.raises(StoreUnavailable):
        store_catalogue()


def test_a_store_that_stops_answering_leaves_the_last_catalogue_in_use_in_every_process(
    demo_store: None, http_store: StoreServer, settings: Any
) -> None:
    from stores.catalogue import store_catalogue_forget
    from stores.versions import store_version_bump

    before = store_catalogue()
    store_down(settings)
    store_version_bump()  # the store said its catalogue changed, and then went away
    assert store_catalogue() == before

    store_catalogue_forget()  # another process, or this one restarted: the shared cache still has it
    assert store_catalogue() == before


def test_a_pinned_block_reads_the_catalogue_version_once() -> None:
    from stores.versions import catalogue_version, catalogue_version_pinned, store_version_bump

    # given: a block (a turn's run) that has read the catalogue's version
    with catalogue_version_pinned():
        within = catalogue_version()
        # when: the catalogue changes meanwhile
        store_version_bump()
        # then: the block keeps the version it read, and the next block reads the new one
        assert catalogue_version() == within
    assert catalogue_version() != within
