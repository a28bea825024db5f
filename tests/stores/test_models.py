from decimal import Decimal

import pytest

from stores.builtin.models import Address, Order, OrderItem, PaymentMethod, PaymentTransaction, SubsidyRule, Variant
from tests.constraints import assert_rejected
from tests.factories import CustomerFactory, OrderFactory, PaymentMethodFactory, ProductFactory, VariantFactory

pytestmark = pytest.mark.django_db


def test_external_ids_are_unique() -> None:
    variant = VariantFactory.create(external_id="V1", product__external_id="P1")
    order = OrderFactory.create(external_id="#W1")
    PaymentMethodFactory.create(external_id="paypal_1")

    assert_rejected(lambda: ProductFactory.create(external_id="P1"), "external_id")
    assert_rejected(lambda: VariantFactory.create(external_id="V1", product=variant.product), "external_id")
    assert_rejected(lambda: OrderFactory.create(external_id="#W1", customer=order.customer), "external_id")
    assert_rejected(lambda: PaymentMethodFactory.create(external_id="paypal_1"), "external_id")


def test_variant_price_and_stock_cannot_be_negative() -> None:
    product = ProductFactory.create()

    assert_rejected(lambda: VariantFactory.create(product=product, price=Decimal("-1.00")), "variant_price_gte_0")
    assert_rejected(lambda: VariantFactory.create(product=product, stock=-1), "variant_stock_gte_0")
    assert Variant.objects.create(external_id="untracked", product=product, price=Decimal("5"), stock=None).pk


def test_order_status_must_be_a_store_status() -> None:
    assert_rejected(lambda: OrderFactory.create(status="lost"), "order_status_valid")


def test_order_item_and_transaction_amounts_cannot_be_negative() -> None:
    order = OrderFactory.create()
    variant = VariantFactory.create()
    method = PaymentMethodFactory.create(customer=order.customer)

    assert_rejected(
        lambda: OrderItem.objects.create(
            order=order, variant=variant, product=variant.product, name="x", price=Decimal("-5")
        ),
        "order_item_price_gte_0",
    )
    assert_rejected(
        lambda: PaymentTransaction.objects.create(
            order=order, kind="payment", amount=Decimal("-1"), payment_method=method
        ),
        "transaction_amount_gte_0",
    )
    assert_rejected(
        lambda: PaymentTransaction.objects.create(
            order=order, kind="chargeback", amount=Decimal("1"), payment_method=method
        ),
        "transaction_kind_valid",
    )


def test_gift_cards_and_only_gift_cards_carry_a_non_negative_balance() -> None:
    customer = CustomerFactory.create()

    assert_rejected(
        lambda: PaymentMethod.objects.create(external_id="g1", customer=customer, kind="gift_card"),
        "payment_balance_iff_gift_card",
    )
    assert_rejected(
        lambda: PaymentMethod.objects.create(external_id="p1", customer=customer, kind="paypal", balance=Decimal("3")),
        "payment_balance_iff_gift_card",
    )
    assert_rejected(
        lambda: PaymentMethod.objects.create(
            external_id="g2", customer=customer, kind="gift_card", balance=Decimal("-3")
        ),
        "payment_balance_gte_0",
    )
    assert_rejected(
        lambda: PaymentMethod.objects.create(external_id="b1", customer=customer, kind="bitcoin"),
        "payment_method_kind_valid",
    )


def test_a_customer_has_at_most_one_default_address() -> None:
    customer = CustomerFactory.create()
    fields = {"address1": "1 Main St", "city": "Austin", "country": "USA", "zip": "78701"}
    Address.objects.create(customer=customer, is_default=True, **fields)
    Address.objects.create(customer=customer, is_default=False, **fields)

    assert_rejected(
        lambda: Address.objects.create(customer=customer, is_default=True, **fields), "address_one_default_per_customer"
    )


def test_subsidy_rule_checks_rate_amount_and_period() -> None:
    base = {"category": "phone", "max_amount": Decimal("500")}

    assert_rejected(lambda: SubsidyRule.objects.create(name="a", rate=Decimal("0"), **base), "subsidy_rate_in_0_1")
    assert_rejected(lambda: SubsidyRule.objects.create(name="b", rate=Decimal("1.5"), **base), "subsidy_rate_in_0_1")
    assert_rejected(
        lambda: SubsidyRule.objects.create(name="c", rate=Decimal("0.1"), category="phone", max_amount=Decimal("-1")),
        "subsidy_max_amount_gte_0",
    )
    assert_rejected(
        lambda: SubsidyRule.objects.create(name="e", rate=Decimal("0.1"), max_price=Decimal("-1"), **base),
        "subsidy_max_price_gte_0",
    )
    assert_rejected(
        lambda: SubsidyRule.objects.create(
            name="d", rate=Decimal("0.1"), starts_on="2026-06-01", ends_on="2026-05-01", **base
        ),
        "subsidy_period_ordered",
    )


def test_subsidy_is_fifteen_percent_capped_and_only_below_the_price_limit() -> None:
    rule = SubsidyRule(rate=Decimal("0.150"), max_amount=Decimal("500.00"), max_price=Decimal("6000.00"))

    assert rule.amount_for(Decimal("3999.00")) == Decimal("500.00")  # Find X9: ¥3999 → ¥3499
    assert rule.amount_for(Decimal("2999.00")) == Decimal("449.85")
    assert rule.amount_for(Decimal("6999.00")) == Decimal("0.00")


def test_order_total_sums_its_items() -> None:
    order = OrderFactory.create()
    for price in ("10.50", "4.25"):
        variant = VariantFactory.create(price=Decimal(price))
        OrderItem.objects.create(order=order, variant=variant, product=variant.product, name="x", price=variant.price)

    assert Order.objects.get(pk=order.pk).total == Decimal("14.75")


def test_the_store_profile_is_one_row_with_an_iso_currency() -> None:
    from stores.builtin.models import StoreProfile
    from stores.builtin.services import store_profile_set

    store_profile_set(currency="usd")

    assert StoreProfile.objects.get().currency == "USD"
    assert_rejected(lambda: StoreProfile.objects.create(pk=2, currency="EUR"), "store_profile_single_row")
    assert_rejected(lambda: StoreProfile.objects.filter(pk=1).update(currency="us1"), "store_profile_currency_iso")


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [(3999, "CNY", "¥3,999"), (54.04, "USD", "$54.04"), (1200.5, "EUR", "€1,200.50"), (12.5, "CHF", "12.50 CHF")],
)
def test_money_shows_the_currency(amount: float, currency: str, shown: str) -> None:
    from stores.money import money

    assert money(amount, currency) == shown
