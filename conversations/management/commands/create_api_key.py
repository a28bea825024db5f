from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from conversations.api_keys import api_key_create


class Command(BaseCommand):
    help = "Create an API key for the REST API; the key is printed once, alone on the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="Who or what the key is for, e.g. 'shop-backend'.")
        parser.add_argument(
            "--scopes",
            default="chat,kb,tickets",
            help="Comma-separated: chat, kb, tickets, admin (webhooks). Default: chat,kb,tickets.",
        )

    def handle(self, *args: Any, name: str, scopes: str, **options: Any) -> None:
        try:
            key, raw = api_key_create(name=name, scopes=[s.strip() for s in scopes.split(",") if s.strip()])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(
            f"API key '{key.name}' created ({key.prefix}…, scopes {','.join(key.scopes)}). "
            "Store it now: it is not shown again."
        )
        self.stdout.write(raw)
