"""agents.grounding: what a written reply states that its evidence does not, whatever the writing of a number
and in whichever language a promise is made."""

from __future__ import annotations

import pytest

from agents.grounding import figures, ungrounded


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Return it within seven days [1]; it costs ¥1,299.00, 10% off.", {"7", "1299", "10"}),
        ("签收后七天内可退，十五天内可换，一百二十元起[2]。", {"7", "15", "120"}),
        ("1. Open the app\n2. Tap Orders", set()),  # a rewrite's list numbers, no figures
        ("One of our colleagues will help; wait a moment.", set()),  # a number word before no unit
        ("稍等一下，我们一起看看。", set()),
    ],
)
def test_figures_are_read_as_values(text: str, values: set[str]) -> None:
    assert figures(text) == values


@pytest.mark.parametrize(
    ("text", "evidence", "missing"),
    [
        ("You can return it within 7 days [1].", "Returns are accepted within seven days.", []),
        ("您可以在 7 天内退货 [1]。", "Returns are accepted within 7 days of delivery.", []),
        ("您可以在30天内申请全额退款[1]。", "Returns are accepted within 7 days of delivery.", ["30", "full_refund"]),
        (
            "We refund you in full and ship for free.",
            "7天无理由退货，运费由买家承担。",
            ["free_shipping", "full_refund", "waived_fee"],
        ),
        ("It costs ¥3,499 after the subsidy.", "Find X9 国补后到手价 3499 元。", []),
        ("It costs ¥3,399 after the subsidy.", "Find X9 国补后到手价 3499 元。", ["3399"]),
        ("无理由退货，终身保修。", "7-day no-questions-asked returns; a 1-year warranty.", ["lifetime"]),
    ],
)
def test_what_the_evidence_does_not_state_is_named(text: str, evidence: str, missing: list[str]) -> None:
    assert ungrounded(text, evidence) == missing
