"""The remote store: GraphStore over a SPARQL 1.1 server (Query, Update, Graph Store Protocol), results parsed by pyoxigraph."""

from __future__ import annotations

import io
import re
import logging
import threading
import time
import uuid
from urllib.parse import urlencode
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, ContextManager, Iterable, Iterator, Mapping

import httpx
from pyoxigraph import (
    BlankNode, DefaultGraph, Literal, NamedNode, Quad, QueryResultsFormat, RdfFormat, Store, parse, parse_query_results,
    serialize,
)

from attest.errors import BadRequest, NotFound, QueryTimeout, SparqlSyntaxError, StoreError, StoreUnavailable
from attest.store.base import Heartbeat, Progress, QueryResult, Term
from attest.store.rdfio import format_for_path, located, open_maybe_gzip, parse_quads, sparql_term
from attest.store import triple_terms
from attest.sparql.lexer import has_dataset_clause, top_level_words, without_dataset_clause
from attest.sparql.outbound import fetches, without_remote_body
from attest.store.substitute import bind_values
from attest.store.view import StoreView
from attest.vocab import ATT, XSD, Iris

log = logging.getLogger(__name__)
logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per store request would drown the access log

LOADING_INTO = ATT + "loadingInto"  # marker of a bulk load in progress: marker IRI -> target graph
LEASE_UNTIL = ATT + "leaseUntil"  # until when the process that wrote the marker vouches for it
DEFAULT_GRAPH_MARKER = ATT + "defaultGraph"
WRITE_TOKEN = ATT + "writeToken"  # a fresh value after every write through any Attest process (see `generation`)
GRAPH_SIZES = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
DEFAULT_GRAPH_SIZE = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
ALL_QUADS = "SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"
DEFAULT_GRAPH_QUADS = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
NAMED_QUADS_G = "SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
NAMED_QUADS = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"
ASK_GRAPH = "ASK { GRAPH ?g { ?s ?p ?o } }"
GRAPH_NAMES = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
NO_GRAPH = "urn:attest:no-graph"
# what a query asks the server for: results and graphs in formats pyoxigraph parses, line per row where possible
QUERY_ACCEPT = ("text/tab-separated-values, application/sparql-results+json;q=0.9, "
                "application/n-triples, text/turtle;q=0.5")
RDF_MEDIA = {f.media_type.split(";")[0]: f for f in (RdfFormat.N_TRIPLES, RdfFormat.TURTLE, RdfFormat.N_QUADS, RdfFormat.RDF_XML,
                                       RdfFormat.TRIG, RdfFormat.JSON_LD)}
RESULT_MEDIA = {f.media_type.split(";")[0]: f for f in (QueryResultsFormat.TSV, QueryResultsFormat.JSON, QueryResultsFormat.XML,
                                          QueryResultsFormat.CSV)}


def _graph_node(graph: str) -> NamedNode:
    try:
        return NamedNode(graph)
    except ValueError as exc:
        raise NotFound(f"'{graph}' is not a valid graph IRI", graph=graph) from exc


def _in_graph(quads: Iterable[Quad], graph: NamedNode | DefaultGraph) -> Iterator[Quad]:
    for q in quads:
        yield Quad(q.subject, q.predicate, q.object, graph)


