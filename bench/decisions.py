"""The learned decisions (agents/reading/) on wordings written blind to them and to their example files.

bench/decision_sets/ holds sets written by someone who had read neither the decisions nor their examples,
committed before their first run; they are never trained or tuned on (their failures are not printed).

- confirmation.json, "confirm": answers to "Shall I go ahead? (yes/no)" after a summary of a change. Right when
  a yes is read as yes, a no or giving up as declining, anything else as neither. A yes read where none was
  said writes a change nobody asked for: it is counted on its own (target: never).
- confirmation.json, "slot": answers while the bot asks something else (the order, the items, the reason, the
  address). Right when giving up the request is read as giving up and nothing else is.

    .venv/bin/python bench/decisions.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from harness import django_setup

SETS = Path(__file__).resolve().parent / "decision_sets"
DECLINES = {"no", "cancel"}


def confirmation_measure() -> None:
    from agents.reading.confirmation import Answer, confirmation_read

    items = json.loads((SETS / "confirmation.json").read_text())["items"]
    tally: dict[tuple[str, str], Counter[str]] = {}
    for item in items:
        read = confirmation_read(item["text"]).answer
        label = item["label"]
        if item["asked"] == "confirm":
            right = read == label or (label in DECLINES and read in {Answer.NO, Answer.CANCEL})
        else:
            right = (read == Answer.CANCEL) == (label == "cancel")
        cell = tally.setdefault((item["asked"], item["lang"]), Counter())
        cell["all"] += 1
        cell["right"] += right
        cell["false yes"] += item["asked"] == "confirm" and read == Answer.YES and label != "yes"
        cell["false cancel"] += item["asked"] == "slot" and read == Answer.CANCEL and label != "cancel"
        cell[f"{label} as {read.value}"] += not right
    for (asked, language), cell in sorted(tally.items()):
        costly = (
            f"a yes where none was said: {cell['false yes']}"
            if asked == "confirm"
            else (f"giving up read where not meant: {cell['false cancel']}")
        )
        print(
            f"confirmation, {asked} {language}: {cell['right']}/{cell['all']} = {cell['right'] / cell['all']:.1%}  ({costly})"
        )
        for key, count in sorted(cell.items()):
            if " as " in key and count:
                print(f"    {count:3d}  {key}")


def main() -> None:
    django_setup()
    confirmation_measure()


if __name__ == "__main__":
    main()
