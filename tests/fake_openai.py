"""A fake OpenAI-compatible HTTP server for tests, driven through the real ``openai`` SDK.

The server runs in a background thread of the test process on ``127.0.0.1`` with a free port, so other processes
(a Celery worker subprocess, say) can reach it over loopback too. Point the SDK's ``base_url`` at ``fake.base_url``.

Responses to ``POST /v1/chat/completions`` are scripted with :meth:`FakeOpenAI.reply`, :meth:`FakeOpenAI.reply_json`,
:meth:`FakeOpenAI.reply_tool_calls`, :meth:`FakeOpenAI.error`, :meth:`FakeOpenAI.hang` and :meth:`FakeOpenAI.stream`
and consumed in FIFO order. Unscripted requests go to ``fake.default`` (request body -> content) when it is set, and
otherwise get a 500 with an OpenAI-style error body. ``POST /v1/embeddings`` returns deterministic 384-d unit vectors
derived from a hash of each input; ``POST /v1/moderations`` flags an input that contains a phrase of
``fake.moderation_flags`` (phrase -> categories); ``GET /v1/models`` lists one model. Every request is recorded in
``fake.requests``.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import urlsplit

import pytest

EMBEDDING_DIMENSIONS = 384
DEFAULT_MODEL = "fake-model"
DEFAULT_EMBEDDING_MODEL = "fake-embedding-model"
HANG_REPLY = "ok"

_ERROR_TYPES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    409: ("invalid_request_error", None),
    422: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
}


@dataclass
class _Script:
    """One scripted answer to a chat completion request."""

    kind: Literal["completion", "tool_calls", "error"]
    content: str = ""
    chunks: list[str] | None = None  # explicit streaming chunks; None = split ``content`` into a few pieces
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    model: str | None = None
    delay: float = 0.0  # before answering at all
    first_delay: float = 0.0  # streaming: after the role chunk, before the first content chunk
    delay_between: float = 0.0  # streaming: between content chunks
    prompt_tokens: int = 10
    completion_tokens: int = 5
    status: int = 500
    message: str = "boom"


MODERATION_CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)


def split_content(content: str, pieces: int = 3) -> list[str]:
    """Split ``content`` into up to ``pieces`` non-empty consecutive parts (one empty part for empty content)."""
    if not content:
        return [""]
    size = math.ceil(len(content) / pieces)
    return [content[i : i + size] for i in range(0, len(content), size)]


def fake_embedding(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic unit vector derived from the SHA-256 of ``text``."""
    seed = text.encode("utf-8")
    raw = bytearray()
    for counter in itertools.count():
        if len(raw) >= 4 * dimensions:
            break
        raw += hashlib.sha256(seed + b"\x00" + counter.to_bytes(4, "big")).digest()
    values = [
        (word / 0xFFFFFFFF) * 2.0 - 1.0 for word in struct.unpack(f">{dimensions}I", bytes(raw[: 4 * dimensions]))
    ]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _error_body(status: int, message: str) -> dict[str, Any]:
    error_type, code = _ERROR_TYPES.get(status, ("server_error", None))
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


