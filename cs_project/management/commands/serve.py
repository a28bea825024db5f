"""Run the whole system in one terminal: migrate, seed, then the ASGI server, a worker and beat."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cs_project import embedded
from knowledge.embeddings import EmbeddingsUnavailable, embeddings_check
from tickets.demo import demo_staff_retire
from tickets.staff import support_group_ensure


class Command(BaseCommand):
    help = "Start everything (make run): migrate, the demo (DEMO_MODE), ASGI server, Celery worker and beat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))

    def handle(self, *args: Any, host: str, port: int, **options: Any) -> None:
        try:
            # A wrong-width embeddings model would fail every ingest and search: say so before starting.
            embeddings_check()
        except EmbeddingsUnavailable as exc:
            raise CommandError(f"embeddings: {exc}") from None
        call_command("migrate", interactive=False, verbosity=0)
        if settings.DEMO_MODE:
            call_command("seed_demo")
        else:
            support_group_ensure()
            if demo_staff_retire():
                self.stderr.write(
                    f"DEMO_MODE is off: the demo login '{settings.DEMO_STAFF_USERNAME}'"
                    " no longer opens with its demo password"
                )
        call_command("sync_exemplars")
        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        commands = {
            "web": [python, manage, "web", "--host", host, "--port", str(port)],
            "worker": [python, manage, "worker"],
            "beat": [python, manage, "beat"],
        }
        # Each child gets its own process group, so Ctrl-C reaches only this process, which then
        # stops the children in order instead of all of them dying at once mid-request.
        children = {
            name: subprocess.Popen(argv, cwd=settings.BASE_DIR, start_new_session=True)
            for name, argv in commands.items()
        }
        self.stdout.write(self._banner(f"http://{host}:{port}"))
        stopping = False

        def request_stop(signum: int, frame: FrameType | None) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        exit_code = 0
        while not stopping:
            for name, child in children.items():
                if child.poll() is not None:
                    self.stderr.write(f"{name} exited with code {child.returncode}; stopping everything")
                    stopping, exit_code = True, 1
                    break
            time.sleep(0.2)
        self._stop(children)
        stopped = embedded.stop_started_here(settings.VAR_DIR)
        self.stdout.write(f"stopped: {', '.join([*children, *stopped])}")
        if exit_code:
            sys.exit(exit_code)

    @staticmethod
    def _banner(base: str) -> str:
        if settings.DEMO_MODE:
            login = f"{settings.DEMO_STAFF_USERNAME} / {settings.DEMO_STAFF_PASSWORD}"
            lines = [
                f"  demo store : {base}/   (?customer=demo_li_wei signs in a demo shopper)",
                f"  admin      : {base}/admin/   (login {login})",
                f"  health     : {base}/healthz",
                "",
                "  " + "!" * 86,
                "  DEMO MODE: anyone can log in as the demo staff above and sign in as any demo shopper.",
                "  Never expose this server to a network. For a real store: DEMO_MODE=0 manage.py serve,",
                "  and create your own staff login with manage.py createsuperuser.",
                "  " + "!" * 86,
            ]
        else:
            lines = [
                f"  store page : {base}/",
                f"  admin      : {base}/admin/   (staff logins: manage.py createsuperuser)",
                f"  health     : {base}/healthz",
            ]
        return "\n".join(["", *lines, "  Ctrl-C stops everything.", ""])

    @staticmethod
    def _stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
        for child in children.values():
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for child in children.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
