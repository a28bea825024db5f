from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from conversations.api_keys import api_key_create


class Command(BaseCommand):
    help = "Create an API key for the REST API; the key is printed once, alone on the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="Who or what the key is for, e.g. 'shop-backend'.")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        key, raw = api_key_create(name=name)
        self.stderr.write(f"API key '{key.name}' created ({key.prefix}…). Store it now: it is not shown again.")
        self.stdout.write(raw)
