"""The store interface every caller uses; the embedded Oxigraph store and a remote SPARQL store implement it."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable, ContextManager, Iterable, Mapping, Protocol, Union

from pyoxigraph import (
    BlankNode, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat, Triple, serialize,
)

if TYPE_CHECKING:
    from attest.store.clean_close import CloseRecord
    from attest.store.native import NativeStore
    from attest.vocab import Iris



class TripleList(list[Triple]):
    """The triples of a CONSTRUCT / DESCRIBE answer that pyoxigraph did not evaluate (a server's answer, a query
    worker's): iterable and serializable like pyoxigraph's QueryTriples, which only its own queries make."""

    def serialize(self, output: IO[bytes] | None = None, format: RdfFormat = RdfFormat.N_TRIPLES) -> bytes | None:  # noqa: A002 (pyoxigraph's keyword)
        return serialize(self, output, format)


Term = Union[NamedNode, BlankNode, Literal]
QueryResult = Union[QuerySolutions, QueryBoolean, QueryTriples, TripleList]
Progress = Callable[[int], None]  # called with the number of bytes (or quads) done since the last call
Heartbeat = Callable[[], None]  # called now and then inside a bulk write guard: a server store renews its lease


class GraphStore(Protocol):
    """An RDF dataset with named graphs, SPARQL 1.1 query and update, and atomic graph writes.

    What only some stores can do is told here too, never found out with hasattr: `raw` is None where there is no
    native pyoxigraph Store (a server store), `path` None where nothing is on local disk, `journals_changes`
    False where writes' declared scopes are not kept, `deadline_view` None where the store cannot bound its own
    queries (the embedded store: the deadline executor's workers do)."""

    # what the store is ---------------------------------------------------------------------------------------------

    @property
    def iris(self) -> Iris: ...

    @property
    def path(self) -> Path | None:
        """The store's directory on local disk; None in memory or on a server (no snapshots, no local index)."""

    @property
    def read_only(self) -> bool: ...

    @property
    def raw(self) -> NativeStore | None:
        """The native pyoxigraph Store, for engines that need its API (reasoner, bulk jobs); None on a server.
        Writes through it count in `generation` like the methods here."""

    # what changed ------------------------------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """A count of the writes this process has seen (query snapshots and answer caches compare it)."""

    @property
    def facts_generation(self) -> int:
        """The generation of the last write that may have changed facts answers remember."""

    @property
    def schema_generation(self) -> int | None:
        """The generation of the last write that may have declared classes or properties; None: not counted."""

    @property
    def journals_changes(self) -> bool:
        """Whether the scopes writes declare (writing_facts_about) are kept, so facts_changed_about can answer."""

    @property
    def close_record(self) -> CloseRecord | None:
        """What this open did that a clean close records beside the store for the next open (the embedded store on
        disk; None elsewhere): writes report to it through `note_write` (clean_close.py)."""

    def writing_facts_about(self, iris: frozenset[str], support: frozenset[str] = frozenset()) -> ContextManager[None]:
        """Declare that this thread's writes in the block change the facts about `iris` (and the stating documents
        of triples about `support`) only; a store that keeps no journal ignores it."""

    def facts_changed_about(self, since: int, until: int) -> set[str] | None:
        """IRIs whose facts the writes after generation `since` up to `until` changed; None when unknown."""

    def support_changed_about(self, since: int, until: int) -> set[str] | None:
        """IRIs of the triples whose stating documents those writes changed; None when unknown."""

    # queries and updates -----------------------------------------------------------------------------------------------

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

    def deadline_view(self, timeout: float, source: str) -> GraphStore | None:
        """A view whose queries share one deadline of `timeout` s that the store itself enforces (a server's
        timeout); None when it cannot (the caller bounds the queries another way)."""

    def ping(self) -> None:
        """Raise StoreUnavailable when the store does not answer (nothing to reach for an embedded store)."""

    def drop_stale_loads(self) -> int:
        """Roll back bulk loads a crashed writer left; how many (the embedded store does it when opened: 0)."""

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

    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> ContextManager[Heartbeat]:
        """Around non-transactional bulk writes: after a crash inside it, those graphs come back empty. It yields a
        heartbeat for long writes to call now and then (a server store renews the lease of its markers).

        `finish` (a SPARQL update) runs atomically with the guard's release."""

    def quads(self, graph: str | None = None) -> Iterable[Quad]: ...

    def dump(self, output: IO[bytes], fmt: RdfFormat, *, graph: str | None = None) -> None: ...

    def backup(self, target: Path) -> None: ...

    def compact(self) -> None:
        """Rewrite the store's files compactly after a bulk write (a server store compacts its own: nothing)."""

    def close(self) -> None: ...
