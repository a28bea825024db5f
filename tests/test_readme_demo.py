"""The README's demo shoppers are the demo's: each sign-in, email, phone and order it names exists as written,
and ingest_kb's help names the knowledge base it adds to by default."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.management import call_command

from conversations.models import Customer
from stores.builtin.models import Order
from stores.labels import order_status_said

ROW = re.compile(r"^\| \S+(?: \S+)? \| `/\?customer=(\w+)[^`]*` \| `([^`]+)` / `([^`]+)` \| (.+) \|$", re.M)


def _shoppers() -> list[tuple[str, str, str, str]]:
    return ROW.findall((settings.BASE_DIR / "README.md").read_text(encoding="utf-8"))


def test_the_readme_names_three_demo_shoppers() -> None:
    assert [row[0] for row in _shoppers()] == ["demo_li_wei", "demo_emma_wilson", "demo_zhang_min"]


@pytest.mark.django_db
@pytest.mark.parametrize("row", _shoppers(), ids=lambda row: row[0])
def test_each_demo_shopper_in_the_readme_is_the_demos(row: tuple[str, str, str, str]) -> None:
    external_id, email, phone, orders = row
    call_command("seed_demo", verbosity=0)
    customer = Customer.objects.get(external_id=external_id)

    assert customer.email == email and re.sub(r"\D", "", customer.phone) == re.sub(r"\D", "", phone)
    named = re.findall(r"`(#D\d{4})`", orders)
    assert sorted(named) == sorted(Order.objects.filter(customer=customer).values_list("external_id", flat=True))
    for order in Order.objects.filter(customer=customer):
        status = order_status_said(order.status, "en").lower()
        assert status.split(" (")[0] in orders.lower() or order.status == "processed" and "shipped" in orders


def test_ingest_kb_help_names_the_default_knowledge_base(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        call_command("ingest_kb", "--help")

    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default: default; the demo's help articles are in 'demo'" in help_text
    assert "quotes only until a public base of the store's own has documents" in help_text
