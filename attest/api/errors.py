"""The one place where Attest errors become HTTP responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from attest.errors import AttestError, CircuitOpen, Overloaded, Unauthorized
from attest.proxy.errors import error_body, from_attest, is_openai_path


async def attest_error_handler(request: Request, exc: AttestError) -> JSONResponse:
    headers: dict[str, str] = {}
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = "Bearer"
    if isinstance(exc, (Overloaded, CircuitOpen)):
        headers["Retry-After"] = str(exc.detail.get("retry_after", 1))
    return JSONResponse(render(exc, request.url.path), status_code=exc.status_code, headers=headers)


def render(exc: AttestError, path: str) -> dict[str, object]:
    """The error's JSON: OpenAI's shape under /v1 (the chat proxy's clients parse it), Attest's elsewhere."""
    return from_attest(exc) if is_openai_path(path) else exc.to_dict()


async def routing_error_handler(request: Request, exc: HTTPException) -> Response:
    """An unknown route or method: OpenAI's error JSON under /v1, FastAPI's own answer elsewhere."""
    if not is_openai_path(request.url.path):
        return await http_exception_handler(request, exc)
    code = {404: "unknown_url", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    message = f"{request.method} {request.url.path}: {exc.detail}"
    return JSONResponse(error_body(exc.status_code, message, code), status_code=exc.status_code, headers=exc.headers)


def install(app: FastAPI) -> None:
    # Starlette types every handler as taking any Exception; it calls each with the class it is registered for
    app.add_exception_handler(AttestError, attest_error_handler)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, routing_error_handler)  # type: ignore[arg-type]
