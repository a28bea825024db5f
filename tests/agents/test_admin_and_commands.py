"""Staff-facing views of the engine (turn trace, exemplars) and the terminal chat."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from agents.intents.recognize import recognize
from agents.models import IntentExemplar, TurnRun
from conversations.services import conversation_start
from tests.agents.engine import run_turn
from tests.conftest import BASE_DIR, database_url_for_tests, subprocess_env

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


@pytest.fixture
def admin_client_logged_in(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_turn_trace_shows_node_path_level_subtasks_and_tokens(
    admin_client_logged_in: Client, customer_ada: Any
) -> None:
    chat = conversation_start(customer=customer_ada)
    turn = run_turn(chat, "I want to file a formal complaint about your store")

    page = admin_client_logged_in.get(reverse("admin:agents_turnrun_change", args=[turn.pk])).content.decode()

    assert "received → " in page and "recognized" in page and "fanned_out" in page and " ms)" in page
    assert f"intent level: {turn.intent_level}" in page
    assert "complaint / complaint" in page
    assert "tokens: 0 in / 0 out" in page
    listing = admin_client_logged_in.get(reverse("admin:agents_turnrun_changelist")).content.decode()
    assert str(turn.pk) in listing


def test_staff_exemplar_takes_effect_without_a_restart(admin_client_logged_in: Client) -> None:
    text = "the zorblax gadget keeps blinking purple"
    before = recognize(text)

    response = admin_client_logged_in.post(
        reverse("admin:agents_intentexemplar_add"),
        {"intent": "fault_diagnosis", "language": "en", "text": text, "active": "on"},
    )

    assert response.status_code == 302
    exemplar = IntentExemplar.objects.get(text=text)
    assert exemplar.source == "staff" and exemplar.embedding is not None
    from django.core.cache import cache

    cache.clear()  # the first answer may sit in the intent cache
    after = recognize(text)
    assert after.top.intent == "fault_diagnosis" and after.top.confidence >= before.top.confidence


@pytest.mark.django_db(transaction=True)
def test_chat_command_shows_reply_slot_intents_and_level(celery_worker: Any, exemplars: None) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "chat", "--customer", "terminal_ada", "--timeout", "30"],
        input="Hello!\n转人工\n/quit\n",
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=database_url_for_tests()),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "bot> Hello! How can I help you today?" in out
    assert "intents: chitchat 0.95 | level: rule | done" in out
    assert "intents: human_request 0.95 | level: rule | escalated" in out
    assert "awaiting: contact" in out
    assert TurnRun.objects.filter(conversation__customer__external_id="terminal_ada").count() == 2
