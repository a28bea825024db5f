"""CPU time of one offline turn in this process, split as the system splits it: storing the customer's message
(what a web process does for a WebSocket frame or `POST …/messages`) and running the turn (what a worker does).

CPU time, not wall time: on a noisy 2-core machine it moves far less from run to run than a burst's replies/s,
so two versions of the code can be compared by it (the burst, `bench/ws_load.py`, says what it adds up to). The
messages are `bench/ws_load.py`'s, each in a fresh conversation; the Celery queue is pointed at a queue no
worker reads, so every statement runs here.

    .venv/bin/python bench/turn_cpu.py --rounds 30
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid

from harness import demo_turns_here, django_setup

MESSAGES = ["Hello!", "What payment methods do you accept?", "what is your return policy", "thanks a lot"]
MESSAGES += ["你好", "你们支持哪些支付方式？", "退货政策是怎样的", "谢谢"]
WARM_UP_ROUNDS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="times each message is sent, after a warm-up")
    args = parser.parse_args()
    django_setup()
    with demo_turns_here():
        _measure(args.rounds)


def _measure(rounds: int) -> None:
    from agents.pipeline import turn_run_here
    from agents.services import customer_message_handle
    from conversations.models import Customer
    from conversations.services import conversation_start

    customer = Customer.objects.create(external_id="bench_turn_cpu", name="Bench")
    stored_ms: list[float] = []
    turn_ms: list[float] = []
    for round_number in range(WARM_UP_ROUNDS + rounds):
        for text in MESSAGES:
            conversation = conversation_start(customer=customer)
            began = time.process_time()
            turn = customer_message_handle(conversation_id=conversation.pk, text=text, client_id=uuid.uuid4().hex)
            stored = time.process_time()
            turn_run_here(turn.pk)
            ended = time.process_time()
            if round_number >= WARM_UP_ROUNDS:
                stored_ms.append((stored - began) * 1000)
                turn_ms.append((ended - stored) * 1000)
    print(f"CPU per offline turn in one process, {len(turn_ms)} turns ({rounds} rounds of {len(MESSAGES)} messages):")
    for name, values in (("message stored (web)", stored_ms), ("turn run (worker)", turn_ms)):
        print(f"  {name:22s} median {statistics.median(values):5.2f} ms, mean {statistics.fmean(values):5.2f} ms")


if __name__ == "__main__":
    main()
