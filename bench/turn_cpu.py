"""CPU time of one offline turn in this process, split as the system splits it: storing the customer's message
(what a web process does for a WebSocket frame or `POST …/messages`) and running the turn (what a worker does).

CPU time, not wall time: on a noisy 2-core machine it moves far less from run to run than a burst's replies/s,
so two versions of the code can be compared by it (the burst, `bench/ws_load.py`, says what it adds up to). The
messages are `bench/ws_load.py`'s, each in a fresh conversation; the Celery queue is pointed at a queue no
worker reads, so every statement runs here.

    .venv/bin/python bench/turn_cpu.py --rounds 30
    .venv/bin/python bench/turn_cpu.py --rounds 20 --against ../before   # another checkout, side by side

--against runs this checkout's code and another checkout's (a git worktree of the commit before a change)
round by round, alternately, each in a process of its own: the machine's speed drifts by as much as a change
saves within minutes, and both sides see the same drift. It prints each side's medians and their ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from harness import ROOT, demo_turns_here, django_setup, side_ask, sides_started

MESSAGES = ["Hello!", "What payment methods do you accept?", "what is your return policy", "thanks a lot"]
MESSAGES += ["你好", "你们支持哪些支付方式？", "退货政策是怎样的", "谢谢"]
WARM_UP_ROUNDS = 3
PARTS = ("message stored (web)", "turn run (worker)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="times each message is sent, after a warm-up")
    parser.add_argument("--against", metavar="CHECKOUT", help="another checkout of the project, run alternately")
    parser.add_argument("--rounds-on-request", metavar="CHECKOUT", help=argparse.SUPPRESS)  # --against's sides
    args = parser.parse_args()
    if args.rounds_on_request:
        _rounds_on_request(args.rounds_on_request)
    elif args.against:
        _compare(args.rounds, Path(args.against).resolve())
    else:
        django_setup()
        with demo_turns_here():
            customer = _customer()
            for _ in range(WARM_UP_ROUNDS):
                _round(customer)
            measured = [_round(customer) for _ in range(args.rounds)]
        print(f"CPU per offline turn in one process, {args.rounds * len(MESSAGES)} turns ({args.rounds} rounds):")
        _print_medians("", _joined(measured))


def _customer() -> Any:
    from conversations.models import Customer

    return Customer.objects.create(external_id=f"bench_turn_cpu_{uuid.uuid4().hex[:8]}", name="Bench")


def _round(customer: Any) -> tuple[list[float], list[float]]:
    """Each message once, in a fresh conversation: the CPU ms of storing it and of running its turn."""
    from agents.pipeline import turn_run_here
    from agents.services import customer_message_handle
    from conversations.services import conversation_start

    stored_ms, turn_ms = [], []
    for text in MESSAGES:
        conversation = conversation_start(customer=customer)
        began = time.process_time()
        turn = customer_message_handle(conversation_id=conversation.pk, text=text, client_id=uuid.uuid4().hex)
        stored = time.process_time()
        turn_run_here(turn.pk)
        ended = time.process_time()
        stored_ms.append((stored - began) * 1000)
        turn_ms.append((ended - stored) * 1000)
    return stored_ms, turn_ms


def _joined(rounds: list[tuple[list[float], list[float]]]) -> tuple[list[float], list[float]]:
    return [ms for stored, _ in rounds for ms in stored], [ms for _, turn in rounds for ms in turn]


def _print_medians(side: str, measured: tuple[list[float], list[float]]) -> None:
    for name, values in zip(PARTS, measured, strict=True):
        print(f"  {side}{name:22s} median {statistics.median(values):5.2f} ms, mean {statistics.fmean(values):5.2f} ms")


def _rounds_on_request(checkout: str) -> None:
    """One side of --against: `checkout`'s code (its modules first on the path, imported by django_setup),
    driven by this file; a round for each line read, answered as a line `round [stored ms…], [turn ms…]`."""
    sys.path.insert(0, checkout)
    django_setup()
    with demo_turns_here():
        customer = _customer()
        print("ready", flush=True)
        for _ in sys.stdin:
            print(f"round {json.dumps(_round(customer))}", flush=True)


def _compare(rounds: int, against: Path) -> None:
    measured: dict[str, list[tuple[list[float], list[float]]]] = {"this": [], "against": []}
    with sides_started(__file__, "--rounds-on-request", against) as sides:
        for round_number in range(WARM_UP_ROUNDS + rounds):
            order = list(sides) if round_number % 2 == 0 else list(sides)[::-1]  # neither always goes first
            for name in order:
                result = json.loads(side_ask(sides[name], "round", answer="round"))
                if round_number >= WARM_UP_ROUNDS:
                    measured[name].append(result)
    print(f"CPU per offline turn, {rounds} rounds of {len(MESSAGES)} messages each side, alternately:")
    joined = {name: _joined(rounds_measured) for name, rounds_measured in measured.items()}
    for name, checkout in {"this": ROOT, "against": against}.items():
        print(f"  {name} ({checkout}):")
        _print_medians("  ", joined[name])
    for part, this, other in zip(PARTS, joined["this"], joined["against"], strict=True):
        ratio = statistics.median(this) / statistics.median(other)
        print(f"  {part}: this / against = {ratio:.2f}")


if __name__ == "__main__":
    main()
