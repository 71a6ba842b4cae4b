"""OpenAI's error JSON ({"error": {"message", "type", "code", "param"}}) for everything under /v1."""

from __future__ import annotations

import re

from fastapi.responses import JSONResponse

from attest.errors import AttestError

OPENAI_PREFIX = "/v1/"
TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
         404: "not_found_error", 413: "invalid_request_error", 415: "invalid_request_error",
         422: "invalid_request_error", 429: "rate_limit_error"}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def is_openai_path(path: str) -> bool:
    return path.startswith(OPENAI_PREFIX)


def error_type(status: int) -> str:
    return TYPES.get(status, "upstream_error" if status in (502, 503, 504) else "api_error")


def error_body(status: int, message: str, code: str | None, param: str | None = None) -> dict[str, object]:
    return {"error": {"message": message, "type": error_type(status), "code": code, "param": param}}


def from_attest(exc: AttestError) -> dict[str, object]:
    """An Attest error in OpenAI's shape; `code` from the error's detail, else its class name in snake case."""
    code = exc.detail.get("code") or _CAMEL.sub("_", type(exc).__name__).lower()
    param = exc.detail.get("param")
    return error_body(exc.status_code, exc.message, str(code), str(param) if param is not None else None)


def openai_error(status: int, message: str, code: str | None, param: str | None = None,
                 headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, code, param), status_code=status, headers=headers)
