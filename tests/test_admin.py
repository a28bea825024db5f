"""Every model is in the admin, and its list page renders with search and filters."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tickets.models import Ticket
from tickets.services import ticket_create

PROJECT_APPS = ["conversations", "store", "tickets", "knowledge"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_logged_in(client: Client) -> Client:
    user = User.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(user)
    return client


def test_every_project_model_is_registered() -> None:
    models = [m for label in PROJECT_APPS for m in apps.get_app_config(label).get_models()]

    assert models
    assert [m.__name__ for m in models if m not in admin.site._registry] == []


@pytest.mark.parametrize("app_label", PROJECT_APPS)
def test_changelists_render_with_search_and_first_filter(admin_client_logged_in: Client, app_label: str) -> None:
    call_command("seed_demo", verbosity=0)
    for model in apps.get_app_config(app_label).get_models():
        model_admin = admin.site._registry[model]
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")

        assert admin_client_logged_in.get(url).status_code == 200, url
        assert model_admin.search_fields, f"{model.__name__} has no search"
        assert admin_client_logged_in.get(url, {"q": "X9"}).status_code == 200, url
        assert len(model_admin.list_display) >= 3, f"{model.__name__} lists too few columns"


def test_ticket_admin_actions_follow_the_transition_table(admin_client_logged_in: Client) -> None:
    ticket = ticket_create(kind="return", subject="Return #D1003")
    url = reverse("admin:tickets_ticket_changelist")

    admin_client_logged_in.post(url, {"action": "mark_closed", "_selected_action": [ticket.pk]})
    assert Ticket.objects.get(pk=ticket.pk).status == "open"  # open → closed is not allowed

    admin_client_logged_in.post(url, {"action": "mark_resolved", "_selected_action": [ticket.pk]})
    assert Ticket.objects.get(pk=ticket.pk).status == "resolved"
    assert ticket.events.filter(kind="status_changed", to_status="resolved").count() == 1


def test_the_demo_staff_login_reaches_the_admin_in_demo_mode(client: Client, settings: Any) -> None:
    settings.DEMO_MODE = True
    call_command("seed_demo", verbosity=0)

    response = client.post(reverse("admin:login"), {"username": "staff", "password": "staff-demo-123"})
    assert response.status_code == 302
    assert client.get(reverse("admin:tickets_ticket_changelist")).status_code == 200
