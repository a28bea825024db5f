"""The YAML format of a conversation test (docs/testing.md): what it reads, and a mistake named by where it is."""

from __future__ import annotations

import pytest

from conversation_tests.spec import (
    AwaitExpect,
    Shopper,
    SpecError,
    spec_dump,
    spec_read,
    suite_read,
    yaml_load,
    yaml_text,
)

FULL = """
suite: Returns
tests:
  - name: The window
    language: en
    shopper: {signed: demo_li_wei}
    orders:
      - {order: "#D1001", status: delivered, delivered_days_ago: 3}
    turns:
      - say: "Return #D1001"
        expect:
          contains: 7 days
          not_contains: [30 days, 14 days]
          cites: Returns
          intent: return
          awaits: {slot: payment_method_id, choices: [paypal]}
          escalated: false
          tool: {name: get_order_info, arguments: {order_id: "#D1001"}}
          order: {order: "#D1001", status: delivered}
      - say: yes
        expect:
          escalated: {reason: requested}
          awaits: nothing
"""


def test_a_whole_test_is_read() -> None:
    [case] = suite_read(FULL, default_name="returns")

    assert (case.suite, case.name, case.language) == ("Returns", "The window", "en")
    assert case.shopper == Shopper("signed", "demo_li_wei")
    assert case.orders[0].status == "delivered" and case.orders[0].delivered_days_ago == 3
    first, second = case.turns
    assert first.say == "Return #D1001"
    assert first.expect.contains == ("7 days",) and first.expect.not_contains == ("30 days", "14 days")
    assert first.expect.awaits == AwaitExpect("payment_method_id", ("paypal",))
    assert first.expect.escalated is False
    assert first.expect.tools[0].arguments == {"order_id": "#D1001"}
    assert first.expect.orders[0].order == "#D1001"
    # yes, no, on and off are what the shopper says, not booleans (YAML 1.2)
    assert second.say == "yes"
    assert second.expect.escalated is True and second.expect.escalation_reason == "requested"
    assert second.expect.awaits == AwaitExpect("")


def test_a_file_may_hold_one_test_and_takes_its_suite_from_the_file_name() -> None:
    [case] = suite_read("name: Hi\nturns:\n  - say: 你好\n", default_name="greetings")

    assert (case.suite, case.name, case.shopper.kind) == ("greetings", "Hi", "anonymous")


def test_a_dumped_test_reads_back_the_same() -> None:
    [case] = suite_read(FULL, default_name="x")

    again = spec_read(yaml_load(yaml_text(spec_dump(case))), suite="Returns")

    assert again == case


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("tests: [", "this is not valid YAML"),
        ("tests: []", "`tests` must be a list of tests"),
        ("name: x\n", "test 'x': `turns` must list at least one turn"),
        ("name: x\nturns:\n  - hello\n", "test 'x', turn 1: a turn needs `say`"),
        ("name: x\nturns:\n  - say: hi\n    expect: {contain: hi}\n", "unknown key 'contain' (known: contains,"),
        ("name: x\nturns:\n  - say: ''\n", "turn 1: say: a text is needed"),
        ("name: x\nshopper: demo_li_wei\nturns:\n  - say: hi\n", "`shopper` is anonymous, {signed:"),
        ("name: x\nlanguage: fr\nturns:\n  - say: hi\n", "`language` is zh or en, not 'fr'"),
        ("name: x\norders: [{order: '#1', status: lost}]\nturns:\n  - say: hi\n", "status 'lost' is not one of"),
        ("name: x\norders: [{order: '#1', delivered_days_ago: -2}]\nturns:\n  - say: hi\n", "a whole number of days"),
        ("name: x\nturns:\n  - say: hi\n    expect: {escalated: maybe}\n", "`escalated` is true, false or {reason"),
        ("name: x\nturns:\n  - say: hi\n    expect: {tool: {arguments: {}}}\n", "`tool` is a tool's name or"),
        ("tests:\n  - {name: a, turns: [{say: hi}]}\n  - {name: a, turns: [{say: ho}]}\n", "two tests are called 'a'"),
        ("suite: s\ntests: [{name: a, turns: [{say: hi}]}]\nextra: 1\n", "unknown key 'extra'"),
    ],
)
def test_a_mistake_is_named_by_where_it_is(text: str, said: str) -> None:
    with pytest.raises(SpecError) as error:
        suite_read(text, default_name="file")

    assert said in str(error.value)
