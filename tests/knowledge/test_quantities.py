"""A question's number read against the ranges of a table's rows (knowledge.quantities), and the extract that
quotes the row whose range holds it, zh and en."""

from __future__ import annotations

import pytest

from agents.specialists.knowledge import MAX_ANSWER_CHARS, _extract
from knowledge.quantities import numbers_asked, quantity_fits

PLAN_PRICES = "Plan prices depend on what you paid for the product, before any discount. " + " ".join(
    f"Product price: {band}, 2 years: ${two}, 3 years: ${three}, accident cover 2 years: ${two + 20}."
    for band, two, three in [
        ("Under $200", 29, 39),
        ("$200-$499.99", 59, 79),
        ("$500-$999.99", 99, 139),
        ("$1,000-$1,999.99", 149, 199),
        ("$2,000 and over", 199, 269),
    ]
)
INSTALMENTS_ZH = (
    "分期付款由合作银行提供，下单时在收银台选择分期即可，审核通常在一分钟内完成，额度以银行审批为准。" * 4
    + "".join(
        f"订单金额：{band}，可选期数：{terms}，手续费：{fee}，提前还款不收违约金，逾期按银行规定计息。"
        for band, terms, fee in [
            ("500元以下", "不支持分期", "无"),
            ("500-2999元", "3 期或 6 期", "每期 0.6%"),
            ("3000-9999元", "3、6、12 期", "12 期免息"),
            ("10000元以上", "3 至 24 期", "24 期每期 0.5%"),
        ]
    )
)


@pytest.mark.parametrize(
    ("question", "row", "fits"),
    [
        ("how much is the 3 year plan on a $1,200 laptop", "Product price: $1,000-$1,999.99, 3 years: $199.", True),
        ("how much is the 3 year plan on a $1,200 laptop", "Product price: Under $200, 3 years: $39.", False),
        ("do you take away a 70 inch TV?", "TV wall mounting, 65 inches and larger: $179.", True),
        ("do you take away a 70 inch TV?", "TV wall mounting, up to 64 inches: $129.", False),
        ("3500元的手机能分几期？", "订单金额：3000-9999元，可选期数：3、6、12 期。", True),
        ("3500元的手机能分几期？", "订单金额：500元以下，不支持分期。", False),
        ("order W1234567 from 3/15, can I return 2 items?", "Orders of 5-10 items ship in two boxes.", False),
        ("how much is the 3 year plan on a $1,200 laptop", "3 years of cover start on the day of delivery.", None),
    ],
)
def test_a_number_fits_a_range_in_its_own_unit(question: str, row: str, fits: bool | None) -> None:
    assert quantity_fits(numbers_asked(question), row) is fits


@pytest.mark.parametrize(
    ("question", "table", "quoted", "not_quoted"),
    [
        ("how much is the 3 year plan on a $1,200 laptop?", PLAN_PRICES, "3 years: $199", "3 years: $39,"),
        ("买个 12000 块的电脑分期手续费多少？", INSTALMENTS_ZH, "24 期每期 0.5%", "每期 0.6%"),
    ],
)
def test_the_extract_of_a_long_table_quotes_the_row_whose_range_holds_the_number(
    question: str, table: str, quoted: str, not_quoted: str
) -> None:
    assert len(table) > MAX_ANSWER_CHARS  # too long to quote whole
    extract = _extract(question, table)

    assert quoted in extract and not_quoted not in extract
