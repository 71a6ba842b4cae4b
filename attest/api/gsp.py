"""SPARQL 1.1 Graph Store HTTP Protocol at /store: ?graph=IRI, ?default, the whole dataset, and direct /store/{path}."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import IO, Callable, cast
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat
from starlette.concurrency import run_in_threadpool

from attest.api.deps import Writer, resources_of
from attest.api.sparql import executor_of, respond
from attest.errors import BadRequest, NotFound, UnsupportedFormat
from attest.sparql.formats import DATASET_FORMATS, GRAPH_FORMATS, Format, negotiate
from attest.sparql.streaming import ChunkPipe, run_streamed
from attest.ingest import summary
from attest.store import GraphStore
from attest.store.clean_close import written_from_outside
from attest.store.rdfio import format_for_media_type, format_for_path, parse_quads
from attest.vocab import Iris

router = APIRouter(tags=["graph store"])
GRAPH_STORE = "/store"
DUMP_TIMEOUT_S = 3600.0  # a graph download is bounded by the client reading it, not by a query deadline


@dataclass(frozen=True)
class Target:
    """The graph a request addresses: a named graph IRI, the default graph (graph=None), or the whole dataset."""

    graph: str | None
    dataset: bool = False
    minted: bool = False  # a graph POST to the store itself created, named by us

    @property
    def label(self) -> str:
        return "the whole dataset" if self.dataset else (f"graph <{self.graph}>" if self.graph else "the default graph")


def _indirect_target(request: Request) -> Target:
    params = request.query_params
    graphs = params.getlist("graph")
    has_default = "default" in params
    if len(graphs) > 1 or (graphs and has_default):
        raise BadRequest("name one graph: either ?graph=IRI (once) or ?default")
    if has_default:
        return Target(None)
    if graphs:
        return Target(_graph_iri(graphs[0]))
    return Target(None, dataset=True)


def _graph_iri(value: str) -> str:
    try:
        return NamedNode(value).value
    except ValueError as exc:
        raise BadRequest(f"graph '{value[:200]}' is not a valid IRI: {exc}", graph=value[:200]) from exc


def _exists(store: GraphStore, target: Target) -> bool:
    return target.dataset or target.graph is None or store.has_graph(target.graph)


def _content_format(content_type: str | None, filename: str | None = None) -> RdfFormat:
    bare = (content_type or "").split(";", 1)[0].strip().lower()
    if bare in ("", "application/octet-stream") and filename:
        return format_for_path(Path(filename))
    if not bare:
        raise UnsupportedFormat("the body needs a Content-Type naming its RDF format (e.g. text/turtle)")
    return format_for_media_type(bare)


async def _parse_body(request: Request, graph: str | None) -> list[Quad]:
    """The request's RDF as quads in `graph` (or the default graph); multipart bodies are merged part by part."""
    content_type = request.headers.get("content-type", "")
    target = graph or None
    quads: list[Quad] = []
    if content_type.lower().startswith("multipart/form-data"):
        form = await request.form()
        for name, part in form.multi_items():
            if isinstance(part, str):
                raise BadRequest(f"multipart field '{name}' is not a file part")
            data = await part.read()
            fmt = _content_format(part.content_type, part.filename)
            quads += _parsed(data, fmt, target, part.filename or name)
        return quads
    fmt = _content_format(content_type)
    return _parsed(await request.body(), fmt, target, "request body")


def _parsed(data: bytes, fmt: RdfFormat, graph: str | None, source: str) -> list[Quad]:
    quads = list(parse_quads(data, fmt, graph=graph, source=source))
    expected = NamedNode(graph) if graph else DefaultGraph()
    if any(q.graph_name != expected for q in quads):
        raise BadRequest(f"the body names graphs other than the one addressed ({source}); send triples")
    return quads


def _staging(request: Request) -> str:
    return f"{resources_of(request.app).iris.staging_graph_prefix}{uuid.uuid4().hex}"


def _replace_default(request: Request, quads: list[Quad]) -> None:
    """Stage the triples in a fresh graph, then swap them into the default graph in one update."""
    store = resources_of(request.app).store
    staging = NamedNode(_staging(request))
    store.add(Quad(q.subject, q.predicate, q.object, staging) for q in quads)
    store.update(f"CLEAR SILENT DEFAULT ; ADD SILENT GRAPH {staging} TO DEFAULT ; DROP SILENT GRAPH {staging}")


