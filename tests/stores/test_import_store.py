"""`manage.py import_store --format taubench`: upsert by id, one transaction, clear errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from conversations.models import Customer
from stores.builtin.models import Address, Order, OrderItem, PaymentMethod, PaymentTransaction, Product, Variant
from stores.builtin.taubench import store_export_taubench
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.django_db

STORE_MODELS = [Product, Variant, Customer, Address, PaymentMethod, Order, OrderItem, PaymentTransaction]


def _import(path: Path) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_store", str(path), "--format", "taubench", stdout=out)
    return out.getvalue()


def _write(tmp_path: Path, data: Any, name: str = "store.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def _counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in STORE_MODELS}


def _snapshot() -> dict[str, list[dict[str, Any]]]:
    return {model.__name__: list(model._default_manager.order_by("pk").values()) for model in STORE_MODELS}


@pytest.fixture
def sample(sample_store_path: Path) -> dict[str, Any]:
    return json.loads(sample_store_path.read_text())


def test_import_store_loads_the_sample(sample_store_path: Path) -> None:
    output = _import(sample_store_path)

    assert "products: 2 created" in output and "users: 2 created" in output and "orders: 3 created" in output
    ada = Customer.objects.get(external_id="ada_lovelace_1815")
    assert (ada.first_name, ada.last_name, ada.email) == ("Ada", "Lovelace", "ada.lovelace@example.org")
    assert ada.addresses.get(is_default=True).zip == "10001"
    assert {m.external_id: m.kind for m in ada.payment_methods.all()} == {
        "credit_card_1111111": "credit_card",
        "gift_card_2222222": "gift_card",
    }
    assert str(PaymentMethod.objects.get(external_id="gift_card_2222222").balance) == "35.00"
    order = Order.objects.get(external_id="#T0000001")
    assert order.status == "delivered"
    assert [i.variant.external_id for i in order.items.all()] == ["2000000001", "2000000003"]
    assert order.fulfillments.get().tracking_ids == ["884422001133"]
    assert str(order.total) == "113.50"
    assert Order.objects.get(external_id="#T0000002").action_details == {"cancel_reason": "ordered by mistake"}
    assert Variant.objects.get(external_id="2000000002").available is False


def test_import_store_twice_changes_nothing(sample_store_path: Path) -> None:
    _import(sample_store_path)
    before = _snapshot()

    output = _import(sample_store_path)

    assert "products: 0 created, 0 updated, 2 unchanged" in output
    assert "orders: 0 created, 0 updated, 3 unchanged" in output
    assert _snapshot() == before


def test_export_returns_what_was_imported(sample_store_path: Path, sample: dict[str, Any]) -> None:
    _import(sample_store_path)

    assert store_export_taubench() == sample


def test_partial_file_resets_only_its_records(tmp_path: Path, sample_store_path: Path, sample: dict[str, Any]) -> None:
    # given: the sample is loaded, then a customer's order and a product change in the store
    _import(sample_store_path)
    Order.objects.filter(external_id="#T0000003").update(status="cancelled")
    Order.objects.filter(external_id="#T0000001").update(status="return requested")
    Variant.objects.filter(external_id="2000000003").update(price="99.00")
    untouched = list(Order.objects.filter(external_id="#T0000001").values())

    # when: a file holding only order #T0000003 and the mug is imported
    partial = {
        "orders": {"#T0000003": sample["orders"]["#T0000003"]},
        "products": {"1000000002": sample["products"]["1000000002"]},
    }
    output = _import(_write(tmp_path, partial))

    # then: exactly those records are back to the file's state
    assert "orders: 0 created, 1 updated, 0 unchanged" in output
    assert Order.objects.get(external_id="#T0000003").status == "pending"
    assert str(Variant.objects.get(external_id="2000000003").price) == "24.00"
    assert list(Order.objects.filter(external_id="#T0000001").values()) == untouched


def test_updated_user_gets_the_file_wallet_and_address(
    tmp_path: Path, sample_store_path: Path, sample: dict[str, Any]
) -> None:
    _import(sample_store_path)
    user = copy.deepcopy(sample["users"]["alan_turing_1912"])
    user["address"]["zip"] = "30003"
    user["payment_methods"]["gift_card_4444444"] = {"source": "gift_card", "id": "gift_card_4444444", "balance": 10}

    _import(_write(tmp_path, {"users": {"alan_turing_1912": user}}))

    alan = Customer.objects.get(external_id="alan_turing_1912")
    assert list(alan.addresses.values_list("zip", flat=True)) == ["30003"]
    assert set(alan.payment_methods.values_list("external_id", flat=True)) == {"paypal_3333333", "gift_card_4444444"}


def _break(sample: dict[str, Any], path: list[Any], value: Any = None, *, delete: bool = False) -> dict[str, Any]:
    data = copy.deepcopy(sample)
    target = data
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


BAD_INPUTS = [
    (["orders", "#T0000001", "status"], None, True, "orders[\"#T0000001\"]: missing field 'status'"),
    (["users", "ada_lovelace_1815", "email"], None, True, "users[\"ada_lovelace_1815\"]: missing field 'email'"),
    (
        ["products", "1000000001", "variants", "2000000001", "price"],
        None,
        True,
        'products["1000000001"].variants["2000000001"]: missing field \'price\'',
    ),
    (
        ["orders", "#T0000003", "user_id"],
        "grace_hopper_1906",
        False,
        "orders[\"#T0000003\"].user_id: unknown user 'grace_hopper_1906'",
    ),
    (
        ["orders", "#T0000003", "items", 0, "item_id"],
        "9999999999",
        False,
        "orders[\"#T0000003\"].items[0].item_id: unknown item '9999999999'",
    ),
    (
        ["orders", "#T0000003", "items", 0, "product_id"],
        "1000000002",
        False,
        "orders[\"#T0000003\"].items[0]: item '2000000002' belongs to product '1000000001'",
    ),
    (
        ["orders", "#T0000003", "payment_history", 0, "payment_method_id"],
        "credit_card_1111111",
        False,
        "'credit_card_1111111' belongs to ada_lovelace_1815, not to alan_turing_1912",
    ),
    (
        ["orders", "#T0000003", "status"],
        "teleported",
        False,
        "orders[\"#T0000003\"].status: unknown status 'teleported'",
    ),
    (["orders", "#T0000003", "items", 0, "price"], -3, False, "must be a non-negative amount"),
    (["products", "1000000001", "variants", "2000000001", "available"], "yes", False, "expected true or false"),
    (
        ["users", "ada_lovelace_1815", "payment_methods", "gift_card_2222222", "balance"],
        None,
        True,
        "missing field 'balance'",
    ),
    (
        ["users", "ada_lovelace_1815", "payment_methods", "gift_card_2222222", "source"],
        "iou",
        False,
        "unknown payment method 'iou'",
    ),
    (["orders", "#T0000001", "order_id"], "#T9", False, "order_id is '#T9', not the key it is filed under"),
    (["orders", "#T0000001", "items"], "two lamps", False, 'orders["#T0000001"].items: expected a list'),
]


@pytest.mark.parametrize(("path", "value", "delete", "message"), BAD_INPUTS)
def test_bad_record_is_named_and_nothing_is_written(
    tmp_path: Path, sample: dict[str, Any], path: list[Any], value: Any, delete: bool, message: str
) -> None:
    bad = _break(sample, path, value, delete=delete)

    with pytest.raises(CommandError) as excinfo:
        _import(_write(tmp_path, bad))

    assert message in str(excinfo.value)
    assert "nothing was imported" in str(excinfo.value)
    assert set(_counts().values()) == {0}


def test_bad_record_after_good_ones_rolls_back_the_good_ones(tmp_path: Path, sample: dict[str, Any]) -> None:
    # The unknown user is only found while writing orders, after products and users were written.
    bad = _break(sample, ["orders", "#T0000003", "user_id"], "grace_hopper_1906")

    with pytest.raises(CommandError):
        _import(_write(tmp_path, bad))

    assert set(_counts().values()) == {0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"products": {', "is not valid JSON: Expecting"),
        ("[1, 2, 3]", "expected a JSON object"),
        ('{"customers": {}}', "unknown top-level section(s): customers"),
        ('{"orders": []}', "orders: expected an object"),
    ],
)
def test_malformed_files_get_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(CommandError) as excinfo:
        _import(_write(tmp_path, text))

    assert message in str(excinfo.value)
    assert set(_counts().values()) == {0}


def test_missing_file_gets_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        _import(tmp_path / "nope.json")


@pytest.mark.skipif(not (SHARED_DATA / "tau2_retail" / "db.json").exists(), reason="shared τ-bench data is absent")
def test_full_taubench_store_imports_round_trips_and_reimports_unchanged() -> None:
    path = SHARED_DATA / "tau2_retail" / "db.json"
    reference = json.loads(path.read_text())

    first = _import(path)
    second = _import(path)

    assert "products: 50 created" in first and "users: 500 created" in first and "orders: 1000 created" in first
    assert "orders: 0 created, 0 updated, 1000 unchanged" in second
    assert store_export_taubench() == reference


def test_export_store_command_writes_the_file_or_stdout(
    tmp_path: Path, sample_store_path: Path, sample: dict[str, Any]
) -> None:
    from io import StringIO

    _import(sample_store_path)
    out = tmp_path / "out.json"

    call_command("export_store", "--format", "taubench", "--output", str(out), stderr=StringIO())
    assert json.loads(out.read_text()) == sample
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        call_command("export_store", "--format", "taubench")
    assert json.loads(buffer.getvalue()) == sample


def test_a_taubench_import_makes_dollars_the_store_currency(sample_store_path: Path) -> None:
    from stores.builtin.selectors import store_currency

    _import(sample_store_path)

    assert store_currency() == "USD"
    assert set(Product.objects.values_list("currency", flat=True)) == {"USD"}
