from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project import embedded
from cs_project.config import mask_url


class Command(BaseCommand):
    help = (
        "Show where Postgres and Redis come from and whether the embedded ones are running (a look starts nothing "
        "that stays running), or stop the embedded ones (`services stop`)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", nargs="?", choices=["status", "stop"], default="status")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if action == "stop":
            # Loading the settings may just have started them; stopping is what was asked either way.
            stopped = [
                name
                for name, stop in (("redis", embedded.redis_stop), ("postgres", embedded.postgres_stop))
                if stop(settings.VAR_DIR)
            ]
            self.stdout.write(f"stopped: {', '.join(stopped) or 'nothing was running'}")
            return
        # Reading the settings starts an embedded service that was not running (its address is chosen then):
        # what this look started is stopped again, so the machine is left as it was found.
        for name, source, url in (
            ("postgres", settings.DATABASE_SOURCE, settings.DATABASE_URL),
            ("redis", settings.REDIS_SOURCE, settings.REDIS_URL),
        ):
            state = ""
            if source == "embedded":
                state = " (was not running: left stopped)" if embedded.started_here(settings.VAR_DIR, name) else ""
                state = state or " (running)"
            self.stdout.write(f"{name} ({source}): {mask_url(url)}{state}")
        embedded.stop_started_here(settings.VAR_DIR)
