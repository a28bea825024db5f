"""How long `analytics.report.analytics_report` takes on a store with many conversations (100,000 by
default), and where the time goes.

A scratch database is filled with SQL alone (INSERT … SELECT … FROM generate_series): conversations
spread over the last 90 days, ~4 customer messages and turns each, ~1 intent record and ~1.1 subtasks
per turn, ~20 % escalated (with an escalation card; half of them taken by a person), ~60 % closed,
~15 % rated, and one missed knowledge question per ten conversations in ~300 wordings. Then VACUUM
ANALYZE, as autovacuum would have done on a live store.

For the last 30 days, the whole 90 days and one day (yesterday) the report is computed once cold (the
first call) and 30 times more; then each part of the 90-day report is timed (the median of 5 calls),
each of its SQL statements once, and the slowest statement is run with EXPLAIN (ANALYZE, BUFFERS).
Last, the same periods through `GET /api/v1/analytics` of a real web server (`manage.py web`) on
loopback, with an admin-scope API key, each request paired with an in-process call so the difference
is the request's own cost (HTTP, the key, JSON). The target is p95 ≤ 500 ms.

    .venv/bin/python bench/analytics_speed.py [--conversations 100000] [--no-http] [--plan]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from harness import ApiClient, django_setup, percentile, scratch_database, summary, web_server

if TYPE_CHECKING:
    from analytics.report import Period

RUNS = 30
ANALYTICS = "/api/v1/analytics"
TARGET_MS = 500.0
# Intent names in order of frequency (the records skew towards the first ones).
INTENTS = [
    "order_query",
    "logistics_query",
    "faq",
    "return",
    "policy_inquiry",
    "price_query",
    "inventory_check",
    "usage_tutorial",
    "exchange",
    "fault_diagnosis",
    "invoice",
    "complaint",
    "cancel_order",
    "chitchat",
    "human_request",
]
# (specialist, intent) of the subtasks.
SUBTASKS = [
    ("business_query", "order_query"),
    ("business_query", "logistics_query"),
    ("knowledge_qa", "faq"),
    ("ticket", "return"),
    ("knowledge_qa", "policy_inquiry"),
    ("business_query", "price_query"),
    ("knowledge_qa", "usage_tutorial"),
    ("complaint", "complaint"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--no-http", action="store_true", help="skip the REST API timings")
    parser.add_argument("--plan", action="store_true", help="print the slowest statement's whole plan")
    args = parser.parse_args()
    django_setup()
    with scratch_database() as url:
        _fill(args.conversations)
        periods = _periods()
        _measure(periods, "every day counted from its rows (before the hourly roll-up's first run)", runs=10)
        _roll_up()
        _measure(periods, "finished days rolled up (analytics.rollup), today counted from its rows", runs=RUNS)
        _parts(periods["90 days"], show_plan=args.plan)
        if not args.no_http:
            _http(url, periods)


# --- the data ------------------------------------------------------------------------------------


def _fill(conversations: int) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tickets.models import EscalationReason

    now = datetime.now(tz=_zone())
    start = datetime.combine(now.date() - timedelta(days=89), datetime.min.time(), tzinfo=_zone())
    staff = [get_user_model().objects.create_user(f"bench-staff-{n}", password=None).pk for n in range(1, 4)]
    vector = "[" + ",".join(["0.05"] * settings.EMBEDDING_DIMENSIONS) + "]"
    params: dict[str, Any] = {
        "n": conversations,
        "customers": max(1, conversations // 2),
        "missed": max(1, conversations // 10),
        "start": start,
        "now": now,
        "staff": staff,
        "intents": INTENTS,
        "specialists": [s for s, _ in SUBTASKS],
        "subtask_intents": [i for _, i in SUBTASKS],
        "reasons": list(EscalationReason.values),
        "vector": vector,
    }
    print(
        f"filling a scratch database: {conversations:,} conversations from {start:%Y-%m-%d} to {now:%Y-%m-%d %H:%M %Z}"
    )
    began = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        for table, sql in _STATEMENTS:
            started = time.perf_counter()
            cursor.execute(sql, params)
            print(f"  {table:34s} {cursor.rowcount:>9,} rows  {time.perf_counter() - started:6.1f} s")
        for table in ("conversations_customer", "conversations_conversation", "agents_turnrun"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        started = time.perf_counter()
        cursor.execute("VACUUM ANALYZE")
        print(f"  {'VACUUM ANALYZE':34s} {'':>14s}  {time.perf_counter() - started:6.1f} s")
    print(f"  fill took {time.perf_counter() - began:.1f} s")


_STATEMENTS: list[tuple[str, str]] = [
    (
        "conversations_customer",
        """
        INSERT INTO conversations_customer (id, external_id, name, first_name, last_name, email, phone, locale,
                                            verified, created_at, updated_at)
        SELECT g, 'bench-' || g, 'Shopper ' || g, '', '', 'shopper' || g || '@example.com', '',
               CASE WHEN g %% 3 = 0 THEN 'zh' ELSE 'en' END, g %% 2 = 0, %(start)s, %(start)s
        FROM generate_series(1, %(customers)s) AS g
        """,
    ),
    (
        "conversations_conversation",
        """
        INSERT INTO conversations_conversation (id, customer_id, status, channel, assigned_staff_id, language,
            verified_customer_id, current_intent, failed_attempts, turn_count, created_at, updated_at,
            last_message_at, closed_at, resolution, resolution_note, closed_by, escalated_at, human_joined_at,
            first_human_reply_at)
        WITH base AS (
            SELECT g AS id,
                   %(start)s::timestamptz + random() * (%(now)s::timestamptz - %(start)s::timestamptz) AS created,
                   CASE WHEN random() < 0.03 THEN 0 ELSE 1 + floor(random() * 7)::int END AS turns,
                   random() < 0.20 AS escalated,
                   random() AS r_join, random() AS r_close, random() AS r_by, random() AS r_res,
                   random() AS r1, random() AS r2, random() AS r3, random() AS r4
            FROM generate_series(1, %(n)s) AS g
        ), timed AS (
            SELECT *, created + turns * interval '75 seconds' AS last_at,
                   CASE WHEN escalated THEN created + interval '1 minute' + r1 * interval '4 minutes' END
                       AS escalated_at,
                   escalated AND r_join < 0.5 AS joined,
                   r_close < 0.6 AS closed
            FROM base
        ), staffed AS (
            SELECT *, CASE WHEN joined THEN escalated_at + interval '10 seconds' + r2 * interval '20 minutes' END
                       AS joined_at
            FROM timed
        ), replied AS (
            SELECT *, CASE WHEN joined THEN joined_at + interval '5 seconds' + r3 * interval '3 minutes' END
                       AS reply_at,
                   CASE WHEN NOT closed THEN ''
                        WHEN joined AND r_by < 0.7 THEN 'staff'
                        WHEN r_by < 0.35 THEN 'customer'
                        WHEN r_by < 0.75 THEN 'assistant'
                        WHEN r_by < 0.85 THEN 'staff'
                        ELSE 'store' END AS closed_by
            FROM staffed
        ), closing AS (
            SELECT *, CASE WHEN closed_by = 'assistant' THEN last_at + interval '24 hours'
                           WHEN closed THEN greatest(last_at, coalesce(reply_at, last_at))
                                            + interval '1 minute' + r4 * interval '30 minutes' END AS closed_at
            FROM replied
        )
        SELECT id, 1 + id %% %(customers)s,
               CASE WHEN closed THEN 'closed' WHEN joined THEN 'human' WHEN escalated THEN 'waiting_human'
                    ELSE 'bot' END,
               'widget',
               CASE WHEN joined THEN (%(staff)s::bigint[])[1 + id %% 3] END,
               CASE WHEN id %% 3 = 0 THEN 'zh' ELSE 'en' END,
               NULL, '', 0, turns, created, coalesce(closed_at, last_at), last_at, closed_at,
               CASE closed_by WHEN 'customer' THEN 'ended'
                              WHEN 'assistant' THEN 'no_reply'
                              WHEN 'staff' THEN (ARRAY['answered', 'order_fixed', 'refund', 'follow_up'])
                                                [1 + floor(r_res * 4)::int]
                              WHEN 'store' THEN (ARRAY['answered', 'order_fixed', 'refund', 'other'])
                                                [1 + floor(r_res * 4)::int]
                              ELSE '' END,
               '', closed_by, escalated_at, joined_at, reply_at
        FROM closing
        """,
    ),
    (
        "conversations_message (customer)",
        """
        INSERT INTO conversations_message (conversation_id, sender, text, sources, metadata, author_id, client_id,
                                           internal, created_at)
        SELECT c.id, 'customer', 'Customer message ' || k || ' of conversation ' || c.id, '[]', '{}', NULL, '',
               false, c.created_at + (k - 1) * interval '75 seconds' + random() * interval '30 seconds'
        FROM conversations_conversation AS c, generate_series(1, c.turn_count) AS k
        """,
    ),
    (
        "agents_turnrun",
        """
        INSERT INTO agents_turnrun (id, conversation_id, message_id, status, language, intents, entities,
            emotion_score, intent_level, intent_cache_hit, flags, knowledge, retrieval_lookups, retrieval_hits,
            route, escalation_reason, reply_message_id, reply, llm_calls, llm_prompt_tokens, llm_completion_tokens,
            llm_cost, history_tokens_full, history_tokens_used, error, created_at, finished_at, safety)
        WITH drawn AS (
            SELECT m.id, m.conversation_id, m.created_at,
                   CASE WHEN r_status < 0.88 THEN 'done' WHEN r_status < 0.92 THEN 'escalated'
                        WHEN r_status < 0.96 THEN 'skipped' WHEN r_status < 0.99 THEN 'failed'
                        ELSE 'received' END AS status,
                   CASE WHEN r_level < 0.05 THEN '' WHEN r_level < 0.30 THEN 'rule' WHEN r_level < 0.60 THEN 'cache'
                        WHEN r_level < 0.90 THEN 'llm' ELSE 'classifier' END AS level,
                   r_latency, r_emotion, floor(r_lookups * 3)::int AS lookups, r_hits
            FROM (
                SELECT m.*, random() AS r_status, random() AS r_level, random() AS r_latency, random() AS r_emotion,
                       random() AS r_lookups, random() AS r_hits
                FROM conversations_message AS m
            ) AS m
        )
        SELECT id, conversation_id, id, status, 'en', '[]', '{}', r_emotion, level, level = 'cache', '[]', '[]',
               lookups, floor(r_hits * (lookups + 1))::int,
               CASE status WHEN 'done' THEN 'agent' WHEN 'escalated' THEN 'escalate' ELSE '' END,
               CASE WHEN status = 'escalated' THEN 'requested' ELSE '' END,
               NULL, '{}', CASE WHEN level = 'llm' THEN 1 ELSE 0 END, 0, 0, 0, 0, 0, '', created_at,
               CASE WHEN status <> 'received' THEN created_at + interval '1 millisecond' * CASE level
                   WHEN 'rule' THEN 20 + r_latency * 80
                   WHEN 'cache' THEN 40 + r_latency * 260
                   WHEN 'llm' THEN 800 + r_latency * 2200
                   WHEN 'classifier' THEN 100 + r_latency * 500
                   ELSE 20 + r_latency * 2980 END END,
               CASE WHEN status IN ('done', 'escalated') THEN '{"decision": "pass", "categories": [], "ms": 0.1}'
                    ELSE '{}' END::jsonb
        FROM drawn
        """,
    ),
    (
        "conversations_intentrecord",
        """
        INSERT INTO conversations_intentrecord (conversation_id, message_id, name, confidence, level, entities,
                                                emotion_score, created_at)
        SELECT t.conversation_id, t.message_id, (%(intents)s::text[])[1 + floor(power(random(), 2) * 15)::int],
               0.5 + random() * 0.5, t.intent_level, '{}', random(), t.created_at + interval '10 milliseconds'
        FROM agents_turnrun AS t
        WHERE t.intent_level <> ''
        """,
    ),
    (
        "agents_subtask",
        """
        INSERT INTO agents_subtask (turn_id, position, specialist, intent, text, digression, status, result, error,
            created_at, finished_at, latency_ms, retrieval_lookups, retrieval_hits, tool_lookups, tool_hits)
        SELECT turn_id, position, specialist, intent, 'a clause', false, 'done', '{}', '',
               created_at, finished_at, latency, retrieval, floor(r_hits * (retrieval + 1))::int,
               tools, floor(r_hits * (tools + 1))::int
        FROM (
            SELECT t.id AS turn_id, p AS position, t.created_at + interval '5 milliseconds' AS created_at,
                   t.finished_at, (%(specialists)s::text[])[1 + (t.id + p) %% 8] AS specialist,
                   (%(subtask_intents)s::text[])[1 + (t.id + p) %% 8] AS intent,
                   EXTRACT(EPOCH FROM t.finished_at - t.created_at) * 900 AS latency,
                   floor(random() * 3)::int AS retrieval, floor(random() * 4)::int AS tools, random() AS r_hits
            FROM agents_turnrun AS t, generate_series(0, CASE WHEN t.id %% 10 = 0 THEN 1 ELSE 0 END) AS p
            WHERE t.status IN ('done', 'escalated')
        ) AS s
        """,
    ),
    (
        "tickets_escalationcard",
        """
        INSERT INTO tickets_escalationcard (conversation_id, ticket_id, reason, summary, intents, emotion_trajectory,
            slots, order_ids, last_messages, suggested_reply, accepted_by_id, accepted_at, created_at)
        SELECT c.id, NULL, (%(reasons)s::text[])[1 + floor(power(random(), 1.5) * 6)::int],
               'The customer wants a person.', '[]', '[]', '{}', '[]', '[]', '', c.assigned_staff_id,
               c.human_joined_at, c.escalated_at
        FROM conversations_conversation AS c
        WHERE c.escalated_at IS NOT NULL
        """,
    ),
    (
        "conversations_rating",
        """
        INSERT INTO conversations_rating (conversation_id, closed_at, score, comment, staff_id, created_at)
        SELECT c.id, c.closed_at,
               CASE WHEN r < 0.08 THEN 1 WHEN r < 0.15 THEN 2 WHEN r < 0.30 THEN 3 WHEN r < 0.55 THEN 4 ELSE 5 END,
               '', CASE WHEN c.human_joined_at IS NOT NULL OR c.closed_by = 'staff'
                        THEN coalesce(c.assigned_staff_id, (%(staff)s::bigint[])[1 + c.id %% 3]) END,
               c.closed_at + interval '30 seconds'
        FROM (SELECT *, random() AS r, random() AS rated FROM conversations_conversation) AS c
        WHERE c.closed_at IS NOT NULL AND c.rated < 0.25
        """,
    ),
    (
        "knowledge_missedquestion",
        """
        INSERT INTO knowledge_missedquestion (question, language, embedding, reference, created_at, answered_by_id,
                                              answered_at)
        SELECT CASE WHEN random() < 0.2 THEN '  ' || upper(wording) ELSE wording END, 'en', %(vector)s::vector,
               'bench:' || g, created,
               NULL, CASE WHEN random() < 0.3 THEN least(%(now)s::timestamptz, created + interval '2 days') END
        FROM (
            SELECT g, 'is there an answer to question ' || (1 + floor(power(random(), 1.5) * 300)::int) AS wording,
                   %(start)s::timestamptz + random() * (%(now)s::timestamptz - %(start)s::timestamptz) AS created
            FROM generate_series(1, %(missed)s) AS g
        ) AS q
        """,
    ),
]


# --- the measurements ----------------------------------------------------------------------------


def _zone() -> Any:
    from zoneinfo import ZoneInfo

    from django.conf import settings

    return ZoneInfo(settings.ANALYTICS_TIME_ZONE)


def _periods() -> dict[str, Period]:
    from analytics.report import Period

    today = datetime.now(tz=_zone()).date()
    return {
        "30 days": Period(today - timedelta(days=29), today),
        "90 days": Period(today - timedelta(days=89), today),
        "1 day": Period(today - timedelta(days=1), today - timedelta(days=1)),
    }


def _timed(call: Callable[..., object], *args: object, **kwargs: object) -> float:
    started = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def _roll_up() -> None:
    from analytics.rollup import day_figures_roll

    started, days = time.perf_counter(), 0
    while rolled := day_figures_roll():
        days += rolled
    print(f"\nrolling up {days} finished days took {time.perf_counter() - started:.1f} s (the beat does it hourly)")


def _measure(periods: dict[str, Period], how: str, *, runs: int) -> None:
    from analytics.report import analytics_report

    print(
        f"\nanalytics_report(period) in process, {how}: {runs} calls after the first (target p95 ≤ {TARGET_MS:.0f} ms):"
    )
    for label, period in periods.items():
        cold = _timed(analytics_report, period)
        values = [_timed(analytics_report, period) for _ in range(runs)]
        verdict = "ok" if percentile(values, 95) <= TARGET_MS else "OVER"
        print(f"  {label:8s} {_span(period)}  cold {cold:7.1f} ms  {summary(values)}  [{verdict}]")
    report = analytics_report(periods["90 days"])
    print(
        f"  (90 days: {report['conversations']:,} conversations, resolution {report['resolution_rate']}, "
        f"containment {report['containment_rate']}, escalation {report['escalation_rate']}, "
        f"{report['csat']['ratings']:,} ratings, {report['latency_ms']['all']['turns']:,} answered turns, "
        f"{report['knowledge_misses']['total']:,} missed questions)"
    )


def _span(period: Period) -> str:
    return f"{period.first:%m-%d}..{period.last:%m-%d}"


def _parts(period: Period, *, show_plan: bool) -> None:
    from django.db import connection
    from django.db.models import Count
    from django.test.utils import CaptureQueriesContext

    from analytics import report
    from analytics.rollup import day_figures_read

    print("\nthe 90-day report's parts (median of 5 calls each):")
    parts: dict[str, Callable[[Period], object]] = {
        "conversations": lambda p: report.conversations_in(p).aggregate(n=Count("pk")),
        "day figures": lambda p: day_figures_read(p.first, p.last),
        "_csat": report._csat,
        "_series": report._series,
        "_knowledge_misses": report._knowledge_misses,
        "_escalations_by_reason": report._escalations_by_reason,
    }
    for name, part in parts.items():
        values = [_timed(part, period) for _ in range(5)]
        print(f"  {name:24s} {statistics.median(values):7.1f} ms")

    with CaptureQueriesContext(connection) as captured:
        report.analytics_report(period)
    statements = [(float(q["time"]) * 1000, q["sql"]) for q in captured.captured_queries]
    print(f"\nits {len(statements)} SQL statements, each timed once (what the statement reads):")
    for ms, sql in statements:
        print(f"  {ms:7.1f} ms  {_describe(sql)}")
    slowest_ms, slowest = max(statements)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {slowest}")
        plan = [row[0] for row in cursor.fetchall()]
    print(f"\nEXPLAIN (ANALYZE, BUFFERS) of the slowest ({slowest_ms:.1f} ms: {_describe(slowest)}):")
    shown = plan if show_plan else [line for line in plan if re.match(r"\s*(Planning|Execution) Time", line)]
    nodes = [line.strip() for line in plan if "->" in line or line is plan[0]]
    for line in shown:
        print(f"  {line}")
    if not show_plan:
        print(f"  top node: {nodes[0][:160]}")
        scans = [n for n in nodes if "Scan" in n]
        for scan in scans[:4]:
            print(f"  scan: {scan.removeprefix('->  ')[:160]}")


def _describe(sql: str) -> str:
    """The table a statement reads and how it groups, in a line."""
    table = re.search(r'FROM "(\w+)"', re.sub(r"EXISTS\(SELECT .*? LIMIT 1\)", "EXISTS", sql))
    grouped = " GROUP BY" if "GROUP BY" in sql else ""
    percentile = " percentile_cont" if "percentile_cont" in sql else ""
    exists = " EXISTS" if "EXISTS" in sql else ""
    return f"{table.group(1) if table else sql[:60]}{grouped}{percentile}{exists}"


# --- through the REST API ------------------------------------------------------------------------


def _http(url: str, periods: dict[str, Period]) -> None:
    from analytics.report import analytics_report
    from conversations.api_keys import api_key_create

    _, key = api_key_create(name="bench", scopes=["admin"])
    with web_server(url) as address:
        client = ApiClient(address, key)
        client.wait_until_up(ANALYTICS, **_dates(periods["1 day"]))
        print(
            f"\nGET /api/v1/analytics through a web server on loopback, {RUNS} requests per period after the first,"
            " each followed by the same report in process:"
        )
        for label, period in periods.items():
            cold = _timed(client.get, ANALYTICS, **_dates(period))
            values, overhead = [], []
            for _ in range(RUNS):  # each request followed by the same report in process: a noisy moment hits both
                values.append(_timed(client.get, ANALYTICS, **_dates(period)))
                overhead.append(values[-1] - _timed(analytics_report, period))
            print(
                f"  {label:8s} {_span(period)}  first {cold:7.1f} ms  {summary(values)}  "
                f"(API minus in process, p50: {statistics.median(overhead):5.1f} ms)"
            )


def _dates(period: Period) -> dict[str, str]:
    return {"from": period.first.isoformat(), "to": period.last.isoformat()}


if __name__ == "__main__":
    main()
