"""LLM-mode latency with a fake OpenAI-compatible server that answers after 800 ms and streams.

Through the real entry point and a real worker (recognition, subtasks, dialog polish with
streaming): time to the first `reply.delta` and to `reply.done` on the channel layer, with and
without an intent-cache hit, and the engine's overhead over the fake LLM's own latency.

    .venv/bin/python bench/llm_latency.py --turns 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from harness import ROOT, django_setup, scratch_database, worker

LLM_DELAY_S = 0.8
TEXT = "Hello, I want to file a complaint about the courier who delivered my parcel"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        llm_env = {
            "OPENAI_API_KEY": "bench",
            "OPENAI_BASE_URL": fake.base_url,
            "LLM_MODEL": "main-model",
            "LLM_SMALL_MODEL": "small-model",
            "LLM_MAX_RETRIES": "0",
        }
        django_setup(**llm_env)
        fake.default = _responder
        with scratch_database() as url:
            from django.core.cache import cache
            from django.core.management import call_command

            call_command("sync_exemplars", verbosity=0)
            with worker(url, concurrency=4, **llm_env):
                rows: dict[str, list[dict[str, float]]] = {"intent cache miss": [], "intent cache hit": []}
                for i in range(args.turns + 1):
                    cache.clear()
                    miss = asyncio.run(_turn(fake))
                    hit = asyncio.run(_turn(fake))  # the same text again: its intent comes from the cache
                    if i:
                        rows["intent cache miss"].append(miss)
                        rows["intent cache hit"].append(hit)
    print(f"fake LLM answering after {LLM_DELAY_S * 1000:.0f} ms per call, real worker, {args.turns} turns each:")
    for label, values in rows.items():
        first = statistics.median(v["first_delta"] for v in values)
        done = statistics.median(v["done"] for v in values)
        llm = statistics.median(v["llm_ms"] for v in values)
        calls = statistics.median(v["calls"] for v in values)
        print(
            f"  {label:18s} first reply.delta p50 {first:7.1f} ms   reply.done p50 {done:7.1f} ms   "
            f"LLM calls {calls:.0f} ({llm:.0f} ms)   engine overhead p50 {done - llm:6.1f} ms"
        )
    miss_done = statistics.median(v["done"] for v in rows["intent cache miss"])
    hit_done = statistics.median(v["done"] for v in rows["intent cache hit"])
    saved = (miss_done - hit_done) / (LLM_DELAY_S * 1000) * 100
    print(f"  a cache hit saves {miss_done - hit_done:.0f} ms = {saved:.0f} % of the intent call")


def _responder(body: dict) -> str:
    time.sleep(LLM_DELAY_S)
    if body.get("response_format", {}).get("type") == "json_object":
        return json.dumps({"intents": [{"intent": "complaint", "confidence": 0.93, "text": TEXT}]})
    return "I'm sorry about the courier. I've filed your complaint and our team will get back to you within 4 hours."


async def _turn(fake: object) -> dict[str, float]:
    from asgiref.sync import sync_to_async
    from channels.layers import get_channel_layer

    from agents.services import customer_message_handle
    from conversations.models import Customer
    from conversations.realtime import conversation_group
    from conversations.services import conversation_start

    layer = get_channel_layer()
    customer, _ = await sync_to_async(Customer.objects.get_or_create)(
        external_id="bench_llm", defaults={"email": "b@example.com"}
    )
    conversation = await sync_to_async(conversation_start)(customer=customer)
    channel = await layer.new_channel()
    await layer.group_add(conversation_group(conversation.pk), channel)
    calls_before = len(fake.chat_requests)  # type: ignore[attr-defined]
    started = time.perf_counter()
    first_delta = None
    await sync_to_async(customer_message_handle)(conversation_id=conversation.pk, text=TEXT)
    done = None
    while done is None:
        for event in (await asyncio.wait_for(layer.receive(channel), 30))["events"]:
            if event["type"] == "reply.delta" and first_delta is None:
                first_delta = time.perf_counter()
            if event["type"] == "reply.done":
                done = time.perf_counter()
    await layer.group_discard(conversation_group(conversation.pk), channel)
    calls = len(fake.chat_requests) - calls_before  # type: ignore[attr-defined]
    return {
        "first_delta": ((first_delta or done) - started) * 1000,
        "done": (done - started) * 1000,
        "calls": calls,
        "llm_ms": calls * LLM_DELAY_S * 1000,
    }


if __name__ == "__main__":
    main()
