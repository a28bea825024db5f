from typing import Any

from django.core.management.base import BaseCommand

from agents.intents.exemplar_index import exemplars_sync


class Command(BaseCommand):
    help = "Load the shipped intent exemplars (zh + en) into the classifier's table; staff exemplars are kept."

    def handle(self, *args: Any, **options: Any) -> None:
        added = exemplars_sync()
        self.stdout.write(f"intent exemplars in sync ({added} added)")
