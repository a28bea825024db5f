"""The learned decisions (agents/reading/) on wordings written blind to them and to their example files.

bench/decision_sets/ holds sets written by someone who had read neither the decisions nor their examples,
committed before their first run; they are never trained or tuned on (their failures are not printed).

- confirmation.json, "confirm": answers to "Shall I go ahead? (yes/no)" after a summary of a change. Right when
  a yes is read as yes, a no or giving up as declining, anything else as neither. A yes read where none was
  said writes a change nobody asked for: it is counted on its own (target: never).
- confirmation.json, "slot": answers while the bot asks something else (the order, the items, the reason, the
  address). Right when giving up the request is read as giving up and nothing else is.
- confirmation_b.json: a second set of both kinds, written later by another hand, measured the same way.
- asks.json: a shopper's message, read for what it asks (agents.reading.asks): how the store works (policy),
  what became of their own order or account, a request, or none of these. Accuracy over the four, and the two
  costly confusions counted on their own: a request or own-order question read as policy (the help centre
  answers and the request is lost), a policy question read as needing the customer's records (the bot asks who
  they are instead of answering).
- cancel_reason.json: answers to "Why would you like to cancel: no longer needed, or ordered by mistake?"
  (agents.reading.cancel_reason): accuracy over the two reasons and none, and the costly confusion counted on its
  own: the other reason written to the order.
- items_named.json: which items of an order a message asks to return, exchange or change (agents.workflows.slots
  `read_items`, the places it names items read by agents.reading.items): right when exactly those. An item read
  that the message did not name is counted on its own: it would be proposed for a change nobody asked for.
- correction.json: whether a message puts right a value said before (agents.reading.correction), read with the
  shopper's message before it, as the workflows read it, and with the message alone: right when a correction is
  read as one and nothing else is; the value meant counted on its own.
- change.json: what a message about changing an order not yet shipped changes (agents.reading.change): its
  items, its address, its payment method, the account's default address, or nothing it says. Accuracy over the
  five, and another kind of change read than the one meant (the bot would ask for the wrong thing) on its own.
- same_options.json: the words about one item (written ITEM), read for whether they ask for a new unit identical to
  it (agents.reading.same_options): accuracy, and "same" read where it was not meant (an identical swap proposed
  that nobody asked for) on its own.

- answer_or_request.json: a reply while the bot waits for one thing (the order, the reason, the items, the new
  options, the address, the payment method, the e-mail, a yes or no), read for whether it answers it, leaves it for
  another request or asks a question back (agents.reading.answer_or_request, its likeliest reading): accuracy, and
  a new request or a question read as an answer (what the customer asked would go unanswered) on its own.
- ask_or_tell.json: one clause of a shopper's message, read for whether it asks the store to act, asks it to act
  on what was told before ("can you fix it?") or only tells or asks to know (agents.reading.ask_or_tell):
  accuracy, and a clause that only tells or asks to know read as asking the store to act (it would become the
  message's request) on its own.
- intent.json: a shopper's message, read for the intent the engine serves it by (agents.intents.offline: the
  learned intent reading weighed against the exemplars' neighbours, the neighbours found here by brute force over
  the same bundled vectors): accuracy of the first intent, and a request of the order workflows read where none
  was meant (or another one) counted on its own, since a workflow asks for an order and proposes a change.

bench/decision_sets/dev/ holds development sets written blind the same way, whose failures are printed and read
(`--dev`, with `--only` one of them): items_named.json (440 messages, zh and en), confirmation.json, intent.json,
same_options.json, asks.json, change.json and cancel_reason.json (300 messages each, 200 of them Chinese),
answer_or_request.json (300 replies) and correction.json (250 messages).

    .venv/bin/python bench/decisions.py [--only intent|answer_or_request|ask_or_tell] [--dev [--only NAME]]
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness import django_setup

SETS = Path(__file__).resolve().parent / "decision_sets"
DECLINES = {"no", "cancel"}


def _per_language(name: str, sets: Path = SETS) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A set's items, English then Chinese."""
    items = json.loads((sets / f"{name}.json").read_text())["items"]
    for language in ("en", "zh"):
        yield language, [item for item in items if item.get("lang", item.get("language")) == language]


