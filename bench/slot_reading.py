"""Slot reading on wordings nobody tuned for: US addresses, cancellation reasons and yes/no in chat messages.

What the workflows read from free text decides whether a change is written right: an address read into the
wrong fields ships an order to nowhere, a reason not understood sends the customer round the same question.
Both readers are pure functions (agents.workflows.addresses.parse_address, agents.reading.cancel_reason
.cancel_reason), so they are measured directly, on data written for this benchmark by someone who had not
seen the readers (bench/slot_reading/):

- address_layouts.json: message templates in which a shopper gives a new shipping address, filled with
  the addresses of τ-bench's retail users (read from --data at run time, never stored), each with its
  unit word varied (Suite, Apt, Unit, #) and its state given as a code or a name. An address counts
  when every field (street, unit, city, state, zip, country) is read exactly, after case and
  punctuation are set aside.
- confirmations.json: what customers answer to "Shall I go ahead?" after a summary of the change, in
  English and Chinese: yes, no (or something in the summary is wrong), or neither (a question back, a
  hesitation). Accuracy, and how often a yes was read where none was said (that one writes a change).
- requests.json: the first message of a request about an order (cancel, return, exchange, item change,
  address, payment method, order status), in English and Chinese: read through intent recognition and
  the route, in a scratch database holding what `make run` seeds (the demo store and help articles).
- cancel_reasons.json: what customers answer when asked why they cancel, in English and Chinese: "no
  longer needed", "ordered by mistake", or no reason that fits (the reader must then say it does not
  know, so that the bot asks). Read as the cancel workflow reads an answer to its question (the learned
  decision, agents.reading.cancel_reason); accuracy over all three.

Each file has a development half (read its failures, improve the readers), a held-out half (report it
untouched: never read its failures, never tune on it; `--half heldout` never prints failures) and, for
addresses and confirmations, a second development half (dev2) written by the same hand after the readers
had been improved on the first: its first run says how far those improvements carried.

    .venv/bin/python bench/slot_reading.py --data ../shared/data --half dev --show-failures
    .venv/bin/python bench/slot_reading.py --data ../shared/data        # every half
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import string
from collections import Counter
from pathlib import Path

from harness import django_setup, scratch_database

DATA = Path(__file__).resolve().parent / "slot_reading"
HALVES = ("dev", "dev2", "heldout")
FILLS_PER_TEMPLATE = 4
UNIT_WORDS = ("Suite", "Apt", "Apartment", "Unit", "#", "Ste")
COUNTRY_NAMES = ("USA", "United States", "US")


@functools.cache
def _state_names() -> dict[str, str]:
    """Each US state's name by its postal code, from the address reader's own table."""
    from agents.workflows.addresses import _STATES

    return {code: name.title() for name, code in _STATES.items()}


def _plain(value: str) -> str:
    """A field compared without case, punctuation or spacing: "Apt. 4" is "apt 4"."""
    return re.sub(rf"[\s{re.escape(string.punctuation)}]+", " ", value).strip().lower()


def _addresses(data: Path) -> list[dict[str, str]]:
    users = json.loads((data / "tau2_retail" / "db.json").read_text())["users"]
    return [user["address"] for _, user in sorted(users.items())]


def _filled(template: str, address: dict[str, str], rng: random.Random) -> tuple[str, dict[str, str]]:
    """The template filled with `address` (its unit word varied), and the fields it should be read as."""
    number = address["address2"].split()[-1]
    word = rng.choice(UNIT_WORDS)
    unit = f"#{number}" if word == "#" else f"{word} {number}"
    country = rng.choice(COUNTRY_NAMES)
    text = template.format(
        street=address["address1"],
        unit=unit,
        city=address["city"],
        state=address["state"],
        state_name=_state_names()[address["state"]],
        zip=address["zip"],
        country=country,
    )
    expected = {
        "address1": address["address1"],
        "address2": unit if "{unit}" in template else "",
        "city": address["city"],
        "state": address["state"],
        "zip": address["zip"],
        "country": "USA",
    }
    return text, expected


def addresses_measure(half: str, data: Path, show: bool) -> None:
    from agents.workflows.addresses import parse_address

    templates = json.loads((DATA / "address_layouts.json").read_text()).get(half)
    if templates is None:
        return
    addresses = _addresses(data)
    wrong_fields: Counter[str] = Counter()
    read = total = 0
    templates_all_read = 0
    for index, template in enumerate(templates):
        rng = random.Random(f"{half}:{index}")
        all_read = True
        for address in rng.sample(addresses, FILLS_PER_TEMPLATE):
            text, expected = _filled(template, address, rng)
            found = parse_address(text, default_country="USA") or {}
            wrong = [key for key, value in expected.items() if _plain(found.get(key, "")) != _plain(value)]
            total += 1
            if wrong:
                all_read = False
                wrong_fields.update(wrong)
                if show:
                    print(f"address {half}-{index}: {', '.join(wrong)} wrong\n  > {text!r}")
                    print(f"  < {json.dumps(found, ensure_ascii=False)}")
            else:
                read += 1
        templates_all_read += all_read
    print(
        f"addresses, {half}: {read}/{total} = {read / total:.1%} read exactly "
        f"({templates_all_read}/{len(templates)} layouts every time)"
    )
    for field, count in wrong_fields.most_common():
        print(f"  {count:4d}  {field} wrong")


def _report(
    what: str, half: str, by_lang: dict[str, Counter[str]], confusion: Counter[tuple[str, str]], note=None
) -> None:
    """Per language, how many were read right (and `note` of the cell), then what was read wrongly as what."""
    for lang, cell in sorted(by_lang.items()):
        extra = f"  ({note(cell)})" if note else ""
        print(f"{what}, {half} {lang}: {cell['right']}/{cell['total']} = {cell['right'] / cell['total']:.1%}{extra}")
    for (expected, said), count in confusion.most_common():
        print(f"  {count:4d}  {expected} read as {said}")


def _tally(
    by_lang: dict[str, Counter[str]], confusion: Counter[tuple[str, str]], lang: str, expected: object, said: object
) -> Counter[str]:
    cell = by_lang.setdefault(lang, Counter())
    cell["total"] += 1
    cell["right"] += said == expected
    if said != expected:
        confusion[str(expected), str(said)] += 1
    return cell


def reasons_measure(half: str, show: bool) -> None:
    """As the cancel workflow reads the answer to its question."""
    from agents.reading.cancel_reason import cancel_reason

    examples = json.loads((DATA / "cancel_reasons.json").read_text()).get(half)
    if examples is None:
        return
    by_lang: dict[str, Counter[str]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    for number, example in enumerate(examples):
        said = cancel_reason(example["text"])
        _tally(by_lang, confusion, example["lang"], example["reason"], said)
        if show and said != example["reason"]:
            print(f"reason {half}-{number} ({example['lang']}): expected {example['reason']}, read {said}")
            print(f"  > {example['text']!r}")
    _report("cancel reasons", half, by_lang, confusion)


def confirmations_measure(half: str, show: bool) -> None:
    """As the workflows read the answer to "Shall I go ahead?": a yes writes, a no drops the request,
    anything else is read for what it says. A yes read where none was said is the costly error."""
    from agents.reading.confirmation import yes_no

    examples = json.loads((DATA / "confirmations.json").read_text()).get(half)
    if examples is None:
        return
    by_lang: dict[str, Counter[str]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    for number, example in enumerate(examples):
        said = yes_no(example["text"])
        cell = _tally(by_lang, confusion, example["lang"], example["answer"], said)
        cell["false yes"] += said is True and example["answer"] is not True
        if show and said is not example["answer"]:
            print(f"confirm {half}-{number} ({example['lang']}): expected {example['answer']}, read {said}")
            print(f"  > {example['text']!r}")
    _report("confirmations", half, by_lang, confusion, lambda c: f"a yes read where none was said: {c['false yes']}")


# What the route makes of a request's first message: the planned intent, and for an order change what
# changes. An item change is an exchange on a delivered order and a modification on a pending one (the
# order's status decides, not the words), so the two kinds are one here. A change that names only option
# values ("can you make it the 64GB one?") is read as an item change by the options of the order's items;
# the bench has no orders, so an order change that says nothing else counts as one.
_ACTS = {"cancel_order", "return", "exchange", "modify_order", "order_query", "logistics_query"}
_ITEM_CHANGE: set[tuple[str, str | None]] = {("exchange", None), ("modify_order", "items"), ("modify_order", None)}
_KIND_READ: dict[str, set[tuple[str, str | None]]] = {
    "cancel": {("cancel_order", None)},
    "return": {("return", None)},
    "exchange": _ITEM_CHANGE,
    "modify_items": _ITEM_CHANGE,
    "address": {("modify_order", "address")},
    "payment": {("modify_order", "payment")},
    "order_status": {("order_query", None), ("logistics_query", None)},
}


def _request_read(text: str, language: str) -> tuple[str, str | None]:
    """The first planned part's intent, and for an order change what the message changes."""
    from agents.intents.catalogue import catalogue_get
    from agents.intents.offline.clauses import split_clauses
    from agents.intents.recognize import recognize
    from agents.reading.message import Reading
    from agents.route import route_plan
    from agents.specialists.knowledge import knowledge_hits
    from agents.tools import ToolContext
    from agents.workflows.definitions import Ctx, ModifyOrder

    recognition = recognize(text, catalogue=catalogue_get())
    hits = knowledge_hits(list(dict.fromkeys([text, *split_clauses(text)])), language=language)
    plan = route_plan(intents=recognition.as_json(), knowledge=hits, entities=recognition.entities)
    if not plan:
        return "clarify", None
    # the request carried out: the first part that acts on or reads an order (an apology or an answer
    # may come beside it)
    acted = [p for p in plan if p.via == "intent" and str(p.intent) in _ACTS]
    intent = str((acted or plan)[0].intent)
    if intent != "modify_order":
        return intent, None
    tools = ToolContext(conversation_id=None, customer=None, language=language)
    ctx = Ctx(tools=tools, language=language, reading=Reading(text))
    return intent, ModifyOrder.change_said(ctx, text, recognition.entities, country="USA")


