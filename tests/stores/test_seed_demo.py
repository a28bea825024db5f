from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from conversations.models import Customer
from stores.builtin.models import (
    Address,
    Fulfillment,
    Order,
    OrderItem,
    OrderStatus,
    PaymentMethod,
    PaymentTransaction,
    Product,
    SubsidyRule,
    TrackingEvent,
    Variant,
)
from tickets.models import CannedResponse

pytestmark = pytest.mark.django_db

SEEDED_MODELS = [
    Product,
    Variant,
    SubsidyRule,
    Customer,
    Address,
    PaymentMethod,
    Order,
    OrderItem,
    Fulfillment,
    TrackingEvent,
    PaymentTransaction,
    CannedResponse,
    User,
]


def _rows() -> dict[str, list[dict[str, Any]]]:
    return {model.__name__: list(model._default_manager.order_by("pk").values()) for model in SEEDED_MODELS}


def test_seed_demo_twice_gives_the_same_rows() -> None:
    call_command("seed_demo", verbosity=0)
    first = _rows()

    call_command("seed_demo", verbosity=0)

    assert _rows() == first


def test_seed_demo_builds_the_phone_store_of_the_plan() -> None:
    call_command("seed_demo", verbosity=0)

    x8 = Product.objects.get(name="Find X8")
    x9 = Product.objects.get(name="Find X9")
    assert {v.price for v in x8.variants.all()} == {Decimal("2999.00")}
    assert min(v.price for v in x9.variants.all()) == Decimal("3999.00")
    assert "X9" in x9.aliases
    rule = SubsidyRule.objects.get(category="phone")
    assert Decimal("3999.00") - rule.amount_for(Decimal("3999.00")) == Decimal("3499.00")
    assert Product.objects.filter(category="earbuds").exists() and Product.objects.filter(category="tablet").exists()
    assert x8.variants.filter(stock=0).exists() and x8.variants.filter(stock__gt=0).exists()
    assert x8.name_zh and x8.description_zh


def test_seed_demo_has_orders_in_every_status_and_both_sides_of_the_return_window() -> None:
    call_command("seed_demo", verbosity=0)

    assert set(Order.objects.values_list("status", flat=True)) == set(OrderStatus.values)
    now = timezone.now()
    delivered = Order.objects.filter(status=OrderStatus.DELIVERED)
    assert any(o.delivered_at and (now - o.delivered_at).days < 7 for o in delivered)
    assert any(o.delivered_at and (now - o.delivered_at).days > 7 for o in delivered)
    shipped = Order.objects.get(external_id="#D1002")
    assert shipped.fulfillments.get().events.count() >= 2
    assert Fulfillment.objects.get(tracking_ids__contains=["SF1234567890"]).estimated_arrival is not None


def test_seed_demo_creates_customers_staff_and_canned_responses_in_both_languages(settings: Any) -> None:
    settings.DEMO_MODE = True
    call_command("seed_demo", verbosity=0)

    assert set(Customer.objects.values_list("locale", flat=True)) == {"zh", "en"}
    staff = User.objects.get(username="staff")
    assert staff.is_staff and staff.check_password("staff-demo-123")
    assert staff.has_perm("tickets.change_ticket") and staff.has_perm("conversations.change_conversation")
    assert not staff.has_perm("store.delete_order")
    languages_by_shortcut: dict[str, set[str]] = {}
    for shortcut, language in CannedResponse.objects.values_list("shortcut", "language"):
        languages_by_shortcut.setdefault(shortcut, set()).add(language)
    assert languages_by_shortcut and all(langs == {"en", "zh"} for langs in languages_by_shortcut.values())


def test_without_demo_mode_there_is_no_demo_staff_login_and_a_left_over_one_is_closed(settings: Any) -> None:
    call_command("seed_demo", verbosity=0)
    assert not User.objects.filter(username="staff").exists()

    settings.DEMO_MODE = True
    call_command("seed_demo", verbosity=0)
    settings.DEMO_MODE = False
    call_command("seed_demo", verbosity=0)

    staff = User.objects.get(username="staff")
    assert not staff.check_password("staff-demo-123") and not staff.has_usable_password()


def test_seed_demo_keeps_demo_changes_and_reset_restores_them() -> None:
    call_command("seed_demo", verbosity=0)
    Order.objects.filter(external_id="#D1001").update(status=OrderStatus.CANCELLED)

    call_command("seed_demo", verbosity=0)
    assert Order.objects.get(external_id="#D1001").status == OrderStatus.CANCELLED

    call_command("seed_demo", "--reset", verbosity=0)
    assert Order.objects.get(external_id="#D1001").status == OrderStatus.PENDING
    assert Order.objects.get(external_id="#D1001").items.count() == 1