def _request_asked_about(question: str) -> str:
    """The kind of request the bot's question is about (the workflow the engine would be in), read by the engine's
    own intent decision: the confirmation is read within it, as in a conversation."""
    from agents.reading.intent import intent_likelihood
    from agents.workflows.definitions import WORKFLOW_FOR_INTENT

    proposal = re.split(r"(?<=[。！？!?])|(?<=\.)\s", question.strip())[0]  # its first sentence says what is done
    return str(WORKFLOW_FOR_INTENT.get(intent_likelihood(proposal)[0][0].value, ""))


def confirmation_measure(name: str, sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.reading.confirmation import Answer, confirmation_read

    items = json.loads((sets / f"{name}.json").read_text())["items"]
    tally: dict[tuple[str, str], Counter[str]] = {}
    for item in items:
        read = confirmation_read(item.get("text") or item["reply"], _request_asked_about(item["question"])).answer
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
        if show_failures and not right:
            print(f"  {item['asked']} {item['lang']} {label} read {read.value}: {item.get('text') or item['reply']!r}")
    for (asked, language), cell in sorted(tally.items()):
        costly = (
            f"a yes where none was said: {cell['false yes']}"
            if asked == "confirm"
            else (f"giving up read where not meant: {cell['false cancel']}")
        )
        print(
            f"{name}, {asked} {language}: {cell['right']}/{cell['all']} = {cell['right'] / cell['all']:.1%}  ({costly})"
        )
        for key, count in sorted(cell.items()):
            if " as " in key and count:
                print(f"    {count:3d}  {key}")


def asks_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.reading.asks import Asks, asks_read

    for language, mine in _per_language("asks", sets):
        cell: Counter[str] = Counter()
        for item in mine:
            read = asks_read(item["text"])
            cell["right"] += read == item["label"]
            cell["lost request"] += item["label"] in ("own_state", "request") and read == Asks.POLICY
            cell["needless identity"] += item["label"] == "policy" and read in (Asks.OWN_STATE, Asks.REQUEST)
            if read != item["label"]:
                cell[f"{item['label']} as {read.value}"] += 1
                if show_failures:
                    print(f"  {item['label']} read {read.value}: {item['text']!r}")
        print(
            f"asks {language}: {cell['right']}/{len(mine)} = {cell['right'] / len(mine):.1%}  (a request or own-order "
            f"question read as policy: {cell['lost request']}; a policy question read as needing their records: "
            f"{cell['needless identity']})"
        )
        for key, count in sorted(cell.items()):
            if " as " in key:
                print(f"    {count:3d}  {key}")


def cancel_reason_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.reading.cancel_reason import cancel_reason

    _choice_measure(
        "cancel_reason",
        lambda item: cancel_reason(item["text"]),
        "the other reason written",
        sets=sets,
        show_failures=show_failures,
    )


def _another_label(said: str, meant: str) -> bool:
    return "none" not in (said, meant) and said != meant


def _choice_measure(
    name: str,
    read: Callable[[dict[str, Any]], str | None],
    costly: str,
    is_costly: Callable[[str, str], bool] = _another_label,
    sets: Path = SETS,
    show_failures: bool = False,
) -> None:
    """A decision that reads one of its labels (or nothing: "none") of each item: accuracy per language, and the costly
    readings (`is_costly(said, meant)`, by default a label read for another; `costly`: what that would do)
    counted on their own."""
    for language, mine in _per_language(name, sets):
        cell: Counter[str] = Counter()
        for item in mine:
            said = read(item) or "none"
            cell["right"] += said == item["label"]
            cell["costly"] += is_costly(said, item["label"])
            if said != item["label"]:
                cell[f"{item['label']} as {said}"] += 1
                if show_failures:
                    print(
                        f"  {item['label']} read {said}: {item.get('slot', '')} {item.get('text', item.get('reply'))!r}"
                    )
        print(
            f"{name.replace('_', ' ')} {language}: {cell['right']}/{len(mine)} = {cell['right'] / len(mine):.1%}  "
            f"({costly}: {cell['costly']})"
        )
        for key, count in sorted(cell.items()):
            if " as " in key:
                print(f"    {count:3d}  {key}")


def same_options_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    """Whether the words about one item (written ITEM) ask for a new unit identical to it: accuracy per language,
    and "same" read where a change or nothing was meant (an identical swap proposed that nobody asked for)."""
    from agents.reading.same_options import same_options_asked

    for language, mine in _per_language("same_options", sets):
        pairs = [(same_options_asked(item["text"], ""), item["label"] == "same") for item in mine]
        for item, (read, meant) in zip(mine, pairs, strict=True):
            if show_failures and read != meant:
                print(f"  {item['label']} read {'same' if read else 'other'}: {item['text']!r}")
        right = sum(r == m for r, m in pairs)
        false_same = sum(r and not m for r, m in pairs)
        missed = sum(m and not r for r, m in pairs)
        print(
            f"same options {language}: {right}/{len(mine)} = {right / len(mine):.1%}  "
            f"(the same item proposed where not asked: {false_same}; asked and not read: {missed})"
        )


def _same(one: str, other: str) -> bool:
    return one.lstrip("#").strip().lower() == other.lstrip("#").strip().lower()


def correction_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    """The learned reader with what was said before, as the workflows read it, and with the message alone."""
    from agents.reading.correction import correction_read

    readers = {
        "with what was said before": lambda item: correction_read(item["message"], item["said_before"]),
        "the message alone": lambda item: correction_read(item["message"]),
    }
    for language, mine in _per_language("correction", sets):
        for name, reader in readers.items():
            cell: Counter[str] = Counter()
            for item in mine:
                read = reader(item)
                said = "correction" if read is not None else "none"
                cell["right"] += said == item["label"]
                cell["false"] += said == "correction" and item["label"] == "none"
                cell["corrections"] += item["label"] == "correction"
                cell["meant right"] += (
                    read is not None and item["label"] == "correction" and _same(read[0], item["meant"])
                )
                if show_failures and said != item["label"]:
                    print(f"  {item['label']} read {said}: {item['said_before']!r} -> {item['message']!r}")
            print(
                f"correction ({name}) {language}: {cell['right']}/{len(mine)} = {cell['right'] / len(mine):.1%}  (a "
                f"correction read where none was made: {cell['false']}; the value meant read right: "
                f"{cell['meant right']}/{cell['corrections']})"
            )


def items_named_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.workflows.slots import read_items

    for language, mine in _per_language("items_named", sets):
        cell: Counter[str] = Counter()
        for item in mine:
            order = [
                {"item_id": f"item{k}", "product_id": it["name"], "name": it["name"], "options": it["options"]}
                for k, it in enumerate(item["order_items"])
            ]
            read = set(read_items(item["message"], order) or [])
            named = {f"item{k}" for k in item["named"]}
            cell["right"] += read == named
            cell["unnamed read"] += bool(read - named)
            cell["one named"] += len(named) == 1
            cell["one named right"] += len(named) == 1 and read == named
            if show_failures and read != named:
                print(
                    f"  {item['message']!r}\n    {[it['name'] for it in item['order_items']]}: read "
                    f"{sorted(int(i[4:]) for i in read)}, named {sorted(item['named'])}"
                )
        print(
            f"items named {language}: {cell['right']}/{len(mine)} = {cell['right'] / len(mine):.1%}  (an item read "
            f"that was not named: {cell['unnamed read']}; one item named, read right: {cell['one named right']}/"
            f"{cell['one named']})"
        )


def _exemplar_neighbours() -> Callable[[list[str]], list[list[tuple[str, float]]]]:
    """The exemplars' nearest neighbours of each text, as agents.intents.exemplar_index finds them in the
    database, by brute force over the bundled query vectors."""
    from agents.intents.exemplars import exemplars_load
    from agents.intents.offline.classify import RECOMMENDED_K
    from knowledge.embeddings import bundled_query_vectors

    exemplars = exemplars_load()
    matrix = bundled_query_vectors([exemplar.text for exemplar in exemplars])

    def neighbours(texts: list[str]) -> list[list[tuple[str, float]]]:
        found = []
        for row in bundled_query_vectors(texts) @ matrix.T:
            nearest = row.argsort()[::-1][:RECOMMENDED_K]
            found.append([(exemplars[i].intent.value, float(row[i])) for i in nearest])
        return found

    return neighbours


def intent_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.intents.offline.classify import classify_offline
    from agents.taxonomy import WORKFLOW_INTENTS

    neighbours = _exemplar_neighbours()
    workflows = {intent.value for intent in WORKFLOW_INTENTS}
    _choice_measure(
        "intent",
        lambda item: classify_offline(item["text"], neighbours)[0].intent.value,
        "an order workflow read where another intent was meant",
        lambda said, meant: said in workflows and said != meant,
        sets,
        show_failures,
    )


def answer_or_request_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    """The likeliest reading of a reply while the bot waits for a slot; a new request or a question read as an
    answer is the costly one: what the customer asked would go unanswered."""
    from agents.reading.answer_or_request import reply_likelihood

    def read(item: dict[str, Any]) -> str:
        likely = reply_likelihood(item["slot"], item["reply"])
        return max(likely, key=lambda reply: likely[reply]).value

    _choice_measure(
        "answer_or_request",
        read,
        "a new request or a question read as an answer",
        lambda said, meant: said == "answer" and meant != "answer",
        sets,
        show_failures,
    )


def change_measure(sets: Path = SETS, show_failures: bool = False) -> None:
    from agents.reading.change import change_read

    _choice_measure(
        "change",
        lambda item: change_read(item["text"]),
        "another kind of change read",
        sets=sets,
        show_failures=show_failures,
    )


def ask_or_tell_measure() -> None:
    from agents.reading.ask_or_tell import said_of

    _choice_measure(
        "ask_or_tell",
        lambda item: said_of(item["text"]).value,
        "told or asked to know, read as asking the store to act",
        lambda said, meant: said == "asks" and meant == "tells",
    )


ON_ITS_OWN = {
    "intent": intent_measure,
    "answer_or_request": answer_or_request_measure,
    "ask_or_tell": ask_or_tell_measure,
}


DEVELOPMENT: dict[str, Callable[[Path, bool], None]] = {
    "confirmation": lambda sets, show: confirmation_measure("confirmation", sets, show),
    "intent": intent_measure,
    "same_options": same_options_measure,
    "items_named": items_named_measure,
    "asks": asks_measure,
    "answer_or_request": answer_or_request_measure,
    "correction": correction_measure,
    "change": change_measure,
    "cancel_reason": cancel_reason_measure,
}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", default="", help="run only this set (by its file's name)")
    parser.add_argument(
        "--dev", action="store_true", help="the development sets (decision_sets/dev/), failures printed"
    )
    arguments = parser.parse_args()
    only = arguments.only
    django_setup()
    if arguments.dev:
        for name, measure in DEVELOPMENT.items():
            if (SETS / "dev" / f"{name}.json").exists() and only in ("", name):
                measure(SETS / "dev", True)
        return
    if only in ON_ITS_OWN:
        ON_ITS_OWN[only]()
        return
    confirmation_measure("confirmation")
    confirmation_measure("confirmation_b")
    asks_measure()
    cancel_reason_measure()
    change_measure()
    answer_or_request_measure()
    ask_or_tell_measure()
    correction_measure()
    items_named_measure()
    same_options_measure()
    intent_measure()


if __name__ == "__main__":
    main()
