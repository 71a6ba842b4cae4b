"""The proxy's upstream: base URL and auth (configured key > the client's Authorization > none), an allow-listed
per-request override, 30 s timeout, retries with jittered exponential backoff on 5xx and network errors, a breaker."""

from __future__ import annotations

import asyncio
import hmac
import random
from dataclasses import dataclass
from typing import Any

import httpx

from attest.errors import Forbidden, UpstreamError, UpstreamTimeout
from attest.proxy.breaker import Breaker
from attest.settings import Settings

OVERRIDE_HEADER = "x-kgproxy-upstream-url"
MAX_BACKOFF_S = 4.0


@dataclass(frozen=True)
class Target:
    """Where one request goes: a base URL (…/v1) and the Authorization header value to send (None: none)."""

    url: str
    authorization: str | None


def _normal(url: str) -> str:
    return url.strip().rstrip("/")


class Upstream:
    """One pooled HTTP client for every proxied call; a breaker per upstream base URL."""

    def __init__(self, settings: Settings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self.default_url = _normal(settings.llm_base_url)
        self.allowlist = {_normal(u) for u in settings.proxy_upstream_allowlist}
        self.attempts = settings.proxy_attempts
        self._client = client or httpx.AsyncClient(timeout=httpx.Timeout(settings.proxy_timeout_s),
                                                   limits=httpx.Limits(max_connections=100, max_keepalive_connections=20))
        self._breakers: dict[str, Breaker] = {}

    def target(self, override: str | None, client_authorization: str | None) -> Target:
        """The request's upstream; an override outside the allow-list is refused before anything is called."""
        url = self.default_url
        if override is not None:
            wanted = _normal(override)
            if wanted not in self.allowlist:
                raise Forbidden("X-KGProxy-Upstream-URL names an upstream that is not on the allow-list "
                                "(proxy_upstream_allowlist)", code="upstream_not_allowed")
            url = wanted
        return Target(url, self._authorization(client_authorization))

    def _authorization(self, client: str | None) -> str | None:
        key = self.settings.llm_api_key.get_secret_value()
        if key:
            return f"Bearer {key}"
        if client and not self._is_attest_token(client):
            return client
        return None

    def _is_attest_token(self, header: str) -> bool:
        """Attest's own write token authenticates the client to Attest: it is never forwarded upstream."""
        token = self.settings.token.get_secret_value() if self.settings.token else None
        given = header.partition(" ")[2].strip()
        if not token:
            return False
        return hmac.compare_digest(given.encode(), token.encode())

    def breaker(self, url: str) -> Breaker:
        if url not in self._breakers:
            self._breakers[url] = Breaker(self.settings.proxy_breaker_failures, self.settings.proxy_breaker_cooloff_s)
        return self._breakers[url]

    async def call(self, target: Target, method: str, path: str, body: Any = None, *, stream: bool = False) -> httpx.Response:
        """The upstream's response (status < 500); streamed responses are returned open, the caller closes them.

        5xx answers, timeouts and connection errors are retried (`proxy_attempts` in all); then UpstreamTimeout
        (504) when the last attempt timed out, else UpstreamError (502). An open breaker refuses at once (503)."""
        breaker = self.breaker(target.url)
        breaker.check(target.url)
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if target.authorization:
            headers["Authorization"] = target.authorization
        url = f"{target.url}/{path.lstrip('/')}"
        reason, timed_out = "", False
        for attempt in range(1, self.attempts + 1):
            try:
                request = self._client.build_request(method, url, json=body, headers=headers)
                response = await self._client.send(request, stream=stream)
            except httpx.TimeoutException:
                reason, timed_out = f"no answer within {self.settings.proxy_timeout_s:g} s", True
            except httpx.TransportError as exc:
                reason, timed_out = f"cannot reach the upstream ({type(exc).__name__})", False
            else:
                if response.status_code < 500:
                    breaker.success()
                    return response
                await response.aread()
                await response.aclose()
                reason, timed_out = f"http {response.status_code}: {_message(response)}", False
            breaker.failure()
            if attempt == self.attempts or breaker.is_open:
                break
            await asyncio.sleep(self._backoff(attempt))
        detail = dict(code="upstream_timeout" if timed_out else "upstream_error", upstream=target.url, attempts=attempt)
        message = f"upstream {target.url} failed after {attempt} attempt(s): {reason}"
        raise (UpstreamTimeout if timed_out else UpstreamError)(message, **detail)

    def _backoff(self, attempt: int) -> float:
        """Exponential in the attempt, jittered by ±50% so clients that failed together do not retry together."""
        return min(MAX_BACKOFF_S, self.settings.proxy_backoff_s * 2.0 ** (attempt - 1)) * (0.5 + random.random())

    async def aclose(self) -> None:
        await self._client.aclose()


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:200]
    return str(body)[:200]
