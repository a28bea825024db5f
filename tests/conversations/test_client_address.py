"""The client's address (conversations.client_address): behind the proxy, only the entry the trusted proxy wrote
into X-Forwarded-For counts, so a client forging the header cannot escape the login lockout; the web server
picks the same address."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from django.urls import reverse

from conversations.client_address import address_normalised, client_address, forwarded_client_address
from cs_project.web_server import forwarded_scope
from tests.conftest import (
    BASE_DIR,
    _free_port,
    database_url_for_tests,
    process_group_stop,
    subprocess_env,
)

PROXY = "10.0.0.2"  # what the web process sees as its peer: the proxy in front


@pytest.mark.parametrize(
    ("forwarded_for", "proxy_count", "expected"),
    [
        ("198.51.100.7", 1, "198.51.100.7"),
        ("6.6.6.6, 198.51.100.7", 1, "198.51.100.7"),  # the client's own entry, left of the proxy's
        ("6.6.6.6,198.51.100.7, 10.0.0.9", 2, "198.51.100.7"),  # a balancer, then nginx
        ("198.51.100.7", 2, PROXY),  # shorter than the chain: the peer, never a client's entry
        ("6.6.6.6, unknown", 1, PROXY),
        ("", 1, PROXY),
        (" , ", 1, PROXY),
        ("[2001:DB8::1]:443", 1, "2001:db8::1"),
        ("198.51.100.7:5678", 1, "198.51.100.7"),
        ("::ffff:198.51.100.7", 1, "198.51.100.7"),
    ],
)
def test_forwarded_client_address_reads_from_the_right(forwarded_for: str, proxy_count: int, expected: str) -> None:
    assert forwarded_client_address(forwarded_for, peer=PROXY, proxy_count=proxy_count) == expected


def test_address_normalised_refuses_what_is_not_an_address() -> None:
    assert address_normalised("example.com") is None
    assert address_normalised("1.2.3") is None
    assert address_normalised("") is None


def test_without_the_proxy_setting_the_header_is_ignored(settings: Any) -> None:
    settings.HTTPS_PROXY = False
    request = RequestFactory().get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="6.6.6.6")

    assert client_address(request) == "203.0.113.5"


def test_with_the_proxy_setting_the_trusted_proxys_entry_counts(settings: Any) -> None:
    settings.HTTPS_PROXY = True
    settings.TRUSTED_PROXY_COUNT = 2
    request = RequestFactory().get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7, 10.0.0.9")

    assert client_address(request) == "198.51.100.7"
    assert client_address(RequestFactory().get("/", REMOTE_ADDR=PROXY)) == PROXY


# --- the login lockout (django-axes) behind the proxy ------------------------------------------------


def _log_in(client: Client, password: str, forwarded_for: str) -> Any:
    return client.post(
        reverse("admin:login"), {"username": "lin", "password": password}, HTTP_X_FORWARDED_FOR=forwarded_for
    )


@pytest.fixture
def behind_proxy(settings: Any, db: None) -> User:
    settings.HTTPS_PROXY = True
    settings.TRUSTED_PROXY_COUNT = 1
    return User.objects.create_user("lin", password="right-password-1", is_staff=True)


def test_a_client_forging_a_new_address_each_try_is_locked_out(behind_proxy: User, settings: Any) -> None:
    # given: the proxy appends the client's real address to whatever the client sent
    client = Client(REMOTE_ADDR=PROXY)
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        _log_in(client, "guess", f"192.0.2.{attempt + 1}, 198.51.100.7")

    # when
    after = _log_in(client, "right-password-1", "192.0.2.200, 198.51.100.7")

    # then
    assert after.status_code == 429 and "_auth_user_id" not in client.session


def test_another_real_client_behind_the_same_proxy_is_not_locked(behind_proxy: User, settings: Any) -> None:
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        _log_in(Client(REMOTE_ADDR=PROXY), "guess", f"192.0.2.{attempt + 1}, 198.51.100.7")

    # the same forged entry on the left, another address on the right: another client
    other = _log_in(Client(REMOTE_ADDR=PROXY), "right-password-1", "192.0.2.1, 198.51.100.8")

    assert other.status_code == 302


def test_trusted_proxy_count_must_be_one_or_more() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=BASE_DIR,
        env=subprocess_env(TRUSTED_PROXY_COUNT="0"),
        capture_output=True,
        text=True,
    )

    assert done.returncode != 0 and "TRUSTED_PROXY_COUNT must be 1 or more (got 0)" in done.stderr


# --- the web server picks the same address ------------------------------------------------------------


def test_the_web_server_takes_the_trusted_proxys_entry_over_http_and_websocket(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    headers = [
        (b"x-forwarded-for", b"6.6.6.6"),
        (b"x-forwarded-for", b"198.51.100.7"),
        (b"x-forwarded-proto", b"https"),
    ]

    http = forwarded_scope({"type": "http", "scheme": "http", "client": (PROXY, 40000), "headers": headers})
    ws = forwarded_scope(
        {
            "type": "websocket",
            "scheme": "ws",
            "client": (PROXY, 40000),
            "headers": [(b"x-forwarded-for", b"6.6.6.6, 198.51.100.7")],
        }
    )
    bare = forwarded_scope({"type": "http", "scheme": "http", "client": (PROXY, 40000), "headers": []})

    assert (http["client"], http["scheme"]) == (("198.51.100.7", 0), "https")
    assert (ws["client"], ws["scheme"]) == (("198.51.100.7", 0), "ws")
    assert (bare["client"], bare["scheme"]) == ((PROXY, 40000), "http")


@pytest.fixture
def proxied_web_server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """`manage.py web` with HTTPS_PROXY=1, as behind nginx: the server reads the proxy's headers."""
    with django_db_blocker.unblock():
        database_url = database_url_for_tests()
    from django.conf import settings

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "web", "--port", str(port), "--processes", "1"],
        cwd=BASE_DIR,
        env=subprocess_env(DATABASE_URL=database_url, REDIS_URL=settings.REDIS_URL, HTTPS_PROXY="1"),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/healthz", timeout=5).close()
            break
        except urllib.error.HTTPError:
            break  # it answers
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process_group_stop(process, timeout=5)
                pytest.fail("the web server did not start")
            time.sleep(0.2)
    yield url
    process_group_stop(process, timeout=15)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _served_log_in(url: str, password: str, forwarded_for: str) -> int:
    """A login through the real server, as nginx forwards it (HTTPS ended, the address appended)."""
    proxy_headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": forwarded_for}
    with urllib.request.urlopen(urllib.request.Request(f"{url}/admin/login/", headers=proxy_headers)) as page:
        cookie = re.search(r"csrftoken=([^;]+)", page.headers["Set-Cookie"])
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
    assert cookie and token
    form = f"username=lin&password={password}&csrfmiddlewaretoken={token.group(1)}".encode()
    request = urllib.request.Request(
        f"{url}/admin/login/",
        data=form,
        headers={
            **proxy_headers,
            "Cookie": f"csrftoken={cookie.group(1)}",
            "Origin": url.replace("http://", "https://"),
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    try:
        with urllib.request.build_opener(_NoRedirect).open(request) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.django_db(transaction=True)
def test_through_the_real_server_a_forged_header_does_not_escape_the_lockout(
    proxied_web_server: str, settings: Any
) -> None:
    # given
    User.objects.create_user("lin", password="right-password-1", is_staff=True)
    tried = [
        _served_log_in(proxied_web_server, "guess", f"192.0.2.{attempt + 1}, 198.51.100.7")
        for attempt in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert tried == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]  # the form again, then the lockout

    # when
    forged = _served_log_in(proxied_web_server, "right-password-1", "192.0.2.200, 198.51.100.7")
    other = _served_log_in(proxied_web_server, "right-password-1", "192.0.2.1, 198.51.100.8")

    # then
    assert forged == 429
    assert other == 302
