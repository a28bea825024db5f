"""Every LLM call goes through `llm_chat`: timeouts, retries with backoff, the circuit breaker,
token usage and cost, and streamed deltas handed to a callback as they arrive."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from django.conf import settings

from agents.llm.breaker import breaker_is_open, breaker_record

logger = logging.getLogger(__name__)

Tier = Literal["small", "main"]


class LLMUnavailable(Exception):
    """No LLM configured, the breaker is open, or the call failed after its retries."""


@dataclass
class LLMResult:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cost(self) -> Decimal:
        return (
            Decimal(self.prompt_tokens) * Decimal(str(settings.LLM_PRICE_INPUT_PER_1K))
            + Decimal(self.completion_tokens) * Decimal(str(settings.LLM_PRICE_OUTPUT_PER_1K))
        ) / 1000


def llm_enabled() -> bool:
    """True when an LLM is configured and the breaker is closed; otherwise the engine runs offline."""
    return bool(settings.OPENAI_API_KEY) and not breaker_is_open()


_clients: dict[tuple[str, str, float, int], Any] = {}


def _client() -> Any:
    from openai import OpenAI

    key = (settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, float(settings.LLM_TIMEOUT_S), settings.LLM_MAX_RETRIES)
    if key not in _clients:
        # The SDK retries timeouts, 429s and 5xx with exponential backoff; LLM_MAX_RETRIES bounds it.
        _clients[key] = OpenAI(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout=float(settings.LLM_TIMEOUT_S),
            max_retries=settings.LLM_MAX_RETRIES,
        )
    return _clients[key]


def model_for(tier: Tier) -> str:
    return settings.LLM_SMALL_MODEL if tier == "small" else settings.LLM_MODEL


def llm_chat(
    messages: list[dict[str, Any]],
    *,
    tier: Tier = "main",
    json_mode: bool = False,
    schema: tuple[str, dict[str, Any]] | None = None,
    on_delta: Callable[[str], None] | None = None,
    tools: list[dict[str, Any]] | None = None,
    temperature: float = 0.0,
    timeout: float | None = None,
) -> LLMResult:
    """One chat completion; streamed when `on_delta` is given. Raises LLMUnavailable."""
    from openai import OpenAIError

    if not llm_enabled():
        raise LLMUnavailable("no LLM configured" if not settings.OPENAI_API_KEY else "circuit breaker open")
    model = model_for(tier)
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature}
    if schema is not None:  # structured output: the server holds the answer to this JSON schema
        name, body = schema
        kwargs["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": body, "strict": True},
        }
    elif json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    if tools:
        kwargs["tools"] = tools
    if timeout is not None:
        kwargs["timeout"] = timeout
    started = time.perf_counter()
    try:
        if on_delta is None:
            result = _complete(kwargs)
        else:
            result = _stream(kwargs, on_delta)
    except OpenAIError as exc:
        breaker_record(ok=False)
        raise LLMUnavailable(f"{type(exc).__name__}: {exc}") from exc
    breaker_record(ok=True)
    result.latency_ms = (time.perf_counter() - started) * 1000
    return result


def llm_moderation(text: str) -> list[str] | None:
    """The provider's moderation categories that flag `text` ([] for none), or None when no MODERATION_MODEL is
    set, no LLM is configured, or the call failed: the offline rules decide then."""
    if not settings.MODERATION_MODEL or not llm_enabled():
        return None
    from openai import OpenAIError  # imported once it is needed: an offline reply's gate does not wait for it

    try:
        return list(_moderation_flags(settings.OPENAI_BASE_URL, settings.MODERATION_MODEL, text))
    except (OpenAIError, IndexError) as exc:
        logger.info("moderation unavailable, the offline rules decide: %s", exc)
        return None


@functools.lru_cache(maxsize=256)
def _moderation_flags(base_url: str, model: str, text: str) -> tuple[str, ...]:
    """The provider's verdict on one text, kept: a knowledge answer is checked where it is written and again
    by the gate, as the same text. A failed call raises, and is not kept."""
    result = _client().moderations.create(model=model, input=text).results[0]
    if not result.flagged:
        return ()
    return tuple(sorted(name for name, flagged in result.categories.model_dump(by_alias=True).items() if flagged))


def _complete(kwargs: dict[str, Any]) -> LLMResult:
    response = _client().chat.completions.create(**kwargs)
    message = response.choices[0].message
    usage = response.usage
    return LLMResult(
        text=message.content or "",
        model=response.model or kwargs["model"],
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        tool_calls=[
            {"id": call.id, "name": call.function.name, "arguments": call.function.arguments}
            for call in message.tool_calls or []
        ],
    )


def _stream(kwargs: dict[str, Any], on_delta: Callable[[str], None]) -> LLMResult:
    stream = _client().chat.completions.create(**kwargs, stream=True, stream_options={"include_usage": True})
    parts: list[str] = []
    result = LLMResult(text="", model=kwargs["model"])
    for chunk in stream:
        if chunk.usage:
            result.prompt_tokens = chunk.usage.prompt_tokens
            result.completion_tokens = chunk.usage.completion_tokens
        if chunk.choices and chunk.choices[0].delta.content:
            delta = chunk.choices[0].delta.content
            parts.append(delta)
            on_delta(delta)
    result.text = "".join(parts)
    return result
