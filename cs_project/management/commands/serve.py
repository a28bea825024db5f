"""Run the whole system in one terminal: migrate, seed, then the ASGI server, a worker, an ingest worker and beat."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.harm_model import model_weights
from cs_project.supervisor import READY_WAIT_S, Supervisor, when_healthy
from knowledge.embeddings import EmbeddingsUnavailable, embeddings_check
from tickets.demo import demo_staff_retire
from tickets.staff import support_group_ensure


class Command(BaseCommand):
    help = (
        "Start everything (make run): migrate, the demo (DEMO_MODE), ASGI server, a Celery worker, one for uploads,"
        " and beat."
    )

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
        model_weights()  # the safety gate's harm classifier, trained once here rather than in the first reply
        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        supervisor = Supervisor(
            argvs={
                "web": [python, manage, "web", "--host", host, "--port", str(port)],
                "worker": [python, manage, "worker"],
                # Uploads on their own queue, one at a time: a job that reads for minutes holds this
                # process, never the worker answering chats.
                "ingest": [python, manage, "worker", "--ingest", "--concurrency", "1", "--hostname", "ingest@%h"],
                "beat": [python, manage, "beat"],
            },
            cwd=settings.BASE_DIR,
            var_dir=settings.VAR_DIR,
            embedded_services=[
                name
                for name, source in (("postgres", settings.DATABASE_SOURCE), ("redis", settings.REDIS_SOURCE))
                if source == "embedded"
            ],
            say=lambda line: self.stderr.write(line),
        )
        base = f"http://{host}:{port}"
        self.stdout.write(
            "starting the web server, a worker, an ingest worker and beat: the addresses follow once everything answers"
        )

        def announce(healthy: bool) -> None:
            note = "" if healthy else f"\n  not healthy yet after {READY_WAIT_S:.0f} s: see {base}/healthz\n"
            self.stdout.write(self._banner(base) + note)

        reachable = "127.0.0.1" if host in ("0.0.0.0", "::", "") else f"[{host}]" if ":" in host else host
        local = f"http://{reachable}:{port}/healthz"
        threading.Thread(
            target=when_healthy, args=(local, announce), kwargs={"stopping": lambda: supervisor.stopping}, daemon=True
        ).start()
        supervisor.run()
        self.stdout.write(f"stopped: {', '.join(supervisor.stop_report)}")

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
