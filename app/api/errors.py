"""The one place where Attest errors become HTTP responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.errors import AttestError, CircuitOpen, Overloaded, Unauthorized
from app.proxy.errors import from_attest, is_openai_path


async def attest_error_handler(request: Request, exc: AttestError) -> JSONResponse:
    headers = {}
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = "Bearer"
    if isinstance(exc, (Overloaded, CircuitOpen)):
        headers["Retry-After"] = str(exc.detail.get("retry_after", 1))
    return JSONResponse(render(exc, request.url.path), status_code=exc.status_code, headers=headers)


def render(exc: AttestError, path: str) -> dict[str, object]:
    """The error's JSON: OpenAI's shape under /v1 (the chat proxy's clients parse it), Attest's elsewhere."""
    return from_attest(exc) if is_openai_path(path) else exc.to_dict()


def install(app: FastAPI) -> None:
    app.add_exception_handler(AttestError, attest_error_handler)
