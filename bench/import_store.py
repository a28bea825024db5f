"""Time `import_store --format taubench` on a full store file, in a scratch database.

Prints the median of --repeat runs for: a first import into an empty store, re-importing the same
file (every record unchanged), and exporting it back (checked equal to the file).

    .venv/bin/python bench/import_store.py --data ../shared/data/tau2_retail/db.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a τ-bench retail db.json")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())

    import django

    django.setup()
    import psycopg
    from django.conf import settings

    from cs_project.config import parse_database_url

    config = parse_database_url(settings.DATABASE_URL)
    scratch = f"cs_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{scratch}"')
    from django.db import connections

    connections["default"].close_pool()  # type: ignore[attr-defined]  # Django 5.1+; the pool is of the database before
    settings.DATABASES["default"]["NAME"] = scratch
    try:
        _run(data, args.repeat)
    finally:
        connections.close_all()
        connections["default"].close_pool()  # type: ignore[attr-defined]  # not in django-stubs yet
        with psycopg.connect(config.url(name="postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


def _run(data: dict, repeat: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    from stores.builtin.taubench import store_export_taubench, store_import_taubench

    call_command("migrate", verbosity=0)
    first, again, export = [], [], []
    for _ in range(repeat):
        with connection.cursor() as cursor:
            cursor.execute(
                "TRUNCATE store_orderitem, store_fulfillment, store_trackingevent, store_paymenttransaction, "
                "store_order, store_variant, store_product, store_paymentmethod, store_address, "
                "conversations_customer RESTART IDENTITY CASCADE"
            )
        started = time.perf_counter()
        store_import_taubench(data=data)
        first.append(time.perf_counter() - started)
        started = time.perf_counter()
        summary = store_import_taubench(data=data)
        again.append(time.perf_counter() - started)
        assert sum(summary.created.values()) + sum(summary.updated.values()) == 0
        started = time.perf_counter()
        exported = store_export_taubench()
        export.append(time.perf_counter() - started)
        assert exported == data, "export differs from the imported file"
    counts = {k: len(v) for k, v in data.items()}
    print(f"store: {counts}, {repeat} runs, medians:")
    print(f"  first import   {statistics.median(first):6.2f} s")
    ratio = statistics.median(again) / statistics.median(first)
    print(f"  re-import      {statistics.median(again):6.2f} s  ({ratio:.2f}x of first)")
    print(f"  export         {statistics.median(export):6.2f} s  (equal to the file)")


if __name__ == "__main__":
    main()