async def _read(request: Request, target: Target, head: bool) -> Response:
    store = resources_of(request.app).store
    offered = DATASET_FORMATS if target.dataset else GRAPH_FORMATS
    fmt = negotiate(request.headers.get("accept"), "graph", offered)
    if not _exists(store, target):
        raise NotFound(f"no {target.label} in the store", graph=target.graph)
    if head:
        return Response(status_code=200, media_type=fmt.content_type)

    def produce(pipe: ChunkPipe) -> None:
        pipe.media_type = fmt.content_type
        _dump(store, target, fmt, pipe)

    return respond(await run_streamed(executor_of(request).pool, produce, DUMP_TIMEOUT_S))


def _dump(store: GraphStore, target: Target, fmt: Format, output: ChunkPipe) -> None:
    native = cast(RdfFormat, fmt.native)  # negotiated among GRAPH_FORMATS or DATASET_FORMATS: RDF formats
    sink = cast(IO[bytes], output)  # dump only writes, which the pipe does
    if target.dataset:
        store.dump(sink, native)
    else:
        store.dump(sink, native, graph=target.graph or "")


async def _write(request: Request, target: Target, *, replace: bool) -> Response:
    if target.dataset:
        if replace:
            raise BadRequest("PUT needs ?graph=IRI or ?default")
        target = Target(f"{resources_of(request.app).iris.base}graph/uploaded/{uuid.uuid4().hex}", minted=True)
    quads = await _parse_body(request, target.graph)
    return await run_in_threadpool(_store_write, request, target, quads, replace)


def _store_write(request: Request, target: Target, quads: list[Quad], replace: bool) -> Response:
    """Each write is one transaction: a PUT replaces the graph atomically, a POST adds all quads or none."""
    resources = resources_of(request.app)
    store = resources.store
    _unsummarized(store, resources.iris, target)
    existed = _exists(store, target)
    if target.graph is None:
        _replace_default(request, quads) if replace else store.add(quads)
        return Response(status_code=204)
    if replace:
        store.replace_graph(target.graph, quads)
    else:
        store.add(quads)
    if target.minted:
        return Response(status_code=201, headers={"Location": target.graph})
    return Response(status_code=204 if existed else 201)


async def _delete(request: Request, target: Target) -> Response:
    if target.dataset:
        raise BadRequest("DELETE needs ?graph=IRI or ?default")
    resources = resources_of(request.app)
    return await run_in_threadpool(_store_delete, resources.store, resources.iris, target)


def _unsummarized(store: GraphStore, iris: Iris, target: Target) -> None:
    """A write from outside ingestion: the fact summary (and the list of graphs read beside it) is out of date
    from now until rebuilt; the next open of the store checks everything (clean_close)."""
    written_from_outside(store)
    store.update(summary.invalidation(iris))


def _store_delete(store: GraphStore, iris: Iris, target: Target) -> Response:
    _unsummarized(store, iris, target)
    if target.graph is None:
        store.update("CLEAR SILENT DEFAULT")
    elif not store.drop_graph(target.graph):
        raise NotFound(f"no {target.label} in the store", graph=target.graph)
    return Response(status_code=204)


def _direct_target(request: Request) -> Target:
    return Target(_graph_iri(str(request.url.replace(query="", fragment=""))))


def _register(path: str, target_of: Callable[[Request], Target], what: str) -> None:
    """GET/HEAD are open like /sparql; PUT, POST and DELETE need the Writer dependency."""

    async def read(request: Request) -> Response:
        return await _read(request, target_of(request), head=request.method == "HEAD")

    async def replace(request: Request) -> Response:
        return await _write(request, target_of(request), replace=True)

    async def merge(request: Request) -> Response:
        return await _write(request, target_of(request), replace=False)

    async def delete(request: Request) -> Response:
        return await _delete(request, target_of(request))

    router.add_api_route(path, read, methods=["GET", "HEAD"], summary=f"Read {what}")
    router.add_api_route(path, replace, methods=["PUT"], dependencies=[Writer], summary=f"Replace {what}")
    router.add_api_route(path, merge, methods=["POST"], dependencies=[Writer], summary=f"Merge RDF into {what}")
    router.add_api_route(path, delete, methods=["DELETE"], dependencies=[Writer], summary=f"Drop {what}")


_register(GRAPH_STORE, _indirect_target, "?graph=IRI, ?default, or (GET/POST) the whole store")
_register(GRAPH_STORE + "/{path:path}", _direct_target, "the graph named by the request URL (direct identification)")