def requests_measure(half: str, show: bool) -> None:
    """Request kinds from a request's first message, through recognition and the route (a scratch
    database with the demo store and its help articles, as `make run` seeds them)."""
    examples = json.loads((DATA / "requests.json").read_text()).get(half)
    if examples is None:
        return
    by_lang: dict[str, Counter[str]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    for number, example in enumerate(examples):
        rng = random.Random(f"{half}:request:{number}")
        text = example["text"].format(order=rng.choice(("#W", "W")) + str(rng.randrange(1_000_000, 9_999_999)))
        intent, change = _request_read(text, example["lang"])
        read = example["kind"] if (intent, change) in _KIND_READ[example["kind"]] else f"{intent}/{change}"
        _tally(by_lang, confusion, example["lang"], example["kind"], read)
        if show and read != example["kind"]:
            print(f"request {half}-{number} ({example['lang']}): {example['kind']} read as {read}\n  > {text!r}")
    _report("requests", half, by_lang, confusion)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder (tau2_retail/db.json)")
    parser.add_argument(
        "--half", choices=["dev", "dev2", "heldout", "all"], default="all", help="dev, dev2: development; heldout"
    )
    parser.add_argument("--show-failures", action="store_true", help="print each failure (development halves only)")
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command

    from agents.demo import demo_seed

    halves = HALVES if args.half == "all" else (args.half,)
    for half in halves:
        show = args.show_failures and half != "heldout"
        addresses_measure(half, args.data, show)
        reasons_measure(half, show)
        confirmations_measure(half, show)
    with scratch_database():
        call_command("sync_exemplars", verbosity=0)
        demo_seed()
        for half in halves:
            requests_measure(half, args.show_failures and half != "heldout")


if __name__ == "__main__":
    main()
