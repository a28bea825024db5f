"""POST …/messages?stream=1 over real HTTP: the web server, the channel layer on Redis and a real worker."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from agents.models import TurnRun
from conversations.api_keys import api_key_create
from conversations.services import conversation_take_over
from tests.agents.engine import sse_events
from tests.conftest import AsgiServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker", "exemplars")]


class Api:
    def __init__(self, server: AsgiServer) -> None:
        self.url = f"{server.url}/api/v1"
        _, self.key = api_key_create(name="shop")

    def request(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        return urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json", **(headers or {})},
        )

    def post(self, path: str, body: Any) -> Any:
        with urllib.request.urlopen(self.request(path, body), timeout=30) as response:
            return json.load(response)

    def get(self, path: str) -> Any:
        request = urllib.request.Request(f"{self.url}{path}", headers={"Authorization": f"Bearer {self.key}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def stream(
        self, conversation_id: int, text: str, query: str = "?stream=1", **headers: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """The (event, data) pairs of one streamed POST, read as they arrive until the server ends it."""
        request = self.request(f"/conversations/{conversation_id}/messages{query}", {"text": text}, headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            return sse_events(response)


@pytest.fixture
def api(asgi_server: AsgiServer) -> Api:
    return Api(asgi_server)


@pytest.mark.parametrize(("locale", "text"), [("en", "What is your return policy?"), ("zh", "退货政策是什么？")])
def test_a_streamed_reply_arrives_as_ordered_events_ending_with_the_turn(api: Api, locale: str, text: str) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": f"sse_{locale}"}, "locale": locale})

    events = api.stream(conversation["id"], text)

    names = [name for name, _ in events]
    assert names[0] == "accepted" and names[-2:] == ["reply.done", "turn"]
    turn_id = events[0][1]["turn_id"]
    customer = names.index("message.created")
    assert events[customer][1]["message"]["sender"] == "customer" and events[customer][1]["message"]["text"] == text
    deltas = [data["delta"] for name, data in events if name == "reply.delta"]
    assert deltas and customer < names.index("reply.delta") < names.index("reply.done")
    assert all(data["turn_id"] == turn_id for name, data in events if name.startswith("reply."))
    done, body = events[-2][1], events[-1][1]
    assert "".join(deltas) == done["text"] == body["reply"]["text"]
    assert body == api.get(f"/conversations/{conversation['id']}/turns/{turn_id}")
    assert done["sources"] == body["reply"]["sources"] and done["awaiting"] == body["reply"]["awaiting"]


def test_a_streamed_escalation_reports_the_status_change_and_the_card(api: Api) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": "sse_human", "email": "c@example.com"}})

    events = api.stream(conversation["id"], "转人工")

    names = [name for name, _ in events]
    assert names.index("status.changed") < names.index("reply.done") < names.index("turn")
    assert dict(events)["status.changed"]["status"] == "waiting_human"
    assert dict(events)["turn"]["escalation"]["reason"] == "requested"


def test_a_retried_stream_replays_the_first_turn_without_a_second_one(api: Api) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": "sse_retry"}, "locale": "en"})

    first = api.stream(conversation["id"], "Hello!", **{"Idempotency-Key": "order-1"})
    again = api.stream(conversation["id"], "Hello!", **{"Idempotency-Key": "order-1"})

    assert [name for name, _ in again] == ["accepted", "reply.done", "turn"]
    assert dict(again)["reply.done"] == dict(first)["reply.done"] and dict(again)["turn"] == dict(first)["turn"]
    assert TurnRun.objects.filter(conversation_id=conversation["id"]).count() == 1


def test_a_stream_into_a_chat_a_person_has_ends_at_once_with_the_skipped_turn(api: Api, staff_bob: Any) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": "sse_taken"}, "locale": "zh"})
    conversation_take_over(conversation_id=conversation["id"], staff=staff_bob)

    events = api.stream(conversation["id"], "还在吗？")

    assert [name for name, _ in events] == ["accepted", "turn"]
    turn = events[-1][1]
    assert turn["turn_status"] == "skipped" and turn["status"] == "human" and turn["reply"]["text"] == ""


@pytest.mark.parametrize(("text", "code"), [("   ", "empty"), ("长" * 2001, "too_long")])
def test_a_refused_streamed_message_gets_the_error_shape_not_a_stream(api: Api, text: str, code: str) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": "sse_bad"}, "locale": "zh"})

    with pytest.raises(urllib.error.HTTPError) as refused:
        api.stream(conversation["id"], text)

    assert refused.value.code == 400 and refused.value.headers["Content-Type"] == "application/json"
    assert json.load(refused.value)["error"]["code"] == code
    assert not TurnRun.objects.filter(conversation_id=conversation["id"]).exists()


@pytest.mark.parametrize(("locale", "text"), [("zh", "退货政策是什么？"), ("en", "What is your return policy?")])
def test_accept_event_stream_alone_asks_for_the_stream_as_sse_clients_send_it(api: Api, locale: str, text: str) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": f"sse-{locale}", "locale": locale}})

    events = api.stream(conversation["id"], text, query="", Accept="text/event-stream")

    assert [name for name, _ in events][0] == "accepted" and events[-1][0] == "turn"
    assert events[-1][1]["reply"]["text"]


def test_an_error_for_an_event_stream_client_is_an_ordinary_json_error(api: Api) -> None:
    conversation = api.post("/conversations", {"customer": {"external_id": "sse-refused"}})
    request = api.request(
        f"/conversations/{conversation['id']}/messages", {"text": "  "}, {"Accept": "text/event-stream"}
    )

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)

    assert refused.value.code == 400 and refused.value.headers["Content-Type"] == "application/json"
    assert json.load(refused.value)["error"]["code"] == "empty"
