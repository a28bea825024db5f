"""Migrations build the whole schema from an empty database and match the models."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command

from cs_project.config import parse_database_url
from tests.conftest import BASE_DIR, subprocess_env


@pytest.fixture
def empty_database_url() -> Iterator[str]:
    config = parse_database_url(settings.DATABASE_URL)
    name = f"cs_migrate_{uuid.uuid4().hex[:8]}"
    admin_url = config.url(name="postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield config.url(name=name)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_migrate_from_zero_builds_every_table(empty_database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=empty_database_url),
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stderr
    with psycopg.connect(empty_database_url) as conn:
        tables = {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        extensions = {row[0] for row in conn.execute("SELECT extname FROM pg_extension")}
    assert "vector" in extensions
    assert {
        "conversations_customer",
        "conversations_conversation",
        "conversations_message",
        "conversations_intentrecord",
        "conversations_workflowstate",
        "store_address",
        "store_paymentmethod",
        "store_product",
        "store_variant",
        "store_order",
        "store_orderitem",
        "store_fulfillment",
        "store_trackingevent",
        "store_paymenttransaction",
        "store_subsidyrule",
        "tickets_ticket",
        "tickets_ticketevent",
        "tickets_escalationcard",
        "tickets_cannedresponse",
        "knowledge_knowledgebase",
        "knowledge_document",
        "knowledge_chunk",
    } <= tables


@pytest.mark.django_db
def test_models_and_migrations_agree() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
