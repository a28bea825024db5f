"""The conversation test format (docs/testing.md): YAML read into plain records, every mistake named by where it
is and what is wrong, so a store owner can fix a file without reading code.

    suite: Returns                   # optional: the file's name otherwise
    tests:
      - name: The return window is 7 days
        language: en                 # optional: read from the first message otherwise
        shopper: anonymous           # or {signed: <customer id>} or {verified: <customer id>}
        orders:                      # optional: the store's orders as the test starts
          - {order: "#D1003", status: delivered, delivered_days_ago: 10}
        turns:
          - say: How long do I have to send something back?
            expect:
              contains: 7 days       # a text or a list of texts, any case
              not_contains: [30 days]
              cites: Returns         # an article's title, or a part of it
              intent: policy_inquiry
              awaits: {slot: order_id, choices: ["#D1001"]}   # or a slot's name, or `nothing`
              escalated: false       # or true, or {reason: user_request}
              tool: {name: get_order_details, arguments: {order_id: "#D1001"}}
              order: {order: "#D1001", status: cancelled}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from stores.records import OrderStatus

SHOPPER_KINDS = ("signed", "verified")
EXPECT_KEYS = ("contains", "not_contains", "cites", "intent", "awaits", "escalated", "tool", "order")
ORDER_STATES = tuple(OrderStatus.values)


class _Loader(yaml.SafeLoader):
    """YAML 1.2's booleans: only true and false. A shopper who says yes, no, on or off says it in words."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def yaml_load(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader: plain data only
    except yaml.YAMLError as exc:
        raise SpecError(f"this is not valid YAML: {exc}") from None


class SpecError(ValueError):
    """A test file or test that cannot be read: the message says where and what."""


@dataclass(frozen=True)
class Shopper:
    kind: str = "anonymous"  # anonymous, signed (the site signed them in) or verified (proved in the chat)
    customer: str = ""  # the store's customer id

    def as_yaml(self) -> Any:
        return self.kind if self.kind == "anonymous" else {self.kind: self.customer}


@dataclass(frozen=True)
class OrderState:
    order: str
    status: str = ""
    delivered_days_ago: int | None = None


@dataclass(frozen=True)
class AwaitExpect:
    slot: str  # "" expects nothing awaited
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolExpect:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Expect:
    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    intent: str = ""
    awaits: AwaitExpect | None = None
    escalated: bool | None = None
    escalation_reason: str = ""
    tools: tuple[ToolExpect, ...] = ()
    orders: tuple[OrderState, ...] = ()


@dataclass(frozen=True)
class Turn:
    say: str
    expect: Expect


@dataclass(frozen=True)
class Spec:
    suite: str
    name: str
    turns: tuple[Turn, ...]
    shopper: Shopper = Shopper()
    language: str = ""
    orders: tuple[OrderState, ...] = ()


def suite_read(text: str, *, default_name: str) -> list[Spec]:
    """Every test of one YAML document: a mapping with `tests` (and an optional `suite` name), or one test."""
    data = yaml_load(text)
    if isinstance(data, dict) and "tests" in data:
        suite = _text(data.get("suite") or default_name, "suite")
        tests = data["tests"]
        if not isinstance(tests, list) or not tests:
            raise SpecError("`tests` must be a list of tests")
        unknown = set(data) - {"suite", "tests"}
        if unknown:
            raise SpecError(f"unknown key {sorted(unknown)[0]!r} (a file has `suite` and `tests`)")
    else:
        suite, tests = default_name, [data]
    cases = [spec_read(test, suite=suite, where=f"test {i}") for i, test in enumerate(tests, 1)]
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        raise SpecError(f"two tests are called {next(n for n in names if names.count(n) > 1)!r}")
    return cases


def spec_read(data: Any, *, suite: str, where: str = "the test") -> Spec:
    """One test (a mapping), as the admin stores it or a file lists it."""
    if not isinstance(data, dict):
        raise SpecError(f"{where}: a test is a mapping with `name` and `turns`")
    where = f"test {data.get('name')!r}" if isinstance(data.get("name"), str) else where
    _known(data, ("name", "language", "shopper", "orders", "turns"), where)
    turns = data.get("turns")
    if not isinstance(turns, list) or not turns:
        raise SpecError(f"{where}: `turns` must list at least one turn")
    language = data.get("language") or ""
    if language not in ("", "zh", "en"):
        raise SpecError(f"{where}: `language` is zh or en, not {language!r}")
    return Spec(
        suite=suite,
        name=_text(data.get("name"), f"{where}: name"),
        language=language,
        shopper=_shopper(data.get("shopper"), where),
        orders=tuple(_order(o, f"{where}, orders") for o in _list(data.get("orders"))),
        turns=tuple(_turn(turn, f"{where}, turn {i}") for i, turn in enumerate(turns, 1)),
    )


def _turn(data: Any, where: str) -> Turn:
    if not isinstance(data, dict) or "say" not in data:
        raise SpecError(f"{where}: a turn needs `say`: what the shopper writes")
    _known(data, ("say", "expect"), where)
    expect = data.get("expect") or {}
    if not isinstance(expect, dict):
        raise SpecError(f"{where}: `expect` is a mapping of checks ({', '.join(EXPECT_KEYS)})")
    _known(expect, EXPECT_KEYS, f"{where}, expect")
    escalated, reason = _escalated(expect.get("escalated"), where)
    return Turn(
        say=_text(data["say"], f"{where}: say"),
        expect=Expect(
            contains=_texts(expect.get("contains"), f"{where}: contains"),
            not_contains=_texts(expect.get("not_contains"), f"{where}: not_contains"),
            cites=_texts(expect.get("cites"), f"{where}: cites"),
            intent=_text(expect["intent"], f"{where}: intent") if "intent" in expect else "",
            awaits=_awaits(expect["awaits"], where) if "awaits" in expect else None,
            escalated=escalated,
            escalation_reason=reason,
            tools=tuple(_tool(t, where) for t in _list(expect.get("tool"))),
            orders=tuple(_order(o, f"{where}, order") for o in _list(expect.get("order"))),
        ),
    )


