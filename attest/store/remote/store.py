"""RemoteStore: the GraphStore methods over a SPARQL 1.1 server, built on the transport, update text, leases and tokens."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import IO, ContextManager

import httpx
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat, parse, parse_query_results, serialize

from attest import metrics
from attest.errors import BadRequest, QueryTimeout, StoreError
from attest.settings import Settings
from attest.store import triple_terms
from attest.store.base import Heartbeat, Progress, QueryResult, Term
from attest.store.rdfio import format_for_path, graph_node, in_graph, located, open_maybe_gzip, parse_quads
from attest.store.remote.answers import RESULT_MEDIA, decoded, media_type_of, parse_results, response_stream
from attest.store.remote.changes import WriteTokens
from attest.store.remote.leases import LoadLeases
from attest.store.remote.transport import SparqlClient
from attest.store.remote.updates import chunks, sparing_graphs, update_data
from attest.store.results import boolean, lexical, row_quad, solutions
from attest.store.substitute import bind_values
from attest.store.view import DeadlineView
from attest.vocab import Iris

GRAPH_SIZES = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
DEFAULT_GRAPH_SIZE = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
ALL_QUADS = "SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"
DEFAULT_GRAPH_QUADS = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
NAMED_QUADS_G = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
NAMED_QUADS = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"
ASK_GRAPH = "ASK { GRAPH ?g { ?s ?p ?o } }"
GRAPH_NAMES = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"


class RemoteStore:
    """GraphStore over a SPARQL 1.1 server. Each method is one or a few HTTP requests; no state is cached here,
    so several Attest processes can share the server (each write is acknowledged only once the server applied it).

    `generation` counts the writes this process has seen, its own and other processes' (changes.py), at most
    `store_change_check_s` late. The answer service keeps its lookups per generation, so another process's
    write drops them within that time."""

    path = None  # nothing on local disk: the deadline executor's snapshots do not apply
    raw = None  # no native pyoxigraph Store: everything goes over the protocol
    schema_generation = None  # not counted: answers read the vocabulary again each time
    journals_changes = False  # no scopes kept: facts_changed_about cannot tell
    close_record = None  # the server keeps its own files

    def __init__(self, settings: Settings, iris: Iris, *, read_only: bool = False, check: bool = True) -> None:
        if not settings.store_query_url or not (settings.store_update_url or read_only):
            raise StoreError("ATTEST_STORE=sparql needs ATTEST_STORE_QUERY_URL and ATTEST_STORE_UPDATE_URL")
        self.iris = iris
        self.read_only = read_only
        self.http = SparqlClient(settings)
        self.query_url = self.http.query_url
        self.encoded = self.http.encoded
        self.chunk_quads = settings.store_chunk_quads
        self.system_graphs = frozenset(settings.store_system_graphs)
        # over all quads of a graph, leaving out the descriptions of encoded triple terms
        self._quads_filter = triple_terms.NOT_DESCRIPTION if self.encoded else ""
        self._tokens = WriteTokens(NamedNode(iris.staging_graph_prefix + "writes"), settings.store_change_check_s)
        self._unlisted = self.system_graphs | {self._tokens.graph.value}  # graphs sizes, quads and dumps leave out
        self._leases = LoadLeases(self, settings.store_lease_s)
        if check:
            self.ping()
            if not read_only:
                self.drop_stale_loads()

    @property
    def _client(self) -> httpx.Client:
        return self.http.client

    @property
    def own_default_graph(self) -> bool:
        return self.http.own_default_graph

    def post_query(self, query: str, *, default_graph: list[str] | None = None,
                   named_graphs: list[str] | None = None, union_default_graph: bool = True,
                   accept: str | None = None, timeout: float | None = None) -> httpx.Response:
        """The server's streamed response to a query (the caller closes it; `decoded` its body when read whole)."""
        return self.http.post_query(query, default_graph=default_graph, named_graphs=named_graphs,
                                    union_default_graph=union_default_graph, accept=accept, timeout=timeout)

    def decoded(self, body: bytes, media_type: str) -> bytes:
        """A query answer as pyoxigraph parses it (triple terms decoded, Virtuoso's departures fixed)."""
        return decoded(body, media_type, encoded=self.encoded)

    def ping(self) -> None:
        self.http.ping()

    # queries -----------------------------------------------------------------------------------------------------

    def query(
        self,
        query: str,
        *,
        default_graph: list[str] | None = None,
        named_graphs: list[str] | None = None,
        union_default_graph: bool = True,
        substitutions: Mapping[str, Term] | None = None,
        timeout: float | None = None,
    ) -> QueryResult:
        text = bind_values(query, substitutions) if substitutions else query
        response = self.post_query(text, default_graph=default_graph, named_graphs=named_graphs,
                                   union_default_graph=union_default_graph, timeout=timeout)
        try:
            return parse_results(self.decoded(response.read(), media_type_of(response)), media_type_of(response))
        finally:
            response.close()

    def update(self, update: str, *, timeout: float | None = None) -> None:
        if self.read_only:
            raise StoreError("the store was opened read-only")
        original = update
        if self.encoded:
            update = triple_terms.rewrite(update)
        if self.system_graphs:
            update = sparing_graphs(update, self._our_graphs)
        token = Literal(uuid.uuid4().hex)
        try:
            replacing = self._tokens.replacing(token)
            self.http.post_update(f"{update} ;\n{replacing}" if update.strip() else replacing, original=original,
                                  timeout=timeout)
        finally:
            self._tokens.wrote(token)

    def deadline_view(self, timeout: float, source: str) -> RemoteDeadlineView:
        return RemoteDeadlineView(self, timeout, source)

    def _our_graphs(self) -> list[NamedNode]:
        return [g for row in solutions(self.query(GRAPH_NAMES, union_default_graph=False))
                if isinstance(g := row["g"], NamedNode) and g.value not in self.system_graphs]

    # what changed -------------------------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """Writes seen by this process, its own and (through the store's write token) other processes'."""
        return self._tokens.generation(self._stored_token)

    @property
    def facts_generation(self) -> int:
        return self.generation  # writes declare no scope here: any write may change facts

    def _stored_token(self) -> Literal | None:
        rows = list(solutions(self.query(self._tokens.read_query, union_default_graph=False)))
        token = rows[0]["t"] if rows else None
        return token if isinstance(token, Literal) else None

    def _touch(self) -> None:
        """A new write token after a write that could not carry one (a Graph Store Protocol request)."""
        try:
            self.update("")
        except StoreError:  # unreachable now: the write's own error says so; the next write's token tells the others
            self._tokens.wrote(None)

    def writing_facts_about(self, iris: frozenset[str], support: frozenset[str] = frozenset()) -> ContextManager[None]:
        return nullcontext()

    def facts_changed_about(self, since: int, until: int) -> set[str] | None:
        return None

    def support_changed_about(self, since: int, until: int) -> set[str] | None:
        return None

    # graphs ------------------------------------------------------------------------------------------------------

    def graphs(self) -> list[str]:
        return sorted(g for g in self.graph_sizes() if g)

    def has_graph(self, graph: str) -> bool:
        node = graph_node(graph)
        return boolean(self.query(ASK_GRAPH, substitutions={"g": node}, union_default_graph=False))

    def graph_sizes(self) -> dict[str, int]:
        sizes = {lexical(s["g"]): int(lexical(s["n"]))
                 for s in solutions(self.query(self._sized(GRAPH_SIZES), union_default_graph=False))
                 if lexical(s["g"]) not in self._unlisted}
        if self.own_default_graph:
            default = int(lexical(next(iter(solutions(self.query(self._sized(DEFAULT_GRAPH_SIZE),
                                                                 union_default_graph=False))))["n"]))
            if default:
                sizes[""] = default
        return dict(sorted(sizes.items()))

    def quads(self, graph: str | None = None) -> Iterable[Quad]:
        """Quads of one named graph, of the default graph (''), or of the whole store (None)."""
        if graph == "":
            if not self.own_default_graph:
                return []
            rows = solutions(self.query(self._sized(DEFAULT_GRAPH_QUADS), union_default_graph=False))
            return [row_quad(r, DefaultGraph()) for r in rows]
        if graph:
            node = graph_node(graph)
            rows = solutions(self.query(self._sized(NAMED_QUADS), substitutions={"g": node}, union_default_graph=False))
            return [row_quad(r, node) for r in rows]
        rows = solutions(self.query(self._sized(ALL_QUADS if self.own_default_graph else NAMED_QUADS_G),
                                    union_default_graph=False))
        return [row_quad(r) for r in rows if r["g"] is None or lexical(r["g"]) not in self._unlisted]

    # writes ------------------------------------------------------------------------------------------------------

    def add(self, quads: Iterable[Quad]) -> int:
        batch = list(quads)
        if batch:
            self.update(update_data("INSERT DATA", batch))
        return len(batch)

    def bulk_add(self, quads: Iterable[Quad]) -> int:
        """Add quads in chunks of store_chunk_quads (one request each); only inside bulk_write_guard."""
        count = 0
        for batch in chunks(quads, self.chunk_quads):
            self.update(update_data("INSERT DATA", batch))
            count += len(batch)
        return count

    def replace_graph(self, graph: str, quads: Iterable[Quad]) -> int:
        """DROP and INSERT DATA in one update request: atomic where the server applies a request atomically."""
        target = graph_node(graph)
        batch = list(in_graph(quads, target))
        drop = f"DROP SILENT GRAPH {target}"
        self.update(f"{drop} ;\n{update_data('INSERT DATA', batch)}" if batch else drop)
        return len(batch)

    def drop_graph(self, graph: str) -> bool:
        node = graph_node(graph)
        if not self.has_graph(graph):
            return False
        self.update(f"DROP SILENT GRAPH {node}")
        return True

    def load(self, data: bytes | str | IO[bytes], fmt: RdfFormat, *, graph: str | None = None,
             base_iri: str | None = None, source: str | None = None) -> int:
        quads = list(parse_quads(data, fmt, graph=graph, base_iri=base_iri, source=source))
        return self.add(quads)

    def bulk_load_file(self, path: Path, *, graph: str | None = None, base_iri: str | None = None,
                       progress: Progress | None = None) -> int:
        """Validate the whole file first, then send it in chunks (Graph Store Protocol POSTs when configured,
        else INSERT DATA) under bulk_write_guard when the target graph is empty; else in one update request."""
        fmt = format_for_path(path)
        target = graph_node(graph) if graph else DefaultGraph()
        with open_maybe_gzip(path) as stream:
            try:
                quads = list(parse(stream, fmt, base_iri=base_iri, rename_blank_nodes=True))
            except SyntaxError as exc:
                raise located(exc, str(path)) from exc
        if not fmt.supports_datasets:
            quads = list(in_graph(quads, target))
        before = self._size(None if fmt.supports_datasets else target)
        if fmt.supports_datasets or before:
            self.add(quads)
        else:
            with self.bulk_write_guard([graph or ""]) as heartbeat:
                for batch in chunks(quads, self.chunk_quads):
                    self.post_chunk(batch, graph)
                    heartbeat()
                    if progress:
                        progress(len(batch))
        return self._size(None if fmt.supports_datasets else target) - before

    def post_chunk(self, batch: list[Quad], graph: str | None) -> None:
        """One chunk of triples into one graph: a Graph Store Protocol POST of N-Triples, or INSERT DATA."""
        if not self.http.gsp_url:
            self.update(update_data("INSERT DATA", batch))
            return
        triples = triple_terms.encode_quads(batch) if self.encoded else batch
        body = serialize([q.triple for q in triples], format=RdfFormat.N_TRIPLES)
        params = {"graph": graph} if graph else {"default": ""}
        try:
            self.http.send("POST", self.http.gsp_url, params=params, content=body,
                           headers={"Content-Type": RdfFormat.N_TRIPLES.media_type})
        finally:
            self._touch()

    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> ContextManager[Heartbeat]:
        """Chunked writes into `graphs` become all-or-nothing under load leases (leases.py)."""
        return self._leases.guard(graphs, finish=finish)

    def drop_stale_loads(self) -> int:
        """Roll back loads whose writer stopped renewing its lease (it crashed); returns how many."""
        return self._leases.drop_stale()

    # maintenance -------------------------------------------------------------------------------------------------

    def dump(self, output: IO[bytes], fmt: RdfFormat, *, graph: str | None = None) -> None:
        if graph is None:
            if not fmt.supports_datasets:
                raise BadRequest(f"{fmt.name} holds one graph; dump the whole store as N-Quads or TriG")
            serialize(self._streamed_quads(), output, fmt)
            return
        quads = self.quads(graph)
        if fmt.supports_datasets:
            serialize(quads, output, fmt)
        else:
            serialize([q.triple for q in quads], output, fmt)

    def _streamed_quads(self) -> Iterator[Quad]:
        """Every quad, parsed while the server's TSV answer streams in (a dump never holds the store in memory)."""
        response = self.post_query(self._sized(ALL_QUADS if self.own_default_graph else NAMED_QUADS_G),
                                   union_default_graph=False)
        try:
            wire = media_type_of(response)
            if wire not in RESULT_MEDIA:
                raise StoreError(f"the store answered in an unexpected format '{wire}'")
            if wire == "text/tab-separated-values":
                rows = parse_query_results(response_stream(response), RESULT_MEDIA[wire])
            else:  # XML and JSON are not line per row: their fixes (decoded) need the whole answer
                rows = parse_query_results(self.decoded(response.read(), wire), RESULT_MEDIA[wire])
            for r in solutions(rows):
                if r["g"] is not None and lexical(r["g"]) in self._unlisted:
                    continue
                q = row_quad(r)
                yield Quad(q.subject, q.predicate, triple_terms.decode_term(q.object), q.graph_name) if self.encoded else q
        finally:
            response.close()

    def backup(self, target: Path) -> None:
        """An export: `target` (a new directory) gets dataset.nq, which `attest migrate` or the server's loader reads."""
        if target.exists():
            raise StoreError(f"backup target {target} already exists", path=str(target))
        target.mkdir(parents=True)
        with (target / "dataset.nq").open("wb") as out:
            self.dump(out, RdfFormat.N_QUADS)

    def compact(self) -> None:
        pass  # the server manages its own files

    def close(self) -> None:
        self.http.close()

    # internals ---------------------------------------------------------------------------------------------------

    def _sized(self, query: str) -> str:
        """One of the fixed queries over all quads (`?s ?p ?o }`), leaving out triple-term descriptions."""
        return query.replace("?s ?p ?o }", f"?s ?p ?o {self._quads_filter} }}") if self._quads_filter else query

    def _size(self, graph: NamedNode | DefaultGraph | None) -> int:
        if graph is None:
            return sum(self.graph_sizes().values())
        if isinstance(graph, DefaultGraph):
            rows = solutions(self.query(self._sized(DEFAULT_GRAPH_SIZE), union_default_graph=False))
        else:
            rows = solutions(self.query(self._sized(GRAPH_SIZES), substitutions={"g": graph}, union_default_graph=False))
        return next((int(lexical(row["n"])) for row in rows), 0)


class RemoteDeadlineView(DeadlineView):
    """A GraphStore view for one request: every query of it shares one deadline, enforced by the client timeout
    (the connection closes) and the server's own timeout parameter when configured."""

    def __init__(self, store: RemoteStore, timeout: float, source: str) -> None:
        super().__init__(store, timeout, source)
        self._remote = store

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        left = self.left()
        try:
            result = self._remote.query(query, default_graph=default_graph, named_graphs=named_graphs,
                                        union_default_graph=union_default_graph, substitutions=substitutions,
                                        timeout=left)
        except QueryTimeout:
            metrics.queries.labels(self._source, "timeout").inc()
            raise
        metrics.queries.labels(self._source, "ok").inc()
        return result
