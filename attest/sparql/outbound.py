"""No outbound requests from SPARQL: SERVICE and LOAD targets are refused unless federation_allowlist holds them.

pyoxigraph sends a request for exactly two things: `SERVICE <iri>` (a query to that endpoint, with the outer
pattern's bindings) and `LOAD <iri>` (a GET). `FROM`, `FROM NAMED`, `USING`, `GRAPH` and `DESCRIBE` only name
graphs of the store (checked against a listener: no request). A remote store's server may do more: Virtuoso's
`DEFINE get:soft` pragma makes `FROM` fetch, so `DEFINE` is refused as well.

pyoxigraph has no parse-only API, so the text is read with the project's lexer (attest/sparql/lexer.py), and read
so that doubt refuses:
- pyoxigraph's keyword matching needs no word boundary (`trueSERVICE<…>{}`, `SERVICESILENT<…>`, `SERVICE:x{}` all
  fetch): any bare word or prefix name holding SERVICE or LOAD counts;
- a target that is a variable, a relative IRI or an undeclared prefix is refused;
- the lexer takes every `<…>` without spaces for an IRI; inside parentheses it may be a less-than and a
  greater-than, and a quote, `#` or parenthesis between them would make the lexer misread what follows: such a
  `<…>` is refused (outside parentheses SPARQL has no comparison).
A text whose case-folded letters spell none of "service", "load" and "define" cannot fetch (keywords take no
escapes, and are matched in ASCII) and is passed after three substring searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import urlsplit

from attest.errors import ConfigError, OutboundRefused, RemoteEndpointError
from attest.sparql.lexer import TOKEN

SETTING = "federation_allowlist"
_MENTIONED = ("service", "load", "define")
_FETCH_WORD = re.compile(r"SERVICE|LOAD")
_IRI_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_LOCAL_ESCAPE = re.compile(r"\\(.)")
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_DOT_SEGMENT = re.compile(r"(?:^|/)(?:\.|%2e){1,2}(?:/|$)", re.IGNORECASE)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_DESYNCING = ("'", "#", "(", ")")  # in a `<…>` that is really a less-than, what makes the lexer misread the rest


@dataclass(frozen=True)
class Fetch:
    """A place where the text makes the engine send a request: the keyword, where it goes (None when that cannot
    be told from the text: a variable, a relative IRI, an undeclared prefix, a keyword glued to a name) and the
    target as written."""

    keyword: str
    target: str | None
    written: str
    doubt: str | None = None  # why the text cannot be read with certainty here


@dataclass(frozen=True)
class Prefix:
    """One federation_allowlist entry: requests may go to this scheme, host and port, under this path."""

    scheme: str
    host: str
    port: int
    path: str

    def admits(self, target: "Prefix") -> bool:
        return (target.scheme, target.host, target.port) == (self.scheme, self.host, self.port) \
            and target.path.startswith(self.path)


def _url(text: str) -> Prefix | None:
    """(scheme, host, port, path) of an absolute http(s) URL without user info or dot segments; None otherwise."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or "@" in parts.netloc or "\\" in text:
        return None
    if _DOT_SEGMENT.search(parts.path):
        return None
    return Prefix(scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme], parts.path or "/")


def federation_prefixes(entries: Iterable[str]) -> tuple[Prefix, ...]:
    """The allow-list's entries; one that is not a URL prefix (a bare host name, a pattern, a query) is a
    ConfigError naming the setting."""
    out = []
    for entry in entries:
        prefix = _url(entry.strip()) if isinstance(entry, str) else None
        if prefix is None or "*" in entry or "?" in entry or "#" in entry:
            raise ConfigError(f"{SETTING}: {entry!r} is not a URL prefix; give http(s)://host[:port]/path..., "
                              "e.g. https://query.wikidata.org/sparql (no bare host names, no patterns)",
                              setting=SETTING)
        out.append(prefix)
    return tuple(out)


def _iri(token: str) -> str | None:
    """The IRI of an `<…>` token with its \\u escapes decoded; None when an escape names no character."""
    try:
        return _IRI_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), token[1:-1])
    except ValueError:
        return None


def mentions_fetch_words(text: str) -> bool:
    """Whether the letters of SERVICE, LOAD or DEFINE occur anywhere in the text, in any case."""
    folded = text.casefold()  # maps more letters to ASCII than the engine's keyword matching does: never fewer
    return any(word in folded for word in _MENTIONED)


