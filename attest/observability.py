"""Structured JSON logs with request ids, secret redaction, and the HTTP metrics middleware."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
import uuid
from typing import IO

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attest import metrics
from attest.settings import Settings

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"
CLIENT_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")  # a client's id is kept only when it is this tame
REDACTED = "[REDACTED]"
# credentials that look like credentials, whoever logs them
CREDENTIAL_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',;]+"),
    re.compile(r"(?i)((?:authorization|api[_-]?key|x-api-key|token|password|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
)
LOG_RECORD_FIELDS = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}
ACCESS_LOGGER = "attest.access"


class SecretRedactor(logging.Filter):
    """Replaces configured secrets and anything credential-shaped in a record by [REDACTED]; never drops a record."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def add(self, *secrets: str | None) -> None:
        self.secrets.update(s for s in secrets if s and len(s) >= 4)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        for pattern in CREDENTIAL_PATTERNS:
            text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redact(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        for key, value in list(vars(record).items()):
            if key not in LOG_RECORD_FIELDS and isinstance(value, str):
                setattr(record, key, self.redact(value))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id and any `extra=` fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in LOG_RECORD_FIELDS and key != "request_id":
                entry[key] = value if isinstance(value, (int, float, bool, type(None))) else str(value)
        if record.exc_text:
            entry["exception"] = record.exc_text
        elif record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


redactor = SecretRedactor()
_handler: logging.Handler | None = None


def configure_logging(settings: Settings, stream: IO[str] | None = None) -> logging.Handler:
    """JSON logs on stderr (or `stream`) through the redactor; idempotent, and it registers the settings' secrets."""
    global _handler
    redactor.add(settings.token.get_secret_value() if settings.token else None,
                 settings.llm_api_key.get_secret_value() if settings.llm_api_key else None)
    root = logging.getLogger()
    if _handler is None or stream is not None:
        if _handler is not None:
            root.removeHandler(_handler)
        _handler = logging.StreamHandler(stream or sys.stderr)
        _handler.setFormatter(JsonFormatter())
        _handler.addFilter(redactor)
        root.addHandler(_handler)
        if root.level > logging.INFO or root.level == logging.NOTSET:
            root.setLevel(logging.INFO)
    # uvicorn's own handlers print outside our format: its loggers go through ours instead
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = name != "uvicorn.access"  # our access log replaces uvicorn's
    return _handler


class RequestContext:
    """ASGI middleware: request id (X-Request-ID in and out), access log line, request count and latency metrics."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(REQUEST_ID_HEADER.lower().encode(), b"").decode("latin-1")
        rid = given if CLIENT_REQUEST_ID.match(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (REQUEST_ID_HEADER.lower().encode(), rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            method = scope["method"]
            metrics.http_requests.labels(method, route, str(status)).inc()
            metrics.http_latency.labels(method, route).observe(elapsed)
            self.log.info("%s %s %s", method, scope["path"], status,
                          extra={"method": method, "path": scope["path"], "route": route, "status": status,
                                 "duration_ms": round(elapsed * 1000, 2),
                                 "client": scope["client"][0] if scope.get("client") else None})
            request_id.reset(token)


def install(app: FastAPI, settings: Settings) -> None:
    configure_logging(settings)
    app.add_middleware(RequestContext)
