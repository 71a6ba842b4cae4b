"""RDF formats: guess from file names and media types, parse with located syntax errors, quads as update text."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import IO, Iterable, Iterator, cast

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Triple, parse

from attest.errors import NotFound, RdfSyntaxError, UnsupportedFormat

# formats `attest load` and the Graph Store Protocol accept
LOADABLE = (
    RdfFormat.TURTLE, RdfFormat.N_TRIPLES, RdfFormat.N_QUADS, RdfFormat.TRIG,
    RdfFormat.RDF_XML, RdfFormat.JSON_LD, RdfFormat.N3,
)


def format_for_path(path: Path) -> RdfFormat:
    """The RDF format of a file from its extension (a trailing .gz is looked through)."""
    suffixes = [s.lstrip(".").lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == "gz":
        suffixes.pop()
    ext = suffixes[-1] if suffixes else ""
    fmt = RdfFormat.from_extension(ext) if ext else None
    if ext == "json":
        fmt = RdfFormat.JSON_LD
    if fmt is None or fmt not in LOADABLE:
        raise UnsupportedFormat(
            f"{path}: unknown RDF file extension '.{ext}' (use .ttl, .nt, .nq, .trig, .rdf/.owl/.xml, .jsonld)",
            source=str(path),
        )
    return fmt


def format_for_media_type(media_type: str) -> RdfFormat:
    """The RDF format named by a Content-Type value (parameters ignored)."""
    bare = media_type.split(";", 1)[0].strip().lower()
    fmt = RdfFormat.from_media_type(bare) if bare else None
    if fmt is None or fmt not in LOADABLE:
        raise UnsupportedFormat(f"unsupported RDF media type '{bare or '(none)'}'", media_type=bare)
    return fmt


def open_maybe_gzip(path: Path) -> IO[bytes]:
    if path.suffix == ".gz":
        # a GzipFile reads like any binary file; typeshed has it a BufferedIOBase, which is no IO[bytes]
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def located(exc: SyntaxError, source: str | None, *, line_offset: int = 0) -> RdfSyntaxError:
    """Turn a pyoxigraph SyntaxError into an RdfSyntaxError with line and column (`line_offset`: lines before
    the parsed part of the source)."""
    message = re.sub(r"^Parser error (at|between) line \d+ column \d+( and line \d+ column \d+)?: ", "", str(exc.msg))
    line = exc.lineno + line_offset if exc.lineno else None
    where = f"{source}:{line}:{exc.offset}" if line else (source or "input")
    return RdfSyntaxError(f"{where}: {message}", source=source, line=line, column=exc.offset)


def parse_quads(
    data: bytes | str | IO[bytes],
    fmt: RdfFormat,
    *,
    graph: str | None = None,
    base_iri: str | None = None,
    source: str | None = None,
) -> Iterator[Quad]:
    """Parse RDF into quads; triples land in `graph` when given. Raises RdfSyntaxError."""
    target = NamedNode(graph) if graph else None
    try:
        for quad in parse(data, fmt, base_iri=base_iri, rename_blank_nodes=True):
            if target is not None and isinstance(quad.graph_name, DefaultGraph):
                quad = Quad(quad.subject, quad.predicate, quad.object, target)
            yield quad
    except SyntaxError as exc:
        raise located(exc, source) from exc
    except ValueError as exc:
        raise RdfSyntaxError(f"{source or 'input'}: {exc}", source=source) from exc


def sparql_term(term: object) -> str:
    """A term in SPARQL syntax (N-Triples form; RDF 1.2 triple terms as <<( s p o )>>), escaped by Oxigraph."""
    if isinstance(term, Triple):
        return f"<<( {sparql_term(term.subject)} {sparql_term(term.predicate)} {sparql_term(term.object)} )>>"
    return str(term)


def quad_data(operation: str, quads: Iterable[Quad]) -> str:
    """An INSERT DATA or DELETE DATA update of these quads (named graphs), built from terms, never from raw text."""
    body = " ".join(f"GRAPH {q.graph_name} {{ {sparql_term(q.subject)} {sparql_term(q.predicate)} "
                    f"{sparql_term(q.object)} }}" for q in quads)
    return f"{operation} {{ {body} }}"


def graph_node(graph: str) -> NamedNode:
    """A graph IRI as a node; 404 when it is no valid IRI (a graph of that name cannot exist)."""
    try:
        return NamedNode(graph)
    except ValueError as exc:
        raise NotFound(f"'{graph}' is not a valid graph IRI", graph=graph) from exc


def in_graph(quads: Iterable[Quad], graph: NamedNode | DefaultGraph) -> Iterator[Quad]:
    """The quads moved into `graph`."""
    for q in quads:
        yield Quad(q.subject, q.predicate, q.object, graph)
