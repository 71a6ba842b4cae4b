"""The one place where Attest errors become HTTP responses."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.errors import AttestError, Overloaded, Unauthorized


async def attest_error_handler(request: Request, exc: AttestError) -> JSONResponse:
    headers = {}
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = "Bearer"
    if isinstance(exc, Overloaded):
        headers["Retry-After"] = str(exc.detail.get("retry_after", 1))
    return JSONResponse(exc.to_dict(), status_code=exc.status_code, headers=headers)


def install(app: FastAPI) -> None:
    app.add_exception_handler(AttestError, attest_error_handler)
