"""Deployment security: HTTPS behind a proxy, the Content-Security-Policy, nosniff on static files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from knowledge.services import ingest_job_create
from tests.conftest import BASE_DIR, AsgiServer, subprocess_env

pytestmark = pytest.mark.django_db


def test_https_proxy_turns_on_the_proxy_header_secure_cookies_and_hsts() -> None:
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; print(json.dumps(["
        "s.SECURE_PROXY_SSL_HEADER, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS]))"
    )

    def settings_with(**env: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=BASE_DIR, env=subprocess_env(**env), capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert settings_with(HTTPS_PROXY="1") == [["HTTP_X_FORWARDED_PROTO", "https"], True, True, 31536000]
    assert settings_with(HTTPS_PROXY="1", HSTS_SECONDS="600")[3] == 600
    assert settings_with(HTTPS_PROXY="0") == [None, False, False, 0]


def test_behind_an_https_proxy_the_widget_is_told_wss_and_the_session_cookie_is_secure(
    client: Client, settings: Any
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = True
    User.objects.create_user("lin", password="pw-lin-1", is_staff=True)

    session = client.post("/widget/session", "{}", content_type="application/json", HTTP_X_FORWARDED_PROTO="https")
    plain = client.post("/widget/session", "{}", content_type="application/json")
    login = client.post(
        reverse("admin:login"), {"username": "lin", "password": "pw-lin-1"}, HTTP_X_FORWARDED_PROTO="https"
    )

    assert session.json()["ws_url"].startswith("wss://testserver") and "/ws/widget?token=" in session.json()["ws_url"]
    assert plain.json()["ws_url"].startswith("ws://")
    assert login.status_code == 302 and login.cookies["sessionid"]["secure"]


def test_pages_carry_a_content_security_policy_and_the_inline_script_its_nonce(client: Client) -> None:
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    job = ingest_job_create(kb_name="csp", files=[_upload("a.md", b"# A\n\nText.\n")])

    store = client.get("/?lang=zh")
    job_page = client.get(reverse("admin:knowledge_ingestjob_change", args=[job.pk]))
    console = client.get(reverse("console"))
    docs = client.get("/api/docs/")

    # django-csp writes the directives in no fixed order
    policy = dict(d.strip().split(" ", 1) for d in store["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == policy["base-uri"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'self'"
    assert policy["script-src"] == "'self'"  # no inline script runs on the store page
    nonced = re.search(r"'nonce-([^']+)'", job_page["Content-Security-Policy"])
    assert nonced
    nonce = nonced[1]
    assert f'<script nonce="{nonce}">' in job_page.content.decode()
    console_policy = dict(d.strip().split(" ", 1) for d in console["Content-Security-Policy"].split(";"))
    assert console.status_code == 200 and console_policy["default-src"] == "'self'"
    assert console_policy["object-src"] == "'none'" and "unsafe-inline" not in console_policy["script-src"]
    assert "Content-Security-Policy" not in docs  # Swagger UI's own page is built on an inline script


def _upload(name: str, raw: bytes) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, raw)


@pytest.mark.django_db(transaction=True)
def test_static_files_are_served_with_nosniff(asgi_server: AsgiServer) -> None:
    with urllib.request.urlopen(f"{asgi_server.url}/static/cs_widget/widget.js", timeout=30) as response:
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Content-Type"].startswith(("text/javascript", "application/javascript"))
