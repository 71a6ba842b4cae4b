"""OpenAI-compatible chat client with our own retries (429/5xx/timeouts/malformed JSON), structured output and a liveness probe.

Interface (stable; used by the LLM extractor and by /answer):

    client = LlmClient(settings)                        # openai.OpenAI(base_url, api_key, timeout, max_retries=0)
    text = client.chat(messages)                         # str; retried on 429/5xx/timeouts/connection errors
    obj = client.structured(messages, Extraction)        # a validated pydantic object; malformed JSON retried too
    client.last_call                                     # CallReport(attempts, response_format, errors) of the latest call
    llm_available(settings) -> bool                      # GET {base_url}/models with a short timeout
    render_prompt("extract_system", types=...)           # attest/prompts/<name>.txt as a string.Template

Failure: after 1 + settings.llm_max_retries attempts an ExtractionError is raised whose `reason`
says what went wrong (timeout, http 503, malformed JSON ...); when the server cannot be reached at
all, LlmUnavailable. Retry-After (seconds) is honoured, capped by `max_retry_after_s`.
Structured output asks for response_format=json_schema (from the pydantic model); a server that
rejects it with a 4xx is asked again with json_object, and the client remembers that for later calls.
"""

from __future__ import annotations

import json
import random
import re
import string
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from attest import metrics
from attest.errors import ExtractionError, LlmUnavailable
from attest.settings import Settings

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")  # what one attempt returns: reply text or a parsed model


def render_prompt(name: str, **values: str) -> str:
    """Fill attest/prompts/<name>.txt; `$name` placeholders, so braces and dollars in values stay literal."""
    template = string.Template((PROMPTS_DIR / f"{name}.txt").read_text(encoding="utf-8"))
    return template.substitute(values)


def llm_available(settings: Settings, timeout_s: float = 2.0) -> bool:
    """True when an OpenAI-compatible server answers GET /models at settings.llm_base_url."""
    url = settings.llm_base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {settings.llm_api_key.get_secret_value()}"}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s)
    except httpx.HTTPError:
        return False
    return response.status_code == 200


@dataclass
class CallReport:
    """How the latest call went: attempts made, the response format used, and each failed attempt's reason."""

    attempts: int = 0
    response_format: str = ""
    errors: list[str] = field(default_factory=list)


