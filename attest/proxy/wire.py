"""The OpenAI chat request as the proxy checks it: only what it reads is validated, every other field passes untouched."""

from __future__ import annotations

import json
from typing import Any

from attest.errors import BadRequest

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
MAX_MESSAGES = 2048


def invalid(message: str, param: str | None, code: str = "invalid_value") -> BadRequest:
    return BadRequest(message, code=code, param=param)


def parse_json_object(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise invalid(f"the request body is not valid JSON ({exc})", None, "invalid_json") from exc
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object", None, "invalid_json")
    return body


def check_chat(body: dict[str, Any]) -> None:
    """400 for what the proxy cannot forward faithfully: no model, malformed messages, unknown roles, bad flags."""
    model = body.get("model")
    if model is None:
        raise invalid("you must provide a model parameter", "model", "missing_required_parameter")
    if not isinstance(model, str) or not model.strip():
        raise invalid("model must be a non-empty string", "model")
    messages = body.get("messages")
    if messages is None:
        raise invalid("you must provide a messages parameter", "messages", "missing_required_parameter")
    if not isinstance(messages, list) or not messages:
        raise invalid("messages must be a non-empty array", "messages")
    if len(messages) > MAX_MESSAGES:
        raise invalid(f"messages holds more than {MAX_MESSAGES} entries", "messages")
    for i, message in enumerate(messages):
        _check_message(message, f"messages[{i}]")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise invalid("stream must be a boolean", "stream")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise invalid("stream_options must be an object", "stream_options")
    if "user" in body and not isinstance(body["user"], str):
        raise invalid("user must be a string", "user")


def _check_message(message: Any, where: str) -> None:
    if not isinstance(message, dict):
        raise invalid(f"{where} must be an object with a role", where)
    role = message.get("role")
    if role is None:
        raise invalid(f"{where} has no role", f"{where}.role", "missing_required_parameter")
    if role not in ROLES:
        raise invalid(f"{where}.role {role!r} is not one of {', '.join(sorted(ROLES))}", f"{where}.role")
    content = message.get("content")
    if content is None:
        if role == "assistant" and (message.get("tool_calls") or message.get("function_call")):
            return  # an assistant turn that only calls tools
        raise invalid(f"{where}.content is required for the {role} role", f"{where}.content", "missing_required_parameter")
    if isinstance(content, str):
        return
    if not isinstance(content, list) or not all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in content):
        raise invalid(f"{where}.content must be a string or an array of content parts with a type", f"{where}.content")
