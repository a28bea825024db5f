"""/api/v1/tickets: filters, reading, status moves through the transition table, assignment."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from conversations.api_keys import api_key_create
from conversations.models import Customer
from tickets.models import Ticket, TicketEvent, TicketEventKind
from tickets.services import ticket_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client: Client) -> Any:
    _, key = api_key_create(name="helpdesk", scopes=["tickets"])

    def call(method: str, path: str, body: Any = None) -> Any:
        kwargs: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
        if body is not None:
            kwargs.update(data=json.dumps(body) if not isinstance(body, str) else body, content_type="application/json")
        return getattr(client, method)(f"/api/v1{path}", **kwargs)

    return call


@pytest.fixture
def tickets() -> list[Ticket]:
    ada = Customer.objects.create(external_id="ada")
    bob = Customer.objects.create(external_id="bob")
    made = [
        ticket_create(kind="return", subject="Return earbuds", customer=ada, order_ref="D1002"),
        ticket_create(kind="invoice", subject="Company invoice", customer=ada),
        ticket_create(kind="return", subject="Return phone", customer=bob),
    ]
    Ticket.objects.filter(pk=made[0].pk).update(created_at=timezone.now() - timedelta(days=3))
    return made


def test_filters_combine_and_the_newest_come_first(api: Any, tickets: list[Ticket]) -> None:
    everything = api("get", "/tickets").json()
    returns = api("get", "/tickets?kind=return").json()
    adas_returns = api("get", "/tickets?kind=return&customer=ada").json()
    recent = api(
        "get", f"/tickets?created_after={(timezone.now() - timedelta(days=1)).isoformat()}".replace("+", "%2B")
    ).json()
    older = api(
        "get", f"/tickets?created_before={(timezone.now() - timedelta(days=1)).isoformat()}".replace("+", "%2B")
    ).json()
    open_ = api("get", "/tickets?status=open&page_size=1").json()

    assert everything["count"] == 3 and [t["subject"] for t in everything["results"]][0] == "Return phone"
    assert {t["subject"] for t in returns["results"]} == {"Return earbuds", "Return phone"}
    assert [t["subject"] for t in adas_returns["results"]] == ["Return earbuds"]
    assert adas_returns["results"][0]["order_ref"] == "D1002" and adas_returns["results"][0]["reference"].startswith(
        "T-"
    )
    assert {t["subject"] for t in recent["results"]} == {"Company invoice", "Return phone"}
    assert [t["subject"] for t in older["results"]] == ["Return earbuds"]
    assert open_["count"] == 3 and len(open_["results"]) == 1 and open_["next"]


@pytest.mark.parametrize(
    ("query", "field"),
    [("kind=teleport", "kind"), ("status=lost", "status"), ("created_after=yesterday", "created_after")],
)
def test_bad_filters_get_the_error_shape(api: Any, query: str, field: str) -> None:
    response = api("get", f"/tickets?{query}")

    assert response.status_code == 400 and response.json()["error"]["field"] == field


def test_a_status_moves_only_along_the_table(api: Any, tickets: list[Ticket]) -> None:
    ticket = tickets[0]

    working = api("patch", f"/tickets/{ticket.pk}", {"status": "in_progress", "note": "on it"})
    done = api("patch", f"/tickets/{ticket.pk}", {"status": "resolved"})
    closed = api("patch", f"/tickets/{ticket.pk}", {"status": "closed"})
    illegal = api("patch", f"/tickets/{ticket.pk}", {"status": "open"})

    assert working.status_code == 200 and working.json()["status"] == "in_progress"
    assert done.json()["resolved_at"] and closed.json()["status"] == "closed"
    assert illegal.status_code == 409
    assert illegal.json()["error"] == {
        "code": "illegal_transition",
        "message": "a ticket cannot go from closed to open",
        "field": "status",
    }
    moves = TicketEvent.objects.filter(ticket=ticket, kind=TicketEventKind.STATUS_CHANGED)
    assert [(e.from_status, e.to_status) for e in moves] == [
        ("open", "in_progress"),
        ("in_progress", "resolved"),
        ("resolved", "closed"),
    ]
    assert moves.first().note == "on it"


def test_assigning_and_unassigning(api: Any, tickets: list[Ticket]) -> None:
    User.objects.create_user(username="lin", is_staff=True)
    User.objects.create_user(username="shopper", is_staff=False)
    ticket = tickets[1]

    assigned = api("patch", f"/tickets/{ticket.pk}", {"assignee": "lin"})
    not_staff = api("patch", f"/tickets/{ticket.pk}", {"assignee": "shopper"})
    unassigned = api("patch", f"/tickets/{ticket.pk}", {"assignee": None})

    assert assigned.status_code == 200 and assigned.json()["assignee"] == "lin"
    assert not_staff.status_code == 400 and not_staff.json()["error"]["field"] == "assignee"
    assert unassigned.json()["assignee"] is None
    events = TicketEvent.objects.filter(ticket=ticket, kind=TicketEventKind.ASSIGNED).values_list("note", flat=True)
    assert list(events) == ["assigned to lin", "unassigned"]


def test_reading_and_bad_patches(api: Any, tickets: list[Ticket]) -> None:
    one = api("get", f"/tickets/{tickets[2].pk}")
    missing = api("get", "/tickets/999999")
    empty = api("patch", f"/tickets/{tickets[2].pk}", {})
    malformed = api("patch", f"/tickets/{tickets[2].pk}", "{oops")
    unknown = api("patch", f"/tickets/{tickets[2].pk}", {"status": "teleported"})
    deleted = api("delete", f"/tickets/{tickets[2].pk}")

    assert one.status_code == 200 and one.json()["customer"] == "bob" and one.json()["kind"] == "return"
    assert missing.status_code == 404 and "error" in missing.json()
    assert empty.status_code == 400 and "Give a status" in empty.json()["error"]["message"]
    assert malformed.status_code == 400 and "error" in malformed.json()
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "status"
    assert deleted.status_code == 405 and "error" in deleted.json()
    assert Ticket.objects.get(pk=tickets[2].pk).status == "open"


def test_a_chat_only_key_cannot_see_tickets(client: Client, tickets: list[Ticket]) -> None:
    _, key = api_key_create(name="chat-only", scopes=["chat"])

    response = client.get("/api/v1/tickets", HTTP_AUTHORIZATION=f"Bearer {key}")

    assert (
        response.status_code == 403 and response.json()["error"]["message"] == "This API key lacks the 'tickets' scope."
    )
