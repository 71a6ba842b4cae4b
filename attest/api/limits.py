"""Request body limit, enforced on the declared length and on the bytes actually received."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attest.api import errors
from attest.errors import PayloadTooLarge
from attest.settings import Settings


class BodyLimit:
    """ASGI middleware: 413 when a body is declared or streamed over settings.max_body_bytes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            exc = _too_large(limit)
            body = errors.render(exc, scope.get("path", ""))
            await JSONResponse(body, status_code=exc.status_code)(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _too_large(limit)  # mapped to 413 by the AttestError handler
            return message

        await self.app(scope, counting_receive, send)


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"request body is over the limit of {limit} bytes", limit=limit)


def install(app: FastAPI, settings: Settings) -> None:
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