def chunks(items: Iterable, size: int) -> Iterator[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _update_data(operation: str, quads: Iterable[Quad]) -> str:
    """INSERT DATA / DELETE DATA of quads in named graphs and the default graph (INSERT {...} WHERE {} when
    they hold blank nodes, which some servers, Virtuoso among them, refuse in a DATA block)."""
    by_graph: dict[str, list[str]] = {}
    blank = False
    for q in quads:
        blank = blank or isinstance(q.subject, BlankNode) or isinstance(q.object, BlankNode)
        triple = f"{sparql_term(q.subject)} {sparql_term(q.predicate)} {sparql_term(q.object)} ."
        by_graph.setdefault("" if isinstance(q.graph_name, DefaultGraph) else str(q.graph_name), []).append(triple)
    if blank and operation == "INSERT DATA":
        # a template: one GRAPH block per graph (Virtuoso fails, SR002, on blank nodes in several blocks of a graph)
        parts = [" ".join(triples) if not graph else f"GRAPH {graph} {{ {' '.join(triples)} }}"
                 for graph, triples in by_graph.items()]
        return f"INSERT {{ {' '.join(parts)} }} WHERE {{}}"
    # data: a GRAPH block per triple (Virtuoso's parser runs out of memory on a few thousand triples in one block)
    parts = [t if not graph else f"GRAPH {graph} {{ {t} }}" for graph, triples in by_graph.items() for t in triples]
    return f"{operation} {{ {' '.join(parts)} }}"


_VIRTUOSO_BNODE = re.compile(rb"<bnode>nodeID://([^<]*)</bnode>")
_VIRTUOSO_ASK_HEAD = b'<variable name="__ASK_RETVAL"/>'
_VIRTUOSO_ASK = re.compile(rb'<binding name="__ASK_RETVAL"><literal[^>]*>([0-9]+)</literal>')


def _accept_for(query: str, accept: str) -> str:
    """The Accept list narrowed to the media types of the query's form (results for SELECT / ASK, RDF for
    CONSTRUCT / DESCRIBE): Virtuoso answers 406 to a CONSTRUCT whose Accept starts with a results format."""
    form = next((w.word for w in top_level_words(query) if w is not None
                 and w.word in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")), None)
    if form is None:
        return accept
    wanted = RESULT_MEDIA if form in ("SELECT", "ASK") else RDF_MEDIA
    kept = [part for part in accept.split(",") if part.split(";", 1)[0].strip().lower() in wanted]
    return ", ".join(p.strip() for p in kept) if kept else accept


@contextmanager
def _parser_message(text: str, kind: str) -> Iterator[None]:
    """A syntax error the server reports, told with pyoxigraph's parser message (`error at LINE:COLUMN: ...`, the
    embedded store's) when pyoxigraph refuses the text too; servers' own messages vary (Virtuoso: SP030)."""
    try:
        yield
    except SparqlSyntaxError as exc:
        if fetches(text):
            raise  # LOAD and SERVICE would make pyoxigraph fetch from the network: the server's message stands
        try:  # parsed and run on an empty in-memory store: it reads nothing of ours and writes nowhere
            Store().query(text) if kind == "query" else Store().update(text)
        except SyntaxError as local:
            raise SparqlSyntaxError(f"invalid SPARQL {kind}: {local}") from exc
        except (OSError, ValueError, RuntimeError):  # parsed, failed in evaluation: the server's message stands
            pass
        raise


def media_type_of(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


class RemoteStore:
    """GraphStore over a SPARQL 1.1 server. Each method is one or a few HTTP requests; no state is cached here,
    so several Attest processes can share the server (each write is acknowledged only once the server applied it).

    `generation` counts the writes this process has seen, its own and other processes': each write ends by
    putting a fresh write token into the store (in the same update request where it is one), and reading
    `generation` compares the stored token with the last one seen, at most every `store_change_check_s`. The
    answer service keeps its lookups per generation, so another process's write drops them within that time."""

    def __init__(self, settings, iris: Iris, *, read_only: bool = False, check: bool = True) -> None:
        if not settings.store_query_url or not (settings.store_update_url or read_only):
            raise StoreError("ATTEST_STORE=sparql needs ATTEST_STORE_QUERY_URL and ATTEST_STORE_UPDATE_URL")
        self.path = None  # nothing on local disk: the deadline executor's snapshots do not apply
        self.iris = iris
        self.read_only = read_only
        self.query_url = settings.store_query_url
        self.update_url = settings.store_update_url
        self.gsp_url = settings.store_gsp_url
        self.timeout_s = settings.store_timeout_s
        self.timeout_param = settings.store_timeout_param
        self.timeout_param_ms = settings.store_timeout_param_unit == "ms"
        self.union_param = settings.store_union_param
        self.chunk_quads = settings.store_chunk_quads
        self.lease_s = settings.store_lease_s
        self.accept = settings.store_accept or QUERY_ACCEPT
        self.query_form = settings.store_query_form
        self.system_graphs = frozenset(settings.store_system_graphs)
        # a server whose default graph is the union of its named graphs (no union parameter) has no default graph
        # of its own to list, count or dump
        self.own_default_graph = bool(self.union_param)
        self.encoded = settings.store_triple_terms == "encoded"  # see attest/store/triple_terms.py
        # over all quads of a graph, leaving out the descriptions of encoded triple terms
        self._quads_filter = triple_terms.NOT_DESCRIPTION if self.encoded else ""
        auth: httpx.Auth | None = None
        headers = {"User-Agent": "attest"}
        if settings.store_token is not None:
            headers["Authorization"] = f"Bearer {settings.store_token.get_secret_value()}"
        elif settings.store_user:
            password = settings.store_password.get_secret_value() if settings.store_password else ""
            auth = httpx.BasicAuth(settings.store_user, password)
        self._client = httpx.Client(auth=auth, headers=headers, timeout=httpx.Timeout(
            self.timeout_s, connect=settings.store_connect_timeout_s))
        self._writes = NamedNode(iris.staging_graph_prefix + "writes")  # where the write token is kept
        self._unlisted = self.system_graphs | {self._writes.value}  # graphs sizes, quads and dumps leave out
        self.change_check_s = settings.store_change_check_s
        self._generation, self._token, self._token_read_at = 0, None, float("-inf")
        self._token_lock = threading.Lock()
        if check:
            self.ping()
            if not read_only:
                self.drop_stale_loads()

    # transport --------------------------------------------------------------------------------------------------

    def _send(self, method: str, url: str, *, timeout: float | None = None, stream: bool = False,
              kind: str = "request", **kwargs) -> httpx.Response:
        """One request; the server's refusals become 4xx (bad input) or 502 (server fault), never tracebacks."""
        limit = self.timeout_s if timeout is None else timeout
        try:
            request = self._client.build_request(method, url, timeout=httpx.Timeout(
                limit, connect=min(limit, self._client.timeout.connect or limit)), **kwargs)
            response = self._client.send(request, stream=stream)
        except httpx.TimeoutException as exc:
            if kind == "query":
                raise QueryTimeout(f"query stopped at its deadline of {limit:g} s (the store at {url} had not "
                                   "answered); narrow it, add a LIMIT, or ask for a longer timeout",
                                   timeout=limit) from exc
            raise StoreUnavailable(f"the store at {url} did not answer within {limit:g} s", url=url) from exc
        except httpx.HTTPError as exc:
            raise StoreUnavailable(f"the store at {url} is unreachable: {exc}", url=url) from exc
        if response.status_code >= 400:
            body = (response.read() if stream else response.content)[:2000].decode("utf-8", "replace").strip()
            response.close()
            self._refused(response.status_code, body, url, kind)
        return response

    def _refused(self, status: int, body: str, url: str, kind: str):
        """(kind: query, update or request; a server may answer queries and updates at one URL, as Virtuoso does)"""
        remote = without_remote_body(body)  # the server's own SERVICE or LOAD failed: never echo that page
        if remote is not None:
            raise remote
        message = body.splitlines()[0] if body else f"HTTP {status}"
        if status in (400, 422):
            if any(w in body.lower() for w in ("pars", "syntax", "expected", "error at")):
                raise SparqlSyntaxError(f"invalid SPARQL {kind}: {message}")
            raise BadRequest(f"the store refused the {kind}: {message}")
        if status == 500 and kind == "update" and body:
            # servers (Oxigraph among them) answer 500 to an update they evaluated and refused, e.g. CREATE GRAPH
            # of a graph that exists; the request was applied as a whole or not at all
            raise BadRequest(f"update cannot be applied, nothing was changed: {message}")
        if status == 404:
            raise NotFound(f"the store has no such resource: {message}")
        if status in (401, 403):
            raise StoreError(f"the store at {url} refused our credentials (HTTP {status})", url=url)
        if status in (503, 504):
            raise StoreUnavailable(f"the store at {url} is unavailable (HTTP {status}): {message}", url=url)
        raise StoreError(f"the store failed (HTTP {status}): {message}", url=url)

    def _query_params(self, *, default_graph, named_graphs, union_default_graph: bool,
                      timeout: float | None) -> list[tuple[str, str]]:
        params: list[tuple[str, str]] = []
        for g in default_graph or ():
            params.append(("default-graph-uri", str(_graph_node(g).value)))
        for g in named_graphs or ():
            params.append(("named-graph-uri", str(_graph_node(g).value)))
        if union_default_graph and not default_graph and self.union_param:
            params.append((self.union_param, "true"))
        if self.timeout_param and timeout is not None:
            params.append((self.timeout_param, str(int(timeout * 1000)) if self.timeout_param_ms else f"{timeout:g}"))
        return params

    def post_query(self, query: str, *, default_graph: list[str] | None = None,
                   named_graphs: list[str] | None = None, union_default_graph: bool = True,
                   accept: str | None = None, timeout: float | None = None) -> httpx.Response:
        """The server's streamed response to a query (the caller closes it; `decoded` its body when read whole)."""
        original = query
        if default_graph or named_graphs:
            # the protocol's dataset replaces the query's FROM / FROM NAMED (SPARQL 1.1 Protocol 2.1.4); some
            # servers (Virtuoso) would merge the two
            query = without_dataset_clause(query)
        if self.encoded:
            query = triple_terms.rewrite(query)
        if default_graph and "" in default_graph:
            # the protocol has no IRI for the server's own default graph: only its named graphs can be listed
            named = [g for g in default_graph if g]
            if not named:
                default_graph, union_default_graph = None, False
            else:
                default_graph = named
        if (not union_default_graph and not default_graph and not self.own_default_graph
                and not has_dataset_clause(query)):
            # a server whose default graph is the union of all graphs (Virtuoso) holds nothing Attest wrote into
            # a default graph of its own: a query over "the store's default graph" reads an empty graph there
            # (named graphs stay visible to GRAPH; Virtuoso keeps them when the protocol names a default graph)
            default_graph = [NO_GRAPH]
        params = self._query_params(default_graph=default_graph, named_graphs=named_graphs,
                                    union_default_graph=union_default_graph, timeout=timeout)
        accept = _accept_for(query, accept or self.accept)
        with _parser_message(original, "query"):
            if self.query_form:
                body = urlencode([("query", query), *params]).encode()
                return self._send("POST", self.query_url, timeout=timeout, stream=True, kind="query", content=body,
                                  headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": accept})
            return self._send("POST", self.query_url, timeout=timeout, stream=True, kind="query", params=params,
                              content=query.encode(), headers={"Content-Type": "application/sparql-query",
                                                               "Accept": accept})

    def ping(self) -> None:
        """Raise StoreError naming the URL when the server does not answer a trivial query."""
        response = self.post_query("ASK {}", union_default_graph=False)
        response.read()
        response.close()

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

    def decoded(self, body: bytes, media_type: str) -> bytes:
        """A query answer with encoded triple terms back as triple terms (as it is when they are native), and
        Virtuoso's departures in XML made standard: blank node ids (`nodeID://b1`, not a valid label) become
        labels, and an ASK answered as a one-row solution set of `__ASK_RETVAL` becomes a boolean."""
        if media_type == "application/sparql-results+xml":
            if b"<bnode>nodeID://" in body:
                body = _VIRTUOSO_BNODE.sub(rb"<bnode>\1</bnode>", body)
            if _VIRTUOSO_ASK_HEAD in body:
                value = _VIRTUOSO_ASK.search(body)
                answer = b"true" if value is not None and value.group(1) != b"0" else b"false"
                return (b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/>'
                        b"<boolean>" + answer + b"</boolean></sparql>")
        if not self.encoded or triple_terms.PREFIX.encode() not in body:
            return body
        text = body.decode("utf-8")
        if media_type == "application/sparql-results+xml":
            return triple_terms.decode_xml(text).encode()
        if media_type in ("text/tab-separated-values", "application/n-triples", "application/n-quads"):
            return triple_terms.decode_lines(text, graph=media_type != "text/tab-separated-values").encode()
        raise StoreError(f"encoded triple terms cannot be decoded from '{media_type}' answers: set store_accept "
                         "to SPARQL XML / TSV and N-Triples")

    def update(self, update: str, *, timeout: float | None = None) -> None:
        if self.read_only:
            raise StoreError("the store was opened read-only")
        original = update
        if self.encoded:
            update = triple_terms.rewrite(update)
        if self.system_graphs:
            update = self._sparing_system_graphs(update)
        token = Literal(uuid.uuid4().hex)
        try:
            with _parser_message(original, "update"):
                request = f"{update} ;\n{self._new_token(token)}" if update.strip() else self._new_token(token)
                self._send("POST", self.update_url, timeout=timeout, kind="update", content=request.encode(),
                           headers={"Content-Type": "application/sparql-update"})
        finally:
            self._wrote(token)

    # the write token ----------------------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """Writes seen by this process, its own and (through the store's write token) other processes'."""
        if time.monotonic() - self._token_read_at >= self.change_check_s and self._token_lock.acquire(blocking=False):
            try:  # one thread reads the token; the others go on with the count as it is
                rows = list(self.query(f"SELECT ?t WHERE {{ GRAPH {self._writes} {{ {self._writes} <{WRITE_TOKEN}> ?t }} }}",
                                       union_default_graph=False))
                self._token_read_at = time.monotonic()
                token = rows[0]["t"] if rows else None
                if token != self._token:
                    self._token, self._generation = token, self._generation + 1
            except StoreError:
                pass  # unreachable: the request's own queries will say so
            finally:
                self._token_lock.release()
        return self._generation

    @property
    def facts_generation(self) -> int:
        return self.generation  # writes declare no scope here: any write may change facts

    schema_generation = None  # not counted: answers read the vocabulary again each time
    journals_changes = False  # no scopes kept: facts_changed_about cannot tell
    raw = None  # no native pyoxigraph Store: everything goes over the protocol

    def writing_facts_about(self, iris: frozenset[str], support: frozenset[str] = frozenset()) -> ContextManager[None]:
        return nullcontext()

    def facts_changed_about(self, since: int, until: int) -> set[str] | None:
        return None

    def support_changed_about(self, since: int, until: int) -> set[str] | None:
        return None

    def _new_token(self, token: Literal) -> str:
        """Update operations that replace the stored write token, run last in a write's update request."""
        return (f"DELETE WHERE {{ GRAPH {self._writes} {{ {self._writes} <{WRITE_TOKEN}> ?t }} }} ;\n"
                f"INSERT DATA {{ GRAPH {self._writes} {{ {self._writes} <{WRITE_TOKEN}> {token} }} }}")

    def _touch(self) -> None:
        """A new write token after a write that could not carry one (a Graph Store Protocol request)."""
        try:
            self.update("")
        except StoreError:  # unreachable now: the write's own error says so; the next write's token tells the others
            self._wrote(None)

    def _wrote(self, token: Literal | None) -> None:
        """After a write of this process (applied or not: a failed one may have been): its caches go, and the token
        it wrote, if any, is not taken for another process's write."""
        self._generation += 1
        if token is not None:
            self._token = token

    def _sparing_system_graphs(self, update: str) -> str:
        """DROP / CLEAR ALL and NAMED turned into one DROP / CLEAR per graph of ours: the server's own graphs
        (Virtuoso's virtrdf# holds its quad maps; dropping it breaks every later query) are never touched."""
        words = [w for w in top_level_words(update) if w is not None]
        spans = []
        for i, w in enumerate(words):
            if w.word in ("DROP", "CLEAR"):
                j = i + 1 + (i + 1 < len(words) and words[i + 1].word == "SILENT")
                if j < len(words) and words[j].word in ("ALL", "NAMED"):
                    spans.append((w.start, words[j].start + len(words[j].word), w.word))
        if not spans:
            return update
        ours = [row["g"] for row in self.query(GRAPH_NAMES, union_default_graph=False)
                if row["g"].value not in self.system_graphs]
        out, pos = [], 0
        for start, end, verb in spans:
            out.append(update[pos:start])
            # no graph of ours: a no-op on a graph nobody holds (an operation must stay where the one was)
            out.append(" ;\n".join(f"{verb} SILENT GRAPH {g}" for g in ours) or f"{verb} SILENT GRAPH <{NO_GRAPH}>")
            pos = end
        out.append(update[pos:])
        return "".join(out)

    def deadline_view(self, timeout: float, source: str) -> "RemoteDeadlineView":
        return RemoteDeadlineView(self, timeout, source)

    # graphs ------------------------------------------------------------------------------------------------------

    def graphs(self) -> list[str]:
        return sorted(g for g in self.graph_sizes() if g)

    def has_graph(self, graph: str) -> bool:
        node = _graph_node(graph)
        return bool(self.query(ASK_GRAPH, substitutions={"g": node}, union_default_graph=False))

    def graph_sizes(self) -> dict[str, int]:
        sizes = {s["g"].value: int(s["n"].value) for s in self.query(self._sized(GRAPH_SIZES), union_default_graph=False)
                 if s["g"].value not in self._unlisted}
        if self.own_default_graph:
            default = next(iter(self.query(self._sized(DEFAULT_GRAPH_SIZE), union_default_graph=False)))["n"]
            if int(default.value):
                sizes[""] = int(default.value)
        return dict(sorted(sizes.items()))

    def quads(self, graph: str | None = None) -> Iterable[Quad]:
        """Quads of one named graph, of the default graph (''), or of the whole store (None)."""
        if graph == "":
            if not self.own_default_graph:
                return []
            rows = self.query(self._sized(DEFAULT_GRAPH_QUADS), union_default_graph=False)
            return [Quad(r["s"], r["p"], r["o"], DefaultGraph()) for r in rows]
        if graph:
            node = _graph_node(graph)
            rows = self.query(self._sized(NAMED_QUADS), substitutions={"g": node}, union_default_graph=False)
            return [Quad(r["s"], r["p"], r["o"], node) for r in rows]
        rows = self.query(self._sized(ALL_QUADS if self.own_default_graph else NAMED_QUADS_G), union_default_graph=False)
        return [Quad(r["s"], r["p"], r["o"], r["g"] if r["g"] is not None else DefaultGraph()) for r in rows
                if r["g"] is None or r["g"].value not in self._unlisted]

    # writes ------------------------------------------------------------------------------------------------------

    def add(self, quads: Iterable[Quad]) -> int:
        batch = list(quads)
        if batch:
            self.update(_update_data("INSERT DATA", batch))
        return len(batch)

    def bulk_add(self, quads: Iterable[Quad]) -> int:
        """Add quads in chunks of store_chunk_quads (one request each); only inside bulk_write_guard."""
        count = 0
        for batch in chunks(quads, self.chunk_quads):
            self.update(_update_data("INSERT DATA", batch))
            count += len(batch)
        return count

    def replace_graph(self, graph: str, quads: Iterable[Quad]) -> int:
        """DROP and INSERT DATA in one update request: atomic where the server applies a request atomically."""
        target = _graph_node(graph)
        batch = list(_in_graph(quads, target))
        drop = f"DROP SILENT GRAPH {target}"
        self.update(f"{drop} ;\n{_update_data('INSERT DATA', batch)}" if batch else drop)
        return len(batch)

    def drop_graph(self, graph: str) -> bool:
        node = _graph_node(graph)
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
        target = _graph_node(graph) if graph else DefaultGraph()
        with open_maybe_gzip(path) as stream:
            try:
                quads = list(parse(stream, fmt, base_iri=base_iri, rename_blank_nodes=True))
            except SyntaxError as exc:
                raise located(exc, str(path)) from exc
        if not fmt.supports_datasets:
            quads = list(_in_graph(quads, target))
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
        if not self.gsp_url:
            self.update(_update_data("INSERT DATA", batch))
            return
        triples = triple_terms.encode_quads(batch) if self.encoded else batch
        body = serialize([q.triple for q in triples], format=RdfFormat.N_TRIPLES)
        params = {"graph": graph} if graph else {"default": ""}
        try:
            self._send("POST", self.gsp_url, params=params, content=body,
                       headers={"Content-Type": RdfFormat.N_TRIPLES.media_type})
        finally:
            self._touch()

    @contextmanager
    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> Iterator[Heartbeat]:
        """Chunked writes into `graphs` become all-or-nothing: a durable marker per graph, with a lease the
        writer renews (yielded `heartbeat()`), names them while the block runs. An exception empties them at
        once; a crash leaves the marker, and the next process to open the store empties them once the lease
        ran out. `finish` runs in the same update request that drops the markers."""
        loads = NamedNode(self.iris.staging_graph_prefix + "loads")
        markers = [NamedNode(f"{self.iris.staging_graph_prefix}{uuid.uuid4().hex}") for _ in graphs]
        targets = [_graph_node(g) if g else NamedNode(DEFAULT_GRAPH_MARKER) for g in graphs]
        lease = {"until": self._lease_literal()}

        def marker_quads(until: Literal) -> list[Quad]:
            return [q for m, t in zip(markers, targets) for q in
                    (Quad(m, NamedNode(LOADING_INTO), t, loads), Quad(m, NamedNode(LEASE_UNTIL), until, loads))]

        self.update(_update_data("INSERT DATA", marker_quads(lease["until"])))
        renewed = [time.monotonic()]

        def heartbeat() -> None:
            if time.monotonic() - renewed[0] < self.lease_s / 4:
                return
            old, lease["until"] = lease["until"], self._lease_literal()
            self.update(f"{_update_data('DELETE DATA', marker_quads(old))} ;\n"
                        f"{_update_data('INSERT DATA', marker_quads(lease['until']))}")
            renewed[0] = time.monotonic()

        try:
            yield heartbeat
            drop = _update_data("DELETE DATA", marker_quads(lease["until"]))
            self.update(f"{finish} ;\n{drop}" if finish else drop)
        except BaseException:
            try:
                self._roll_back(list(zip(markers, targets)))
            except StoreError:
                log.warning("could not roll back an interrupted load; the next start will")
            raise

    def _lease_literal(self) -> Literal:
        until = datetime.fromtimestamp(time.time() + self.lease_s, timezone.utc).isoformat()
        return Literal(until, datatype=NamedNode(XSD + "dateTime"))

    def _roll_back(self, loads: list[tuple[NamedNode, NamedNode]]) -> None:
        """Empty the graphs that unfinished loads name and drop their markers, in one update."""
        ops = []
        for marker, target in loads:
            ops.append("DROP SILENT DEFAULT" if target.value == DEFAULT_GRAPH_MARKER else f"DROP SILENT GRAPH {target}")
            ops.append(f"DELETE WHERE {{ GRAPH <{self.iris.staging_graph_prefix}loads> {{ {marker} ?p ?o }} }}")
        if ops:
            self.update(" ;\n".join(ops))

    def drop_stale_loads(self) -> int:
        """Roll back loads whose writer stopped renewing its lease (it crashed); returns how many."""
        rows = self.query(
            f"SELECT ?m ?t ?until WHERE {{ GRAPH <{self.iris.staging_graph_prefix}loads> {{ "
            f"?m <{LOADING_INTO}> ?t OPTIONAL {{ ?m <{LEASE_UNTIL}> ?until }} }} }}", union_default_graph=False)
        now = datetime.now(timezone.utc)
        stale = []
        for row in rows:
            until = row["until"]
            try:
                expired = until is None or datetime.fromisoformat(until.value) < now
            except ValueError:
                expired = True
            if expired:
                stale.append((row["m"], row["t"]))
        if stale:
            log.warning("rolling back %d interrupted load(s) into %s", len(stale), ", ".join(t.value for _, t in stale))
            self._roll_back(stale)
        return len(stale)

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
                rows = parse_query_results(_ResponseStream(response), RESULT_MEDIA[wire])
            else:  # XML and JSON are not line per row: their fixes (decoded) need the whole answer
                rows = parse_query_results(self.decoded(response.read(), wire), RESULT_MEDIA[wire])
            decode = triple_terms.decode_term if self.encoded else (lambda term: term)
            for r in rows:
                if r["g"] is not None and r["g"].value in self._unlisted:
                    continue
                yield Quad(r["s"], r["p"], decode(r["o"]), r["g"] if r["g"] is not None else DefaultGraph())
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
        self._client.close()

    # internals ---------------------------------------------------------------------------------------------------

    def _sized(self, query: str) -> str:
        """One of the fixed queries over all quads (`?s ?p ?o }`), leaving out triple-term descriptions."""
        return query.replace("?s ?p ?o }", f"?s ?p ?o {self._quads_filter} }}") if self._quads_filter else query

    def _size(self, graph: NamedNode | DefaultGraph | None) -> int:
        if graph is None:
            return sum(self.graph_sizes().values())
        if isinstance(graph, DefaultGraph):
            rows = self.query(self._sized(DEFAULT_GRAPH_SIZE), union_default_graph=False)
        else:
            rows = self.query(self._sized(GRAPH_SIZES), substitutions={"g": graph}, union_default_graph=False)
        return next((int(row["n"].value) for row in rows), 0)


def parse_results(body: bytes, media_type: str) -> QueryResult:
    """A query response as pyoxigraph results (solutions, boolean or triples), by its Content-Type."""
    try:
        if media_type in RESULT_MEDIA:
            return parse_query_results(body or b"\n", RESULT_MEDIA[media_type])
        if media_type in RDF_MEDIA:
            return _Triples([q.triple for q in parse(body, RDF_MEDIA[media_type])])
    except SyntaxError as exc:
        raise StoreError(f"the store's {media_type} answer does not parse: {exc}") from exc
    raise StoreError(f"the store answered in an unexpected format '{media_type or '(none)'}'")


class _ResponseStream(io.RawIOBase):
    """A streamed HTTP response body as a binary file, for pyoxigraph's parsers."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.iter_bytes()
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = chunk
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class _Triples(list):
    """Triples of a CONSTRUCT / DESCRIBE answer, iterable like pyoxigraph's QueryTriples."""

    def serialize(self, output=None, format=RdfFormat.N_TRIPLES):  # noqa: A002 (pyoxigraph's keyword)
        return serialize(self, output, format)


class RemoteDeadlineView(StoreView):
    """A GraphStore view for one request: every query of it shares one deadline, enforced by the client timeout
    (the connection closes) and the server's own timeout parameter when configured."""

    def __init__(self, store: RemoteStore, timeout: float, source: str) -> None:
        super().__init__(store)
        self._remote, self._timeout, self._source = store, timeout, source
        self._deadline = time.monotonic() + timeout

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        from attest import metrics

        left = self._deadline - time.monotonic()
        if left <= 0:
            metrics.query_timeouts.labels(self._source).inc()
            raise QueryTimeout(f"request stopped at its query deadline of {self._timeout:g} s", timeout=self._timeout)
        try:
            result = self._remote.query(query, default_graph=default_graph, named_graphs=named_graphs,
                                        union_default_graph=union_default_graph, substitutions=substitutions,
                                        timeout=left)
        except QueryTimeout:
            metrics.queries.labels(self._source, "timeout").inc()
            raise
        metrics.queries.labels(self._source, "ok").inc()
        return result


__all__ = ["RemoteStore", "RemoteDeadlineView", "parse_results"]
