"""The request guard: a Host allow-list (DNS rebinding) and no cross-site requests that change state or spend money."""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from attest.api.errors import attest_error_handler
from attest.errors import AttestError, ConfigError, CrossSiteRefused, MisdirectedRequest

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")  # bind addresses that name no host a client would write in Host
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# the content types an HTML form can send (its enctype), which a page of any site can post without a preflight
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})
FORM_PROOF_HEADER = "X-Requested-With"  # a header no form can set; the UI sends `X-Requested-With: attest`
CORS_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE"]
CORS_HEADERS = ["Authorization", "Content-Type", "Accept", FORM_PROOF_HEADER, "X-KGProxy-Namespace",
                "X-KGProxy-Conversation", "X-KGProxy-Upstream-URL", "Mcp-Session-Id", "Mcp-Protocol-Version"]
CORS_EXPOSED = ["X-Attest-Truncated", "X-Attest-Next-Offset", "X-Attest-Limit-Capped", "X-Request-ID", "Mcp-Session-Id"]
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(?:\.{_HOST_LABEL})*")
_ORIGIN_ENTRY = re.compile(r"(?P<scheme>https?)://(?P<host>\[[0-9a-f:.]+\]|[^/:\[\]]+)(?::(?P<port>\*|\d{1,5}))?/?")


def normal_host(name: str) -> str | None:
    """A host name or IP address as compared: lower-cased, no trailing dot, IPv6 without brackets in its short
    form; None when it is neither a DNS name nor an IP address."""
    name = name.strip().lower().removesuffix(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name if _HOST_NAME.fullmatch(name) and len(name) <= 253 else None


def split_host_header(value: str) -> tuple[str, int | None] | None:
    """(normal host, port or None) of a Host header value; None when it is malformed."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        name, rest = (value[: end + 1], value[end + 1:]) if end > 0 else ("", "")
    else:
        name, _, port = value.partition(":")
        rest = f":{port}" if _ else ""
    if rest and not re.fullmatch(r":\d{1,5}", rest):
        return None
    host = normal_host(name) if name else None
    return (host, int(rest[1:]) if rest else None) if host else None


def allowed_host_names(entries: Iterable[str], bind_host: str = "") -> frozenset[str]:
    """The hosts the service answers to: the loopback names, `allowed_hosts` and a specific bind address.
    An entry that is not a bare host name or IP address (a URL, a port, a pattern) is a ConfigError."""
    names = set(LOOPBACK_HOSTS)
    for entry in entries:
        host = normal_host(entry) if isinstance(entry, str) else None
        if host is None:
            raise ConfigError(f"allowed_hosts: {entry!r} is not a host name or IP address (give names like "
                              "attest.example.org, without scheme, port, path or wildcards)", setting="allowed_hosts")
        names.add(host)
    if bind_host not in WILDCARD_BINDS and (host := normal_host(bind_host)) is not None:
        names.add(host)
    return frozenset(names)


def origin_matcher(entries: Iterable[str]) -> re.Pattern[str]:
    """One regex over the `cors_origins` entries (scheme://host[:port], port `*` = any port or none). `*` and
    anything that is not an origin are ConfigErrors: no page of an arbitrary site may write."""
    alternatives = []
    for entry in entries:
        match = _ORIGIN_ENTRY.fullmatch(entry.strip().lower()) if isinstance(entry, str) else None
        host = normal_host(match["host"]) if match else None
        if match is None or host is None:
            why = ("'*' would let a page of any site call the service, writes included; list the origins instead"
                   if isinstance(entry, str) and entry.strip() == "*" else
                   "an origin is scheme://host[:port] with scheme http or https and port a number or *")
            raise ConfigError(f"cors_origins: {entry!r} is refused: {why}", setting="cors_origins")
        written = f"[{host}]" if ":" in host else host
        port = match["port"]
        tail = r"(?::\d{1,5})?" if port == "*" else (f":{port}" if port else "")
        alternatives.append(f"{match['scheme']}://{re.escape(written)}{tail}")
    return re.compile("|".join(alternatives) or r"(?!)")


def _split_origin(origin: str) -> tuple[str, str, int] | None:
    match = re.fullmatch(r"([a-z][a-z0-9+.-]*)://(\[[^\]]*\]|[^/:]*)(?::(\d{1,5}))?", origin)
    if match is None or (host := normal_host(match[2])) is None:
        return None
    scheme = match[1]
    return scheme, host, int(match[3]) if match[3] else DEFAULT_PORTS.get(scheme, 0)


def same_origin(origin: str, host: tuple[str, int | None]) -> bool:
    """Whether a lower-cased Origin names the host the request was sent to (a page the service served itself).
    A Host without port means the origin scheme's default port (TLS ended at a proxy in front)."""
    parts = _split_origin(origin)
    if parts is None:
        return False
    scheme, name, port = parts
    return name == host[0] and port == (host[1] or DEFAULT_PORTS.get(scheme, 0))


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


def install(app, settings) -> None:
    """Add the guard and CORS for `cors_origins`; bad allowed_hosts or cors_origins entries raise ConfigError here,
    when the app is made. CORS answers preflights inside the guard, so a refused Host gets no CORS answer either."""
    origins = origin_matcher(settings.cors_origins)
    app.add_middleware(CORSMiddleware, allow_origin_regex=origins.pattern, allow_methods=CORS_METHODS,
                       allow_headers=CORS_HEADERS, expose_headers=CORS_EXPOSED)
    app.add_middleware(RequestGuard, hosts=allowed_host_names(settings.allowed_hosts, settings.host), origins=origins)
