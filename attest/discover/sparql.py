"""The discovery queries (queries/*.rq) run over the data graphs only, with predicate IRIs passed as safe VALUES rows."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, cast

from pyoxigraph import NamedNode, QuerySolutions

from attest.answer.queries import with_values
from attest.ingest import summary
from attest.store import GraphStore
from attest.vocab import Iris

QUERIES_DIR = Path(__file__).resolve().parent / "queries"


@cache
def query_text(name: str) -> str:
    return (QUERIES_DIR / f"{name}.rq").read_text(encoding="utf-8")


def data_graphs(store: GraphStore, iris: Iris) -> list[str]:
    """The graphs that hold data ('' is the default graph): not the ontology, derivations or status graphs; while
    the fact summary is current it stands for the document graphs it includes (one copy of each fact)."""
    graphs = [g for g in store.graphs() if not iris.is_system_graph(g) and not g.startswith(iris.staging_graph_prefix)]
    included = summary.included_graphs(store, iris)
    if included is not None:
        graphs = [g for g in graphs if g not in set(included)]
    else:
        graphs = [g for g in graphs if g != iris.facts_graph]
    return ["", *graphs]


class DataQueries:
    """Runs the named discovery queries over a fixed list of graphs, read as one default graph."""

    def __init__(self, store: GraphStore, graphs: list[str]) -> None:
        self.store, self.graphs = store, graphs
        self.count = 0  # queries run, for the report

    def rows(self, name: str, predicate: str | None = None) -> list[dict[str, Any]]:
        """Each row's values by variable: the term's text, or None where the query leaves it unbound."""
        text = query_text(name)
        if predicate is not None:
            text = with_values(text, p=[(NamedNode(predicate),)])
        self.count += 1
        solutions = cast(QuerySolutions, self.store.query(text, default_graph=self.graphs))  # a SELECT
        names = [v.value for v in solutions.variables]
        return [{n: (row[n].value if row[n] is not None else None) for n in names} for row in solutions]
