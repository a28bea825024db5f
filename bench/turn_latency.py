"""Offline turn latency through the real entry point and a real worker: message in → reply.done out.

The clock starts before `customer_message_handle` (what the WebSocket consumer and the API call)
and stops when `reply.done` arrives on the Redis channel layer. Each message gets a fresh
conversation so earlier turns (failure counts, escalations) don't change the path.

    .venv/bin/python bench/turn_latency.py --turns 60
    .venv/bin/python bench/turn_latency.py --turns 40 --against ../before   # another checkout, turn by turn

--against runs this checkout's turns and another checkout's (a git worktree of the commit before a change)
alternately, turn by turn, each side in a process of its own with a worker of its own on a scratch database:
on a noisy machine, runs one after the other differed by more than a change saves (the same code's p50 moved
from 22 to 37 ms within the hour), and alternating lets both sides see the same moments. It prints each side's
p50 per kind and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from harness import ROOT, django_setup, scratch_database, side_ask, sides_started, summary, worker

WARM_UP = 8  # turns per kind not measured: every worker process loads its models once
FAQ = [
    "What payment methods do you accept?",
    "你们支持哪些支付方式？",
    "what is your return policy",
    "退货政策是怎样的",
]
MESSAGES = {
    "greeting (rule)": ["Hello!", "你好", "thanks a lot", "谢谢"],
    "faq/policy (intent cache)": FAQ,
    "faq/policy (classifier)": FAQ,
    "order query (classifier)": ["Where is my order #D1002?", "我的订单 #D1002 到哪了", "order status #D2001"],
}
# Kinds whose intent-cache entry is deleted before every turn, so the level under test decides.
UNCACHED = {"greeting (rule)", "faq/policy (classifier)", "order query (classifier)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60, help="turns per kind of message")
    parser.add_argument("--against", metavar="CHECKOUT", help="another checkout of the project, run alternately")
    parser.add_argument("--turns-on-request", metavar="CHECKOUT", help=argparse.SUPPRESS)  # --against's sides
    args = parser.parse_args()
    if args.turns_on_request:
        _turns_on_request(Path(args.turns_on_request))
    elif args.against:
        _compare(args.turns, Path(args.against).resolve())
    else:
        with _turns_here(ROOT):
            results = asyncio.run(_run(args.turns))
        print(f"offline turn, message in → reply.done out ({args.turns} turns per kind after {WARM_UP} warm-up turns):")
        everything: list[float] = []
        for kind, values in results.items():
            everything.extend(values)
            print(f"  {kind:26s} {summary(values)}")
        print(f"  {'all':26s} {summary(everything)}")


@contextlib.contextmanager
def _turns_here(root: Path) -> Iterator[None]:
    """A scratch database with the demo store and the intent exemplars, and a worker of `root`'s on it."""
    django_setup()
    from django.core.management import call_command

    with scratch_database() as url:
        call_command("seed_demo", verbosity=0)
        call_command("sync_exemplars", verbosity=0)
        with worker(url, root=root):
            yield


class _Turns:
    """Turns of the kinds above, each in a fresh conversation of one customer, timed to their reply.done."""

    async def start(self) -> None:
        from asgiref.sync import sync_to_async
        from channels.layers import get_channel_layer

        from conversations.models import Customer

        self.layer = get_channel_layer()
        self.customer = await sync_to_async(Customer.objects.create)(external_id="bench_latency", name="Bench")

    async def turn(self, kind: str, number: int) -> float:
        from asgiref.sync import sync_to_async
        from django.core.cache import cache

        from agents.intents.recognize import _cache_key
        from agents.services import customer_message_handle
        from conversations.realtime import conversation_group
        from conversations.services import conversation_start

        conversation = await sync_to_async(conversation_start)(customer=self.customer)
        channel = await self.layer.new_channel()
        await self.layer.group_add(conversation_group(conversation.pk), channel)
        text = MESSAGES[kind][number % len(MESSAGES[kind])]
        if kind in UNCACHED:
            await sync_to_async(cache.delete)(_cache_key(text))  # make the classifier decide every time
        started = time.perf_counter()
        await sync_to_async(customer_message_handle)(conversation_id=conversation.pk, text=text)
        while True:
            message = await asyncio.wait_for(self.layer.receive(channel), 30)
            if any(event["type"] == "reply.done" for event in message["events"]):
                break
        elapsed = (time.perf_counter() - started) * 1000
        await self.layer.group_discard(conversation_group(conversation.pk), channel)
        return elapsed


async def _run(turns: int) -> dict[str, list[float]]:
    driver = _Turns()
    await driver.start()
    results: dict[str, list[float]] = {}
    for kind in MESSAGES:
        # the first turns warm each worker process's caches and connections
        timed = [await driver.turn(kind, number) for number in range(turns + WARM_UP)]
        results[kind] = timed[WARM_UP:]
    return results


def _turns_on_request(checkout: Path) -> None:
    """One side of --against: `checkout`'s code (its modules first on the path) and a worker of its own; a turn
    for each line `kind-number turn-number` read, answered as a line `turn <ms>`."""
    sys.path.insert(0, str(checkout))
    with _turns_here(checkout):

        async def serve() -> None:
            driver = _Turns()
            await driver.start()
            print("ready", flush=True)
            kinds = list(MESSAGES)
            while line := await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline):
                kind, number = line.split()
                print(f"turn {await driver.turn(kinds[int(kind)], int(number))}", flush=True)

        asyncio.run(serve())


def _compare(turns: int, against: Path) -> None:
    timed: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in MESSAGES} for name in ("this", "against")}
    with sides_started(__file__, "--turns-on-request", against) as sides:
        for kind_number, kind in enumerate(MESSAGES):
            for number in range(WARM_UP + turns):
                order = list(sides) if number % 2 == 0 else list(sides)[::-1]  # neither always goes first
                for name in order:
                    ms = float(side_ask(sides[name], f"{kind_number} {number}", answer="turn"))
                    if number >= WARM_UP:
                        timed[name][kind].append(ms)
    print(f"offline turn, message in → reply.done out, {turns} turns per kind each side, alternately:")
    print(f"  this: {ROOT}; against: {against}")
    every = {name: [ms for values in by_kind.values() for ms in values] for name, by_kind in timed.items()}
    for kind, this, other in [(kind, timed["this"][kind], timed["against"][kind]) for kind in MESSAGES] + [
        ("all", every["this"], every["against"])
    ]:
        this_p50, other_p50 = statistics.median(this), statistics.median(other)
        print(
            f"  {kind:26s} p50 this {this_p50:6.1f} ms, against {other_p50:6.1f} ms, ratio {this_p50 / other_p50:.2f}"
        )


if __name__ == "__main__":
    main()
