"""Reading a SPARQL server's answers: media types, parsing into pyoxigraph results, and servers' departures fixed."""

from __future__ import annotations

import io
import re
from typing import IO

import httpx
from pyoxigraph import QueryResultsFormat, RdfFormat, parse, parse_query_results

from attest.errors import StoreError
from attest.store import triple_terms
from attest.store.base import QueryResult, TripleList

RDF_MEDIA = {f.media_type.split(";")[0]: f for f in (RdfFormat.N_TRIPLES, RdfFormat.TURTLE, RdfFormat.N_QUADS,
                                                     RdfFormat.RDF_XML, RdfFormat.TRIG, RdfFormat.JSON_LD)}
RESULT_MEDIA = {f.media_type.split(";")[0]: f for f in (QueryResultsFormat.TSV, QueryResultsFormat.JSON,
                                                        QueryResultsFormat.XML, QueryResultsFormat.CSV)}

_VIRTUOSO_BNODE = re.compile(rb"<bnode>nodeID://([^<]*)</bnode>")
_VIRTUOSO_ASK_HEAD = b'<variable name="__ASK_RETVAL"/>'
_VIRTUOSO_ASK = re.compile(rb'<binding name="__ASK_RETVAL"><literal[^>]*>([0-9]+)</literal>')


def media_type_of(response: httpx.Response) -> str:
    return str(response.headers.get("content-type", "")).split(";", 1)[0].strip().lower()


def parse_results(body: bytes, media_type: str) -> QueryResult:
    """A query response as pyoxigraph results (solutions, boolean or triples), by its Content-Type."""
    try:
        if media_type in RESULT_MEDIA:
            return parse_query_results(body or b"\n", RESULT_MEDIA[media_type])
        if media_type in RDF_MEDIA:
            return TripleList(q.triple for q in parse(body, RDF_MEDIA[media_type]))
    except SyntaxError as exc:
        raise StoreError(f"the store's {media_type} answer does not parse: {exc}") from exc
    raise StoreError(f"the store answered in an unexpected format '{media_type or '(none)'}'")


def decoded(body: bytes, media_type: str, *, encoded: bool) -> bytes:
    """A query answer with encoded triple terms (`encoded`) back as triple terms (as it is when they are native),
    and Virtuoso's departures in XML made standard: blank node ids (`nodeID://b1`, not a valid label) become
    labels, and an ASK answered as a one-row solution set of `__ASK_RETVAL` becomes a boolean."""
    if media_type == "application/sparql-results+xml":
        if b"<bnode>nodeID://" in body:
            body = _VIRTUOSO_BNODE.sub(rb"<bnode>\1</bnode>", body)
        if _VIRTUOSO_ASK_HEAD in body:
            value = _VIRTUOSO_ASK.search(body)
            answer = b"true" if value is not None and value.group(1) != b"0" else b"false"
            return (b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/>'
                    b"<boolean>" + answer + b"</boolean></sparql>")
    if not encoded or triple_terms.PREFIX.encode() not in body:
        return body
    text = body.decode("utf-8")
    if media_type == "application/sparql-results+xml":
        return triple_terms.decode_xml(text).encode()
    if media_type in ("text/tab-separated-values", "application/n-triples", "application/n-quads"):
        return triple_terms.decode_lines(text, graph=media_type != "text/tab-separated-values").encode()
    raise StoreError(f"encoded triple terms cannot be decoded from '{media_type}' answers: set store_accept "
                     "to SPARQL XML / TSV and N-Triples")


def response_stream(response: httpx.Response) -> IO[bytes]:
    """A streamed HTTP response body as a binary file, for pyoxigraph's parsers."""
    return io.BufferedReader(ResponseStream(response))


class ResponseStream(io.RawIOBase):
    """A streamed HTTP response body as a binary file, for pyoxigraph's parsers."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.iter_bytes()
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]  # io's Buffer: any writable bytes
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = chunk
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

