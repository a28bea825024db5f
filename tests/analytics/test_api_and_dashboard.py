"""GET /api/v1/analytics (admin scope) and the admin's dashboard, drill-down and CSV exports."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from conversations.api_keys import api_key_create
from conversations.models import Conversation, Customer
from tickets.staff import support_group_ensure

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("exemplars", "parked_queue")]


def _text(response: Any) -> str:
    """A streamed CSV, read as a spreadsheet would (its byte-order mark dropped)."""
    return b"".join(response.streaming_content).decode("utf-8-sig")


def _get(client: Client, url: str, scopes: list[str]) -> Any:
    _, key = api_key_create(name="owner", scopes=scopes)
    return client.get(url, headers={"Authorization": f"Bearer {key}"})


def test_the_api_gives_the_figures_of_a_period(client: Client, played: dict[str, Conversation]) -> None:
    today = timezone.now().date().isoformat()
    response = _get(client, f"/api/v1/analytics?from={today}&to={today}", ["admin"])

    body = response.json()
    assert response.status_code == 200
    assert {
        "conversations",
        "resolution_rate",
        "containment_rate",
        "escalations_by_reason",
        "csat",
        "intents",
        "latency_ms",
        "cache_hit_rates",
        "knowledge_misses",
        "series",
    } <= set(body)
    assert (body["conversations"], body["resolution_rate"]) == (4, 0.5)
    assert body["series"] == [
        {
            "date": today,
            "conversations": 4,
            "resolved": 2,
            "escalated": 1,
            "resolution_rate": 0.5,
            "containment_rate": 0.75,
            "ratings": 2,
            "csat": 3.5,
        }
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("from=2026-02-30", "from"),
        ("to=tomorrow", "to"),
        ("from=2026-05-02&to=2026-05-01", "from"),
        ("from=2020-01-01&to=2026-01-01", "from"),
    ],
)
def test_a_bad_period_is_a_400_naming_the_field(client: Client, query: str, field: str) -> None:
    response = _get(client, f"/api/v1/analytics?{query}", ["admin"])

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid" and response.json()["error"]["field"] == field


def test_the_analytics_need_the_admin_scope(client: Client) -> None:
    refused = _get(client, "/api/v1/analytics", ["chat", "kb", "tickets"])
    anonymous = client.get("/api/v1/analytics")

    assert refused.status_code == 403 and "error" in refused.json()
    assert anonymous.status_code == 401 and "error" in anonymous.json()


@pytest.fixture
def owner(client: Client) -> Client:
    user = User.objects.create_user("owner", password="pw", is_staff=True)
    user.groups.add(support_group_ensure())
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", ["Resolution rate", "50%", "Escalations by reason"]), ("zh-hans", ["解决率", "50%", "转人工原因"])],
)
def test_the_dashboard_shows_the_figures_in_the_staff_members_language(
    owner: Client, played: dict[str, Conversation], language: str, words: list[str]
) -> None:
    page = owner.get("/admin/analytics/", headers={"Accept-Language": language})

    assert page.status_code == 200
    text = page.content.decode()
    for word in words:
        assert word in text
    assert text.count('data-testid="analytics-chart"') == 5 and "<script" not in text.split("<svg", 1)[1]


def test_a_card_drills_down_to_the_conversations_behind_it(owner: Client, played: dict[str, Conversation]) -> None:
    today = timezone.now().date().isoformat()
    page = owner.get(f"/admin/analytics/conversations/?figure=resolved&from={today}&to={today}")
    exported = owner.get(f"/admin/analytics/conversations/?figure=resolved&from={today}&to={today}&format=csv")

    text = page.content.decode()
    assert page.status_code == 200 and text.count('data-testid="analytics-drilldown-row"') == 2
    rows = list(csv.reader(io.StringIO(_text(exported))))
    assert rows[0][:2] == ["id", "customer"]
    assert {int(row[0]) for row in rows[1:]} == {played["ended"].pk, played["quiet"].pk}


def test_the_daily_export_has_a_row_a_day_and_defuses_formulas(owner: Client, played: dict[str, Conversation]) -> None:
    evil = Conversation.objects.create(customer=Customer.objects.create(external_id="=HYPERLINK(1)"), turn_count=1)
    today = timezone.now().date()
    daily = owner.get(f"/admin/analytics/export.csv?from={today.replace(day=1).isoformat()}&to={today.isoformat()}")
    drilled = owner.get(f"/admin/analytics/conversations/?figure=conversations&format=csv&to={today.isoformat()}")

    rows = list(csv.reader(io.StringIO(_text(daily))))
    assert daily["Content-Type"].startswith("text/csv") and len(rows) == today.day + 1
    assert rows[-1][:3] == [today.isoformat(), "5", "2"]
    drilled_rows = list(csv.reader(io.StringIO(_text(drilled))))
    assert [row[1] for row in drilled_rows if row[0] == str(evil.pk)] == ["'=HYPERLINK(1)"]


def test_a_bad_period_on_the_dashboard_says_so_and_shows_the_last_thirty_days(owner: Client) -> None:
    page = owner.get("/admin/analytics/?from=not-a-date")
    unknown = owner.get("/admin/analytics/conversations/?figure=everything")

    assert page.status_code == 200 and 'data-testid="analytics-refused"' in page.content.decode()
    assert unknown.status_code == 200 and "everything" in unknown.content.decode()


def test_the_dashboard_needs_the_permission_to_view_conversations(client: Client) -> None:
    anonymous = client.get("/admin/analytics/")
    client.force_login(User.objects.create_user("intern", password="pw", is_staff=True))
    refused = client.get("/admin/analytics/")

    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    assert refused.status_code == 403


def test_the_store_closes_a_chat_with_the_rating_it_collected(client: Client) -> None:
    from conversations.models import Rating
    from conversations.services import conversation_start

    chat = conversation_start(customer=Customer.objects.create(external_id="erp-1"), channel="api")
    _, key = api_key_create(name="erp")
    auth = {"Authorization": f"Bearer {key}"}
    url = f"/api/v1/conversations/{chat.pk}/close"

    refused = client.post(url, {"reason": "refund", "rating": 6}, content_type="application/json", headers=auth)
    unchanged = Conversation.objects.get(pk=chat.pk).status
    closed = client.post(
        url,
        {"reason": "refund", "rating": 4, "comment": "refunded fast"},
        content_type="application/json",
        headers=auth,
    )

    assert refused.status_code == 400 and refused.json()["error"]["field"] == "rating" and unchanged == "bot"
    assert closed.status_code == 200 and closed.json()["resolution"] == "refund"
    rating = Rating.objects.get(conversation=chat)
    assert (rating.score, rating.comment, rating.staff_id) == (4, "refunded fast", None)
    assert Conversation.objects.get(pk=chat.pk).closed_by == "store"
