"""A real HTTP server on a free loopback port that speaks the OpenAI wire format and serves scripted replies.

Usage (see tests/fakes/fixtures.py for the `fake_llm` fixture):

    with FakeOpenAI() as fake:
        fake.reply('{"entities": [], "relations": []}')     # 200 with this assistant content
        fake.error(429, retry_after=1)                       # 429 with a Retry-After header
        fake.reply("{...}", delay_s=5)                       # answer late (forces a client timeout)
        fake.respond_with(lambda request: Reply(content=...))  # compute replies from the request instead
        OpenAI(base_url=fake.url, api_key="test")...
        fake.requests[-1].json["messages"]                   # what the client sent
        fake.reply("", tool_calls=[{"id": "call_1", "type": "function",
                                    "function": {"name": "f", "arguments": "{}"}}])  # a tool call

Endpoints: POST /v1/chat/completions (honours `response_format`; with `reject_json_schema=True` a
json_schema request gets the 400 an older server gives; `stream: true` answers Server-Sent Events, the
content in pieces of `stream_piece_chars`, a usage chunk when `stream_options.include_usage` asks, then
`[DONE]`), GET /v1/models, POST /v1/embeddings (deterministic vectors from a hash of each input, never
queued). A chat request that finds the queue empty gets a 500 whose message says so, so a test never passes
on an unscripted call.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """One scripted answer: assistant content with status 200, or an error status with headers."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    finish_reason: str = "stop"
    error_message: str = "scripted error"
    tool_calls: list[dict[str, Any]] | None = None


@dataclass
class RecordedRequest:
    """What the fake received: method, path, headers and the parsed JSON body (None for GET)."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any

    def messages_text(self) -> str:
        """All message contents joined, for assertions on the prompt."""
        if not isinstance(self.json, dict):
            return ""
        return "\n".join(str(m.get("content", "")) for m in self.json.get("messages", []))


class FakeOpenAI:
    """Scripted OpenAI-compatible server; thread-safe queue, records every request."""

    def __init__(self, models: tuple[str, ...] = ("test-model",), reject_json_schema: bool = False,
                 stream_piece_chars: int = 8, embedding_dims: int = 8) -> None:
        self.models = list(models)
        self.reject_json_schema = reject_json_schema
        self.stream_piece_chars = stream_piece_chars
        self.embedding_dims = embedding_dims
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[RecordedRequest], Reply] | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # scripting -------------------------------------------------------------
    def reply(self, content: str, *, delay_s: float = 0.0, finish_reason: str | None = None,
              tool_calls: list[dict[str, Any]] | None = None) -> None:
        finish = finish_reason or ("tool_calls" if tool_calls else "stop")
        self._push(Reply(content=content, delay_s=delay_s, finish_reason=finish, tool_calls=tool_calls))

    def reply_json(self, payload: Any, **kwargs: Any) -> None:
        self.reply(json.dumps(payload), **kwargs)

    def error(self, status: int, *, retry_after: float | None = None, message: str = "scripted error", delay_s: float = 0.0) -> None:
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        self._push(Reply(status=status, headers=headers, error_message=message, delay_s=delay_s))

    def respond_with(self, responder: Callable[[RecordedRequest], Reply] | None) -> None:
        """Compute each reply from the request (used when the queue is empty)."""
        self._responder = responder

    def _push(self, reply: Reply) -> None:
        with self._lock:
            self._queue.append(reply)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # lifecycle -------------------------------------------------------------
    def start(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # serving ---------------------------------------------------------------
    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return self._responder(request)
        return Reply(status=500, error_message="fake OpenAI server: no scripted reply left for this request")


def _usage(body: dict[str, Any], content: str) -> dict[str, int]:
    prompt = sum(len(str(m.get("content") or "").split()) for m in body.get("messages", []) if isinstance(m, dict))
    completion = len(content.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(model: str, reply: Reply, number: int, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
        message["content"] = reply.content or None
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        "usage": _usage(body, reply.content or ""),
    }


def _stream_chunks(model: str, reply: Reply, number: int, body: dict[str, Any], piece: int) -> list[dict[str, Any]]:
    """The chat.completion.chunk objects of one streamed reply, in order (usage last when asked for)."""
    base = {"id": f"chatcmpl-fake-{number}", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    content = reply.content or ""
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        out = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if include_usage:
            out["usage"] = None
        return out

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": content[i:i + piece]}) for i in range(0, len(content), piece)]
    for i, call in enumerate(reply.tool_calls or []):
        chunks.append(chunk({"tool_calls": [{"index": i, **call}]}))
    chunks.append(chunk({}, reply.finish_reason))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": _usage(body, content)})
    return chunks


def _embedding(text: str, dims: int) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [round(digest[i % len(digest)] / 255.0, 6) for i in range(dims)]


def _error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "rate_limit_error" if status == 429 else "server_error", "code": status}}


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            body = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to tell it

        def _record(self, body: Any) -> RecordedRequest:
            return RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                with fake._lock:
                    fake.requests.append(self._record(None))
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "fake"} for m in fake.models]})
            else:
                self._send(404, _error_body(404, f"no route {self.path}"))

        def _send_stream(self, chunks: list[dict[str, Any]], headers: dict[str, str]) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

        def _embeddings(self, body: Any) -> None:
            with fake._lock:
                fake.requests.append(self._record(body))
            inputs = body.get("input") if isinstance(body, dict) else None
            if isinstance(inputs, str):
                inputs = [inputs]
            if not isinstance(inputs, list) or not inputs:
                self._send(400, _error_body(400, "input must be a string or a list of strings"))
                return
            data = [{"object": "embedding", "index": i, "embedding": _embedding(str(text), fake.embedding_dims)}
                    for i, text in enumerate(inputs)]
            tokens = sum(len(str(t).split()) for t in inputs)
            self._send(200, {"object": "list", "data": data, "model": body.get("model", "unknown"),
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            route = self.path.rstrip("/")
            if route not in ("/v1/chat/completions", "/v1/embeddings"):
                self._send(404, _error_body(404, f"no route {self.path}"))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, _error_body(400, "body is not JSON"))
                return
            if route == "/v1/embeddings":
                self._embeddings(body)
                return
            request = self._record(body)
            fmt = (body.get("response_format") or {}).get("type")
            if fake.reject_json_schema and fmt == "json_schema":
                with fake._lock:
                    fake.requests.append(request)
                self._send(400, _error_body(400, "response_format json_schema is not supported"))
                return
            reply = fake._next_reply(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if reply.status != 200:
                self._send(reply.status, _error_body(reply.status, reply.error_message), reply.headers)
                return
            number = len(fake.requests)
            model = body.get("model", "unknown")
            if body.get("stream"):
                self._send_stream(_stream_chunks(model, reply, number, body, fake.stream_piece_chars), reply.headers)
                return
            self._send(200, _completion(model, reply, number, body), reply.headers)

    return Handler
