import os
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cs_project.celery import app


class Command(BaseCommand):
    help = (
        "Run a Celery worker (same as `celery -A cs_project worker`): on the engine's queue (CELERY_QUEUE),"
        " or with --ingest on the uploads' (CELERY_INGEST_QUEUE), or on the --queues named."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "4")))
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument("--hostname", default="", help="Node name, e.g. worker1@%%h.")
        which = parser.add_mutually_exclusive_group()
        which.add_argument(
            "--ingest",
            action="store_true",
            help="Consume the upload jobs' queue (CELERY_INGEST_QUEUE) instead of the engine's.",
        )
        which.add_argument("--queues", default="", help="Comma-separated queue names to consume instead.")

    def handle(
        self, *args: Any, concurrency: int, loglevel: str, hostname: str, ingest: bool, queues: str, **options: Any
    ) -> None:
        names = [name.strip() for name in queues.split(",") if name.strip()]
        if queues and not names:
            raise CommandError("--queues needs at least one queue name")
        if not names:
            names = [settings.CELERY_INGEST_QUEUE if ingest else settings.CELERY_TASK_DEFAULT_QUEUE]
        if ingest:
            os.nice(settings.INGEST_WORKER_NICE)  # inherited by its processes and their readers
        app.worker_main(
            [
                "worker",
                *([f"--hostname={hostname}"] if hostname else []),
                f"--loglevel={loglevel}",
                f"--concurrency={concurrency}",
                f"--queues={','.join(names)}",
                "--without-gossip",
                "--without-mingle",
            ]
        )
