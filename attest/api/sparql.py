"""SPARQL 1.1 Protocol endpoint: GET/POST /sparql for queries and updates, the service description on a bare GET."""

from __future__ import annotations

from typing import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from attest.api.deps import require_writer, resources_of
from attest.errors import NotAcceptable
from attest.operations.sparql import TRUNCATED_HEADER, sparql_executor
from attest.sparql.executor import SparqlExecutor
from attest.sparql.formats import GRAPH_FORMATS, negotiate
from attest.sparql.protocol import QueryRequest, parse_request
from attest.sparql.description import service_description
from attest.sparql.streaming import Streamed

router = APIRouter(tags=["sparql"])

_DOC = {
    "parameters": [
        {"name": "query", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "SPARQL query (GET); without it GET returns the service description"},
        {"name": "default-graph-uri", "in": "query", "required": False,
         "schema": {"type": "array", "items": {"type": "string"}}, "description": "default graph(s) of the dataset"},
        {"name": "named-graph-uri", "in": "query", "required": False,
         "schema": {"type": "array", "items": {"type": "string"}}, "description": "named graph(s) of the dataset"},
        {"name": "timeout", "in": "query", "required": False, "schema": {"type": "number"},
         "description": "deadline in seconds (bounded by max_query_timeout_s)"},
        {"name": "format", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "result format name overriding Accept: json xml csv tsv turtle ntriples rdfxml jsonld nquads trig"},
    ],
}


def executor_of(request: Request) -> SparqlExecutor:
    """The app's executor, made on first use for the store the lifespan opened (one per store)."""
    return sparql_executor(resources_of(request.app))


def respond(streamed: Streamed, *, status_code: int = 200) -> Response:
    """A plain response when the whole body came in one chunk, otherwise a streamed one."""
    headers = {TRUNCATED_HEADER: streamed.truncated} if streamed.truncated else None
    rest = streamed.rest
    if rest is None:
        return Response(streamed.head, status_code=status_code, media_type=streamed.media_type, headers=headers)

    async def body() -> AsyncIterator[bytes]:
        yield streamed.head
        async for chunk in rest:
            yield chunk

    return StreamingResponse(body(), status_code=status_code, media_type=streamed.media_type, headers=headers)


def endpoint_url(request: Request) -> str:
    return str(request.url.replace(query="", fragment=""))


@router.api_route("/sparql", methods=["GET", "POST"], openapi_extra=_DOC,
                  summary="SPARQL 1.1 query or update (protocol), or the service description")
async def sparql(request: Request) -> Response:
    settings = resources_of(request.app).settings
    body = await request.body() if request.method == "POST" else b""
    operation = parse_request(
        request.method, request.query_params.multi_items(), request.headers.get("content-type"), body,
        accept=request.headers.get("accept"), max_chars=settings.max_query_chars,
        default_timeout_s=settings.query_timeout_s, max_timeout_s=settings.max_query_timeout_s,
        federation_allowlist=settings.federation_allowlist,
    )
    if operation is None:
        return describe(request)
    executor = executor_of(request)
    if isinstance(operation, QueryRequest):
        streamed = await executor.execute(operation.query, operation.dataset, operation.accept, operation.timeout_s,
                                          base_iri=endpoint_url(request))
        return respond(streamed)
    require_writer(request, settings)  # the Writer dependency's check: one POST route carries queries and updates
    await executor.update(operation.update, operation.dataset, base_iri=endpoint_url(request))
    return Response(status_code=204)


def describe(request: Request) -> Response:
    try:
        fmt = negotiate(request.headers.get("accept"), "graph")
    except NotAcceptable:
        fmt = GRAPH_FORMATS[0]  # a browser asking for HTML still gets the Turtle description
    body = service_description(endpoint_url(request), fmt=fmt,
                               union_default_graph=resources_of(request.app).settings.default_graph_as_union)
    return Response(body, media_type=fmt.content_type)
