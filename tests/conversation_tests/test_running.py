"""Running conversation tests against the live engine: the demo's suite passes, a test leaves nothing behind, and
a failure says what should have happened and what did, in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management.base import CommandError
from django.utils import translation

from agents.models import TurnRun
from conversation_tests.failures import Failure
from conversation_tests.models import ConversationTestRun, RunTrigger
from conversation_tests.runner import spec_run
from conversation_tests.services import cases_from_paths
from conversations.models import Conversation, Message, OutboxEmail
from knowledge.services import knowledge_version
from stores.builtin.models import Order
from tests.conversation_tests.conftest import CommandRun
from tickets.models import EscalationCard, Ticket
from webhooks.models import WebhookDelivery, WebhookSubscription

pytestmark = pytest.mark.usefixtures("demo")


def test_the_demo_suite_passes_with_its_coverage(command: CommandRun) -> None:
    status, out = command()

    assert status == 0, out
    assert "35 passed, 0 failed" in out
    assert out.count("PASS ") == 35 and "FAIL " not in out
    assert (
        "PASS 订单（中文） › 取消待发货订单" in out
        and "PASS Orders (en) › Cancelling a pending order, confirmed" in out
    )
    assert "workflows: 4 of 8 exercised" in out and "never touched: exchange, invoice, modify_order, repair" in out
    run = ConversationTestRun.objects.get()
    assert run.trigger == RunTrigger.COMMAND and (run.total, run.passed, run.failed) == (35, 35, 0)
    assert "cancel_pending_order" in run.coverage["tools"]["exercised"]
    assert "Warranty and repairs (en)" in run.coverage["articles"]["exercised"]
    assert "产品使用指南与故障排查 (zh)" in run.coverage["articles"]["untouched"]


def test_a_test_leaves_no_chat_order_ticket_mail_or_cache_key_behind(tmp_path: Path) -> None:
    WebhookSubscription.objects.create(url="https://example.com/hook", events=["message.created"], secret="whsec_x")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        """
tests:
  - name: cancel and hand over
    shopper: {signed: demo_li_wei}
    orders: [{order: "#D1001", status: pending}]
    turns:
      - {say: "I want to cancel order #D1001"}
      - {say: I ordered by mistake}
      - {say: "yes", expect: {order: {order: "#D1001", status: cancelled}}}
      - {say: I want to talk to a real person, expect: {escalated: true}}
  - name: prove an email
    turns:
      - {say: "Where is my order #D2002?"}
      - {say: emma.wilson@example.com}
      - {say: "{code}", expect: {contains: "you're verified"}}
""",
        encoding="utf-8",
    )
    Order.objects.filter(external_id="#D1001").update(status="processed")
    tables = (Conversation, Message, TurnRun, Ticket, EscalationCard, WebhookDelivery, OutboxEmail)
    before = {model.__name__: model.objects.count() for model in tables}
    knowledge_version()  # made on the first read of the knowledge, by any chat
    keys_before = set(cache.keys("*"))  # type: ignore[attr-defined]

    outcomes = [spec_run(test.case) for test in cases_from_paths([suite]) if test.case]

    assert [o.passed for o in outcomes] == [True, True], [list(map(str, o.failures)) for o in outcomes]
    assert {model.__name__: model.objects.count() for model in tables} == before
    assert Order.objects.get(external_id="#D1001").status == "processed"  # the store's own state, as it was
    assert set(cache.keys("*")) == keys_before  # type: ignore[attr-defined]


def _failures_of(tmp_path: Path, yaml_text: str) -> list[Failure]:
    suite = tmp_path / "t.yaml"
    suite.write_text(yaml_text, encoding="utf-8")
    [test] = cases_from_paths([suite])
    assert test.case is not None
    return spec_run(test.case).failures


WRONG = """
name: wrong about everything
shopper: {signed: demo_li_wei}
orders: [{order: "#D1001", status: pending}]
turns:
  - say: How many days do I have to return something?
    expect:
      contains: 30 days
      not_contains: 7 days
      cites: Invoices
      intent: invoice
      awaits: order_id
      escalated: true
      tool: list_orders
      order: {order: "#D1001", status: cancelled}
