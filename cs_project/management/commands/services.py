from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project import embedded
from cs_project.config import mask_url


class Command(BaseCommand):
    help = "Show where Postgres and Redis come from, or stop the embedded ones (`services stop`)."

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
        self.stdout.write(f"postgres ({settings.DATABASE_SOURCE}): {mask_url(settings.DATABASE_URL)}")
        self.stdout.write(f"redis ({settings.REDIS_SOURCE}): {mask_url(settings.REDIS_URL)}")
