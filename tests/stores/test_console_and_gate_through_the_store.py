"""The staff console's order panel and the reply gate's check of order ids ask the store's own system
(STORE_BACKEND=http, the store server in another process), and say so plainly when it does not answer."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from agents.safety import REVISE, safety_check
from conversations.models import Conversation, Customer
from conversations.services import conversation_start
from tests.stores.conftest import StoreServer, store_down

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def console(django_user_model: Any) -> tuple[Client, Conversation]:
    """A staff member with the console open on a chat whose shopper proved who they are (demo_li_wei)."""
    call_command("seed_demo", verbosity=0)
    staff = django_user_model.objects.create_user(username="lin", password="pw", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="take_over_conversation"))
    client = Client()
    client.force_login(staff)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_console"))
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id="demo_li_wei"))
    return client, chat


def _panel(client: Client, chat: Conversation, language: str) -> str:
    html = client.get(f"/admin/console/{chat.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    return html[html.index('data-testid="customer-panel"') :]


@pytest.mark.parametrize(("language", "status"), [("en", "Pending"), ("zh-hans", "待处理")])
def test_the_console_shows_the_customers_orders_as_the_store_has_them(
    http_store: StoreServer, console: tuple[Client, Conversation], language: str, status: str
) -> None:
    client, chat = console

    panel = _panel(client, chat, language)

    assert 'data-order-id="#D1001"' in panel and status in panel
    assert "/admin/store/order/" not in panel  # the order lives in the store's system, not in this admin


@pytest.mark.parametrize(
    ("language", "said"), [("en", "The order system can't be reached right now."), ("zh-hans", "订单系统暂时连不上。")]
)
def test_the_console_says_when_the_store_does_not_answer(
    http_store: StoreServer, settings: Any, console: tuple[Client, Conversation], language: str, said: str
) -> None:
    client, chat = console
    store_down(settings)

    panel = _panel(client, chat, language)

    assert said in panel and 'data-testid="customer-order"' not in panel


@pytest.mark.parametrize(
    ("language", "reply"),
    [
        ("en", "Your order #D1001 is pending; order #D2001 has shipped."),
        ("zh", "您的订单 #D1001 待处理；订单 #D2001 已发货。"),
    ],
)
def test_the_gate_asks_the_store_whose_order_an_id_is(
    http_store: StoreServer, settings: Any, language: str, reply: str
) -> None:
    call_command("seed_demo", verbosity=0)
    li_wei = Customer.objects.get(external_id="demo_li_wei")

    checked = safety_check(reply, language=language, customer=lambda: li_wei)
    store_down(settings)
    unchecked = safety_check(reply, language=language, customer=lambda: li_wei)

    assert checked.decision == REVISE and "#D1001" in checked.text and "D2001" not in checked.text
    assert "D1001" not in unchecked.text and "D2001" not in unchecked.text  # nothing the store cannot vouch for