class _Retryable(Exception):
    def __init__(self, reason: str, wait_s: float | None = None, unreachable: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.wait_s, self.unreachable = reason, wait_s, unreachable


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asks us to wait; `headers` is an httpx2.Headers (openai 3) or httpx.Headers (openai 1)."""
    if not headers:
        return None
    if ms := headers.get("retry-after-ms"):
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _strip_fences(content: str) -> str:
    """Some models wrap JSON in a Markdown code fence even in JSON mode."""
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", content, re.DOTALL)
    return match.group(1) if match else content


class LlmClient:
    """One OpenAI client shared by threads; each call retried by us with exponential backoff."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        max_retry_after_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = settings.llm_model
        self.max_attempts = 1 + settings.llm_max_retries
        self.backoff_s, self.max_backoff_s, self.max_retry_after_s = backoff_s, max_backoff_s, max_retry_after_s
        self._sleep = sleep
        self._client = openai.OpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key.get_secret_value(),
            timeout=settings.llm_timeout_s,
            max_retries=0,
        )
        self._json_schema_ok = True
        self._local = threading.local()

    @property
    def last_call(self) -> CallReport:
        """The report of the latest call made by this thread."""
        return getattr(self._local, "report", CallReport())

    def chat(self, messages: list[dict[str, str]], **params: object) -> str:
        """Assistant text for `messages`; retried on transient failures."""
        return self._with_retries(lambda fmt: self._complete(messages, None, **params), "text")

    def structured(self, messages: list[dict[str, str]], model: type[M], *, schema_name: str | None = None) -> M:
        """A `model` instance parsed from the assistant's JSON; malformed or invalid JSON is retried."""
        name = schema_name or model.__name__
        schema = model.model_json_schema()

        def attempt(fmt: str) -> M:
            if fmt == "json_schema":
                response_format = {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
            else:
                response_format = {"type": "json_object"}
            content = self._complete(messages, response_format)
            try:
                return model.model_validate_json(_strip_fences(content))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ())) or "body"
                kind = "malformed JSON" if first.get("type") == "json_invalid" else "JSON does not match the schema"
                raise _Retryable(f"{kind} ({where}: {first.get('msg')}); reply began {content[:80]!r}") from exc

        return self._with_retries(attempt, "json_schema")

    # ------------------------------------------------------------------
    def _complete(self, messages: list[dict[str, str]], response_format: dict | None, **params: object) -> str:
        kwargs: dict[str, object] = {"model": self.model, "messages": messages, "temperature": 0, **params}
        if response_format is not None:
            kwargs["response_format"] = response_format
        try:
            # the callers' messages and params are plain dicts; the SDK's overloads want its TypedDicts and named params
            response: ChatCompletion = self._client.chat.completions.create(**kwargs)  # type: ignore[call-overload]
        except openai.APITimeoutError as exc:
            metrics.llm_errors.labels("timeout").inc()
            raise _Retryable("timeout") from exc
        except openai.APIConnectionError as exc:
            metrics.llm_errors.labels("connection").inc()
            raise _Retryable(f"cannot connect to {self._client.base_url}: {exc}", unreachable=True) from exc
        except openai.APIStatusError as exc:
            metrics.llm_errors.labels(f"http_{exc.status_code}").inc()
            if exc.status_code == 429 or exc.status_code >= 500:
                raise _Retryable(f"http {exc.status_code}: {_message(exc)}", _retry_after(exc.response.headers)) from exc
            if response_format and response_format.get("type") == "json_schema" and exc.status_code in (400, 415, 422):
                raise _SchemaRejected(f"http {exc.status_code}: {_message(exc)}") from exc
            raise ExtractionError(
                f"LLM request refused: http {exc.status_code}: {_message(exc)}", reason=f"http {exc.status_code}", model=self.model
            ) from exc
        metrics.llm_calls.labels("chat", "ok").inc()
        if response.usage is not None:
            metrics.llm_tokens.labels("prompt").inc(response.usage.prompt_tokens or 0)
            metrics.llm_tokens.labels("completion").inc(response.usage.completion_tokens or 0)
        if not response.choices:
            raise _Retryable("reply has no choices")
        choice = response.choices[0]
        if choice.finish_reason == "length":
            raise _Retryable("reply cut off at the token limit (finish_reason=length)")
        content = choice.message.content
        if not content:
            raise _Retryable("reply has no content")
        return content

    def _with_retries(self, attempt: Callable[[str], R], fmt: str) -> R:
        report = CallReport()
        self._local.report = report
        unreachable_only = True
        for number in range(1, self.max_attempts + 1):
            use = "json_object" if fmt == "json_schema" and not self._json_schema_ok else fmt
            report.attempts, report.response_format = number, use
            try:
                return attempt(use)
            except _SchemaRejected as exc:
                report.errors.append(f"json_schema refused ({exc}); retrying with json_object")
                self._json_schema_ok = False
                report.attempts, report.response_format = number, "json_object"
                try:
                    return attempt("json_object")
                except _Retryable as inner:
                    failure = inner
            except _Retryable as exc:
                failure = exc
            report.errors.append(failure.reason)
            unreachable_only = unreachable_only and failure.unreachable
            if number < self.max_attempts:
                self._sleep(self._wait(number, failure.wait_s))
        summary = f"LLM call failed after {report.attempts} attempt(s): {report.errors[-1]}"
        error = LlmUnavailable if unreachable_only else ExtractionError
        raise error(summary, reason=report.errors[-1], attempts=report.attempts, errors=list(report.errors), model=self.model)

    def _wait(self, number: int, retry_after: float | None) -> float:
        backoff = min(self.max_backoff_s, self.backoff_s * 2 ** (number - 1)) * (1 + random.random() * 0.1)
        if retry_after is not None:
            return max(min(retry_after, self.max_retry_after_s), 0.0)
        return backoff


class _SchemaRejected(Exception):
    """The server refused response_format=json_schema (older servers): use json_object instead."""


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    try:
        return json.dumps(body)[:200] if body is not None else exc.message
    except (TypeError, ValueError):
        return exc.message
