"""SQL statements per offline turn, step by step, through the same calls a worker makes.

Each message starts a fresh conversation; the turn is advanced in this process (what
`turn_advance_task` and `subtask_execute_task` run), with the Celery queue pointed at a queue no
worker reads, so every statement is counted and none runs elsewhere. Statements are counted without
BEGIN and COMMIT, whose number is shown as the turn's transactions.

    .venv/bin/python bench/turn_queries.py            # counts per kind of message
    .venv/bin/python bench/turn_queries.py --show     # and the statements of each step
"""

from __future__ import annotations

import argparse
import re
import uuid
from collections import Counter

from harness import demo_turns_here, django_setup

MESSAGES = {
    "greeting (rule)": ["Hello!", "你好"],
    "faq/policy (knowledge)": ["What payment methods do you accept?", "退货政策是怎样的"],
    "order query (store)": ["Where is my order #D1002?", "我的订单 #D1002 到哪了"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print each step's statements")
    args = parser.parse_args()
    django_setup()
    with demo_turns_here():
        _measure(args.show)


def _measure(show: bool) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from agents.models import Subtask, TurnRun
    from agents.pipeline import turn_advance
    from agents.services import customer_message_handle
    from agents.states import SubtaskStatus
    from agents.subtasks import subtask_execute
    from conversations.models import Customer
    from conversations.services import conversation_start

    customer = Customer.objects.create(external_id="bench_queries", name="Bench")
    print("SQL statements per offline turn (message stored → reply stored), by step:")
    for kind, texts in MESSAGES.items():
        for warm in (True, False):  # the first pass fills the caches a running worker has
            for text in texts:
                conversation = conversation_start(customer=customer)
                steps: dict[str, list[str]] = {}
                with CaptureQueriesContext(connection) as stored:
                    turn = customer_message_handle(
                        conversation_id=conversation.pk, text=text, client_id=uuid.uuid4().hex
                    )  # as the widget and most API clients send it
                steps["message"] = [q["sql"] for q in stored.captured_queries]
                with CaptureQueriesContext(connection) as advanced:
                    turn_advance(turn.pk)
                steps["advance"] = [q["sql"] for q in advanced.captured_queries]
                queued = list(
                    Subtask.objects.filter(turn_id=turn.pk, status=SubtaskStatus.PENDING).values_list("pk", flat=True)
                )
                with CaptureQueriesContext(connection) as subtasks:
                    for pk in queued:
                        subtask_execute(subtask_id=pk)
                steps["subtasks"] = [q["sql"] for q in subtasks.captured_queries]
                status = TurnRun.objects.filter(pk=turn.pk).values_list("status", flat=True).get()
                if warm:
                    continue
                counts = {step: len([q for q in sql if q not in _TRANSACTION]) for step, sql in steps.items()}
                transactions = sum(sql.count("BEGIN") for sql in steps.values())
                print(
                    f"  {kind:24s} {text[:36]:36s} {sum(counts.values()):3d} "
                    f"({', '.join(f'{s} {n}' for s, n in counts.items())}; {transactions} transactions; {status})"
                )
                if show:
                    for step, statements in steps.items():
                        print(f"    -- {step}")
                        for sql, n in Counter(_shape(s) for s in statements).items():
                            print(f"      {n}× {sql[:150]}")


_TRANSACTION = ("BEGIN", "COMMIT")


def _shape(sql: str) -> str:
    """A statement without its values, so repeats of one query count together."""
    return re.sub(r"\b\d+\b|'[^']*'", "?", sql)


if __name__ == "__main__":
    main()
