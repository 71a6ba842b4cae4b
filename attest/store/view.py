"""StoreView: a GraphStore that hands every call to another one; request views override `query` only (DeadlineView:
one deadline over all of a request's queries)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, ContextManager, Iterable, Mapping

from pyoxigraph import Quad, RdfFormat

from attest import metrics
from attest.errors import QueryTimeout
from attest.store.base import GraphStore, Heartbeat, Progress, QueryResult, Term
from attest.store.clean_close import CloseRecord
from attest.store.native import NativeStore
from attest.vocab import Iris


class StoreView:
    """Every GraphStore method and attribute, delegated explicitly to `store` (a view for one request changes how
    its queries run, e.g. under a deadline, and nothing else)."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    @property
    def store(self) -> GraphStore:
        """The store this view reads and writes."""
        return self._store

    @property
    def iris(self) -> Iris:
        return self._store.iris

    @property
    def path(self) -> Path | None:
        return self._store.path

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    @property
    def raw(self) -> NativeStore | None:
        return self._store.raw

    @property
    def close_record(self) -> CloseRecord | None:
        return self._store.close_record

    @property
    def generation(self) -> int:
        return self._store.generation

    @property
    def facts_generation(self) -> int:
        return self._store.facts_generation

    @property
    def schema_generation(self) -> int | None:
        return self._store.schema_generation

    @property
    def journals_changes(self) -> bool:
        return self._store.journals_changes

    def writing_facts_about(self, iris: frozenset[str], support: frozenset[str] = frozenset()) -> ContextManager[None]:
        return self._store.writing_facts_about(iris, support)

    def facts_changed_about(self, since: int, until: int) -> set[str] | None:
        return self._store.facts_changed_about(since, until)

    def support_changed_about(self, since: int, until: int) -> set[str] | None:
        return self._store.support_changed_about(since, until)

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        return self._store.query(query, default_graph=default_graph, named_graphs=named_graphs,
                                 union_default_graph=union_default_graph, substitutions=substitutions)

    def update(self, update: str) -> None:
        self._store.update(update)

    def deadline_view(self, timeout: float, source: str) -> GraphStore | None:
        return self._store.deadline_view(timeout, source)

    def ping(self) -> None:
        self._store.ping()

    def drop_stale_loads(self) -> int:
        return self._store.drop_stale_loads()

    def graphs(self) -> list[str]:
        return self._store.graphs()

    def has_graph(self, graph: str) -> bool:
        return self._store.has_graph(graph)

    def graph_sizes(self) -> dict[str, int]:
        return self._store.graph_sizes()

    def add(self, quads: Iterable[Quad]) -> int:
        return self._store.add(quads)

    def replace_graph(self, graph: str, quads: Iterable[Quad]) -> int:
        return self._store.replace_graph(graph, quads)

    def drop_graph(self, graph: str) -> bool:
        return self._store.drop_graph(graph)

    def load(self, data: bytes | str | IO[bytes], fmt: RdfFormat, *, graph: str | None = None,
             base_iri: str | None = None, source: str | None = None) -> int:
        return self._store.load(data, fmt, graph=graph, base_iri=base_iri, source=source)

    def bulk_load_file(self, path: Path, *, graph: str | None = None, base_iri: str | None = None,
                       progress: Progress | None = None) -> int:
        return self._store.bulk_load_file(path, graph=graph, base_iri=base_iri, progress=progress)

    def bulk_add(self, quads: Iterable[Quad]) -> int:
        return self._store.bulk_add(quads)

    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> ContextManager[Heartbeat]:
        return self._store.bulk_write_guard(graphs, finish=finish)

    def quads(self, graph: str | None = None) -> Iterable[Quad]:
        return self._store.quads(graph)

    def dump(self, output: IO[bytes], fmt: RdfFormat, *, graph: str | None = None) -> None:
        self._store.dump(output, fmt, graph=graph)

    def backup(self, target: Path) -> None:
        self._store.backup(target)

    def compact(self) -> None:
        self._store.compact()

    def close(self) -> None:
        self._store.close()


class DeadlineView(StoreView):
    """A view for one request whose queries share one deadline: each asks `left()` for the time that remains."""

    def __init__(self, store: GraphStore, timeout: float, source: str) -> None:
        super().__init__(store)
        self._timeout, self._source = timeout, source
        self._deadline = time.monotonic() + timeout

    def left(self) -> float:
        """Seconds left before the deadline; QueryTimeout (counted in the metrics) once it has passed."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            metrics.query_timeouts.labels(self._source).inc()
            raise QueryTimeout(f"request stopped at its query deadline of {self._timeout:g} s", timeout=self._timeout)
        return left
