from typing import Any

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from stores.builtin.mcp_server import store_mcp_app, store_mcp_server


class Command(BaseCommand):
    help = (
        "Serve the store as an MCP server over the built-in store's tables, for STORE_BACKEND=mcp: over streamable "
        "HTTP at /mcp (a bearer token on every request), or over standard input and output with --stdio."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8200)
        parser.add_argument("--token", default="", help="The bearer token callers must send (STORE_MCP_TOKEN).")
        parser.add_argument("--stdio", action="store_true", help="Talk MCP over stdin/stdout (a local command).")

    def handle(self, *args: Any, host: str, port: int, token: str, stdio: bool, **options: Any) -> None:
        if stdio:  # the parent process holds the pipe: nothing else may be written to stdout
            store_mcp_server().run("stdio")
            return
        token = token or settings.STORE_MCP_TOKEN
        if len(token) < 16:
            raise CommandError("Set a bearer token of at least 16 characters: --token or STORE_MCP_TOKEN.")
        self.stdout.write(f"Store MCP server on http://{host}:{port}/mcp (the built-in store's tables)")
        self.stdout.flush()
        uvicorn.run(store_mcp_app(token, host), host=host, port=port, log_level="warning")
