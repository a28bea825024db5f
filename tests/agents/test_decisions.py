"""The learned decisions' files: each fitted model comes from its current examples, and each example is
well-formed, says why it is there and is given once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.reading import decisions
from agents.reading.catalogue import DECISIONS
from agents.reading.correction import VALUE_FITTED, value_training_key
from agents.reading.decisions import FITTED, Decision, Fitted, examples, training_key


@pytest.mark.parametrize("decision", DECISIONS, ids=lambda decision: decision.name)
def test_the_committed_model_comes_from_the_current_examples(decision: Decision) -> None:
    """A stale file means every process fits the model itself: run manage.py train_decisions and commit."""
    assert Fitted.load(FITTED / f"{decision.name}.npz").key == training_key(decision)


def test_the_committed_value_model_of_corrections_comes_from_the_current_examples() -> None:
    """The model that reads which words of a correction are the value meant is fitted by train_decisions too."""
    with np.load(VALUE_FITTED, allow_pickle=False) as data:
        assert str(data["key"]) == value_training_key()


@pytest.mark.parametrize("decision", DECISIONS, ids=lambda decision: decision.name)
def test_every_example_says_why_it_is_there_and_none_is_given_twice(decision: Decision) -> None:
    kept_elsewhere = dict(decision.also)  # the intent exemplars: the neighbours' file, in its own format
    rows = [
        json.loads(line)
        for path in decision.example_files()
        if path not in kept_elsewhere
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert all(row["why"].strip() and row["text"].strip() for row in rows)
    # the same words may be taught twice in two contexts ("#W1 and #W2" answers "which order?", not "why?")
    said = [(row["text"].strip().lower(), row.get(decision.context, "")) for row in rows]
    assert len(said) == len(set(said))
    assert {row.language for row in examples(decision)} == {"en", "zh"}
    assert {row.label for row in examples(decision)} == set(decision.labels)


def test_an_example_with_a_label_the_decision_does_not_have_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toy.en.jsonl").write_text(json.dumps({"text": "hi", "label": "maybe", "why": "x"}) + "\n")
    monkeypatch.setattr("agents.reading.decisions.EXAMPLES", tmp_path)

    with pytest.raises(ValueError, match="unknown label 'maybe'"):
        examples(Decision("toy", ("yes", "no")))


def test_a_process_whose_file_is_stale_fits_the_decision_once_under_var_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    written = tmp_path / "examples"
    written.mkdir()
    for language, said in (
        ("en", [("yes please", "yes"), ("no thanks", "no")]),
        ("zh", [("好的", "yes"), ("不要", "no")]),
    ):
        rows = [{"text": text, "label": label, "why": "a toy"} for text, label in said]
        (written / f"toy.{language}.jsonl").write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows))
    monkeypatch.setattr(decisions, "EXAMPLES", written)
    monkeypatch.setattr(decisions, "FITTED", tmp_path / "fitted")  # nothing committed
    monkeypatch.setattr(decisions, "_fitted", {})
    settings.VAR_DIR = tmp_path / "var"
    toy = Decision("toy", ("yes", "no"))

    model = decisions.fitted(toy)

    assert model.key == training_key(toy)
    assert (tmp_path / "var" / "decisions" / f"toy-{model.key}.npz").exists()
    assert decisions.fitted(toy) is model  # once per process
    likely = decisions.probabilities(model, ["yes please", "不要"])
    assert [toy.labels[row.argmax()] for row in likely] == ["yes", "no"]


def test_a_space_where_chinese_meets_latin_letters_changes_no_meaning() -> None:
    # the item readers put one there (conversations.language.scripts_apart); the examples are written without it
    toy = Decision("toy", ("yes", "no"))
    spaced, joined = toy.vectors(["想退 Bicycle Helmet 红色 M 码", "想退Bicycle Helmet红色M码"])
    assert np.array_equal(spaced, joined)
