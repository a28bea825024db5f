"""What a call to the store costs on each backend: the built-in tables, the store API (`store_server` in another
process, over a socket) and the store's MCP server (`store_mcp_server`, streamable HTTP), side by side in one run.

Each call is what a turn makes (a customer's account, one order, their orders, a product's variants, an address
change) or what a process reads once a minute (the whole catalogue), on the demo store in a scratch database; the first calls of each backend warm it up and are not counted.
Prints the median and p95 per call and each remote backend's median against the built-in one.

    .venv/bin/python bench/store_calls.py --calls 200
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from harness import django_setup, percentile, scratch_database, store_server

WARM_UP = 10


def _calls(store: Any) -> dict[str, Callable[[int], Any]]:
    address = {"address1": "8 Keji Road", "address2": "", "city": "Shenzhen", "state": "", "country": "CN"}
    return {
        "customer": lambda n: store.customer("demo_li_wei"),
        "order": lambda n: store.order("demo_li_wei", "#D1002"),
        "orders": lambda n: store.orders("demo_li_wei"),
        "variants": lambda n: store.variants(["V-X9-BLK-256", "V-X9-BLK-512"]),
        "catalogue (whole)": lambda n: store.catalogue(),
        "address change (write)": lambda n: store.order_modify_address(
            "demo_li_wei", "#D1001", address={**address, "zip": f"5180{n % 100:02d}"}, key=uuid.uuid4().hex
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="measured calls of each kind per backend")
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command

    from stores.builtin.backend import BuiltinStore
    from stores.http import HttpStore
    from stores.mcp import McpStore

    with scratch_database() as url, ExitStack() as stack:
        call_command("seed_demo", verbosity=0)
        token = uuid.uuid4().hex
        api_url = stack.enter_context(store_server(url, token))
        mcp_url = stack.enter_context(store_server(url, token, "store_mcp_server"))
        backends = {
            "builtin": BuiltinStore(),
            "http": HttpStore(base_url=api_url, token=token),
            "mcp": McpStore(url=mcp_url, token=token),
        }
        medians: dict[tuple[str, str], float] = {}
        print(f"store calls, {args.calls} of each kind per backend (ms: median, p95)")
        for kind in _calls(None):
            row = []
            for name, store in backends.items():
                call = _calls(store)[kind]
                for n in range(WARM_UP):
                    call(n)
                times = []
                for n in range(args.calls):
                    started = time.perf_counter()
                    call(n)
                    times.append(1000 * (time.perf_counter() - started))
                medians[name, kind] = percentile(times, 50)
                row.append(f"{name} {percentile(times, 50):6.2f} / {percentile(times, 95):6.2f}")
            print(f"  {kind:24s} " + "   ".join(row))
        for name in ("http", "mcp"):
            added = [medians[name, kind] - medians["builtin", kind] for kind in _calls(None)]
            ratios = ", ".join(f"{kind} ×{medians[name, kind] / medians['builtin', kind]:.1f}" for kind in _calls(None))
            print(f"{name}: added per call (median of the kinds) {sorted(added)[len(added) // 2]:.2f} ms; {ratios}")


if __name__ == "__main__":
    main()
