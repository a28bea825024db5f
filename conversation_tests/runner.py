"""Run one conversation test: a fresh chat on the live engine, in a sandbox (conversation_tests.sandbox), each turn
checked against what the test expects, every failure said in a store owner's words."""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.models import TurnRun
from agents.pipeline import turn_run_here
from agents.services import MessageRejected, customer_message_handle
from agents.states import TurnStatus
from agents.tools.base import tool_calls_recorded
from conversation_tests.failures import Failure
from conversation_tests.sandbox import sandbox
from conversation_tests.spec import AwaitExpect, Expect, OrderState, Shopper, Spec
from conversations.language import detect_language
from conversations.models import Conversation, Customer, OutboxEmail, WorkflowState
from conversations.services import conversation_start, conversation_verified_customer_set, customer_upsert
from knowledge.models import Chunk
from stores.builtin.selectors import order_status_of
from stores.builtin.services import order_state_put
from stores.records import StoreError

CODE = re.compile(r"\b\d{6}\b")


@dataclass
class TurnSeen:
    """What the shopper said and what the assistant did, as a test's transcript keeps it."""

    said: str
    reply: str = ""
    intents: list[str] = field(default_factory=list)
    awaiting: dict[str, Any] | None = None  # {"slot", "choices"}
    escalated: bool = False
    escalation_reason: str = ""
    cited: list[str] = field(default_factory=list)  # the passages' titles: "Article › section"
    articles: list[int] = field(default_factory=list)  # the cited documents' ids
    tools: list[dict[str, Any]] = field(default_factory=list)  # {"tool", "arguments"}
    workflows: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


@dataclass
class Outcome:
    suite: str
    name: str
    turns: list[TurnSeen]
    failures: list[Failure]  # each turn's, and what kept the test from starting (a fixture the store lacks)
    duration_ms: float

    @property
    def passed(self) -> bool:
        return not self.failures

    def transcript(self) -> list[dict[str, Any]]:
        return [{**asdict(turn), "failures": [f.as_json() for f in turn.failures]} for turn in self.turns]


