from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project.web_server import web_server_run


class Command(BaseCommand):
    help = "Run the HTTP and WebSocket server (daphne on cs_project.asgi)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--proxy-headers",
            action="store_true",
            help="Trust X-Forwarded-For/-Proto (only behind a proxy that sets them; on with HTTPS_PROXY).",
        )

    def handle(self, *args: Any, host: str, port: int, proxy_headers: bool, **options: Any) -> None:
        web_server_run(host=host, port=port, proxy_headers=proxy_headers or settings.HTTPS_PROXY)
