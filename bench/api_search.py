"""What `GET /api/v1/kb/search` adds to the search itself: the same questions searched in this process
and through the REST API of a real web server (`manage.py web`) on loopback, on the demo knowledge base.

Each question is searched once per mode without anything cached (the result cache is emptied before
each search; each process embeds a question for the first time), then once more with the result
cached, where the difference is the request's own cost: HTTP, authentication, the key's scope, the
query's validation, JSON. The modes take turns question by question, so a noisy moment of the machine
falls on both alike.

    .venv/bin/python bench/api_search.py
"""

from __future__ import annotations

import time

from harness import ApiClient, django_setup, scratch_database, summary, web_server

SEARCH = "/api/v1/kb/search"
QUESTIONS = [
    "How long does a refund take?",
    "can I return an opened phone",
    "what does the national subsidy cover",
    "do you ship to Hong Kong",
    "how do I get a VAT invoice for my company",
    "how to transfer data to a new phone",
    "my parcel is late what can I do",
    "is there a restocking fee",
    "退款多久到账",
    "拆封了还能退吗",
    "国补怎么领",
    "能开增值税专用发票吗",
    "快递几天能到",
    "旧手机的数据怎么迁移",
    "包裹丢了怎么办",
    "退货运费谁出",
]


def main() -> None:
    django_setup()
    from django.core.management import call_command

    with scratch_database() as url:
        call_command("seed_demo", verbosity=0)
        from conversations.api_keys import api_key_create

        _, key = api_key_create(name="bench", scopes=["kb"])
        with web_server(url) as address:
            client = ApiClient(address, key)
            client.wait_until_up(SEARCH, q="warm up")  # also loads the server's embedding models
            client.get(SEARCH, q="预热")
            results = _run(client)
    print(f"kb search of the demo knowledge base, {len(QUESTIONS)} questions (en, zh) per mode:")
    for label, values in results.items():
        print(f"  {label:34s} {summary(values)}")
    for state in ("uncached", "cached"):
        api, local = results[f"API, {state}"], results[f"in process, {state}"]
        overhead = sorted(a - b for a, b in zip(api, local, strict=True))
        print(f"  API minus in process, {state:9s} p50 {overhead[len(overhead) // 2]:.1f} ms")


def _run(client: ApiClient) -> dict[str, list[float]]:
    from django.core.cache import cache

    from knowledge.selectors import chunk_search_hybrid

    results: dict[str, list[float]] = {
        label: [] for label in ("API, uncached", "in process, uncached", "API, cached", "in process, cached")
    }
    for question in QUESTIONS:
        for state in ("uncached", "cached"):
            if state == "uncached":
                cache.delete_pattern("kbsearch:*")  # type: ignore[attr-defined]  # django-redis
            started = time.perf_counter()
            client.get(SEARCH, q=question)
            results[f"API, {state}"].append((time.perf_counter() - started) * 1000)
            if state == "uncached":
                cache.delete_pattern("kbsearch:*")  # type: ignore[attr-defined]
            started = time.perf_counter()
            chunk_search_hybrid(query=question, k=5)
            results[f"in process, {state}"].append((time.perf_counter() - started) * 1000)
    return results


if __name__ == "__main__":
    main()
