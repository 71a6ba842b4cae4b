"""Named queries (queries/*.rq): the app's loaded set, and one run with its parameters bound as typed terms."""

from __future__ import annotations


from typing import Any, cast

from pyoxigraph import QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat, serialize

from attest.answer.lookup import GraphLookup
from attest.errors import BadRequest
from attest.named_queries import NamedQueries, NamedQuery
from attest.operations.resources import AppResources
from attest.operations.sparql import TRUNCATED_HEADER
from attest.sparql.deadline import deadline_store
from attest.sparql.formats import Format, ResultKind, negotiate
from attest.store import GraphStore, QueryResult
from attest.store.results import solutions
from attest.vocab import Iris
from attest.sparql.lexer import with_page, without_lateral

KINDS: dict[str, ResultKind] = {"SELECT": "solutions", "ASK": "boolean", "CONSTRUCT": "graph", "DESCRIBE": "graph"}
DEFAULT_PAGE = 100
MAX_PAGE = 10_000


def named_queries_of(resources: AppResources) -> NamedQueries:
    """One NamedQueries per app (it caches parsed files by modification time)."""
    queries = resources.named_queries
    settings = resources.settings
    if queries is None or queries.directory != settings.queries_dir \
            or queries.federation_allowlist != tuple(settings.federation_allowlist):
        queries = resources.named_queries = NamedQueries(settings.queries_dir, settings.federation_allowlist)
    return queries


def run_named(resources: AppResources, query: NamedQuery, given: dict[str, list[str]],
              accept: str | None) -> tuple[bytes, Format, dict[str, str]]:
    """Run a named query with its parameters (and `limit` / `offset`) given as text: the serialized result, its
    format and the paging headers (X-Attest-Next-Offset, X-Attest-Limit-Capped, X-Attest-Truncated)."""
    settings, store, iris = resources.settings, resources.store, resources.iris
    given = dict(given)
    limit, offset, capped = _page(given, query)
    substitutions = query.bind(given, iris)
    fmt = negotiate(accept, KINDS[query.form])
    source = without_lateral(query.text) if settings.store_triple_terms == "encoded" else query.text
    text, room = with_page(source, limit, offset, probe=True) if query.form == "SELECT" else (source, None)
    dataset = _dataset(store, iris, query)
    headers = {"X-Attest-Limit-Capped": str(MAX_PAGE)} if capped else {}
    # the endpoint's executor interface takes no substitutions, so named queries call the deadline executor
    # (attest/sparql/deadline.py) directly; stores it cannot snapshot (in memory, remote) are queried in-process
    executor = resources.query_executor
    if executor is None:
        bounded = deadline_store(resources, "named_query")  # a remote store: under the deadline
        def run(text: str) -> QueryResult:
            return bounded.query(text, union_default_graph=settings.default_graph_as_union, substitutions=substitutions,
                                 **dataset)
        if room is not None:  # the page's rows plus one tell whether more follow; then the page itself
            if len(list(solutions(run(text)))) > room:
                headers["X-Attest-Next-Offset"] = str(offset + room)
            text = with_page(source, limit, offset)[0]
        return _serialize(run(text), fmt), fmt, headers
    graph = KINDS[query.form] == "graph"
    outcome = executor.execute(text, substitutions=substitutions, source="named_query", max_rows=room, **dataset,
                               solutions_format=None if graph else fmt.native,
                               triples_format=fmt.native if graph else None)
    payload = _serialize(outcome.to_result(), fmt) if outcome.kind == "boolean" else outcome.payload
    if room is not None and outcome.truncated == "rows":  # the extra row was there and was cut: more follow
        headers["X-Attest-Next-Offset"] = str(offset + room)
    elif outcome.truncated:
        headers[TRUNCATED_HEADER] = outcome.truncated
    return payload, fmt, headers


def _dataset(store: GraphStore, iris: Iris, query: NamedQuery) -> dict[str, Any]:
    """The graphs a query reads: every graph, or (`@dataset facts`) the fact summary instead of the document graphs,
    or (`@dataset inferred`) the reasoner's graphs (inferred, derivations) as the only named graphs, and as the
    default graph the facts dataset plus the derivations graph: a `GRAPH ?g` of the entity's facts then looks in two
    graphs instead of reading its facts in every document graph to keep the inferred ones, and a label is read once
    from the summary instead of once per document graph that states it (Berlin, labelled in 49,845 document graphs
    of 50,000 generated documents: 210 ms of a 213 ms query). That query must give the same rows over every graph,
    which a remote store reads (the protocol names a union default graph only by listing every graph)."""
    if query.dataset == "inferred":
        if store.raw is None:
            return {}
        return {"default_graph": [*_facts_graphs(store, iris), iris.derivations_graph],
                "named_graphs": [iris.inferred_graph, iris.derivations_graph]}
    if query.dataset != "facts":
        return {}
    graphs = _facts_graphs(store, iris)
    return {"default_graph": graphs, "named_graphs": [g for g in graphs if g]}


def _facts_graphs(store: GraphStore, iris: Iris) -> list[str]:
    """The facts dataset: the summary, the inferred graph, the graphs beside the document graphs (or every graph while
    the summary is out of date), the ontology and the default graph ("")."""
    return [*GraphLookup(store, iris).dataset["named_graphs"], iris.ontology_graph, ""]


def _page(given: dict[str, list[str]], query: NamedQuery) -> tuple[int, int, bool]:
    """limit and offset taken out of the query-string parameters (they are the service's, not the query's)."""
    out = []
    for name, default in (("limit", DEFAULT_PAGE), ("offset", 0)):
        values = given.pop(name, [])
        if len(values) > 1:
            raise BadRequest(f"parameter '{name}' is given {len(values)} times; give it once", parameter=name)
        try:
            value = int(values[0]) if values else default
        except ValueError:
            raise BadRequest(f"parameter '{name}' must be an integer, got {values[0]!r}", parameter=name) from None
        if value < (1 if name == "limit" else 0):
            raise BadRequest(f"parameter '{name}' must be at least {1 if name == 'limit' else 0}", parameter=name)
        out.append(value)
    return min(out[0], MAX_PAGE), out[1], out[0] > MAX_PAGE


def _serialize(result: QueryResult, fmt: Format) -> bytes:
    """`result` in `fmt`, which negotiate() chose for the result's kind: a results format for solutions and
    booleans, an RDF format for a graph."""
    if isinstance(result, (QuerySolutions, QueryBoolean)):
        data = result.serialize(format=cast(QueryResultsFormat, fmt.native))
    else:
        data = serialize(result, format=cast(RdfFormat, fmt.native))
    return data or b""  # with no output given pyoxigraph returns the bytes
