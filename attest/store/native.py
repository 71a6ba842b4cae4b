"""The embedded store's pyoxigraph Store as engines use it natively, each write counted in its owner's generation."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import IO, Any, TypeVar

from pyoxigraph import (
    BlankNode, DefaultGraph, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat, Store, Triple,
)


T = TypeVar("T")
Subject = NamedNode | BlankNode | Triple
GraphName = NamedNode | BlankNode | DefaultGraph
Object = NamedNode | BlankNode | Literal | Triple


class NativeStore:
    """A pyoxigraph Store for the engines that need its native API (reasoner, SPARQL executor, snapshots, bulk
    jobs): reads go straight to it; each write runs inside `writing()` (the owner drops what a write makes stale,
    such as its class statistics) and, applied or failed, then calls `written` (the owner bumps its write
    generation, so query snapshots and answer caches see writes made here too)."""

    def __init__(self, store: Store, written: Callable[[], None],
                 writing: Callable[[], AbstractContextManager[None]] = nullcontext) -> None:
        self._store, self._written, self._writing = store, written, writing

    def _write(self, op: Callable[[], T]) -> T:
        try:
            with self._writing():
                return op()
        finally:
            self._written()

    # reads ---------------------------------------------------------------------------------------------------------

    def query(self, query: str, **options: Any) -> QuerySolutions | QueryBoolean | QueryTriples:
        return self._store.query(query, **options)

    def quads_for_pattern(self, subject: Subject | None, predicate: NamedNode | None, object: Object | None,  # noqa: A002
                          graph_name: GraphName | None = None) -> Iterator[Quad]:
        return self._store.quads_for_pattern(subject, predicate, object, graph_name)

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]:
        return self._store.named_graphs()

    def dump(self, output: IO[bytes] | str | os.PathLike[str] | None = None, format: RdfFormat | None = None,  # noqa: A002
             **options: Any) -> bytes | None:
        return self._store.dump(output, format, **options)

    def backup(self, target_directory: str | os.PathLike[str]) -> None:
        self._store.backup(target_directory)

    def flush(self) -> None:
        self._store.flush()

    def optimize(self) -> None:
        self._store.optimize()

    def __len__(self) -> int:
        return len(self._store)

    def __iter__(self) -> Iterator[Quad]:
        return iter(self._store)

    def __contains__(self, quad: object) -> bool:
        return quad in self._store

    # writes --------------------------------------------------------------------------------------------------------

    def update(self, update: str, **options: Any) -> None:
        self._write(lambda: self._store.update(update, **options))

    def add(self, quad: Quad) -> None:
        self._write(lambda: self._store.add(quad))

    def extend(self, quads: Iterable[Quad]) -> None:
        self._write(lambda: self._store.extend(quads))

    def bulk_extend(self, quads: Iterable[Quad]) -> None:
        self._write(lambda: self._store.bulk_extend(quads))

    def remove(self, quad: Quad) -> None:
        self._write(lambda: self._store.remove(quad))

    def add_graph(self, graph_name: GraphName) -> None:
        self._write(lambda: self._store.add_graph(graph_name))

    def remove_graph(self, graph_name: GraphName) -> None:
        self._write(lambda: self._store.remove_graph(graph_name))

    def clear_graph(self, graph_name: GraphName) -> None:
        self._write(lambda: self._store.clear_graph(graph_name))

    def clear(self) -> None:
        self._write(self._store.clear)

    def load(self, input: bytes | str | IO[bytes] | IO[str] | None = None, format: RdfFormat | None = None,  # noqa: A002
             **options: Any) -> None:
        self._write(lambda: self._store.load(input, format, **options))

    def bulk_load(self, input: bytes | str | IO[bytes] | IO[str] | None = None, format: RdfFormat | None = None,  # noqa: A002
                  **options: Any) -> None:
        self._write(lambda: self._store.bulk_load(input, format, **options))


__all__ = ["NativeStore"]
