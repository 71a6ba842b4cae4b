"""The request guard: a Host allow-list (DNS rebinding) and no cross-site requests that change state or spend money."""

from __future__ import annotations

import re

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from attest.api.errors import attest_error_handler
from attest.api.origins import allowed_host_names, origin_matcher, same_origin, split_host_header
from attest.errors import AttestError, CrossSiteRefused, MisdirectedRequest
from attest.settings import Settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# the content types an HTML form can send (its enctype), which a page of any site can post without a preflight
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})
FORM_PROOF_HEADER = "X-Requested-With"  # a header no form can set; the UI sends `X-Requested-With: attest`
CORS_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE"]
CORS_HEADERS = ["Authorization", "Content-Type", "Accept", FORM_PROOF_HEADER, "X-KGProxy-Namespace",
                "X-KGProxy-Conversation", "X-KGProxy-Upstream-URL", "Mcp-Session-Id", "Mcp-Protocol-Version"]
CORS_EXPOSED = ["X-Attest-Truncated", "X-Attest-Next-Offset", "X-Attest-Limit-Capped", "X-Request-ID", "Mcp-Session-Id"]


class RequestGuard:
    """Pure ASGI middleware over the whole app (API, UI, /v1, /mcp):

    - a Host header that names no allowed host is answered 421 (a DNS-rebinding page sends its own name);
    - a request with a method other than GET/HEAD/OPTIONS (every write, the chat proxy, /answer) whose Origin is
      neither the service's own nor on `cors_origins`, or `null`, or that has no Origin but says
      `Sec-Fetch-Site: cross-site` or `same-site`, is answered 403. Nothing behind the guard runs for them.
    The form rule for token-less writes (X-Requested-With) is part of the write check, attest/api/deps.py.
    """

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], origins: re.Pattern[str]) -> None:
        self.app = app
        self.hosts = hosts  # allowed_host_names
        self.origins = origins  # origin_matcher

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await (await attest_error_handler(Request(scope), refusal))(scope, receive, send)

    def refusal(self, scope: Scope) -> AttestError | None:
        headers = Headers(scope=scope)
        raw_host = headers.get("host")
        host = split_host_header(raw_host) if raw_host is not None else None
        if host is None or host[0] not in self.hosts:
            shown = "no Host header" if raw_host is None else f"Host {raw_host[:100]!r}"
            return MisdirectedRequest(
                f"{shown} is not a name this service answers to; it answers to localhost, 127.0.0.1, [::1] and "
                "the names in the allowed_hosts setting (a web page that rebinds its DNS name to this machine "
                "sends its own name)", host=(raw_host or "")[:100])
        if scope["type"] == "http" and scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None:
            origin = origin.strip().lower()
            if origin != "null" and (same_origin(origin, host) or self.origins.fullmatch(origin)):
                return None
            return CrossSiteRefused(
                f"a request from a page of {origin[:100]!r} may not change anything or call the LLM here; "
                "allowed are the service's own pages and the origins in the cors_origins setting",
                origin=origin[:100])
        fetch_site = headers.get("sec-fetch-site", "").strip().lower()
        if fetch_site in ("cross-site", "same-site"):
            return CrossSiteRefused(f"a request from a page of another site (Sec-Fetch-Site: {fetch_site}) may not "
                                    "change anything or call the LLM here", sec_fetch_site=fetch_site)
        return None


def form_content(content_type: str | None) -> bool:
    """Whether a Content-Type is one an HTML form can send (its body may come from a page of any site)."""
    return (content_type or "").split(";", 1)[0].strip().lower() in FORM_TYPES


def refuse_unproven_form(request: Request) -> None:
    """A token-less write sent as a form's content type must carry X-Requested-With, which no form can set."""
    if form_content(request.headers.get("content-type")) and FORM_PROOF_HEADER not in request.headers:
        raise CrossSiteRefused(
            f"a write sent as {request.headers.get('content-type', '').split(';')[0].strip()} without a token needs "
            f"the header {FORM_PROOF_HEADER} (any value), which an HTML form on another site cannot send; "
            "nothing was changed", header=FORM_PROOF_HEADER)


def install(app: Starlette, settings: Settings) -> None:
    """Add the guard and CORS for `cors_origins`; bad allowed_hosts or cors_origins entries raise ConfigError here,
    when the app is made. CORS answers preflights inside the guard, so a refused Host gets no CORS answer either."""
    origins = origin_matcher(settings.cors_origins)
    app.add_middleware(CORSMiddleware, allow_origin_regex=origins.pattern, allow_methods=CORS_METHODS,
                       allow_headers=CORS_HEADERS, expose_headers=CORS_EXPOSED)
    app.add_middleware(RequestGuard, hosts=allowed_host_names(settings.allowed_hosts, settings.host), origins=origins)
