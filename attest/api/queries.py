"""Named queries over HTTP: GET /queries lists them, GET /queries/{name}?param=... runs one with bound parameters."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from attest.api.deps import ResourcesDep
from attest.errors import ConfigError
from attest.operations.queries import named_queries_of, run_named

router = APIRouter(prefix="/queries", tags=["named queries"])


@router.get("")
def list_queries(resources: ResourcesDep) -> dict[str, object]:
    """Every queries/*.rq: name, description, form, parameters, route and SPARQL text.

    A file that does not load is listed with its error instead of hiding the others.
    """
    named = named_queries_of(resources)
    listed: list[dict[str, object]] = []
    for name in named.names():
        try:
            q = named.get(name)
        except ConfigError as exc:
            listed.append({"name": name, "url": f"/queries/{name}", "error": exc.message})
            continue
        listed.append({**q.to_dict(), "url": f"/queries/{q.name}", "query": q.text})
    return {"queries": listed}


@router.get("/{name}")
def run_query(name: str, request: Request, resources: ResourcesDep) -> Response:
    """Run one named query; query-string parameters are bound as typed terms, results negotiated like /sparql.

    `limit` (default 100, at most 10,000) and `offset` page a SELECT; `X-Attest-Next-Offset` says where the next
    page starts when there is one, `X-Attest-Limit-Capped` that the limit asked for was over the maximum."""
    query = named_queries_of(resources).get(name)
    given: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        given.setdefault(key, []).append(value)
    payload, fmt, headers = run_named(resources, query, given, request.headers.get("accept"))
    return Response(payload, media_type=fmt.content_type, headers=headers)
