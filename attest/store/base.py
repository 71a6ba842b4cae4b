"""The store interface every caller uses; the embedded Oxigraph store and a remote SPARQL store implement it."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Callable, ContextManager, Iterable, Mapping, Protocol, Union

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat

Term = Union[NamedNode, BlankNode, Literal]
QueryResult = Union[QuerySolutions, QueryBoolean, QueryTriples]
Progress = Callable[[int], None]  # called with the number of bytes (or quads) done since the last call


class GraphStore(Protocol):
    """An RDF dataset with named graphs, SPARQL 1.1 query and update, and atomic graph writes."""

    def query(
        self,
        query: str,
        *,
        default_graph: list[str] | None = None,
        named_graphs: list[str] | None = None,
        union_default_graph: bool = True,
        substitutions: Mapping[str, Term] | None = None,
    ) -> QueryResult:
        """Run a SPARQL query; `substitutions` binds variables to terms (never spliced into text)."""

    def update(self, update: str) -> None:
        """Run a SPARQL update atomically (text from trusted constants or a client's own update)."""

    def graphs(self) -> list[str]:
        """IRIs of the named graphs that hold at least one quad."""

    def has_graph(self, graph: str) -> bool: ...

    def graph_sizes(self) -> dict[str, int]:
        """Quad count per named graph ('' for the default graph)."""

    def add(self, quads: Iterable[Quad]) -> int:
        """Add quads in one transaction; returns how many were given."""

    def replace_graph(self, graph: str, quads: Iterable[Quad]) -> int:
        """Make `graph` hold exactly `quads` (given in any graph, written into `graph`), atomically."""

    def drop_graph(self, graph: str) -> bool:
        """Remove a named graph; False when it did not exist."""

    def load(self, data: bytes | str | IO[bytes], fmt: RdfFormat, *, graph: str | None = None,
             base_iri: str | None = None, source: str | None = None) -> int:
        """Parse then write in one transaction: a syntax error writes nothing."""

    def bulk_load_file(self, path: Path, *, graph: str | None = None, base_iri: str | None = None,
                       progress: Progress | None = None) -> int:
        """Load a large file: validated in a first pass, then written with the bulk loader."""

    def bulk_add(self, quads: Iterable[Quad]) -> int:
        """Add quads at bulk-load speed without a transaction; only inside bulk_write_guard for their graphs."""

    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> ContextManager[None]:
        """Around non-transactional bulk writes: after a crash inside it, those graphs come back empty.

        `finish` (a SPARQL update) runs atomically with the guard's release."""

    def quads(self, graph: str | None = None) -> Iterable[Quad]: ...

    def dump(self, output: IO[bytes], fmt: RdfFormat, *, graph: str | None = None) -> None: ...

    def backup(self, target: Path) -> None: ...

    def compact(self) -> None:
        """Rewrite the store's files compactly after a bulk write (a server store compacts its own: nothing)."""

    def close(self) -> None: ...
