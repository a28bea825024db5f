"""Chat with the bot in the terminal, as a customer, through the real engine and a real worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from agents.models import TurnRun
from agents.services import MessageRejected, customer_message_handle
from agents.states import TERMINAL
from conversations.models import Channel
from conversations.services import conversation_start, customer_upsert


class Command(BaseCommand):
    help = "Chat as a customer in the terminal: shows the reply, the awaited slot, intents and the deciding level."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--customer", default="terminal_customer", help="Customer external id.")
        parser.add_argument("--lang", choices=["zh", "en"], default="en")
        parser.add_argument("--timeout", type=float, default=60.0, help="Seconds to wait for a reply.")

    def handle(self, *args: Any, customer: str, lang: str, timeout: float, **options: Any) -> None:
        worker = None if celery_app.control.ping(timeout=1.0, limit=1) else self._start_worker()
        try:
            person = customer_upsert(external_id=customer, locale=lang)
            conversation = conversation_start(customer=person, channel=Channel.TERMINAL, language=lang)
            self.stdout.write(f"conversation {conversation.pk} as {person.external_id}; Ctrl-D or /quit to leave.")
            while True:
                try:
                    text = input("you> ")
                except EOFError:
                    break
                if text.strip() in {"/quit", "/exit"}:
                    break
                try:
                    turn = customer_message_handle(conversation_id=conversation.pk, text=text)
                except MessageRejected as rejected:
                    self.stdout.write(f"bot> {rejected.reply}")
                    continue
                self._show(self._wait(turn.pk, timeout))
        finally:
            if worker is not None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(timeout=20)

    def _start_worker(self) -> subprocess.Popen[bytes]:
        self.stderr.write("no Celery worker answered; starting one for this chat…")
        worker = subprocess.Popen(
            [sys.executable, str(settings.BASE_DIR / "manage.py"), "worker", "--loglevel=WARNING", "--concurrency=2"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(timeout=0.5, limit=1):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("error: could not start a Celery worker")
        return worker

    @staticmethod
    def _wait(turn_id: int, timeout: float) -> TurnRun:
        deadline = time.monotonic() + timeout
        while True:
            turn = TurnRun.objects.get(pk=turn_id)
            if turn.status in TERMINAL or time.monotonic() > deadline:
                return turn
            time.sleep(0.05)

    def _show(self, turn: TurnRun) -> None:
        reply = turn.reply or {}
        if turn.status not in TERMINAL:
            self.stdout.write(f"bot> (no reply yet; the turn is {turn.status})")
            return
        self.stdout.write(f"bot> {reply.get('text') or '(silent: ' + turn.status + ')'}")
        if reply.get("quick_replies"):
            self.stdout.write("     [" + "] [".join(reply["quick_replies"]) + "]")
        if reply.get("awaiting"):
            self.stdout.write(f"     awaiting: {reply['awaiting']['slot']}")
        intents = ", ".join(f"{i['name']} {i['confidence']:.2f}" for i in turn.intents)
        self.stdout.write(f"     intents: {intents or '-'} | level: {turn.intent_level or '-'} | {turn.status}")
