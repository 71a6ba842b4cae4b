"""Host names and origins as the request guard compares them, and the parsers of allowed_hosts and cors_origins."""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable

from attest.errors import ConfigError

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")  # bind addresses that name no host a client would write in Host
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

