"""Staff logins: wrong passwords lock a login out (django-axes), and only superusers handle API keys."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from conversations.api_keys import api_key_create
from conversations.models import ApiKey
from tickets.staff import SUPPORT_GROUP, support_group_ensure

pytestmark = pytest.mark.django_db


def log_in(client: Client, password: str, username: str = "lin", **headers: Any) -> Any:
    return client.post(reverse("admin:login"), {"username": username, "password": password}, **headers)


@pytest.fixture
def staff() -> User:
    user = User.objects.create_user("lin", password="right-password-1", is_staff=True)
    user.groups.add(support_group_ensure())
    return user


@pytest.mark.parametrize(
    ("accept_language", "lockout_words"), [("en", "Login temporarily locked"), ("zh-CN", "登录已暂时锁定")]
)
def test_five_wrong_passwords_lock_the_login_even_against_the_right_one(
    staff: User, accept_language: str, lockout_words: str
) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=accept_language)
    for _ in range(4):
        assert log_in(client, "guess").status_code == 200  # the form again, with its error

    locked = log_in(client, "guess")
    after = log_in(client, "right-password-1")

    assert locked.status_code == 429 and lockout_words in locked.content.decode()
    assert after.status_code == 429 and "_auth_user_id" not in client.session
    assert "15" in after.content.decode()  # how long, in minutes


def test_the_lockout_is_for_that_login_from_that_address(staff: User) -> None:
    for _ in range(5):
        log_in(Client(REMOTE_ADDR="203.0.113.7"), "guess")

    # the same login from another address, and another login from the same address, still work
    assert log_in(Client(REMOTE_ADDR="198.51.100.2"), "right-password-1").status_code == 302
    User.objects.create_user("mei", password="mei-password-1", is_staff=True)
    assert log_in(Client(REMOTE_ADDR="203.0.113.7"), "mei-password-1", username="mei").status_code == 302


def test_a_successful_login_clears_earlier_failures(staff: User) -> None:
    client = Client()
    for _ in range(4):
        log_in(client, "guess")
    assert log_in(client, "right-password-1").status_code == 302

    for _ in range(4):
        log_in(Client(), "guess")
    assert log_in(Client(), "right-password-1").status_code == 302


def test_support_staff_cannot_see_or_raise_an_api_key(staff: User, client: Client) -> None:
    key, _ = api_key_create(name="shop backend", scopes=["chat"])
    client.force_login(staff)
    change = reverse("admin:conversations_apikey_change", args=[key.pk])

    assert client.get(reverse("admin:conversations_apikey_changelist")).status_code == 403
    assert client.get(change).status_code == 403
    response = client.post(change, {"name": key.name, "scopes": "admin"})

    assert response.status_code == 403
    assert ApiKey.objects.get(pk=key.pk).scopes == ["chat"]
    assert not any("apikey" in perm for perm in staff.get_all_permissions())
    assert staff.has_perm("conversations.take_over_conversation")


def test_a_superuser_changes_an_api_keys_scopes(client: Client) -> None:
    key, _ = api_key_create(name="shop backend", scopes=["chat"])
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))

    response = client.post(
        reverse("admin:conversations_apikey_change", args=[key.pk]), {"name": key.name, "scopes": "chat,kb"}
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    assert ApiKey.objects.get(pk=key.pk).scopes == ["chat", "kb"]


def test_the_support_group_is_brought_up_to_date_not_duplicated() -> None:
    first = support_group_ensure()
    second = support_group_ensure()

    assert first.pk == second.pk and first.name == SUPPORT_GROUP
    assert first.permissions.filter(codename="change_ticket").exists()


def test_what_the_readme_sends_staff_to_the_support_group_can_do(staff: User) -> None:
    client = Client()
    client.force_login(staff)

    home = client.get(reverse("admin:index")).content.decode()
    exemplars = client.get(reverse("admin:agents_intentexemplar_changelist"))
    add_exemplar = client.get(reverse("admin:agents_intentexemplar_add"))
    turns = client.get(reverse("admin:agents_turnrun_changelist"))

    assert 'data-testid="console-open"' in home and 'data-testid="console-header-link"' in home
    assert exemplars.status_code == 200 and add_exemplar.status_code == 200
    assert turns.status_code == 403  # the rest of the engine's tables are not staff's
    assert client.get(reverse("console")).status_code == 200
    # the header link is on every admin page, one click from anywhere
    assert 'data-testid="console-header-link"' in exemplars.content.decode()


def test_the_console_entry_is_in_the_staff_members_language(staff: User) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(staff)

    home = client.get(reverse("admin:index")).content.decode()

    assert "打开实时客服台" in home and ">实时客服台</a>" in home