class _Server(ThreadingHTTPServer):
    """A threading HTTP server that can close its open connections and join its handler threads on stop."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._tracking_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), name="fake-openai-conn", daemon=True
        )
        with self._tracking_lock:
            self._connections.add(request)
            self._handler_threads.add(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._tracking_lock:
                self._connections.discard(request)
                self._handler_threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out or disconnect mid-answer are expected in tests; stay quiet.
        pass

    def close_connections(self, timeout: float = 5.0) -> None:
        with self._tracking_lock:
            connections = list(self._connections)
            threads = list(self._handler_threads)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    # Streamed chunks are small writes: without TCP_NODELAY, Nagle's algorithm and delayed ACKs hold
    # each one back ~40 ms, which would show up as latency of the code under test.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _interrupted(self, seconds: float) -> bool:
        """Wait ``seconds``; True (and the connection is to be dropped) if the server is stopping meanwhile."""
        if seconds > 0 and self.server.fake._stopping.wait(seconds):
            self.close_connection = True
            return True
        return False

    # -- routing ---------------------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        fake = self.server.fake
        raw = self._read_body()
        path = urlsplit(self.path).path
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        fake._record(
            {
                "method": method,
                "path": path,
                "body": body,
                "headers": {name.lower(): value for name, value in self.headers.items()},
            }
        )
        route = path.removeprefix("/v1")
        if method == "POST" and route == "/chat/completions" and isinstance(body, dict):
            self._chat_completion(body)
        elif method == "POST" and route == "/embeddings" and isinstance(body, dict):
            self._embeddings(body)
        elif method == "POST" and route == "/moderations" and isinstance(body, dict):
            self._moderation(body)
        elif method == "GET" and route == "/models":
            self._send_json(200, {"object": "list", "data": [_model_object(DEFAULT_MODEL)]})
        elif method == "GET" and route.startswith("/models/"):
            self._send_json(200, _model_object(route.removeprefix("/models/")))
        elif route in ("/chat/completions", "/embeddings") and method == "POST":
            self._send_json(400, _error_body(400, "We could not parse the JSON body of your request."))
        else:
            self._send_json(404, _error_body(404, f"Unknown request URL: {method} {path}"))

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    # -- chat completions --------------------------------------------------------------------------------------------

    def _chat_completion(self, body: dict[str, Any]) -> None:
        fake = self.server.fake
        script = fake._next_script(body)
        if self._interrupted(script.delay):
            return
        if script.kind == "error":
            self._send_json(script.status, _error_body(script.status, script.message))
            return
        model = script.model or body.get("model") or DEFAULT_MODEL
        completion_id = f"chatcmpl-fake{fake._next_id()}"
        created = int(time.time())
        usage = {
            "prompt_tokens": script.prompt_tokens,
            "completion_tokens": script.completion_tokens,
            "total_tokens": script.prompt_tokens + script.completion_tokens,
        }
        tool_calls = [
            {
                "id": f"call_fake{fake._next_id()}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
            }
            for name, arguments in script.tool_calls
        ]
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream_completion(script, completion_id, created, model, tool_calls, usage if include_usage else None)
            return
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        if script.kind == "tool_calls":
            message["tool_calls"] = tool_calls
            finish_reason = "tool_calls"
        else:
            message["content"] = "".join(script.chunks) if script.chunks is not None else script.content
            finish_reason = "stop"
        self._send_json(
            200,
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
                "usage": usage,
                "system_fingerprint": "fp_fake",
            },
        )

    def _stream_completion(
        self,
        script: _Script,
        completion_id: str,
        created: int,
        model: str,
        tool_calls: list[dict[str, Any]],
        usage: dict[str, int] | None,
    ) -> None:
        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            data: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
            }
            if usage is not None:
                data["usage"] = None
            return data

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        if script.kind == "tool_calls":
            self._send_event(chunk({"role": "assistant", "content": None, "refusal": None}))
            if self._interrupted(script.first_delay):
                return
            for index, call in enumerate(tool_calls):
                if index and self._interrupted(script.delay_between):
                    return
                head = {
                    "index": index,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }
                self._send_event(chunk({"tool_calls": [head]}))
                for fragment in split_content(call["function"]["arguments"]):
                    self._send_event(chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}))
            finish_reason = "tool_calls"
        else:
            self._send_event(chunk({"role": "assistant", "content": "", "refusal": None}))
            pieces = script.chunks if script.chunks is not None else split_content(script.content)
            for number, piece in enumerate(pieces):
                if self._interrupted(script.first_delay if number == 0 else script.delay_between):
                    return
                self._send_event(chunk({"content": piece}))
            finish_reason = "stop"
        self._send_event(chunk({}, finish_reason))
        if usage is not None:
            self._send_event(
                {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "system_fingerprint": "fp_fake",
                    "choices": [],
                    "usage": usage,
                }
            )
        self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")

    # -- embeddings --------------------------------------------------------------------------------------------------

    def _embeddings(self, body: dict[str, Any]) -> None:
        raw_input = body.get("input")
        if isinstance(raw_input, str) or (
            isinstance(raw_input, list) and raw_input and all(isinstance(token, int) for token in raw_input)
        ):
            inputs: list[Any] = [raw_input]
        elif isinstance(raw_input, list) and raw_input:
            inputs = list(raw_input)
        else:
            self._send_json(400, _error_body(400, "'input' must be a non-empty string or array"))
            return
        dimensions = int(body.get("dimensions") or self.server.fake.embedding_dimensions)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        tokens = 0
        for index, item in enumerate(inputs):
            text = item if isinstance(item, str) else json.dumps(item)
            tokens += len(item) if not isinstance(item, str) else max(1, len(text.split()))
            vector = fake_embedding(text, dimensions)
            embedding: Any = (
                base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode("ascii") if as_base64 else vector
            )
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model") or DEFAULT_EMBEDDING_MODEL,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _moderation(self, body: dict[str, Any]) -> None:
        raw_input = body.get("input")
        inputs = [raw_input] if isinstance(raw_input, str) else raw_input
        if not isinstance(inputs, list) or not all(isinstance(item, str) for item in inputs):
            self._send_json(400, _error_body(400, "'input' must be a string or an array of strings"))
            return
        results = []
        for text in inputs:
            flagged = {
                category
                for phrase, categories in self.server.fake.moderation_flags.items()
                if phrase.lower() in text.lower()
                for category in categories
            }
            results.append(
                {
                    "flagged": bool(flagged),
                    "categories": {name: name in flagged for name in MODERATION_CATEGORIES},
                    "category_scores": {name: 0.99 if name in flagged else 0.001 for name in MODERATION_CATEGORIES},
                    "category_applied_input_types": {name: ["text"] for name in MODERATION_CATEGORIES},
                }
            )
        model = body.get("model") or "omni-moderation-latest"
        self._send_json(200, {"id": f"modr-{next(self.server.fake._ids)}", "model": model, "results": results})

    # -- wire helpers ------------------------------------------------------------------------------------------------

    def _send_json(self, status: int, payload: object) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_fake{self.server.fake._next_id()}")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_event(self, payload: object) -> None:
        self._send_chunk(b"data: " + json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n\n")

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.flush()


def _model_object(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "fake-openai"}


class FakeOpenAI:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see the module docstring)."""

    requests: list[dict[str, Any]]
    default: Callable[[dict[str, Any]], str] | None

    def __init__(self) -> None:
        self.requests = []
        self.default = None
        # Width of the vectors /v1/embeddings returns when the request names none (a wrong-width model).
        self.embedding_dimensions = EMBEDDING_DIMENSIONS
        self.moderation_flags: dict[str, list[str]] = {}
        self._scripts: deque[_Script] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()  # wakes delayed/hanging handlers, which then drop their connection
        server.shutdown()
        server.close_connections()
        server.server_close()
        if thread is not None:
            thread.join(5)
        self._server = self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        """Forget scripted responses, recorded requests and the default responder."""
        with self._lock:
            self._scripts.clear()
            self.requests.clear()
            self.default = None
            self.embedding_dimensions = EMBEDDING_DIMENSIONS
            self.moderation_flags = {}

    # -- scripting ---------------------------------------------------------------------------------------------------

    def reply(
        self,
        content: str,
        *,
        model: str | None = None,
        delay: float = 0.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> None:
        """Answer the next chat completion with ``content`` (streamed in a few chunks if the request streams)."""
        self._push(
            _Script(
                "completion",
                content=content,
                model=model,
                delay=delay,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )

    def reply_json(
        self,
        obj: object,
        *,
        model: str | None = None,
        delay: float = 0.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> None:
        """Answer the next chat completion with ``json.dumps(obj, ensure_ascii=False)``."""
        self.reply(
            json.dumps(obj, ensure_ascii=False),
            model=model,
            delay=delay,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    def reply_tool_calls(
        self,
        calls: list[tuple[str, dict[str, Any]]],
        *,
        model: str | None = None,
        delay: float = 0.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> None:
        """Answer the next chat completion with assistant ``tool_calls`` [(name, arguments)], finish "tool_calls"."""
        self._push(
            _Script(
                "tool_calls",
                tool_calls=[(name, dict(arguments)) for name, arguments in calls],
                model=model,
                delay=delay,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )

    def error(self, status: int = 500, message: str = "boom", *, delay: float = 0.0) -> None:
        """Answer the next chat completion with HTTP ``status`` and an OpenAI-style error body."""
        self._push(_Script("error", status=status, message=message, delay=delay))

    def hang(self, seconds: float) -> None:
        """Sleep ``seconds`` before answering the next chat completion (with a small normal completion)."""
        self._push(_Script("completion", content=HANG_REPLY, delay=seconds))

    def stream(
        self,
        chunks: list[str],
        *,
        delay_between: float = 0.0,
        first_delay: float = 0.0,
        model: str | None = None,
        delay: float = 0.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> None:
        """Stream exactly ``chunks`` as content deltas (a non-streaming request gets them joined)."""
        self._push(
            _Script(
                "completion",
                chunks=list(chunks),
                model=model,
                delay=delay,
                first_delay=first_delay,
                delay_between=delay_between,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )

    # -- inspection --------------------------------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The recorded requests to the chat completions endpoint."""
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    @property
    def models_called(self) -> list[str | None]:
        """The ``model`` of every recorded chat completion request, in order."""
        return [r["body"].get("model") for r in self.chat_requests if isinstance(r["body"], dict)]

    @property
    def pending(self) -> int:
        """How many scripted responses have not been consumed yet."""
        with self._lock:
            return len(self._scripts)

    # -- internals (used by the request handler) ---------------------------------------------------------------------

    def _push(self, script: _Script) -> None:
        with self._lock:
            self._scripts.append(script)

    def _record(self, request: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _next_script(self, body: dict[str, Any]) -> _Script:
        with self._lock:
            if self._scripts:
                return self._scripts.popleft()
            default = self.default
        if default is None:
            return _Script("error", status=500, message="FakeOpenAI: no scripted response for this request")
        try:
            content = default(body)
        except Exception as exc:  # a broken default responder should fail the request, not kill the thread
            return _Script("error", status=500, message=f"FakeOpenAI default responder failed: {exc!r}")
        return _Script("completion", content=content)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started :class:`FakeOpenAI`, reset for the test and stopped after it."""
    fake = FakeOpenAI().start()
    fake.reset()
    try:
        yield fake
    finally:
        fake.stop()
