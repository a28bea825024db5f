"""Three subtasks that each wait 300 ms on I/O: fanned out to a real worker vs run one after another.

Both runs use the engine's own path (subtask rows, one Celery task each, the last to finish
advances the turn); the sequential run is the same worker limited to one process at a time.

    .venv/bin/python bench/parallel_subtasks.py --turns 15
"""

from __future__ import annotations

import argparse
import time

from harness import django_setup, scratch_database, summary, worker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=15)
    args = parser.parse_args()
    django_setup(SPECIALIST_MODULES="tests.agents.plugins")

    with scratch_database() as url:
        results = {}
        for label, concurrency in (("parallel (4 worker processes)", 4), ("sequential (1 worker process)", 1)):
            with worker(url, concurrency=concurrency, SPECIALIST_MODULES="tests.agents.plugins"):
                results[label] = [_one_turn() for _ in range(args.turns + 1)][1:]
    print(f"3 subtasks × 300 ms I/O, fan-out → last result → reply ({args.turns} turns each, 1 warm-up):")
    for label, values in results.items():
        print(f"  {label:30s} {summary(values)}")
    parallel, sequential = (sorted(v)[len(v) // 2] for v in results.values())
    print(f"  ratio parallel/sequential (p50): {parallel / sequential:.2f}")


def _one_turn() -> float:
    from django.db import transaction

    from agents.models import Subtask, TurnRun
    from agents.states import TERMINAL, TurnStatus
    from agents.tasks import subtask_execute_task
    from conversations.models import Customer, Message
    from conversations.services import conversation_start

    customer, _ = Customer.objects.get_or_create(external_id="bench_parallel")
    conversation = conversation_start(customer=customer)
    started = time.perf_counter()
    with transaction.atomic():
        message = Message.objects.create(conversation=conversation, sender="customer", text="three questions")
        turn = TurnRun.objects.create(
            conversation=conversation,
            message=message,
            status=TurnStatus.FANNED_OUT,
            intents=[{"name": "faq", "confidence": 0.9, "text": "three questions"}],
        )
        for subtask in Subtask.objects.bulk_create(
            Subtask(turn=turn, position=i, specialist="slow_io", intent="faq", text=f"q{i}") for i in range(3)
        ):
            subtask_execute_task.delay_on_commit(subtask.pk)
    while TurnRun.objects.values_list("status", flat=True).get(pk=turn.pk) not in TERMINAL:
        time.sleep(0.005)
    return (time.perf_counter() - started) * 1000


if __name__ == "__main__":
    main()
