"""Query worker process: runs SPARQL queries over a read-only store snapshot; killed by its parent at a deadline.

Run as a script by attest.sparql.deadline (stdlib + pyoxigraph only, so it starts fast). It reads pickled requests
from the file descriptor given as argv[1] and writes pickled replies to argv[2]. The snapshot it opens is a
RocksDB checkpoint nobody writes to, so Store.read_only is safe on it (it is not on a live store).
"""

from __future__ import annotations

import io
import json
import pickle
import sys
from multiprocessing.connection import Connection
from typing import IO, Any, cast

from pyoxigraph import (
    DefaultGraph, NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, QueryTriples, RdfFormat, Store, Variable,
    parse,
    parse_query_results, serialize,
)

# rows are counted on a line-per-row form (TSV for solutions, N-Triples for graphs) while it is written
SOLUTIONS_WIRE = QueryResultsFormat.TSV
TRIPLES_WIRE = RdfFormat.N_TRIPLES
Message = dict[str, Any]  # a request or a reply, pickled through the pipes (attest/sparql/deadline.py)


class LimitReached(Exception):
    """Raised from the bounded writer to stop pyoxigraph's serializer."""


class BoundedLines(io.RawIOBase):
    """Collects serialized output up to `max_lines` complete lines and `max_bytes` bytes, then stops the writer."""

    def __init__(self, max_lines: int, max_bytes: int) -> None:
        self.parts: list[bytes] = []
        self.lines = 0
        self.size = 0
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.cut: str | None = None  # "rows" or "bytes" when the output was truncated

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]  # pyoxigraph's serializers write bytes
        if self.cut:
            raise LimitReached
        chunk = bytes(data)
        newlines = chunk.count(b"\n")
        if self.lines + newlines <= self.max_lines and self.size + len(chunk) <= self.max_bytes:
            self.parts.append(chunk)
            self.lines += newlines
            self.size += len(chunk)
            return len(chunk)
        # keep whole lines only, up to whichever limit comes first
        pos = 0
        while self.lines < self.max_lines:
            end = chunk.find(b"\n", pos)
            if end < 0 or self.size + (end + 1 - pos) > self.max_bytes:
                break
            self.lines += 1
            self.size += end + 1 - pos
            pos = end + 1
        # an earlier chunk may have ended inside a line: keep whole lines only
        kept = b"".join([*self.parts, chunk[:pos]])
        end = kept.rfind(b"\n") + 1
        self.parts, self.size, self.lines = [kept[:end]], end, kept.count(b"\n", 0, end)
        self.cut = "rows" if self.lines >= self.max_lines else "bytes"
        raise LimitReached

    def value(self) -> bytes:
        return b"".join(self.parts)


