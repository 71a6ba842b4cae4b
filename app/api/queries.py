"""Named queries over HTTP: GET /queries lists them, GET /queries/{name}?param=... runs one with bound parameters."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pyoxigraph import QueryBoolean, QuerySolutions, serialize

from app.api.deps import IrisDep, SettingsDep, StoreDep
from app.api.sparql import TRUNCATED_HEADER
from app.errors import ConfigError
from app.named_queries import NamedQueries, NamedQuery
from app.sparql.formats import Format, negotiate

router = APIRouter(prefix="/queries", tags=["named queries"])

KINDS = {"SELECT": "solutions", "ASK": "boolean", "CONSTRUCT": "graph", "DESCRIBE": "graph"}


def _named_queries(request: Request, settings) -> NamedQueries:
    """One NamedQueries per app (it caches parsed files by modification time)."""
    state = request.app.state
    queries = getattr(state, "named_queries", None)
    if queries is None or queries.directory != settings.queries_dir:
        queries = state.named_queries = NamedQueries(settings.queries_dir)
    return queries


@router.get("")
def list_queries(request: Request, settings: SettingsDep) -> dict[str, object]:
    """Every queries/*.rq: name, description, form, parameters, route and SPARQL text.

    A file that does not load is listed with its error instead of hiding the others.
    """
    named = _named_queries(request, settings)
    listed = []
    for name in named.names():
        try:
            q = named.get(name)
        except ConfigError as exc:
            listed.append({"name": name, "url": f"/queries/{name}", "error": exc.message})
            continue
        listed.append({**q.to_dict(), "url": f"/queries/{q.name}", "query": q.text})
    return {"queries": listed}


@router.get("/{name}")
def run_query(name: str, request: Request, settings: SettingsDep, store: StoreDep, iris: IrisDep) -> Response:
    """Run one named query; query-string parameters are bound as typed terms, results negotiated like /sparql."""
    query = _named_queries(request, settings).get(name)
    given: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        given.setdefault(key, []).append(value)
    substitutions = query.bind(given, iris)
    fmt = negotiate(request.headers.get("accept"), KINDS[query.form])
    # the endpoint's executor interface takes no substitutions, so named queries call the deadline executor
    # (app/sparql/deadline.py) directly; stores it cannot snapshot (in memory, remote) are queried in-process
    executor = getattr(request.app.state, "query_executor", None)
    if executor is not None:
        return _from_executor(executor, query, substitutions, fmt)
    result = store.query(query.text, union_default_graph=settings.default_graph_as_union, substitutions=substitutions)
    return Response(_serialize(result, fmt), media_type=fmt.content_type)


def _from_executor(executor, query: NamedQuery, substitutions, fmt: Format) -> Response:
    graph = KINDS[query.form] == "graph"
    outcome = executor.execute(query.text, substitutions=substitutions, source="named_query",
                               solutions_format=None if graph else fmt.native,
                               triples_format=fmt.native if graph else None)
    payload = _serialize(outcome.to_result(), fmt) if outcome.kind == "boolean" else outcome.payload
    headers = {TRUNCATED_HEADER: outcome.truncated} if outcome.truncated else {}
    return Response(payload, media_type=fmt.content_type, headers=headers)


def _serialize(result, fmt: Format) -> bytes:
    if isinstance(result, (QuerySolutions, QueryBoolean)):
        return result.serialize(format=fmt.native)
    return serialize(result, format=fmt.native)
