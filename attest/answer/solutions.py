"""The solution rows of a SELECT: GraphStore.query answers any query form, and a SELECT's answer is QuerySolutions."""

from __future__ import annotations

from pyoxigraph import QuerySolutions

from attest.store.base import QueryResult


def solutions(result: QueryResult) -> QuerySolutions:
    """`result` as the QuerySolutions a SELECT returns; TypeError for a boolean (ASK) or triples (CONSTRUCT) answer,
    which no row-reading caller can use."""
    if not isinstance(result, QuerySolutions):
        raise TypeError(f"a SELECT query's solutions were expected, not {type(result).__name__}")
    return result
