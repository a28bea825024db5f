"""Seed the whole demo: store, staff login (demo mode only), canned responses, help articles."""

from pathlib import Path

from django.conf import settings
from django.db import transaction

from knowledge.models import SAMPLE_KB
from knowledge.services import chunk_statistics_refresh, file_ingest, kb_prune
from stores.builtin.demo import store_seed_demo
from tickets.demo import canned_responses_seed, demo_staff_ensure, demo_staff_retire

DEMO_KB = Path(__file__).resolve().parent.parent / "knowledge" / "demo_kb"


def demo_seed(*, reset: bool = False) -> None:
    with transaction.atomic():
        store_seed_demo(reset=reset)
        if settings.DEMO_MODE:
            demo_staff_ensure()
        else:
            demo_staff_retire()
        canned_responses_seed()
    # Unchanged articles are skipped by their content hash, so this is cheap on every start.
    sources, changed = set(), False
    for path in sorted(DEMO_KB.iterdir()):
        result = file_ingest(kb_name=SAMPLE_KB, path=path, source=f"demo_kb/{path.name}")
        sources.add(result.source)
        changed |= result.outcome != "unchanged"
    # Articles renamed or removed since.
    if kb_prune(kb_name=SAMPLE_KB, keep_sources=sources, under=["demo_kb"]) or changed:
        chunk_statistics_refresh()
