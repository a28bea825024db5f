"""Offline turn latency through the real entry point and a real worker: message in → reply.done out.

The clock starts before `customer_message_handle` (what the WebSocket consumer and the API call)
and stops when `reply.done` arrives on the Redis channel layer. Each message gets a fresh
conversation so earlier turns (failure counts, escalations) don't change the path.

    .venv/bin/python bench/turn_latency.py --turns 60
"""

from __future__ import annotations

import argparse
import asyncio
import time

from harness import django_setup, scratch_database, summary, worker

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
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command

    with scratch_database() as url:
        call_command("seed_demo", verbosity=0)
        call_command("sync_exemplars", verbosity=0)
        with worker(url):
            results = asyncio.run(_run(args.turns))
    print(f"offline turn, message in → reply.done out ({args.turns} turns per kind after {WARM_UP} warm-up turns):")
    everything: list[float] = []
    for kind, values in results.items():
        everything.extend(values)
        print(f"  {kind:26s} {summary(values)}")
    print(f"  {'all':26s} {summary(everything)}")


async def _run(turns: int) -> dict[str, list[float]]:
    from asgiref.sync import sync_to_async
    from channels.layers import get_channel_layer
    from django.core.cache import cache

    from agents.intents.recognize import _cache_key
    from agents.services import customer_message_handle
    from conversations.models import Customer
    from conversations.realtime import conversation_group
    from conversations.services import conversation_start

    layer = get_channel_layer()
    customer = await sync_to_async(Customer.objects.create)(external_id="bench_latency", name="Bench")
    results: dict[str, list[float]] = {}
    for kind, texts in MESSAGES.items():
        values = []
        for i in range(turns + WARM_UP):
            conversation = await sync_to_async(conversation_start)(customer=customer)
            channel = await layer.new_channel()
            await layer.group_add(conversation_group(conversation.pk), channel)
            text = texts[i % len(texts)]
            if kind in UNCACHED:
                await sync_to_async(cache.delete)(_cache_key(text))  # make the classifier decide every time
            started = time.perf_counter()
            await sync_to_async(customer_message_handle)(conversation_id=conversation.pk, text=text)
            while True:
                message = await asyncio.wait_for(layer.receive(channel), 30)
                if any(event["type"] == "reply.done" for event in message["events"]):
                    break
            if i >= WARM_UP:  # the first turns warm each worker process's caches and connections
                values.append((time.perf_counter() - started) * 1000)
            await layer.group_discard(conversation_group(conversation.pk), channel)
        results[kind] = values
    return results


if __name__ == "__main__":
    main()
