"""Result formats of the SPARQL endpoint and content negotiation over the Accept header."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Protocol, cast
from typing import Literal as Kind

from pyoxigraph import QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat

from attest.errors import BadRequest, NotAcceptable
from attest.store.base import QueryResult

ResultKind = Kind["solutions", "boolean", "graph"]


@dataclass(frozen=True)
class Format:
    """One serialization: its short name (CLI `--format`, `format=` parameter), pyoxigraph format and media type."""

    name: str
    native: QueryResultsFormat | RdfFormat
    media_type: str
    aliases: tuple[str, ...] = ()

    @property
    def results_format(self) -> QueryResultsFormat:
        """The pyoxigraph format of solutions and booleans; ValueError for a graph format."""
        if not isinstance(self.native, QueryResultsFormat):
            raise ValueError(f"{self.name} is a graph format, not a results format")
        return self.native

    @property
    def rdf_format(self) -> RdfFormat:
        """The pyoxigraph format of triples; ValueError for a results format."""
        if not isinstance(self.native, RdfFormat):
            raise ValueError(f"{self.name} is a results format, not a graph format")
        return self.native

    @property
    def content_type(self) -> str:
        textual = self.media_type.startswith("text/") or self.media_type.endswith(("+json", "+xml", "/json", "/xml"))
        return f"{self.media_type}; charset=utf-8" if textual or self.name in ("ntriples", "nquads", "trig") else self.media_type


RESULT_FORMATS: tuple[Format, ...] = (
    Format("json", QueryResultsFormat.JSON, "application/sparql-results+json",
           ("application/json", "text/javascript", "application/javascript")),
    Format("xml", QueryResultsFormat.XML, "application/sparql-results+xml", ("application/xml", "text/xml")),
    Format("csv", QueryResultsFormat.CSV, "text/csv"),
    Format("tsv", QueryResultsFormat.TSV, "text/tab-separated-values"),
)
GRAPH_FORMATS: tuple[Format, ...] = (
    Format("turtle", RdfFormat.TURTLE, "text/turtle", ("application/x-turtle",)),
    Format("ntriples", RdfFormat.N_TRIPLES, "application/n-triples", ("text/plain",)),
    Format("rdfxml", RdfFormat.RDF_XML, "application/rdf+xml", ("application/xml", "text/xml")),
    Format("jsonld", RdfFormat.JSON_LD, "application/ld+json", ("application/json",)),
    Format("nquads", RdfFormat.N_QUADS, "application/n-quads", ("text/x-nquads",)),
    Format("trig", RdfFormat.TRIG, "application/trig", ("application/x-trig",)),
)
DATASET_FORMATS: tuple[Format, ...] = tuple(f for f in GRAPH_FORMATS if f.name in ("nquads", "trig"))
FORMATS_BY_NAME: dict[str, Format] = {f.name: f for f in RESULT_FORMATS + GRAPH_FORMATS}


def candidates(kind: ResultKind) -> tuple[Format, ...]:
    return GRAPH_FORMATS if kind == "graph" else RESULT_FORMATS


def format_named(name: str) -> Format:
    """The format with this short name; 400 for an unknown one."""
    try:
        return FORMATS_BY_NAME[name.strip().lower()]
    except KeyError:
        raise BadRequest(f"unknown format '{name}' (use one of {', '.join(FORMATS_BY_NAME)})", format=name) from None


def _media_ranges(accept: str) -> list[tuple[float, int, str]]:
    """(q, position, range) for each media range of an Accept header, best first."""
    ranges = []
    for position, part in enumerate(accept.split(",")):
        media, *params = part.split(";")
        media = media.strip().lower()
        if not media:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            # more specific ranges win among equal q: type/subtype > type/* > */*
            specificity = 0 if "*" not in media else (1 if not media.startswith("*") else 2)
            ranges.append((-q, specificity, position, media))
    ranges.sort()
    return [(-q, position, media) for q, _, position, media in ranges]


def negotiate(accept: str | None, kind: ResultKind, offered: tuple[Format, ...] | None = None) -> Format:
    """The format to answer with: the first offered format the Accept header prefers; 406 when none fits."""
    offered = offered or candidates(kind)
    if not accept or not accept.strip():
        return offered[0]
    for _, _, media in _media_ranges(accept):
        if media in ("*/*", "*"):
            return offered[0]
        if media.endswith("/*"):
            prefix = media[:-1]
            for fmt in offered:
                if fmt.media_type.startswith(prefix):
                    return fmt
            continue
        for fmt in offered:
            if media == fmt.media_type:
                return fmt
        for fmt in offered:
            if media in fmt.aliases:
                return fmt
    what = {"solutions": "SELECT", "boolean": "ASK", "graph": "CONSTRUCT/DESCRIBE"}[kind]
    raise NotAcceptable(
        f"cannot serve {accept!r} for a {what} result; available: {', '.join(f.media_type for f in offered)}",
        accept=accept, available=[f.media_type for f in offered],
    )


def result_kind(result: QueryResult) -> ResultKind:
    if isinstance(result, QuerySolutions):
        return "solutions"
    if isinstance(result, QueryBoolean):
        return "boolean"
    return "graph"


def formats_for(accept: str | None) -> tuple[Format | None, Format | None]:
    """(results format, graph format) the Accept header allows; 406 at once when it allows neither."""
    chosen: list[Format | None] = []
    kinds: tuple[ResultKind, ...] = ("solutions", "graph")
    for kind in kinds:
        try:
            chosen.append(negotiate(accept, kind))
        except NotAcceptable:
            chosen.append(None)
    if chosen == [None, None]:
        negotiate(accept, "solutions")  # raises the 406 with the list of formats
    return chosen[0], chosen[1]


class Writer(Protocol):
    """Where a serializer writes: pyoxigraph calls `write` only (a file, the endpoint's ChunkPipe)."""

    def write(self, data: bytes, /) -> int | None: ...


def serialized(result: QueryResult, fmt: Format, output: Writer | None = None) -> bytes | None:
    """`result` written in `fmt` (one that suits its kind, as negotiate chose) by pyoxigraph's own serializer:
    into `output`, else returned."""
    out = cast(IO[bytes] | None, output)  # pyoxigraph's stubs ask for a whole file; it calls write() only
    if isinstance(result, (QuerySolutions, QueryBoolean)):
        return result.serialize(out, fmt.results_format)
    return result.serialize(out, fmt.rdf_format)