def _shopper(data: Any, where: str) -> Shopper:
    if data in (None, "anonymous"):
        return Shopper()
    if isinstance(data, dict) and len(data) == 1 and next(iter(data)) in SHOPPER_KINDS:
        kind, customer = next(iter(data.items()))
        return Shopper(kind=kind, customer=_text(customer, f"{where}: shopper"))
    raise SpecError(f"{where}: `shopper` is anonymous, {{signed: <customer id>}} or {{verified: <customer id>}}")


def _order(data: Any, where: str) -> OrderState:
    if not isinstance(data, dict) or "order" not in data:
        raise SpecError(f"{where}: an order is a mapping with `order` (its id) and `status`")
    _known(data, ("order", "status", "delivered_days_ago"), where)
    status = str(data.get("status") or "")
    if status and status not in ORDER_STATES:
        raise SpecError(f"{where}: status {status!r} is not one of: {', '.join(ORDER_STATES)}")
    days = data.get("delivered_days_ago")
    if days is not None and (not isinstance(days, int) or isinstance(days, bool) or days < 0):
        raise SpecError(f"{where}: delivered_days_ago is a whole number of days")
    return OrderState(order=_text(data["order"], f"{where}: order"), status=status, delivered_days_ago=days)


def _awaits(data: Any, where: str) -> AwaitExpect:
    if data in (None, "nothing", False):
        return AwaitExpect(slot="")
    if isinstance(data, str):
        return AwaitExpect(slot=data)
    if isinstance(data, dict) and "slot" in data:
        _known(data, ("slot", "choices"), f"{where}, awaits")
        return AwaitExpect(slot=_text(data["slot"], f"{where}: awaits"), choices=_texts(data.get("choices"), where))
    raise SpecError(f"{where}: `awaits` is a slot's name, {{slot: …, choices: […]}} or nothing")


def _escalated(data: Any, where: str) -> tuple[bool | None, str]:
    if data is None or isinstance(data, bool):
        return data, ""
    if isinstance(data, dict) and set(data) == {"reason"}:
        return True, _text(data["reason"], f"{where}: escalated reason")
    raise SpecError(f"{where}: `escalated` is true, false or {{reason: …}}")


def _tool(data: Any, where: str) -> ToolExpect:
    if isinstance(data, str):
        return ToolExpect(name=data)
    if isinstance(data, dict) and "name" in data:
        _known(data, ("name", "arguments"), f"{where}, tool")
        arguments = data.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise SpecError(f"{where}: a tool's `arguments` is a mapping")
        return ToolExpect(name=_text(data["name"], f"{where}: tool"), arguments=arguments)
    raise SpecError(f"{where}: `tool` is a tool's name or {{name: …, arguments: {{…}}}}")


def _known(data: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise SpecError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(keys)})")


def _list(data: Any) -> list[Any]:
    if data is None:
        return []
    return data if isinstance(data, list) else [data]


def _texts(data: Any, where: str) -> tuple[str, ...]:
    return tuple(_text(item, where) for item in _list(data))


def _text(data: Any, where: str) -> str:
    if isinstance(data, bool) or not isinstance(data, str | int | float) or not str(data).strip():
        raise SpecError(f"{where}: a text is needed")
    return str(data).strip()


def spec_dump(case: Spec) -> dict[str, Any]:
    """The test as the YAML mapping it is stored as (the inverse of `spec_read`, for what the admin writes)."""
    data: dict[str, Any] = {"name": case.name}
    if case.language:
        data["language"] = case.language
    data["shopper"] = case.shopper.as_yaml()
    if case.orders:
        data["orders"] = [_order_dump(state) for state in case.orders]
    data["turns"] = [{"say": turn.say, "expect": _expect_dump(turn.expect)} for turn in case.turns]
    return data


def _expect_dump(expect: Expect) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if expect.intent:
        data["intent"] = expect.intent
    if expect.contains:
        data["contains"] = list(expect.contains)
    if expect.not_contains:
        data["not_contains"] = list(expect.not_contains)
    if expect.cites:
        data["cites"] = list(expect.cites)
    if expect.awaits is not None:
        awaits = expect.awaits
        data["awaits"] = {"slot": awaits.slot, "choices": list(awaits.choices)} if awaits.slot else "nothing"
    if expect.escalated is not None:
        data["escalated"] = {"reason": expect.escalation_reason} if expect.escalation_reason else expect.escalated
    if expect.tools:
        data["tool"] = [{"name": tool.name, "arguments": tool.arguments} for tool in expect.tools]
    if expect.orders:
        data["order"] = [_order_dump(state) for state in expect.orders]
    return data


def _order_dump(state: OrderState) -> dict[str, Any]:
    data: dict[str, Any] = {"order": state.order}
    if state.status:
        data["status"] = state.status
    if state.delivered_days_ago is not None:
        data["delivered_days_ago"] = state.delivered_days_ago
    return data


def stored_text(case: Spec) -> str:
    """The YAML the admin keeps for a test: all of it but its name, which is the row's."""
    data = spec_dump(case)
    del data["name"]
    return yaml_text(data)


def yaml_text(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=110)
