"""Query results narrowed to the kind their query form gives (pyoxigraph's `query` returns a union of three)."""

from __future__ import annotations

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, QueryBoolean, QuerySolution, QuerySolutions, Triple

from attest.errors import StoreError
from attest.store.base import QueryResult


def solutions(result: QueryResult) -> QuerySolutions:
    """The solutions of a SELECT query; StoreError when the result is of another kind (a bug in the query text)."""
    if not isinstance(result, QuerySolutions):
        raise StoreError(f"a SELECT query gave {type(result).__name__}, not solutions")
    return result


def boolean(result: QueryResult) -> bool:
    """The answer of an ASK query; StoreError when the result is of another kind."""
    if not isinstance(result, QueryBoolean):
        raise StoreError(f"an ASK query gave {type(result).__name__}, not a boolean")
    return bool(result)


def lexical(term: object) -> str:
    """The IRI, blank node id or lexical form of a term a solution binds; StoreError when unbound or a triple."""
    if isinstance(term, (NamedNode, BlankNode, Literal)):
        return term.value
    raise StoreError(f"expected an IRI, blank node or literal in a query's answer, not {type(term).__name__}")


def row_quad(row: QuerySolution, graph: NamedNode | BlankNode | DefaultGraph | None = None) -> Quad:
    """The quad a solution of `?s ?p ?o` binds, in `graph`, else in its `?g` (unbound: the default graph)."""
    s, p, o = row["s"], row["p"], row["o"]
    if graph is None:
        g = row["g"]
        graph = DefaultGraph() if g is None else g
    if (not isinstance(s, (NamedNode, BlankNode, Triple)) or not isinstance(p, NamedNode) or o is None
            or not isinstance(graph, (NamedNode, BlankNode, DefaultGraph))):
        raise StoreError("a solution of a quad pattern does not bind a quad")
    return Quad(s, p, o, graph)
