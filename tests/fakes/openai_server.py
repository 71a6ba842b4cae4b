"""A real HTTP server on a free loopback port that speaks the OpenAI wire format and serves scripted replies.

Usage (see tests/fakes/fixtures.py for the `fake_llm` fixture):

    with FakeOpenAI() as fake:
        fake.reply('{"entities": [], "relations": []}')     # 200 with this assistant content
        fake.error(429, retry_after=1)                       # 429 with a Retry-After header
        fake.reply("{...}", delay_s=5)                       # answer late (forces a client timeout)
        fake.respond_with(lambda request: Reply(content=...))  # compute replies from the request instead
        OpenAI(base_url=fake.url, api_key="test")...
        fake.requests[-1].json["messages"]                   # what the client sent

Endpoints: POST /v1/chat/completions (honours `response_format`; with `reject_json_schema=True` a
json_schema request gets the 400 an older server gives), GET /v1/models. A request that finds the
queue empty gets a 500 whose message says so, so a test never passes on an unscripted call.
"""

from __future__ import annotations

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

    def __init__(self, models: tuple[str, ...] = ("test-model",), reject_json_schema: bool = False) -> None:
        self.models = list(models)
        self.reject_json_schema = reject_json_schema
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
    def reply(self, content: str, *, delay_s: float = 0.0, finish_reason: str = "stop") -> None:
        self._push(Reply(content=content, delay_s=delay_s, finish_reason=finish_reason))

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


def _completion(model: str, content: str, finish_reason: str, number: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


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

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error_body(404, f"no route {self.path}"))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, _error_body(400, "body is not JSON"))
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
            self._send(200, _completion(body.get("model", "unknown"), reply.content or "", reply.finish_reason, number), reply.headers)

    return Handler
