import os
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project.celery import app


class Command(BaseCommand):
    help = "Run a Celery worker on the project's queue (same as `celery -A cs_project worker`)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "4")))
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument("--hostname", default="", help="Node name, e.g. worker1@%%h.")

    def handle(self, *args: Any, concurrency: int, loglevel: str, hostname: str, **options: Any) -> None:
        app.worker_main(
            [
                "worker",
                *([f"--hostname={hostname}"] if hostname else []),
                f"--loglevel={loglevel}",
                f"--concurrency={concurrency}",
                f"--queues={settings.CELERY_TASK_DEFAULT_QUEUE}",
                "--without-gossip",
                "--without-mingle",
            ]
        )
