import socket
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.servers.basehttp import WSGIServer, run

from stores.builtin.server import store_api_application


class _NoDelayServer(WSGIServer):
    """Each answer leaves at once: without TCP_NODELAY a small response waits on the client's delayed
    acknowledgement, about 40 ms a call on Linux."""

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


class Command(BaseCommand):
    help = (
        "Serve the store API (docs/store-api.md) over the built-in store's tables, for STORE_BACKEND=http: "
        "the reference implementation a store's own system can be checked against."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8100)
        parser.add_argument("--token", default="", help="The bearer token callers must send (STORE_API_TOKEN).")

    def handle(self, *args: Any, host: str, port: int, token: str, **options: Any) -> None:
        token = token or settings.STORE_API_TOKEN
        if len(token) < 16:
            raise CommandError("Set a bearer token of at least 16 characters: --token or STORE_API_TOKEN.")
        self.stdout.write(f"Store API on http://{host}:{port}/ (the built-in store's tables)", ending="\n")
        self.stdout.flush()
        # Any WSGI application serves here, not only Django's own handler.
        run(host, port, store_api_application(token), threading=True, server_cls=_NoDelayServer)  # type: ignore[arg-type]
