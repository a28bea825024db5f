from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project.celery import app


class Command(BaseCommand):
    help = "Run Celery beat, the scheduler of periodic tasks (same as `celery -A cs_project beat`)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loglevel", default="INFO")

    def handle(self, *args: Any, loglevel: str, **options: Any) -> None:
        app.start(["beat", f"--loglevel={loglevel}", f"--schedule={settings.CELERY_BEAT_SCHEDULE_FILENAME}"])