def fetches(text: str) -> list[Fetch]:
    """Every SERVICE, LOAD and DEFINE of a query or update, with its target resolved where the text tells it."""
    if not mentions_fetch_words(text):
        return []
    tokens = [m for m in TOKEN.finditer(text) if m.lastgroup != "comment"]
    prefixes: dict[str, str | None] = {}
    found: list[Fetch] = []
    parens = 0  # a `<` can be a less-than only inside parentheses: expressions have no other place
    for i, token in enumerate(tokens):
        kind, value = token.lastgroup, token.group()
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if kind in ("open", "close") and value in "()":
            parens = max(parens + (1 if value == "(" else -1), 0)
        if kind == "iri" and parens and any(c in value for c in _DESYNCING):
            # `<` may be a less-than whose `>` is a greater-than further on: a quote or # inside would then open a
            # string or a comment the lexer never saw, a parenthesis would shift its count of them
            found.append(Fetch("SERVICE", None, value, doubt=(
                f"{value[:100]} inside parentheses may be a less-than comparison rather than an IRI, and what it "
                "holds would then be read otherwise; in a text that mentions SERVICE or LOAD write such an IRI with "
                "a prefix, or spaces around a less-than")))
            continue
        if kind == "word" and value.upper() == "PREFIX" and after is not None and after.lastgroup == "pname":
            declared = tokens[i + 2] if i + 2 < len(tokens) else None
            if declared is not None and declared.lastgroup == "iri":
                iri = _iri(declared.group())
                prefixes[after.group()[:-1]] = iri if iri and _ABSOLUTE.match(iri) else None
            continue
        if kind == "pname":
            name = value.split(":", 1)[0].upper()
            fetch = _FETCH_WORD.search(name)
            if fetch and not (i > 0 and tokens[i - 1].group().upper() == "PREFIX"):
                found.append(Fetch(fetch.group(), None, value, doubt=(
                    f"in {value[:100]} the engine may read {fetch.group()} as the keyword; "
                    "give the prefix a name without SERVICE or LOAD")))
            continue
        if kind != "word":
            continue
        word = value.upper()
        if word == "DEFINE":
            found.append(Fetch("DEFINE", None, value))
            continue
        keyword = _FETCH_WORD.search(word)
        if keyword is None:
            continue
        rest = word[max(m.end() for m in _FETCH_WORD.finditer(word)):]
        j = i + 1
        if rest == "" and j < len(tokens) and tokens[j].group().upper() == "SILENT":
            j += 1
        target = tokens[j] if j < len(tokens) and rest in ("", "SILENT") else None
        found.append(Fetch(keyword.group(), _resolve(target, prefixes), target.group() if target else value))
    return found


def _resolve(token: re.Match[str] | None, prefixes: dict[str, str | None]) -> str | None:
    if token is None:
        return None
    if token.lastgroup == "iri":
        iri = _iri(token.group())
        return iri if iri and _ABSOLUTE.match(iri) else None
    if token.lastgroup == "pname":
        name, _, local = token.group().partition(":")
        namespace = prefixes.get(name)
        return namespace + _LOCAL_ESCAPE.sub(r"\1", local).rstrip(".") if namespace else None
    return None


def check_outbound(text: str, allowlist: Iterable[str]) -> None:
    """Raise OutboundRefused (400) when the query or update would send a request to a target that
    federation_allowlist does not hold; called before the text goes anywhere."""
    found = fetches(text)
    if not found:
        return
    allowed = federation_prefixes(allowlist)
    for fetch in found:
        if fetch.keyword == "DEFINE":
            raise OutboundRefused("DEFINE pragmas are refused: some stores (Virtuoso) fetch IRIs named in FROM "
                                  "under them; nothing was sent", keyword="DEFINE")
        shown = fetch.written[:200]
        if fetch.doubt is not None:
            raise OutboundRefused(f"refused because {fetch.doubt}: Attest sends no request to a host named in a query "
                                  f"or update unless {SETTING} allows it; nothing was sent", keyword=fetch.keyword,
                                  target=shown)
        if fetch.target is None:
            raise OutboundRefused(
                f"{fetch.keyword} {shown} is refused: its target must be written as an absolute IRI (or a declared "
                f"prefixed name) that {SETTING} holds, not a variable or anything whose destination the text does "
                "not tell; nothing was sent", keyword=fetch.keyword, target=shown)
        target = _url(fetch.target)
        if target is None or not any(prefix.admits(target) for prefix in allowed):
            why = f"{SETTING} is empty" if not allowed else f"it is not under a URL prefix of {SETTING}"
            raise OutboundRefused(
                f"{fetch.keyword} <{fetch.target[:200]}> is refused: Attest sends no request to a host named in a "
                f"query or update unless the setting {SETTING} allows it, and {why}; nothing was sent",
                keyword=fetch.keyword, target=fetch.target[:200])


_PYOXIGRAPH_HTTP = re.compile(r"Error (\d{3})[^\n]*? returned by (\S+) with payload:.*", re.DOTALL)


def without_remote_body(message: str) -> RemoteEndpointError | None:
    """pyoxigraph's error for an endpoint that answered an HTTP error (`Error 500 … returned by URL with payload:
    BODY`), told by status and host only; None when the message is not one. A page's body is never echoed."""
    match = _PYOXIGRAPH_HTTP.search(message)
    if match is None:
        return None
    try:
        parts = urlsplit(match[2])
        host = parts.hostname or "?"
        host = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        host = "?"
    return RemoteEndpointError(f"the remote endpoint at {host} answered HTTP {match[1]}; its answer is not shown",
                               host=host, status=int(match[1]))
