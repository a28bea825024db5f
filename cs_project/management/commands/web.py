import argparse
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cs_project.web_server import web_server_run, web_servers_run


class Command(BaseCommand):
    help = "Run the HTTP and WebSocket server (uvicorn on cs_project.asgi), one process per core on one port."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--processes",
            type=int,
            default=settings.WEB_PROCESSES,
            help="Server processes sharing the port (WEB_PROCESSES; one per core serves the most).",
        )
        parser.add_argument(
            "--proxy-headers",
            action="store_true",
            help="Trust X-Forwarded-For/-Proto (only behind a proxy that sets them; on with HTTPS_PROXY).",
        )
        parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)  # a listening socket handed down

    def handle(
        self, *args: Any, host: str, port: int, processes: int, proxy_headers: bool, fd: int | None, **options: Any
    ) -> None:
        proxy_headers = proxy_headers or settings.HTTPS_PROXY
        if fd is not None:  # one of the processes web_servers_run starts
            web_server_run(host=host, port=port, proxy_headers=proxy_headers, fd=fd)
            return
        sys.exit(web_servers_run(host=host, port=port, processes=processes, proxy_headers=proxy_headers))
