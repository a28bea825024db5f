"""The store page that carries a shopper's signed identity is never stored by a cache; the anonymous page
stays cacheable."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils.cache import get_max_age

from conversations.models import Customer

pytestmark = pytest.mark.django_db


def _directives(response: Any) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


@pytest.fixture
def li_wei(settings: Any) -> Customer:
    settings.DEMO_MODE = True
    return Customer.objects.create(external_id="demo_li_wei", name="李伟", email="li.wei@example.com")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_page_with_a_shoppers_identity_is_private_and_not_stored(client: Client, li_wei: Customer, lang: str) -> None:
    response = client.get(f"/?customer=demo_li_wei&lang={lang}")

    assert response.status_code == 200 and "data-identity-token=" in response.content.decode()
    assert {"private", "no-store"} <= _directives(response)
    assert "public" not in _directives(response) and get_max_age(response) in (None, 0)


def test_the_anonymous_page_carries_no_identity_and_no_such_header(client: Client, li_wei: Customer) -> None:
    response = client.get("/?lang=en")

    assert "data-identity-token=" not in response.content.decode()
    assert "no-store" not in _directives(response)


def test_outside_demo_mode_customer_signs_no_one_in_and_the_page_stays_cacheable(
    client: Client, li_wei: Customer, settings: Any
) -> None:
    settings.DEMO_MODE = False

    response = client.get("/?customer=demo_li_wei")

    assert "data-identity-token=" not in response.content.decode()
    assert "no-store" not in _directives(response)
