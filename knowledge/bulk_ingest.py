"""Many files at once (manage.py ingest_kb): each file ingested as `file_ingest` does, in parallel processes.

Nearly all of an ingest's time is the embedding engine's arithmetic: per passage of a help article, about
225 ms of the instruction check (the sentences it reads, embedded twice, with their neighbours), 140 ms of e5
and 30 ms of MiniLM (bench/ingest_speed.py, one process on the 2-core machine). One engine call spreads over the
cores less well than separate processes do: two processes of one engine thread each store 1.1 to 1.3 times as
many passages a second as one process of two threads. Each process writes its own files' rows, in its own
transactions, so a file is stored whole or not at all whichever process took it.

Only the standard library at import: a spawned process loads this module before Django is set up.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

# A process takes about two seconds to start (Django, the models): fewer files than this each are ingested here.
FILES_PER_PROCESS = 4

if TYPE_CHECKING:
    from knowledge.services import IngestResult


def _process_start(database: dict[str, Any]) -> None:
    os.environ["OMP_NUM_THREADS"] = "1"  # read when the engine loads, on first use
    import django

    django.setup()
    from django.conf import settings

    settings.DATABASES["default"].update(database)  # the caller's, whatever it was pointed at after startup


def _file_ingest(kb_name: str, path: Path, language: str, capped: bool) -> tuple[IngestResult | None, str]:
    from knowledge.services import IngestError, file_ingest

    try:
        return file_ingest(kb_name=kb_name, path=path, language=language, capped=capped), ""
    except IngestError as exc:
        return None, str(exc)


def files_ingest(
    *, kb_name: str, paths: list[Path], language: str, jobs: int, capped: bool = True
) -> Iterator[tuple[Path, IngestResult | None, str]]:
    """(path, result, error) for each file as it is done: the result, or None and why the file was refused.
    In this process when `jobs` is 1 or the files are too few to repay starting more; EmbeddingsUnavailable goes
    up at once either way."""
    if jobs <= 1 or len(paths) < FILES_PER_PROCESS * jobs:
        for path in paths:
            yield (path, *_file_ingest(kb_name, path, language, capped))
        return
    from django.db import connection

    from knowledge.models import KnowledgeBase

    KnowledgeBase.objects.get_or_create(name=kb_name)  # before the processes, which would race to create it
    database = {"NAME": connection.settings_dict["NAME"]}
    context = multiprocessing.get_context("spawn")  # a fork would share the parent's connections and engine
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_process_start, initargs=(database,)) as pool:
        futures: dict[Future[tuple[IngestResult | None, str]], Path] = {
            pool.submit(_file_ingest, kb_name, path, language, capped): path for path in paths
        }
        try:
            for future in as_completed(futures):
                yield (futures[future], *future.result())
        finally:
            for future in futures:
                future.cancel()
