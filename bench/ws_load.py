"""Many widget clients at once against a running system (`make run`), over the public widget protocol.

Each client opens a session (`POST /widget/session`), connects its WebSocket, waits for `history`;
once every client is connected they all start. Each sends MESSAGES_PER_CLIENT messages one after
another, pausing before each a random 0 to 2 × --think seconds (reading, typing; --think 0 sends
back to back), and times each from `message.send` to its `reply.done`. A reply that has
not arrived after --timeout seconds counts as lost. The messages are ones the offline bot always
answers (greetings, policy questions, zh and en), so every one of them must get exactly one reply.

    WIDGET_SESSIONS_PER_ADDRESS=100000 make run   # in another terminal: every client comes from one address
    .venv/bin/python bench/ws_load.py          # 200 clients × 5 messages at a person's pace
    .venv/bin/python bench/ws_load.py --think 1    # ten times faster: the system's capacity
    .venv/bin/python bench/ws_load.py --burst --clients 100 --messages 3   # a busy evening's burst

--burst: every client starts at once, session and socket included in the clock, and sends its messages
back to back (each once the one before is answered); replies/s is over the whole burst.

--api-key KEY: the same clients through the REST API instead (`manage.py create_api_key load --scopes chat`):
each starts a conversation (`POST /api/v1/conversations`) and sends its messages with `POST …/messages`, which
answers with the reply (sync); each message is timed from the POST to its answer.

Run on the machine that serves, it also prints the CPU each part of the system spent per reply (bench/process_cpu.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from harness import percentile
from process_cpu import PARTS, cpu_seconds, cpu_spent, memory_and_connections

MESSAGES = {
    "en": ["Hello!", "What payment methods do you accept?", "what is your return policy", "thanks a lot"],
    "zh": ["你好", "你们支持哪些支付方式？", "退货政策是怎样的", "谢谢"],
}


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    lost: int = 0
    extra_replies: int = 0
    errors: list[str] = field(default_factory=list)


def _post_json(url: str, body: dict[str, object], headers: dict[str, str], timeout: float = 60) -> tuple[int, Any]:
    """(status, the JSON answer) of a POST of `body`."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, json.loads(response.read())


def _session(base: str, locale: str) -> dict[str, str]:
    return dict(_post_json(f"{base}/widget/session", {"locale": locale}, {}, timeout=30)[1])


async def _client(number: int, args: argparse.Namespace, tally: Tally, ready: list[int], go: asyncio.Event) -> None:
    """One shopper: connect, wait for everyone (not in a burst), then send and time --messages messages."""
    import websockets

    locale = "zh" if number % 2 else "en"
    rng = random.Random(number)
    settled = 0  # messages answered or counted lost
    try:
        session = await asyncio.to_thread(_session, args.url, locale)
        async with websockets.connect(session["ws_url"], open_timeout=60, max_size=2**20) as socket:
            history = json.loads(await asyncio.wait_for(socket.recv(), 30))
            if history["type"] != "history":
                raise RuntimeError(f"expected history first, got {history['type']}")
            ready.append(number)
            await go.wait()
            for _ in range(args.messages):
                await asyncio.sleep(rng.uniform(0, 2 * args.think))  # reading, then typing
                sent = time.perf_counter()
                text = rng.choice(MESSAGES[locale])
                await socket.send(json.dumps({"type": "message.send", "text": text, "client_id": uuid.uuid4().hex}))
                try:
                    while True:
                        event = json.loads(await asyncio.wait_for(socket.recv(), args.timeout))
                        if event["type"] == "reply.done":
                            tally.latencies_ms.append((time.perf_counter() - sent) * 1000)
                            break
                        if event["type"] == "error":
                            tally.errors.append(f"{event['code']}: {event['message']}")
                            tally.lost += 1
                            break
                except TimeoutError:
                    tally.lost += 1
                settled += 1
            try:  # anything further would be a second reply to one message
                while True:
                    event = json.loads(await asyncio.wait_for(socket.recv(), 1.0))
                    tally.extra_replies += event["type"] == "reply.done"
            except TimeoutError:
                pass
    except (OSError, urllib.error.URLError, RuntimeError, websockets.WebSocketException) as exc:
        tally.errors.append(f"client {number}: {type(exc).__name__}: {exc}")
        tally.lost += args.messages - settled


