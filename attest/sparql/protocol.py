"""SPARQL 1.1 Protocol requests: turn a method, URL parameters, Content-Type and body into a query or an update."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable
from urllib.parse import parse_qsl

from pyoxigraph import NamedNode

from attest.errors import BadRequest, PayloadTooLarge, UnsupportedFormat
from attest.sparql.formats import format_named
from attest.sparql.outbound import check_outbound

FORM = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"


@dataclass(frozen=True)
class Dataset:
    """The RDF dataset a request names; empty = the service's default (union of all graphs, or the default graph)."""

    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()

    @property
    def explicit(self) -> bool:
        return bool(self.default_graphs or self.named_graphs)


@dataclass(frozen=True)
class QueryRequest:
    query: str
    dataset: Dataset = field(default_factory=Dataset)
    timeout_s: float = 30.0
    accept: str | None = None  # the Accept header, or the media type of a `format=` parameter


@dataclass(frozen=True)
class UpdateRequest:
    update: str
    dataset: Dataset = field(default_factory=Dataset)  # using-graph-uri / using-named-graph-uri


def _media_type(content_type: str | None) -> tuple[str, str | None]:
    """(bare media type, charset) of a Content-Type header."""
    if not content_type:
        return "", None
    media, *params = content_type.split(";")
    charset = None
    for param in params:
        key, _, value = param.strip().partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return media.strip().lower(), charset


def _utf8(body: bytes, charset: str | None, what: str) -> str:
    if charset not in (None, "utf-8", "utf8"):
        raise UnsupportedFormat(f"the {what} must be UTF-8 encoded (got charset={charset})", charset=charset)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the {what} is not valid UTF-8: {exc.reason} at byte {exc.start}") from exc


def _single(params: list[tuple[str, str]], name: str) -> str | None:
    values = [v for k, v in params if k == name]
    if len(values) > 1:
        raise BadRequest(f"the request gives '{name}' {len(values)} times; give it once")
    return values[0] if values else None


def _graphs(params: list[tuple[str, str]], name: str) -> tuple[str, ...]:
    graphs = []
    for _, value in (p for p in params if p[0] == name):
        try:
            graphs.append(NamedNode(value).value)
        except ValueError as exc:
            raise BadRequest(f"{name} '{value}' is not a valid IRI: {exc}", parameter=name) from exc
    return tuple(graphs)


def _timeout(raw: str | None, default_s: float, max_s: float) -> float:
    if raw is None or raw == "":
        return min(default_s, max_s)
    try:
        value = float(raw)
    except ValueError:
        raise BadRequest(f"timeout '{raw}' is not a number of seconds", parameter="timeout") from None
    if not math.isfinite(value) or value <= 0:
        raise BadRequest(f"timeout must be a positive number of seconds, got '{raw}'", parameter="timeout")
    return min(value, max_s)


def _check_length(text: str, max_chars: int, what: str) -> str:
    if len(text) > max_chars:
        raise PayloadTooLarge(f"the {what} is {len(text)} characters, over the limit of {max_chars}", limit=max_chars)
    return text


def parse_request(
    method: str,
    url_params: list[tuple[str, str]],
    content_type: str | None,
    body: bytes,
    *,
    accept: str | None,
    max_chars: int,
    default_timeout_s: float,
    max_timeout_s: float,
    federation_allowlist: Iterable[str] = (),
) -> QueryRequest | UpdateRequest | None:
    """The operation a /sparql request carries; None for a GET without a query (the service description).

    A query or update that would send a request (SERVICE, LOAD) to a target `federation_allowlist` does not hold
    is refused here, before any store or endpoint sees it (attest/sparql/outbound.py)."""
    params = list(url_params)
    query = update = None
    if method == "GET":
        if any(k == "update" for k, _ in params):
            raise BadRequest("updates must be sent with POST (form field 'update' or application/sparql-update)")
        query = _single(params, "query")
        if query is None:
            return None
    elif method == "POST":
        media, charset = _media_type(content_type)
        if media == FORM:
            text = _utf8(body, charset, "form body")
            try:
                params += parse_qsl(text, keep_blank_values=True, strict_parsing=False, errors="strict")
            except UnicodeDecodeError as exc:
                raise BadRequest(f"the form body has percent-encoded bytes that are not UTF-8: {exc.reason}") from exc
            query, update = _single(params, "query"), _single(params, "update")
            if query is None and update is None:
                raise BadRequest("the form has neither a 'query' nor an 'update' field")
        elif media == QUERY_TYPE:
            if any(k in ("query", "update") for k, _ in params):
                raise BadRequest("an application/sparql-query body cannot be combined with a query/update parameter")
            query = _utf8(body, charset, "query")
        elif media == UPDATE_TYPE:
            if any(k in ("query", "update") for k, _ in params):
                raise BadRequest("an application/sparql-update body cannot be combined with a query/update parameter")
            update = _utf8(body, charset, "update")
        else:
            raise UnsupportedFormat(
                f"POST /sparql needs Content-Type {FORM}, {QUERY_TYPE} or {UPDATE_TYPE} (got '{media or 'none'}')",
                media_type=media,
            )
    else:
        raise BadRequest(f"method {method} is not part of the SPARQL protocol")
    if query is not None and update is not None:
        raise BadRequest("a request carries either a query or an update, not both")
    if update is not None:
        if any(k in ("default-graph-uri", "named-graph-uri") for k, _ in params):
            raise BadRequest("updates take using-graph-uri / using-named-graph-uri, not default-graph-uri / named-graph-uri")
        check_outbound(_check_length(update, max_chars, "update"), federation_allowlist)
        return UpdateRequest(
            update,
            Dataset(_graphs(params, "using-graph-uri"), _graphs(params, "using-named-graph-uri")),
        )
    assert query is not None
    if any(k in ("using-graph-uri", "using-named-graph-uri") for k, _ in params):
        raise BadRequest("queries take default-graph-uri / named-graph-uri, not using-graph-uri / using-named-graph-uri")
    fmt = _single(params, "format")
    check_outbound(_check_length(query, max_chars, "query"), federation_allowlist)
    return QueryRequest(
        query,
        Dataset(_graphs(params, "default-graph-uri"), _graphs(params, "named-graph-uri")),
        _timeout(_single(params, "timeout"), default_timeout_s, max_timeout_s),
        format_named(fmt).media_type if fmt else accept,
    )