"""


def test_each_failure_says_what_should_have_happened_and_what_did(tmp_path: Path) -> None:
    said = [str(f) for f in _failures_of(tmp_path, WRONG)]

    assert said[0].startswith("Turn 1: the reply should mention “30 days”, but it said: “Delivered items can be")
    assert said[1].startswith("Turn 1: the reply should not mention “7 days”, but it said:")
    assert said[2] == (
        "Turn 1: the reply should cite the article “Invoices”, but it cited: "
        "Returns and exchanges › Return policy: 7-day no-reason returns"
    )
    assert said[3] == "Turn 1: the message should be read as invoice, but it was read as: policy_inquiry"
    assert said[4] == "Turn 1: the assistant should wait for “order_id”, but it waited for: nothing"
    assert said[5] == "Turn 1: the chat should have gone to a person, but the assistant answered it itself"
    assert said[6] == "Turn 1: the assistant should have called list_orders, but it called: nothing"
    assert said[7] == "Turn 1: order #D1001 should be cancelled afterwards, but it is: pending"
    assert len(said) == 8


def test_failures_are_said_in_chinese_to_a_chinese_reader(tmp_path: Path) -> None:
    failures = _failures_of(tmp_path, WRONG)

    with translation.override("zh-hans"):
        said = [str(f) for f in failures]

    assert said[0].startswith("第 1 轮：回复应当提到“30 days”，但它说的是：“Delivered items")
    assert said[7] == "第 1 轮：订单 #D1001 之后应为 cancelled，但现在是：pending"


def test_a_tool_called_with_other_arguments_and_a_wrong_hand_over_reason_are_named(tmp_path: Path) -> None:
    said = [
        str(f)
        for f in _failures_of(
            tmp_path,
            """
name: arguments
shopper: {signed: demo_li_wei}
turns:
  - say: 我的订单 D1002 到哪了
    expect:
      tool: {name: get_logistics_info, arguments: {order_id: "#D1003"}}
  - say: 我要投诉，转人工
    expect:
      escalated: {reason: emotion}
""",
        )
    ]

    assert said == [
        'Turn 1: the assistant should have called get_logistics_info {"order_id": "#D1003"}, but it called: '
        'get_logistics_info {"order_id": "#D1002"}',
        "Turn 2: the chat should go to a person for emotion, but it went for requested",
    ]


def test_a_fixture_the_store_lacks_stops_the_test_before_its_first_turn(tmp_path: Path) -> None:
    no_customer = _failures_of(tmp_path, "name: a\nshopper: {verified: nobody}\nturns: [{say: hi}]\n")
    no_order = _failures_of(tmp_path, "name: b\norders: [{order: '#X9'}]\nturns: [{say: hi}]\n")

    assert [str(f) for f in no_customer] == ["The test could not start: the store has no customer “nobody”"]
    assert [str(f) for f in no_order] == ["The test could not start: the store has no order #X9"]


def test_a_failing_file_exits_1_and_repeat_reports_pass_k(tmp_path: Path, command: CommandRun) -> None:
    (tmp_path / "suite.yaml").write_text(
        """
suite: mine
tests:
  - name: passes
    turns: [{say: 转人工, expect: {escalated: true}}]
  - name: fails
    turns: [{say: 转人工, expect: {escalated: false}}]
""",
        encoding="utf-8",
    )

    status, out = command(tmp_path, "--repeat", "3")

    assert status == 1
    assert "PASS mine › passes" in out and "FAIL mine › fails" in out
    assert "Turn 1: the assistant should have answered, but the chat went to a person (requested)" in out
    assert "1 passed, 1 failed" in out and "pass^3: 0.50 (each attempt: 0.50)" in out


def test_a_file_that_does_not_read_is_refused_before_anything_runs(tmp_path: Path, command: CommandRun) -> None:
    (tmp_path / "bad.yaml").write_text("name: x\nturns:\n  - sayy: hi\n", encoding="utf-8")

    with pytest.raises(CommandError, match=r"bad.yaml: test 'x', turn 1: a turn needs `say`"):
        command(tmp_path / "bad.yaml")
    with pytest.raises(CommandError, match="missing.yaml: no such file or folder"):
        command(tmp_path / "missing.yaml")
    with pytest.raises(CommandError, match="--repeat is 1 or more"):
        command(tmp_path / "bad.yaml", "--repeat", "0")
    assert not ConversationTestRun.objects.exists()
