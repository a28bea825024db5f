"""The safety gate's harm classifier (agents.harm_model): it reads wordings the rules do not describe, lets a
shop's own hard words through, and is trained once and then loaded. zh and en."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import harm_model
from agents.safety import BLOCK, HARMFUL, PASS, safety_check


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Frankly nobody cares about your whining, go bother some other shop.", "abuse"),
        ("Sounds like you'd be happier not waking up tomorrow, honestly.", "self_harm"),
        ("Keep complaining and my guys will come round to sort you out.", "violence"),
        ("We can get you some pills without a prescription, cash only, no questions.", "illegal_goods"),
        ("这点小事都搞不明白，脑子是摆设吗？", "abuse"),
        ("活着这么累，不如早点解脱吧。", "self_harm"),
        ("再投诉，我就让人上门收拾你。", "violence"),
        ("要证件的话我们这边能做，跟真的一模一样。", "illegal_goods"),
    ],
)
def test_a_harmful_wording_no_rule_describes_is_blocked_by_the_classifier(text: str, category: str) -> None:
    assert not any(rule.search(text) for rule in HARMFUL.values())  # the rules alone would let it through

    verdict = safety_check(text, language="en", customer=lambda: None)

    assert verdict.decision == BLOCK and verdict.categories == [category]


@pytest.mark.parametrize(
    "text",
    [
        "Restart the phone to kill the frozen app.",
        "The blender's blades are sharp, so keep them away from children.",
        "这款刀具需要实名购买，未成年人不能下单。",
        "爆款耳机今晚八点秒杀。",
    ],
)
def test_a_shops_own_hard_words_pass(text: str) -> None:
    assert harm_model.harm_predicted(text) is None
    assert safety_check(text, language="zh", customer=lambda: None).decision == PASS


def test_the_model_is_trained_once_and_then_loaded_from_var(settings: Any, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path
    harm_model.model_weights.cache_clear()
    try:
        trained = harm_model.model_weights()
        saved = list(tmp_path.glob("harm_model-*.npy"))
        harm_model.model_weights.cache_clear()
        loaded = harm_model.model_weights()
    finally:
        harm_model.model_weights.cache_clear()

    assert len(saved) == 1 and np.array_equal(trained, loaded)
    assert trained.shape == (harm_model.DIMENSIONS, len(harm_model.CLASSES))
