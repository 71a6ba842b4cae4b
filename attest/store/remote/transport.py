"""Talking to a SPARQL 1.1 server: one HTTP client, query and update requests, the server's refusals as errors."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn
from urllib.parse import urlencode

import httpx
from pyoxigraph import Store

from attest.errors import BadRequest, NotFound, QueryTimeout, SparqlSyntaxError, StoreError, StoreUnavailable
from attest.settings import Settings
from attest.sparql.lexer import has_dataset_clause, top_level_words, without_dataset_clause
from attest.sparql.outbound import fetches, without_remote_body
from attest.store import triple_terms
from attest.store.rdfio import graph_node
from attest.store.remote.answers import RDF_MEDIA, RESULT_MEDIA
from attest.store.remote.updates import NO_GRAPH

logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per store request would drown the access log

# what a query asks the server for: results and graphs in formats pyoxigraph parses, line per row where possible
QUERY_ACCEPT = ("text/tab-separated-values, application/sparql-results+json;q=0.9, "
                "application/n-triples, text/turtle;q=0.5")


def accept_for(query: str, accept: str) -> str:
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
def parser_message(text: str, kind: str) -> Iterator[None]:
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


class SparqlClient:
    """The HTTP side of a remote store: its URLs, credentials and timeouts, and the requests it sends."""

    def __init__(self, settings: Settings) -> None:
        self.query_url = settings.store_query_url or ""
        self.update_url = settings.store_update_url or ""  # none for a read-only store: it sends no update
        self.gsp_url = settings.store_gsp_url
        self.timeout_s = settings.store_timeout_s
        self.timeout_param = settings.store_timeout_param
        self.timeout_param_ms = settings.store_timeout_param_unit == "ms"
        self.union_param = settings.store_union_param
        self.accept = settings.store_accept or QUERY_ACCEPT
        self.query_form = settings.store_query_form
        # a server whose default graph is the union of its named graphs (no union parameter) has no default graph
        # of its own to list, count or dump
        self.own_default_graph = bool(self.union_param)
        self.encoded = settings.store_triple_terms == "encoded"  # see attest/store/triple_terms.py
        auth: httpx.Auth | None = None
        headers = {"User-Agent": "attest"}
        if settings.store_token is not None:
            headers["Authorization"] = f"Bearer {settings.store_token.get_secret_value()}"
        elif settings.store_user:
            password = settings.store_password.get_secret_value() if settings.store_password else ""
            auth = httpx.BasicAuth(settings.store_user, password)
        self.client = httpx.Client(auth=auth, headers=headers, timeout=httpx.Timeout(
            self.timeout_s, connect=settings.store_connect_timeout_s))

    def send(self, method: str, url: str, *, timeout: float | None = None, stream: bool = False,
             kind: str = "request", **kwargs: Any) -> httpx.Response:
        """One request; the server's refusals become 4xx (bad input) or 502 (server fault), never tracebacks."""
        limit = self.timeout_s if timeout is None else timeout
        try:
            request = self.client.build_request(method, url, timeout=httpx.Timeout(
                limit, connect=min(limit, self.client.timeout.connect or limit)), **kwargs)
            response = self.client.send(request, stream=stream)
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
            refused(response.status_code, body, url, kind)
        return response

    def query_params(self, *, default_graph: list[str] | None, named_graphs: list[str] | None,
                     union_default_graph: bool, timeout: float | None) -> list[tuple[str, str]]:
        params: list[tuple[str, str]] = []
        for g in default_graph or ():
            params.append(("default-graph-uri", str(graph_node(g).value)))
        for g in named_graphs or ():
            params.append(("named-graph-uri", str(graph_node(g).value)))
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
        params = self.query_params(default_graph=default_graph, named_graphs=named_graphs,
                                   union_default_graph=union_default_graph, timeout=timeout)
        accept = accept_for(query, accept or self.accept)
        with parser_message(original, "query"):
            if self.query_form:
                body = urlencode([("query", query), *params]).encode()
                return self.send("POST", self.query_url, timeout=timeout, stream=True, kind="query", content=body,
                                 headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": accept})
            return self.send("POST", self.query_url, timeout=timeout, stream=True, kind="query", params=params,
                             content=query.encode(), headers={"Content-Type": "application/sparql-query",
                                                              "Accept": accept})

    def post_update(self, request: str, *, original: str, timeout: float | None = None) -> None:
        """One update request (`original`: the text as the caller wrote it, for the parser's message)."""
        with parser_message(original, "update"):
            self.send("POST", self.update_url, timeout=timeout, kind="update", content=request.encode(),
                      headers={"Content-Type": "application/sparql-update"})

    def ping(self) -> None:
        """Raise StoreError naming the URL when the server does not answer a trivial query."""
        response = self.post_query("ASK {}", union_default_graph=False)
        response.read()
        response.close()

    def close(self) -> None:
        self.client.close()


def refused(status: int, body: str, url: str, kind: str) -> NoReturn:
    """The error a server's refusal means (kind: query, update or request; a server may answer queries and
    updates at one URL, as Virtuoso does)."""
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
