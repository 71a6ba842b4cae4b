"""Narrowing of a store query's result (solutions, boolean or triples) to the kind the query's form gives."""

from __future__ import annotations

from pyoxigraph import QuerySolutions

from attest.store import QueryResult


def solutions(result: QueryResult) -> QuerySolutions:
    """The rows of a SELECT query's result; TypeError for an ASK or CONSTRUCT result (a bug in the caller's query)."""
    if not isinstance(result, QuerySolutions):
        raise TypeError(f"a SELECT query was expected to give solutions, not {type(result).__name__}")
    return result
