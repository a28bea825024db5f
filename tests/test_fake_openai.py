"""The fake OpenAI server, exercised through the real ``openai`` SDK."""

# The imported pytest fixture is (by design) shadowed by the test arguments that request it.
# ruff: noqa: F811

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.fake_openai import (
    EMBEDDING_DIMENSIONS,
    FakeOpenAI,
    fake_openai,  # noqa: F401
)

MESSAGES: list[Any] = [{"role": "user", "content": "你好 / hello"}]
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Look up an order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "create_ticket",
            "description": "Open a ticket",
            "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}},
        },
    },
]


def client_for(fake: FakeOpenAI, timeout: float = 5.0) -> OpenAI:
    return OpenAI(base_url=fake.base_url, api_key="test", max_retries=0, timeout=timeout)


def test_base_url_is_loopback_with_a_port(fake_openai: FakeOpenAI) -> None:
    assert fake_openai.base_url.startswith("http://127.0.0.1:")
    assert fake_openai.base_url.endswith("/v1")
    assert fake_openai.port > 0


def test_plain_reply(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("Hello there!", prompt_tokens=12, completion_tokens=3)
    completion = client_for(fake_openai).chat.completions.create(model="main-model", messages=MESSAGES)

    assert completion.object == "chat.completion"
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "main-model"
    choice = completion.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "Hello there!"
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (12, 3)
    assert completion.usage.total_tokens == 15


def test_reply_model_override(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("hi", model="gpt-served")
    completion = client_for(fake_openai).chat.completions.create(model="main-model", messages=MESSAGES)
    assert completion.model == "gpt-served"


def test_json_reply(fake_openai: FakeOpenAI) -> None:
    payload = {"intent": "退货", "confidence": 0.9, "slots": {"order_id": "A-1"}}
    fake_openai.reply_json(payload)
    completion = client_for(fake_openai).chat.completions.create(
        model="small-model", messages=MESSAGES, response_format={"type": "json_object"}
    )
    content = completion.choices[0].message.content
    assert content is not None
    assert "退货" in content  # ensure_ascii=False
    assert json.loads(content) == payload


def test_malformed_json_is_just_a_reply(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply('{"intent": "refund", ')
    completion = client_for(fake_openai).chat.completions.create(model="small-model", messages=MESSAGES)
    content = completion.choices[0].message.content
    assert content == '{"intent": "refund", '
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)


def test_streaming_reply_with_usage(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("The quick brown fox jumps over the lazy dog.", prompt_tokens=7, completion_tokens=9)
    stream = client_for(fake_openai).chat.completions.create(
        model="main-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)

    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert all(chunk.model == "main-model" for chunk in chunks)
    assert len({chunk.id for chunk in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    content_pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(content_pieces) > 1
    assert "".join(content_pieces) == "The quick brown fox jumps over the lazy dog."
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["stop"]
    usage_chunk = chunks[-1]
    assert usage_chunk.choices == []
    assert usage_chunk.usage is not None
    assert (usage_chunk.usage.prompt_tokens, usage_chunk.usage.completion_tokens) == (7, 9)
    assert usage_chunk.usage.total_tokens == 16
    assert fake_openai.requests[-1]["body"]["stream"] is True


def test_streaming_without_include_usage_has_no_usage_chunk(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("abc def")
    chunks = list(client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES, stream=True))
    assert all(chunk.usage is None for chunk in chunks)
    assert all(chunk.choices for chunk in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "abc def"


def test_explicit_stream_chunks_and_delays(fake_openai: FakeOpenAI) -> None:
    fake_openai.stream(["你好", "，", "世界"], first_delay=0.2, delay_between=0.05)
    started = time.monotonic()
    stream = client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    arrivals: list[tuple[float, str]] = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            arrivals.append((time.monotonic() - started, chunk.choices[0].delta.content))

    assert [piece for _, piece in arrivals] == ["你好", "，", "世界"]
    assert arrivals[0][0] >= 0.2
    assert arrivals[-1][0] - arrivals[0][0] >= 0.1 - 0.02


def test_stream_script_answers_non_streaming_request_joined(fake_openai: FakeOpenAI) -> None:
    fake_openai.stream(["a", "b", "c"])
    completion = client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES)
    assert completion.choices[0].message.content == "abc"


def test_sdk_stream_helper_reassembles_text(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("Streaming through the helper works.")
    with client_for(fake_openai).chat.completions.stream(model="m", messages=MESSAGES) as stream:
        deltas = [event.delta for event in stream if event.type == "content.delta"]
        final = stream.get_final_completion()
    assert "".join(deltas) == "Streaming through the helper works."
    assert final.choices[0].message.content == "Streaming through the helper works."
    assert final.choices[0].finish_reason == "stop"


def test_non_stream_tool_calls(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_tool_calls([("lookup_order", {"order_id": "A-1"}), ("create_ticket", {"summary": "破损"})])
    completion = client_for(fake_openai).chat.completions.create(model="main-model", messages=MESSAGES, tools=TOOLS)

    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls
    assert calls is not None and len(calls) == 2
    assert all(call.type == "function" and call.id for call in calls)
    assert len({call.id for call in calls}) == 2
    functions = [call.function for call in calls]  # type: ignore[union-attr]
    assert [f.name for f in functions] == ["lookup_order", "create_ticket"]
    assert [json.loads(f.arguments) for f in functions] == [{"order_id": "A-1"}, {"summary": "破损"}]


def test_streamed_tool_calls_reassembled_by_hand(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_tool_calls([("lookup_order", {"order_id": "A-123456"}), ("create_ticket", {"summary": "x"})])
    stream = client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS, stream=True)

    calls: dict[int, dict[str, str]] = {}
    finish_reasons: list[str] = []
    fragments = 0
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        if choice.finish_reason:
            finish_reasons.append(choice.finish_reason)
        for delta in choice.delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            if delta.id:
                call["id"] = delta.id
            if delta.function and delta.function.name:
                call["name"] += delta.function.name
            if delta.function and delta.function.arguments:
                call["arguments"] += delta.function.arguments
                fragments += 1

    assert finish_reasons == ["tool_calls"]
    assert fragments > 2  # the arguments really arrive in pieces
    assert [calls[i]["name"] for i in sorted(calls)] == ["lookup_order", "create_ticket"]
    assert [json.loads(calls[i]["arguments"]) for i in sorted(calls)] == [{"order_id": "A-123456"}, {"summary": "x"}]
    assert all(call["id"] for call in calls.values())


def test_streamed_tool_calls_reassembled_by_sdk_helper(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_tool_calls([("lookup_order", {"order_id": "B-7"}), ("create_ticket", {"summary": "late"})])
    with client_for(fake_openai).chat.completions.stream(model="m", messages=MESSAGES, tools=TOOLS) as stream:
        done = [event for event in stream if event.type == "tool_calls.function.arguments.done"]
        final = stream.get_final_completion()

    assert [event.name for event in done] == ["lookup_order", "create_ticket"]
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    assert [(call.function.name, json.loads(call.function.arguments)) for call in choice.message.tool_calls] == [
        ("lookup_order", {"order_id": "B-7"}),
        ("create_ticket", {"summary": "late"}),
    ]


def test_error_500_raises_internal_server_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.error(500, "upstream exploded")
    with pytest.raises(openai.InternalServerError) as excinfo:
        client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES)
    assert excinfo.value.status_code == 500
    assert "upstream exploded" in str(excinfo.value)
    assert isinstance(excinfo.value.body, dict)
    assert excinfo.value.body["message"] == "upstream exploded"


def test_error_other_statuses_on_streaming_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.error(429, "slow down")
    fake_openai.error(400, "bad")
    client = client_for(fake_openai)
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", messages=MESSAGES)


def test_unscripted_request_is_a_500(fake_openai: FakeOpenAI) -> None:
    with pytest.raises(openai.InternalServerError, match="no scripted response"):
        client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES)


def test_default_responder(fake_openai: FakeOpenAI) -> None:
    fake_openai.default = lambda body: f"echo: {body['messages'][-1]['content']}"
    fake_openai.reply("scripted first")
    client = client_for(fake_openai)
    first = client.chat.completions.create(model="m", messages=MESSAGES)
    second = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])
    streamed = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "s"}], stream=True)

    assert first.choices[0].message.content == "scripted first"
    assert second.choices[0].message.content == "echo: again"
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == "echo: s"


def test_hang_triggers_client_timeout(fake_openai: FakeOpenAI) -> None:
    fake_openai.hang(5.0)
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        client_for(fake_openai, timeout=0.3).chat.completions.create(model="m", messages=MESSAGES)
    assert time.monotonic() - started < 3.0
    assert len(fake_openai.chat_requests) == 1  # recorded on arrival, before the hang


def test_hang_then_answers_if_client_waits(fake_openai: FakeOpenAI) -> None:
    fake_openai.hang(0.2)
    completion = client_for(fake_openai, timeout=5.0).chat.completions.create(model="m", messages=MESSAGES)
    assert completion.choices[0].message.content


def test_stream_first_delay_triggers_client_timeout(fake_openai: FakeOpenAI) -> None:
    fake_openai.stream(["late"], first_delay=5.0)
    stream = client_for(fake_openai, timeout=0.3).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APITimeoutError):
        list(stream)


def test_fifo_order_and_recorded_requests(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("one")
    fake_openai.reply_json({"two": 2})
    fake_openai.error(503, "three")
    fake_openai.reply("four")
    assert fake_openai.pending == 4
    client = client_for(fake_openai)

    first = client.chat.completions.create(model="main-model", messages=MESSAGES)
    second = client.chat.completions.create(model="small-model", messages=MESSAGES)
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="small-model", messages=MESSAGES)
    fourth = client.chat.completions.create(model="main-model", messages=MESSAGES, temperature=0.1)

    assert [first.choices[0].message.content, second.choices[0].message.content, fourth.choices[0].message.content] == [
        "one",
        '{"two": 2}',
        "four",
    ]
    assert fake_openai.pending == 0
    assert len(fake_openai.requests) == 4
    assert fake_openai.models_called == ["main-model", "small-model", "small-model", "main-model"]
    request = fake_openai.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["messages"] == MESSAGES
    assert request["body"]["temperature"] == 0.1
    assert request["headers"]["authorization"] == "Bearer test"
    assert request["headers"]["content-type"].startswith("application/json")


def test_concurrent_requests_each_get_one_script(fake_openai: FakeOpenAI) -> None:
    answers = [f"answer {i}" for i in range(8)]
    for answer in answers:
        fake_openai.reply(answer, delay=0.05)
    results: list[str] = []
    lock = threading.Lock()

    def call() -> None:
        completion = client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES)
        with lock:
            results.append(completion.choices[0].message.content or "")

    threads = [threading.Thread(target=call) for _ in answers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(results) == sorted(answers)
    assert len(fake_openai.requests) == len(answers)


def test_reset_clears_scripts_and_requests(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply("stale")
    fake_openai.default = lambda body: "stale default"
    client_for(fake_openai).models.list()
    fake_openai.reset()
    assert fake_openai.requests == []
    assert fake_openai.pending == 0
    assert fake_openai.default is None
    fake_openai.reply("fresh")
    assert client_for(fake_openai).chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content == (
        "fresh"
    )


def test_embeddings_shape_and_determinism(fake_openai: FakeOpenAI) -> None:
    client = client_for(fake_openai)
    batch = client.embeddings.create(model="embed", input=["退货政策", "shipping times", "退货政策"])
    single = client.embeddings.create(model="embed", input="shipping times", encoding_format="float")

    vectors = [item.embedding for item in batch.data]
    assert [item.index for item in batch.data] == [0, 1, 2]
    assert all(len(vector) == EMBEDDING_DIMENSIONS for vector in vectors)
    assert all(math.isclose(math.fsum(v * v for v in vector), 1.0, rel_tol=1e-5) for vector in vectors)
    assert vectors[0] == vectors[2]
    assert vectors[0] != vectors[1]
    assert len(single.data) == 1
    # the SDK asks for base64 float32 by default; explicit float gives the exact values
    assert single.data[0].embedding == pytest.approx(vectors[1], abs=1e-6)
    assert batch.model == "embed"
    assert batch.usage.prompt_tokens > 0
    assert [r["path"] for r in fake_openai.requests] == ["/v1/embeddings", "/v1/embeddings"]

    again = client.embeddings.create(model="embed", input="shipping times", encoding_format="float")
    assert again.data[0].embedding == single.data[0].embedding


def test_models_list(fake_openai: FakeOpenAI) -> None:
    models = client_for(fake_openai).models.list()
    assert len(models.data) == 1
    assert models.data[0].id
    assert fake_openai.requests[-1]["path"] == "/v1/models"


def test_unknown_path_is_404(fake_openai: FakeOpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client_for(fake_openai).completions.create(model="m", prompt="hi")


def test_context_manager_and_clean_stop() -> None:
    with FakeOpenAI() as fake:
        fake.reply("inside")
        fake.hang(30.0)
        client = client_for(fake)
        assert client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content == "inside"
        with pytest.raises(openai.APITimeoutError):
            client_for(fake, timeout=0.2).chat.completions.create(model="m", messages=MESSAGES)
        base_url = fake.base_url
        started = time.monotonic()
    assert time.monotonic() - started < 3.0  # stop() wakes the hanging handler instead of waiting 30 s
    with pytest.raises(openai.APIConnectionError):
        OpenAI(base_url=base_url, api_key="test", max_retries=0, timeout=1.0).models.list()
