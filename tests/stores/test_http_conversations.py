"""Chats whose orders live in the store's own system (STORE_BACKEND=http, the store server in another process):
the same conversations as on the built-in tables, and a polite "can't reach the order system" when it is down."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.management import call_command

from agents.tools import ToolContext, tool_call
from conversations.language import say
from conversations.models import Conversation, Customer, WorkflowState
from conversations.services import conversation_start
from stores.builtin.models import Order, PaymentTransaction
from tests.agents.engine import run_turn
from tests.stores.conftest import StoreServer, store_down

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("exemplars", "parked_queue"),
]


def _chat(customer_id: str, language: str) -> Conversation:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id=f"guest_{customer_id}"), language=language)
    Conversation.objects.filter(pk=chat.pk).update(verified_customer=Customer.objects.get(external_id=customer_id))
    chat.refresh_from_db()
    return chat


@pytest.mark.parametrize(
    ("customer_id", "language", "request_", "yes"),
    [
        ("demo_li_wei", "zh", "我要取消订单 #D1001，不需要了", "好的"),
        ("demo_li_wei", "en", "Please cancel order #D1001, I no longer need it", "yes"),
    ],
)
def test_a_cancellation_is_written_in_the_stores_own_system(
    http_store: StoreServer, customer_id: str, language: str, request_: str, yes: str
) -> None:
    chat = _chat(customer_id, language)

    proposal = run_turn(chat, request_)
    assert proposal.reply["awaiting"]["slot"] == "confirm"
    assert Order.objects.get(external_id="#D1001").status == "pending"
    done = run_turn(chat, yes)

    assert Order.objects.get(external_id="#D1001").status == "cancelled"  # written by the store server
    assert ("取消订单 #D1001" if language == "zh" else "cancelled") in done.reply["text"]


@pytest.mark.parametrize(
    ("language", "question"), [("zh", "我的订单 #D2002 到哪了？"), ("en", "Where is my order #D2002?")]
)
def test_a_parcel_is_tracked_through_the_store_api(http_store: StoreServer, language: str, question: str) -> None:
    chat = _chat("demo_emma_wilson", language)

    turn = run_turn(chat, question)

    assert "1Z999AA10123456785" in turn.reply["text"] or "UPS" in turn.reply["text"]


@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "我的订单 #D1002 到哪了？", "连不上订单系统"),
        ("en", "Where is my order #D1002?", "can't reach the order system"),
    ],
)
def test_a_store_that_is_down_is_said_plainly_and_a_person_offered(
    http_store: StoreServer, settings: Any, language: str, question: str, said: str
) -> None:
    chat = _chat("demo_li_wei", language)
    store_down(settings)

    turn = run_turn(chat, question)

    assert said in turn.reply["text"]
    assert say(language, "Talk to a person") in turn.reply["quick_replies"]


@pytest.mark.parametrize(
    ("language", "request_", "yes", "said"),
    [
        ("zh", "我要取消订单 #D1001，不需要了", "好的", "无法确认"),
        ("en", "Please cancel order #D1001, I no longer need it", "yes", "can't confirm"),
    ],
)
def test_a_write_the_store_could_not_take_is_not_reported_done_and_can_be_tried_again(
    http_store: StoreServer, settings: Any, language: str, request_: str, yes: str, said: str
) -> None:
    chat = _chat("demo_li_wei", language)
    run_turn(chat, request_)
    url = settings.STORE_API_URL

    store_down(settings)
    refused = run_turn(chat, yes)

    assert said in refused.reply["text"]
    assert Order.objects.get(external_id="#D1001").status == "pending"
    assert WorkflowState.objects.get(conversation=chat, status="active").step == "confirm"

    settings.STORE_API_URL, settings.STORE_API_TIMEOUT_S = url, 5
    run_turn(chat, yes)
    assert Order.objects.get(external_id="#D1001").status == "cancelled"


@pytest.mark.parametrize(
    ("language", "question", "said"),
    [
        ("zh", "我的订单 #D1002 到哪了？我的邮箱是 li.wei@example.com", "连不上订单系统"),
        ("en", "Where is my order #D1002? My email is li.wei@example.com", "can't reach the order system"),
    ],
)
def test_an_identity_the_store_cannot_check_now_is_said_plainly(
    http_store: StoreServer, settings: Any, language: str, question: str, said: str
) -> None:
    call_command("seed_demo", verbosity=0)
    chat = conversation_start(customer=Customer.objects.create(external_id="guest_unverified"), language=language)
    store_down(settings)

    turn = run_turn(chat, question)

    assert said in turn.reply["text"]


class _AnswerDropper(BaseHTTPRequestHandler):
    """Between the assistant and the store: passes every call on, and while `drop_writes` is set, hangs up on a
    write after the store has done it, so the answer is lost on the way back."""

    upstream = ""
    drop_writes = False
    write_status = ""  # set: a write's answer names this status instead of the store's

    def _relay(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        headers = {
            k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type", "idempotency-key")
        }
        request = urllib.request.Request(self.upstream + self.path, data=body, headers=headers, method=self.command)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, answer = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, answer = error.code, error.read()
        if self.command != "GET" and self.drop_writes:
            self.close_connection = True
            return  # done at the store; the answer never comes back
        if self.command != "GET" and self.write_status:
            answer = json.dumps({**json.loads(answer), "status": self.write_status}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST = do_PUT = _relay  # noqa: N815 - the names http.server calls

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def answer_dropper(http_store: StoreServer, settings: Any) -> Iterator[type[_AnswerDropper]]:
    _AnswerDropper.upstream, _AnswerDropper.drop_writes, _AnswerDropper.write_status = http_store.url, False, ""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AnswerDropper)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.STORE_API_URL = f"http://127.0.0.1:{server.server_address[1]}"
    yield _AnswerDropper
    server.shutdown()


@pytest.mark.parametrize(
    ("language", "request_", "yes", "unconfirmed", "done"),
    [
        ("zh", "我要取消订单 #D1001，不需要了", "好的", "无法确认", "取消订单 #D1001"),
        ("en", "Please cancel order #D1001, I no longer need it", "yes", "can't confirm", "cancelled"),
    ],
)
def test_a_write_whose_answer_was_lost_is_not_called_undone_and_the_next_yes_does_it_once(
    answer_dropper: type[_AnswerDropper], language: str, request_: str, yes: str, unconfirmed: str, done: str
) -> None:
    chat = _chat("demo_li_wei", language)
    run_turn(chat, request_)

    answer_dropper.drop_writes = True
    lost = run_turn(chat, yes)
    assert unconfirmed in lost.reply["text"] and "nothing has been changed" not in lost.reply["text"]
    assert Order.objects.get(external_id="#D1001").status == "cancelled"  # the store did it all the same

    answer_dropper.drop_writes = False
    again = run_turn(chat, yes)

    assert done in again.reply["text"]
    refunds = PaymentTransaction.objects.filter(order__external_id="#D1001", kind="refund")
    assert refunds.count() == Order.objects.get(external_id="#D1001").transactions.filter(kind="payment").count()


def test_a_writes_result_is_the_order_read_back_from_the_store(answer_dropper: type[_AnswerDropper]) -> None:
    _chat("demo_li_wei", "en")
    li = ToolContext(conversation_id=None, customer=Customer.objects.get(external_id="demo_li_wei"))
    answer_dropper.write_status = "processed"  # what the write's answer says, not what the store holds

    done = tool_call("cancel_pending_order", li, {"order_id": "#D1001", "reason": "no longer needed"})

    assert done["status"] == "cancelled" == Order.objects.get(external_id="#D1001").status