class Worker:
    """Holds the store snapshot that the last request named; reopens when a request names a newer one."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.store: Store | None = None

    def open(self, path: str) -> Store:
        if self.store is None or path != self.path:
            self.store = None  # release the old snapshot's files before opening the new one
            self.store = Store.read_only(path)
            self.path = path
        return self.store

    def run(self, req: Message) -> Message:
        results = self._query(req)
        if isinstance(results, QueryBoolean):
            return {"kind": "boolean", "value": bool(results), "rows": 1, "truncated": None, "payload": b""}
        solutions = isinstance(results, QuerySolutions)
        wanted = _format(req["solutions_format"] if solutions else req["triples_format"], solutions)
        if isinstance(results, QuerySolutions) and isinstance(wanted, QueryResultsFormat) and not _is_wire(wanted, True):
            # fast path: straight into the asked format when that provably stays under the row limit
            direct = BoundedLines(sys.maxsize, req["max_bytes"])
            try:
                results.serialize(_file(direct), wanted)
            except LimitReached:
                pass
            payload = direct.value()
            bound = rows_within(payload, wanted, req["max_rows"])
            if not direct.cut and bound <= req["max_rows"]:
                return {"kind": "solutions", "rows": bound, "truncated": None, "payload": payload}
            if not direct.cut and wanted == QueryResultsFormat.JSON:  # the rows past the limit cut, not run again
                return {"kind": "solutions", "rows": req["max_rows"], "truncated": "rows",
                        "payload": first_rows(payload, req["max_rows"])}
            results = self._query(req)  # over a limit: run again on the line-per-row path to cut it exactly
        # one header line for solutions
        out = BoundedLines(req["max_rows"] + (1 if solutions else 0), req["max_bytes"])
        try:
            if isinstance(results, QuerySolutions):
                results.serialize(_file(out), SOLUTIONS_WIRE)
            elif not isinstance(results, QueryBoolean):
                serialize(results, _file(out), TRIPLES_WIRE)
        except LimitReached:
            pass
        payload = out.value()
        rows = out.lines - (1 if solutions else 0)
        if wanted is not None and not _is_wire(wanted, solutions):
            payload = convert_results(payload, wanted, solutions)
        return {"kind": "solutions" if solutions else "triples", "rows": max(rows, 0), "truncated": out.cut,
                "payload": payload}

    def _query(self, req: Message) -> QuerySolutions | QueryBoolean | QueryTriples:
        store = self.open(req["snapshot"])
        return store.query(
            req["query"],
            use_default_graph_as_union=req["union_default_graph"],
            default_graph=[NamedNode(g) if g else DefaultGraph() for g in req["default_graph"]] if req["default_graph"] else None,
            named_graphs=[NamedNode(g) for g in req["named_graphs"]] if req["named_graphs"] else None,
            substitutions={Variable(k): v for k, v in req["substitutions"].items()} or None,
        )


def rows_at_most(payload: bytes, fmt: QueryResultsFormat) -> int:
    """An upper bound of the rows in serialized solutions (escaping keeps these byte patterns out of values)."""
    if fmt == QueryResultsFormat.XML:
        return payload.count(b"<result>") + payload.count(b"<result/>")
    if fmt == QueryResultsFormat.JSON:
        return payload.count(b'{"') + payload.count(b"{}")  # a row object or a term object; quotes are escaped
    return payload.count(b"\n")  # CSV / TSV: at least one line per row


def rows_within(payload: bytes, fmt: QueryResultsFormat, limit: int) -> int:
    """rows_at_most's bound, counted exactly for JSON when the bound passes `limit`: it counts every term object too,
    so a page of 100 rows of 6 terms read as 700 and the query ran a second time (the named query `neighbours` about
    2Wiki's most linked entity: 30 ms of query, 90 ms over HTTP)."""
    bound = rows_at_most(payload, fmt)
    if bound > limit and fmt == QueryResultsFormat.JSON:
        return len(json.loads(payload)["results"]["bindings"])
    return bound


def first_rows(payload: bytes, limit: int) -> bytes:
    """SPARQL JSON results cut to their first `limit` rows, written as compactly as pyoxigraph writes them."""
    results = json.loads(payload)
    results["results"]["bindings"] = results["results"]["bindings"][:limit]
    return json.dumps(results, ensure_ascii=False, separators=(",", ":")).encode()


def _format(media_type: str | None, solutions: bool) -> QueryResultsFormat | RdfFormat | None:
    if media_type is None:
        return None
    fmt = (QueryResultsFormat.from_media_type(media_type) if solutions
           else RdfFormat.from_media_type(media_type))
    if fmt is None:
        raise ValueError(f"no serializer for {media_type}")
    return fmt


def _is_wire(fmt: QueryResultsFormat | RdfFormat, solutions: bool) -> bool:
    return bool(fmt == (SOLUTIONS_WIRE if solutions else TRIPLES_WIRE))


def convert_results(payload: bytes, fmt: QueryResultsFormat | RdfFormat, solutions: bool) -> bytes:
    """Results on the wire (TSV solutions, N-Triples) in the format `fmt` of their kind."""
    if solutions:
        if not payload:
            return b""
        if not isinstance(fmt, QueryResultsFormat):
            raise ValueError(f"{fmt} is no results format")
        return parse_query_results(payload, SOLUTIONS_WIRE).serialize(format=fmt) or b""
    if not isinstance(fmt, RdfFormat):
        raise ValueError(f"{fmt} is no graph format")
    return serialize(parse(payload, TRIPLES_WIRE), format=fmt) or b""


def _file(out: BoundedLines) -> IO[bytes]:
    """The bounded writer as pyoxigraph's stubs type an output (a whole file; it calls write() only)."""
    return cast(IO[bytes], out)


def main(read_fd: int, write_fd: int) -> None:
    requests, replies = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    worker = Worker()
    replies.send_bytes(b"ready")
    while True:
        try:
            req = pickle.loads(requests.recv_bytes())
        except EOFError:
            return  # the parent closed the pipe: exit quietly
        try:
            reply = worker.run(req)
        except SyntaxError as exc:
            reply = {"error": "syntax", "message": str(exc)}
        except (RuntimeError, ValueError, TypeError) as exc:  # e.g. a substituted variable missing from the projection
            reply = {"error": "bad_request", "message": str(exc)}
        except OSError as exc:
            reply = {"error": "store", "message": str(exc)}
        replies.send_bytes(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
