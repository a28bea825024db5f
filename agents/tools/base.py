"""What a tool is, and the one way to call one: `tool_call`.

Seed 004's rules live here rather than in each tool:
- the customer is never an argument: it is injected from the conversation (anti-IDOR); a schema
  has no field for it and unknown arguments are refused;
- private tools need a verified customer; write tools need one too;
- read results are cached 5 minutes per customer, and any write by that customer invalidates them, as
  does a change to the store's data made any other way (the admin, an import: stores.versions).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema
from django.core.cache import cache

from conversations.models import Customer
from knowledge.cache_tally import cache_lookup_count
from stores.records import StoreError
from stores.versions import store_version, store_version_bump

READ_CACHE_TTL_S = 5 * 60


class ToolError(Exception):
    """A tool refused or failed; `code` is stable (fed back to the LLM and shown to tests)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_json(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}


@dataclass(frozen=True)
class ToolContext:
    """Who is asking. Built by the engine from the conversation, never from tool arguments."""

    conversation_id: int | None
    customer: Customer | None  # the verified store customer, or None
    language: str = "en"

    @property
    def verified(self) -> bool:
        return self.customer is not None

    @property
    def verified_customer(self) -> Customer:
        """The customer a private tool acts for: `tool_call` runs private tools only for one."""
        if self.customer is None:
            raise ToolError("verification_required", "The customer must be verified before this.")
        return self.customer


ToolFunc = Callable[[ToolContext, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    kind: Literal["read", "write"]
    private: bool  # needs a verified customer
    func: ToolFunc

    def openai_definition(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


TOOLS: dict[str, Tool] = {}


def tool(
    *, name: str, description: str, parameters: dict[str, Any], kind: Literal["read", "write"], private: bool
) -> Callable[[ToolFunc], ToolFunc]:
    """Register the decorated function as a tool."""
    schema = {"type": "object", "additionalProperties": False, **parameters}
    jsonschema.Draft202012Validator.check_schema(schema)

    def register(func: ToolFunc) -> ToolFunc:
        TOOLS[name] = Tool(name, description, schema, kind, private or kind == "write", func)
        return func

    return register


def _cache_key(tool_: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> str:
    customer_id = ctx.customer.pk if ctx.customer else None
    version = store_version(customer_id)
    digest = hashlib.sha256(json.dumps(arguments, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:24]
    # Anonymous reads (catalogue) are shared; private reads are keyed by the customer.
    scope = customer_id if tool_.private else "public"
    return f"tools:{scope}:{version}:{tool_.name}:{digest}"


_calls_recorded: ContextVar[list[dict[str, Any]] | None] = ContextVar("tool_calls_recorded", default=None)


@contextlib.contextmanager
def tool_calls_recorded() -> Iterator[list[dict[str, Any]]]:
    """Every tool called inside the block, in order, as {"tool", "arguments"} (what a conversation test checks)."""
    calls: list[dict[str, Any]] = []
    token = _calls_recorded.set(calls)
    try:
        yield calls
    finally:
        _calls_recorded.reset(token)


def tool_call(name: str, ctx: ToolContext, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """Validate, authorise and run a tool; raises ToolError with a stable code."""
    tool_ = TOOLS.get(name)
    if tool_ is None:
        raise ToolError("unknown_tool", f"There is no tool called {name!r}.")
    arguments = dict(arguments or {})
    if (recorded := _calls_recorded.get()) is not None:
        recorded.append({"tool": name, "arguments": arguments})
    try:
        jsonschema.validate(arguments, tool_.parameters)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path)
        raise ToolError("bad_arguments", f"{where + ': ' if where else ''}{exc.message}") from None
    if tool_.private and not ctx.verified:
        raise ToolError("verification_required", "The customer must be verified before this.")
    if tool_.kind == "write":
        result = _run(tool_, ctx, arguments)
        assert ctx.customer is not None  # write tools are private
        store_version_bump(ctx.customer.pk)
        return result
    key = _cache_key(tool_, ctx, arguments)
    cached = cache.get(key)
    cache_lookup_count("tools", hit=cached is not None)
    if cached is not None:
        return {**cached, "cached": True}
    result = _run(tool_, ctx, arguments)
    cache.set(key, result, timeout=READ_CACHE_TTL_S)
    return result


def _run(tool_: Tool, ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's result; what the store refuses or cannot answer (`store_unavailable`) becomes a ToolError."""
    try:
        return tool_.func(ctx, arguments)
    except StoreError as exc:
        raise ToolError(exc.code, str(exc)) from None