class FixtureError(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(str(failure.got))
        self.failure = failure


def spec_run(case: Spec) -> Outcome:
    """Play the test's turns in a fresh chat, in a sandbox, and check each turn as it ends."""
    started = time.perf_counter()
    turns: list[TurnSeen] = []
    failures: list[Failure] = []
    with sandbox():
        try:
            conversation = _conversation_for(case)
            for state in case.orders:
                _order_put(state)
        except FixtureError as exc:
            failures.append(exc.failure)
        else:
            outbox_from = OutboxEmail.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            for number, turn in enumerate(case.turns, 1):
                seen = _turn_play(conversation, _with_code(turn.say, outbox_from))
                seen.failures = [failure.at(number) for failure in expectations_check(turn.expect, seen)]
                turns.append(seen)
                failures.extend(seen.failures)
    return Outcome(case.suite, case.name, turns, failures, (time.perf_counter() - started) * 1000)


def _conversation_for(case: Spec) -> Conversation:
    language = case.language or detect_language(case.turns[0].say, default="en")
    shopper: Shopper = case.shopper
    account = None
    if shopper.kind != "anonymous":
        account = Customer.objects.filter(external_id=shopper.customer).first()
        if account is None:
            raise FixtureError(Failure("no_customer", got=shopper.customer))
    if shopper.kind == "signed" and account is not None:
        person = account
    else:
        person = customer_upsert(external_id=f"conversation-test-{uuid.uuid4().hex[:12]}", locale=language)
    # A visitor of its own, as each shopper is: no rate or guess limit is shared with another chat.
    conversation = conversation_start(
        customer=person, language=language, client_key=f"conversation-test:{uuid.uuid4()}"
    )
    if account is not None:
        conversation_verified_customer_set(conversation_id=conversation.pk, customer=account)
    return conversation


def _order_put(state: OrderState) -> None:
    try:
        order_state_put(order_id=state.order, status=state.status, delivered_days_ago=state.delivered_days_ago)
    except StoreError:
        raise FixtureError(Failure("no_order", got=state.order)) from None


def _with_code(text: str, outbox_from: int) -> str:
    """`{code}` is the verification code last emailed during the test (the shopper read it in their mail)."""
    if "{code}" not in text:
        return text
    body = OutboxEmail.objects.filter(pk__gt=outbox_from).order_by("-pk").values_list("body", flat=True).first()
    found = CODE.search(body or "")
    return text.replace("{code}", found.group(0) if found else "000000")


def _turn_play(conversation: Conversation, text: str) -> TurnSeen:
    seen = TurnSeen(said=text)
    with tool_calls_recorded() as calls:
        try:
            turn = customer_message_handle(conversation_id=conversation.pk, text=text)
        except MessageRejected as rejected:
            seen.reply = rejected.reply
            return seen
        if turn.status != TurnStatus.SKIPPED:
            turn_run_here(turn.pk)
    seen.tools = calls
    run = TurnRun.objects.get(pk=turn.pk)
    reply = run.reply or {}
    seen.reply = reply.get("text") or ""
    seen.intents = [intent["name"] for intent in run.intents]
    if awaiting := reply.get("awaiting"):
        seen.awaiting = {"slot": awaiting.get("slot", ""), "choices": [str(c) for c in awaiting.get("choices") or []]}
    seen.escalated = run.status == TurnStatus.ESCALATED or run.status == TurnStatus.SKIPPED
    seen.escalation_reason = run.escalation_reason
    sources = reply.get("sources") or []
    seen.cited = [str(source.get("title") or "") for source in sources]
    chunk_ids = [source["chunk_id"] for source in sources if source.get("chunk_id")]
    seen.articles = sorted(set(Chunk.objects.filter(pk__in=chunk_ids).values_list("document_id", flat=True)))
    seen.workflows = sorted(set(WorkflowState.objects.filter(conversation=conversation).values_list("kind", flat=True)))
    return seen


def expectations_check(expect: Expect, seen: TurnSeen) -> list[Failure]:
    """What did not hold: each a `Failure`, said in a store owner's words (conversation_tests.failures)."""
    failures = []
    reply = seen.reply.casefold()
    failures += [Failure("contains", wanted=t, got=seen.reply) for t in expect.contains if t.casefold() not in reply]
    failures += [
        Failure("not_contains", wanted=t, got=seen.reply) for t in expect.not_contains if t.casefold() in reply
    ]
    for article in expect.cites:
        if not any(article.casefold() in title.casefold() for title in seen.cited):
            failures.append(Failure("cites", wanted=article, got="; ".join(seen.cited)))
    if expect.intent and expect.intent not in seen.intents:
        failures.append(Failure("intent", wanted=expect.intent, got=", ".join(seen.intents)))
    if expect.awaits is not None:
        failures += _awaits_check(expect.awaits, seen.awaiting or {"slot": "", "choices": []})
    if expect.escalated is not None:
        failures += _escalation_check(expect, seen)
    for wanted in expect.tools:
        made = [call for call in seen.tools if call["tool"] == wanted.name]
        if not any(_arguments_match(wanted.arguments, call["arguments"]) for call in made):
            calls = "; ".join(f"{c['tool']} {json.dumps(c['arguments'], ensure_ascii=False)}" for c in seen.tools)
            failures.append(Failure("tool", wanted=_call_said(wanted.name, wanted.arguments), got=calls))
    for state in expect.orders:
        status = order_status_of(state.order)
        if status is None or (state.status and status != state.status):
            failures.append(Failure("order", wanted=state.status, got=status or "", order=state.order))
    return failures


def _awaits_check(wanted: AwaitExpect, awaiting: dict[str, Any]) -> list[Failure]:
    if awaiting["slot"] != wanted.slot:
        return [Failure("awaits", wanted=wanted.slot, got=awaiting["slot"])]
    missing = [choice for choice in wanted.choices if choice not in awaiting["choices"]]
    if missing:
        return [Failure("choices", wanted=", ".join(missing), got=", ".join(awaiting["choices"]))]
    return []


def _escalation_check(expect: Expect, seen: TurnSeen) -> list[Failure]:
    if expect.escalated != seen.escalated:
        return [Failure("escalated" if expect.escalated else "answered", got=seen.escalation_reason)]
    if expect.escalation_reason and seen.escalation_reason != expect.escalation_reason:
        return [Failure("escalation_reason", wanted=expect.escalation_reason, got=seen.escalation_reason)]
    return []


def _call_said(name: str, arguments: dict[str, Any]) -> str:
    return f"{name} {json.dumps(arguments, ensure_ascii=False)}" if arguments else name


def _arguments_match(wanted: dict[str, Any], given: dict[str, Any]) -> bool:
    return all(str(given.get(key)) == str(value) for key, value in wanted.items())
