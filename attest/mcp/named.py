"""One MCP tool per named query (queries/*.rq): its declared parameters are the tool's schema, re-read with the files."""

from __future__ import annotations

import logging
from typing import Any

from attest.errors import ConfigError, NotFound
from attest.named_queries import NamedQuery, Parameter
from attest.operations.queries import DEFAULT_PAGE, MAX_PAGE, named_queries_of, run_named
from attest.operations.resources import AppResources

log = logging.getLogger(__name__)

PREFIX = "query_"
# JSON types and the hint a model needs to write a value of each parameter type
JSON_TYPES = {"string": "string", "integer": "integer", "decimal": "number", "boolean": "boolean",
              "iri": "string", "entity": "string"}
HINTS = {"iri": "an absolute IRI or a prefixed name such as ont:Technology or entity:sparql",
         "entity": "an entity id such as sparql, or its full IRI", "decimal": "a decimal number"}
ACCEPT = {"SELECT": "application/sparql-results+json", "ASK": "application/sparql-results+json",
          "CONSTRUCT": "text/turtle", "DESCRIBE": "text/turtle"}


def tool_name(query_name: str) -> str:
    return PREFIX + query_name.replace("-", "_")


def named_tools(resources: AppResources) -> list[NamedQuery]:
    """The named queries that load (a broken file is logged and left out, the others still serve)."""
    named = named_queries_of(resources)
    out = []
    for name in named.names():
        try:
            out.append(named.get(name))
        except ConfigError as exc:
            log.warning("named query left out of the MCP tools: %s", exc.message)
    return out


def find(resources: AppResources, name: str) -> NamedQuery | None:
    """The named query behind tool `name`, read from its file now (so an edited file takes effect)."""
    if not name.startswith(PREFIX):
        return None
    for query_name in named_queries_of(resources).names():
        if tool_name(query_name) == name:
            try:
                return named_queries_of(resources).get(query_name)
            except NotFound:  # removed since it was listed
                return None
    return None


def description(query: NamedQuery) -> str:
    form = "graph (Turtle)" if query.form in ("CONSTRUCT", "DESCRIBE") else "SPARQL JSON results"
    paging = f"; paged by limit (default {DEFAULT_PAGE}, at most {MAX_PAGE}) and offset" if query.form == "SELECT" else ""
    return f"{query.description} (named query {query.name}: {query.form}, answers {form}{paging})"


def _property(param: Parameter) -> dict[str, Any]:
    text = param.description or param.name
    if param.type in HINTS:
        text = f"{text} ({HINTS[param.type]})"
    out: dict[str, Any] = {"type": JSON_TYPES[param.type], "description": text}
    if param.default is not None:
        out["default"] = _typed(param.type, param.default)
    return out


def _typed(kind: str, raw: str) -> str | int | float | bool:
    if kind == "integer":
        return int(raw)
    if kind == "decimal":
        return float(raw)
    if kind == "boolean":
        return raw.lower() == "true"
    return raw


def input_schema(query: NamedQuery) -> dict[str, Any]:
    properties = {p.name: _property(p) for p in query.parameters}
    if query.form == "SELECT":
        properties["limit"] = {"type": "integer", "minimum": 1, "default": DEFAULT_PAGE,
                               "description": f"Most rows (at most {MAX_PAGE})"}
        properties["offset"] = {"type": "integer", "minimum": 0, "default": 0,
                                "description": "Rows to skip: the next_offset of the previous page"}
    return {"type": "object", "properties": properties, "required": [p.name for p in query.parameters if p.required],
            "additionalProperties": False}


def run(resources: AppResources, query: NamedQuery, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run the query with the tool's arguments, bound by the same typed conversion as GET /queries/{name}."""
    given = {key: [_text(value)] for key, value in arguments.items() if value is not None}
    payload, fmt, headers = run_named(resources, query, given, ACCEPT[query.form])
    next_offset = headers.get("X-Attest-Next-Offset")
    return {"media_type": fmt.content_type, "result": payload.decode("utf-8"),
            "next_offset": int(next_offset) if next_offset else None,
            "limit_capped": "X-Attest-Limit-Capped" in headers, "truncated": headers.get("X-Attest-Truncated")}


def _text(value: object) -> str:
    """A JSON argument as the query-string text the parameter converters take."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