def _api_call(base: str, key: str, path: str, body: dict[str, object], idempotency_key: str = "") -> dict[str, object]:
    headers = {"Authorization": f"Bearer {key}"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    status, answer = _post_json(f"{base}/api/v1{path}", body, headers)
    if status not in (200, 201):
        raise RuntimeError(f"{path} answered {status}")
    return dict(answer)


async def _api_client(number: int, args: argparse.Namespace, tally: Tally, ready: list[int], go: asyncio.Event) -> None:
    """One integrator's customer through the REST API: start a conversation, then send and time --messages."""
    locale = "zh" if number % 2 else "en"
    rng = random.Random(number)
    settled = 0
    try:
        customer = {"external_id": f"load-{number}-{uuid.uuid4().hex[:8]}"}
        started = await asyncio.to_thread(
            _api_call, args.url, args.api_key, "/conversations", {"customer": customer, "language": locale}
        )
        ready.append(number)
        await go.wait()
        for _ in range(args.messages):
            await asyncio.sleep(rng.uniform(0, 2 * args.think))
            sent = time.perf_counter()
            path = f"/conversations/{started['id']}/messages"
            body: dict[str, object] = {"text": rng.choice(MESSAGES[locale])}
            answer = await asyncio.to_thread(_api_call, args.url, args.api_key, path, body, uuid.uuid4().hex)
            if answer.get("reply"):
                tally.latencies_ms.append((time.perf_counter() - sent) * 1000)
            else:
                tally.lost += 1
            settled += 1
    except (OSError, urllib.error.URLError, RuntimeError) as exc:
        tally.errors.append(f"client {number}: {type(exc).__name__}: {exc}")
        tally.lost += args.messages - settled


async def _run(args: argparse.Namespace) -> dict[str, float]:
    """One run of the clients; prints it and returns its figures."""
    tally = Tally()
    ready: list[int] = []
    go = asyncio.Event()
    client = _api_client if args.api_key else _client
    # Every client's HTTP call in flight at once, as from as many browsers (or integrator threads): the default
    # pool of min(32, cores + 4) threads would queue a burst's sessions behind each other.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=args.clients))
    cpu_before = cpu_seconds()
    peaks: dict[str, float] = {}
    sampling = asyncio.create_task(_sample_peaks(peaks))
    clients = [asyncio.create_task(client(n, args, tally, ready, go)) for n in range(args.clients)]
    connecting = time.perf_counter()
    if args.burst:
        go.set()  # no waiting for the others: sessions and sockets are part of the burst
    # Everyone starts together once connected (or after a minute, with whoever made it).
    while len(ready) + sum(c.done() for c in clients) < args.clients and time.perf_counter() - connecting < 60:
        await asyncio.sleep(0.05)
    connected_s = time.perf_counter() - connecting
    go.set()
    began = connecting if args.burst else time.perf_counter()
    await asyncio.gather(*clients)
    wall = time.perf_counter() - began
    cpu = cpu_spent(cpu_before, cpu_seconds())
    sampling.cancel()
    sent = args.clients * args.messages
    delivered = len(tally.latencies_ms)
    pace = "a burst, sessions included" if args.burst else f"think {args.think} s on average"
    way = "the REST API" if args.api_key else "the widget's WebSocket"
    print(f"{args.clients} clients × {args.messages} messages through {way} against {args.url}, {pace}:")
    print(f"  {len(ready)} clients connected in {connected_s:.1f} s")
    print(f"  sent {sent}, replies delivered {delivered}, lost {tally.lost}, second replies {tally.extra_replies}")
    if tally.latencies_ms:
        values = tally.latencies_ms
        print(
            f"  send → reply.done: p50 {statistics.median(values):.0f} ms, p95 {percentile(values, 95):.0f} ms, "
            f"max {max(values):.0f} ms"
        )
    print(f"  {delivered / wall:.1f} replies/s over {wall:.1f} s")
    # Whatever else this machine ran meanwhile is not counted; a system served from elsewhere counts nothing.
    per_reply = {part: cpu[part] * 1000 / delivered for part in PARTS} if delivered else {}
    if per_reply:
        shares = ", ".join(f"{part} {value:.1f}" for part, value in per_reply.items())
        print(f"  CPU per reply (ms), sessions included: {shares}; total {sum(per_reply.values()):.1f}")
    if peaks:
        memory = ", ".join(f"{part} {peaks[part]:.0f}" for part in PARTS[:-1])
        print(f"  at most: MiB of one process: {memory}; Postgres clients {peaks['postgres clients']:.0f}")
    for error in tally.errors[:10]:
        print(f"  error: {error}")
    figures = {"replies/s": delivered / wall, "lost": float(tally.lost)}
    if tally.latencies_ms:
        figures["p95 ms"] = percentile(tally.latencies_ms, 95)
    figures.update({f"{part} ms": value for part, value in per_reply.items()})
    figures.update({f"{part} MiB" if part != "postgres clients" else part: value for part, value in peaks.items()})
    return figures


async def _sample_peaks(peaks: dict[str, float]) -> None:
    """The largest of each part's processes' memory, and of Postgres' client connections, every 0.3 s."""
    while True:
        memory, clients = memory_and_connections()
        for name, value in [*memory.items(), ("postgres clients", float(clients))]:
            peaks[name] = max(peaks.get(name, 0.0), value)
        await asyncio.sleep(0.3)


def _medians(runs: list[dict[str, float]]) -> None:
    """The median of each figure over the measured runs: one run on a noisy 2-core machine says little."""
    names = [name for name in runs[0] if all(name in run for run in runs)]
    medians = {name: statistics.median(run[name] for run in runs) for name in names}
    cpu = sum(value for name, value in medians.items() if name.removesuffix(" ms") in PARTS)
    print(f"medians of {len(runs)} runs: " + ", ".join(f"{name} {value:.1f}" for name, value in medians.items()))
    print(f"  CPU per reply, the parts' medians added: {cpu:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="where `make run` serves")
    parser.add_argument("--clients", type=int, default=200)
    # A shopper reads the reply and types the next message: ten seconds on average is quick for a
    # person. --think 1 or 0 finds the system's capacity instead (replies/s at saturation).
    parser.add_argument("--think", type=float, default=10.0, help="average seconds a client waits before a message")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds after which a reply counts as lost")
    parser.add_argument("--messages", type=int, default=5, help="messages each client sends")
    parser.add_argument("--burst", action="store_true", help="all at once, no thinking, sessions in the clock")
    parser.add_argument("--api-key", default="", help="through the REST API with this key (scope chat)")
    parser.add_argument("--runs", type=int, default=1, help="measured runs, after one unmeasured warm-up when > 1")
    args = parser.parse_args()
    if args.burst:
        args.think = 0.0
    try:
        urllib.request.urlopen(f"{args.url}/healthz", timeout=5).close()
    except (OSError, urllib.error.URLError) as exc:
        raise SystemExit(f"nothing answers at {args.url} ({exc}); start the system with `make run` first") from None
    if args.runs == 1:
        asyncio.run(_run(args))
        return
    print("warm-up (every worker process loads its models once; not counted):")
    asyncio.run(_run(args))
    _medians([asyncio.run(_run(args)) for _ in range(args.runs)])


if __name__ == "__main__":
    main()
