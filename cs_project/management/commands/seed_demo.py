from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from agents.demo import demo_seed
from analytics.demo import demo_history_seed
from conversation_tests.services import demo_tests_seed


class Command(BaseCommand):
    help = (
        "Create the demo store, canned responses, the demo's conversation tests and, with DEMO_MODE, the demo "
        "staff login and four weeks of "
        "past chats for the analytics (idempotent)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset", action="store_true", help="Restore every demo record to its seeded state, dated from today."
        )
        parser.add_argument(
            "--history", action="store_true", help="Write the past chats also without DEMO_MODE (a staging copy)."
        )

    def handle(self, *args: Any, reset: bool, history: bool, **options: Any) -> None:
        demo_seed(reset=reset)
        demo_tests_seed(reset=reset)
        if settings.DEMO_MODE or history:
            written = demo_history_seed(reset=reset)
            if written:
                self.stdout.write(f"{written} past conversations written for the analytics")
        if settings.DEMO_MODE:
            login = f"staff login {settings.DEMO_STAFF_USERNAME} / {settings.DEMO_STAFF_PASSWORD}"
        else:
            login = "no demo staff login (DEMO_MODE is off): create one with manage.py createsuperuser"
        self.stdout.write(f"demo store ready; {login}")
