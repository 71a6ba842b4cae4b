"""The embedded store: pyoxigraph on disk, with atomic graph writes and crash recovery of staged loads."""

from __future__ import annotations

import gc
import io
import logging
import sys
import threading
import uuid
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator, Mapping

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, RdfFormat, Store, Variable

from attest.errors import BadRequest, SparqlSyntaxError, StoreError
from attest.store import clean_close
from attest.store.base import GraphStore, Heartbeat, Progress, QueryResult, Term
from attest.store.native import NativeStore
from attest.store.results import lexical, solutions
from attest.store.parallel import file_parts, load_file_parts
from attest.store.statistics import ClassStatistics
from attest.store.rewrite import LOCK_HINT, lock_reader, lock_writer, needs_settling, settle
from attest.store.rdfio import format_for_path, graph_node, in_graph, located, open_maybe_gzip, parse_quads, quad_data
from attest.vocab import ATT, Iris

LOADING_INTO = ATT + "loadingInto"  # marker of a bulk load in progress: staging IRI -> target graph
DEFAULT_GRAPH_MARKER = ATT + "defaultGraph"
GRAPH_SIZES = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
DEFAULT_GRAPH_SIZE = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
log = logging.getLogger(__name__)
CHANGES_KEPT = 4096  # the scopes of this many writes are remembered (answers prune their memos by them)


class _ProgressReader(io.RawIOBase):
    """A binary stream that reports the bytes read through it (bulk loads give no progress of their own)."""

    def __init__(self, stream: IO[bytes], progress: Progress | None) -> None:
        self._stream, self._progress = stream, progress

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]  # typeshed's Buffer: any writable bytes
        data = self._stream.read(len(buffer))
        if self._progress and data:
            self._progress(len(data))
        buffer[:len(data)] = data
        return len(data)


def _graph_marker(graph: NamedNode | DefaultGraph) -> NamedNode:
    return NamedNode(DEFAULT_GRAPH_MARKER) if isinstance(graph, DefaultGraph) else graph


def _no_lease() -> None:
    pass


class EmbeddedStore:
    """GraphStore over a pyoxigraph Store on disk (or in memory when `path` is None)."""

    def __init__(self, path: Path | None, iris: Iris, *, read_only: bool = False) -> None:
        self.path = path
        self.iris = iris
        self.read_only = read_only
        # held while the store is open (attest/store/rewrite.py): a rewrite swaps the folder only when no one has it
        self._folder_lock = None if path is None else lock_reader(path) if read_only else lock_writer(path)
        stamp = None
        try:
            if path is not None:
                self._settle(path)
                # as a clean close left it: nothing to repair, and the content indexes follow is as it was then
                stamp = clean_close.current(path, clean_close.read(path) if read_only else clean_close.take(path))
            if read_only and path is not None and not (path / "CURRENT").exists():
                raise StoreError(f"no store at {path} yet (load or ingest something first)", path=str(path))
            if path is None:
                self._store = Store()
            elif read_only:
                self._store = Store.read_only(str(path))
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._store = Store(str(path))
        except OSError as exc:
            self._unlock()
            hint = LOCK_HINT if "lock" in str(exc).lower() else ""
            raise StoreError(f"cannot open store at {path}: {exc}{hint}", path=str(path)) from exc
        except BaseException:
            self._unlock()
            raise
        # the class counts kept in graph/statistics: dropped before every write, written again by refresh_statistics
        self._statistics = ClassStatistics(self._store, iris.statistics_graph)
        # what the close needs to know to leave a stamp (none in memory: nothing to open again)
        self.close_record = None if path is None else clean_close.CloseRecord(stamp.epoch if stamp else None)
        if not read_only:
            self._drop_stale_staging(listing=stamp is None)
        # bumped after every write completes; the query executor's snapshots compare it (attest/sparql/deadline.py)
        self.generation = 0
        # the generation of the last write that may have changed the graphs answer lookups remember (attest/answer/memo.py)
        self.facts_generation = 0
        # ... and of the last one without a declared scope (ingestion declares its writes; they change no schema)
        self.schema_generation = 0
        self._facts_scope = threading.local()
        self._bump_lock = threading.Lock()
        # (generation, IRIs whose facts it changed, IRIs of the triples whose support (stating documents) it changed),
        # None where a write did not declare them
        self._changes: deque[tuple[int, frozenset[str] | None, frozenset[str] | None]] = deque()
        self._forgotten_until = 0

    def bump_generation(self) -> None:
        about = getattr(self._facts_scope, "about", None)
        support = getattr(self._facts_scope, "support", None)
        with self._bump_lock:  # writers in several threads: each write gets its own generation
            generation = self.generation + 1
            if about is None:  # no declared scope: it may have changed classes and properties too
                self.schema_generation = generation
            self._changes.append((generation, about, support))  # before readers can see the generation it explains
            if len(self._changes) > CHANGES_KEPT:
                self._forgotten_until = self._changes.popleft()[0]
            if about is None or about:  # not declared to change no fact
                self.facts_generation = generation
            self.generation = generation

    @contextmanager
    def writing_facts_about(self, iris: frozenset[str], support: frozenset[str] = frozenset()) -> Iterator[None]:
        """Writes of this thread in this block are declared to change the facts (the fact summary, the inferred
        graph) about these IRIs only, which documents state the triples about the `support` IRIs only, and
        nothing else answers remember (no class or property declaration, no graph list); an empty set: none."""
        self._facts_scope.about, self._facts_scope.support = iris, support
        try:
            yield
        finally:
            self._facts_scope.about = self._facts_scope.support = None

    def facts_changed_about(self, since: int, until: int) -> set[str] | None:
        """The IRIs whose facts the writes after generation `since` up to `until` changed; None when unknown
        (a write without a declared scope, or one too old to be remembered)."""
        return self._changed(since, until, supported=False)

    def support_changed_about(self, since: int, until: int) -> set[str] | None:
        """The IRIs of the triples whose stating documents the writes after `since` up to `until` changed; None
        when unknown."""
        return self._changed(since, until, supported=True)

    def _changed(self, since: int, until: int, *, supported: bool) -> set[str] | None:
        if since < self._forgotten_until:
            return None
        out: set[str] = set()
        for generation, about, support in list(self._changes):
            if since < generation <= until:
                scope = support if supported else about
                if scope is None:
                    return None
                out |= scope
        return out

    journals_changes = True  # writing_facts_about's scopes are kept (CHANGES_KEPT of them)

    @property
    def raw(self) -> NativeStore:
        """The underlying pyoxigraph Store, for engines that need its native API (reasoner, bulk jobs).

        Writes through it bump `generation` like the methods here do, so query snapshots see them.
        """
        return NativeStore(self._store, self.bump_generation, self._statistics.writing)

    def deadline_view(self, timeout: float, source: str) -> GraphStore | None:
        return None  # pyoxigraph cannot stop a query in-process: the deadline executor's workers bound them

    def ping(self) -> None:
        pass  # on local disk: nothing to reach

    def drop_stale_loads(self) -> int:
        return 0  # rolled back when the store was opened (_drop_stale_staging)

    # queries -----------------------------------------------------------------

    def query(
        self,
        query: str,
        *,
        default_graph: list[str] | None = None,
        named_graphs: list[str] | None = None,
        union_default_graph: bool = True,
        substitutions: Mapping[str, Term] | None = None,
    ) -> QueryResult:
        try:
            return self._store.query(
                query,
                use_default_graph_as_union=union_default_graph and not default_graph,
                default_graph=[graph_node(g) if g else DefaultGraph() for g in default_graph] if default_graph else None,
                named_graphs=[graph_node(g) for g in named_graphs] if named_graphs else None,
                substitutions={Variable(k): v for k, v in substitutions.items()} if substitutions else None,
            )
        except SyntaxError as exc:
            raise SparqlSyntaxError(f"invalid SPARQL query: {exc}") from exc
        except RuntimeError as exc:  # e.g. a substituted variable missing from the projection
            raise BadRequest(f"query cannot run: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"query failed: {exc}") from exc

    def update(self, update: str) -> None:
        try:
            with self._statistics.writing():
                self._store.update(update)
        except SyntaxError as exc:
            raise SparqlSyntaxError(f"invalid SPARQL update: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"update failed: {exc}") from exc
        finally:
            self.bump_generation()
            self._forget_staged_gone(update)

    # graphs ------------------------------------------------------------------

    def graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, NamedNode) and self.has_graph(g.value))

    def has_graph(self, graph: str) -> bool:
        node = graph_node(graph)
        return next(iter(self._store.quads_for_pattern(None, None, None, node)), None) is not None

    def graph_sizes(self) -> dict[str, int]:
        sizes = {lexical(s["g"]): int(lexical(s["n"])) for s in solutions(self._store.query(GRAPH_SIZES))}
        default = int(lexical(next(iter(solutions(self._store.query(DEFAULT_GRAPH_SIZE))))["n"]))
        if default:
            sizes[""] = default
        return dict(sorted(sizes.items()))

    def quads(self, graph: str | None = None) -> Iterable[Quad]:
        return self._store.quads_for_pattern(None, None, None, graph_node(graph) if graph else None)

    # writes ------------------------------------------------------------------

    def add(self, quads: Iterable[Quad]) -> int:
        batch = list(quads)
        self._note_staged(batch)
        self._write(lambda: self._store.extend(batch))
        return len(batch)

    def bulk_add(self, quads: Iterable[Quad]) -> int:
        """Add quads with Oxigraph's bulk loader (no transaction): only inside bulk_write_guard for their graphs."""
        batch = list(quads)
        self._note_staged(batch)
        self._write(lambda: self._store.bulk_extend(batch))
        return len(batch)

    def replace_graph(self, graph: str, quads: Iterable[Quad]) -> int:
        """Write the new content into a staging graph, then MOVE it over `graph` in one update."""
        target = graph_node(graph)
        staging = NamedNode(self._new_staging_graph())
        batch = list(in_graph(quads, staging))
        if not batch:
            self._write(lambda: self._store.update(f"DROP SILENT GRAPH {target}"))
            return 0
        self._note_staged(batch)
        self._write(lambda: self._store.extend(batch))
        self._write(lambda: self._store.update(f"MOVE SILENT GRAPH {staging} TO GRAPH {target}"))
        if self.close_record is not None:
            self.close_record.staged.discard(staging.value)
        return len(batch)

    def drop_graph(self, graph: str) -> bool:
        node = graph_node(graph)
        if not self.has_graph(graph):
            return False
        self._write(lambda: self._store.remove_graph(node))
        return True

    def load(self, data: bytes | str | IO[bytes], fmt: RdfFormat, *, graph: str | None = None,
             base_iri: str | None = None, source: str | None = None) -> int:
        quads = list(parse_quads(data, fmt, graph=graph, base_iri=base_iri, source=source))
        return self.add(quads)

    def bulk_load_file(self, path: Path, *, graph: str | None = None, base_iri: str | None = None,
                       progress: Progress | None = None) -> int:
        """Load a file whole or not at all; returns the number of quads it added. Progress is in bytes read.

        Triples into an empty graph take Oxigraph's bulk loader under bulk_write_guard, which empties the
        graph again on a syntax error (at once) or a crash (on the next open); a large N-Triples file without
        blank nodes is cut at line ends and loaded by one loader per core (parallel.py). Anything else (a graph
        that already has data, dataset formats) is parsed and written in one transaction.
        """
        fmt = format_for_path(path)
        target = graph_node(graph) if graph else DefaultGraph()
        bulk = not fmt.supports_datasets and not self._has_quads(target)
        before = 0 if bulk else self._size(None if fmt.supports_datasets else target)
        parts = file_parts(path, fmt) if bulk else None
        with open_maybe_gzip(path) as raw_stream:
            stream = io.BufferedReader(_ProgressReader(raw_stream, progress))
            source = {"path": str(path)} if progress is None and path.suffix != ".gz" else {"input": stream}
            try:
                if parts:  # one bulk loader per core, each on its own lines of the file
                    with self.bulk_write_guard([graph or ""]):
                        self._write(lambda: load_file_parts(self._store, path, parts, fmt, to_graph=target,
                                                            progress=progress))
                elif bulk:
                    with self.bulk_write_guard([graph or ""]):
                        self._write(lambda: self._store.bulk_load(format=fmt, base_iri=base_iri, to_graph=target, **source))
                else:
                    self._write(lambda: self._store.load(stream, fmt, base_iri=base_iri,
                                                         to_graph=None if fmt.supports_datasets else target))
            except SyntaxError as exc:
                raise located(exc, str(path)) from exc
        return self._size(None if fmt.supports_datasets else target) - before

    @contextmanager
    def bulk_write_guard(self, graphs: list[str], *, finish: str | None = None) -> Iterator[Heartbeat]:
        """Make non-transactional writes (bulk loads) into `graphs` all-or-nothing, even across crashes.

        A durable marker names the graphs while the block runs. An exception inside the block empties
        them at once; a crash leaves the marker behind, and the next open empties them ('' is the default
        graph). Callers guard only graphs they are about to fill from scratch. `finish`, a SPARQL update,
        runs in the same transaction that drops the markers (e.g. merging a guarded staging graph into a
        shared one), so it happens exactly when the guarded writes become permanent.
        """
        staging = NamedNode(self.iris.staging_graph_prefix + "loads")
        markers = [Quad(NamedNode(self._new_staging_graph()), NamedNode(LOADING_INTO),
                        _graph_marker(graph_node(g) if g else DefaultGraph()), staging) for g in graphs]
        self._write(lambda: self._store.extend(markers))
        drop_markers = quad_data("DELETE DATA", markers)
        try:
            yield _no_lease  # the markers stay until the block ends or the next open: no lease to renew
            self._store.flush()  # the bulk data is durable before the markers go
            self._write(lambda: self._store.update(f"{finish} ;\n{drop_markers}" if finish else drop_markers))
        except BaseException:
            self._roll_back(markers)
            raise

    # maintenance --------------------------------------------------------------

    def dump(self, output: IO[bytes], fmt: RdfFormat, *, graph: str | None = None) -> None:
        if graph is not None:
            self._store.dump(output, fmt, from_graph=graph_node(graph) if graph else DefaultGraph())
        else:
            self._store.dump(output, fmt)

    def backup(self, target: Path) -> None:
        if target.exists():
            raise StoreError(f"backup target {target} already exists", path=str(target))
        self._store.flush()
        self._store.backup(str(target))

    def refresh_statistics(self) -> bool:
        """Write the class statistics (graph/statistics) if they are missing and no write is in flight; whether
        they are there afterwards. Their write leaves the generation as it is (attest/store/statistics.py)."""
        if self.read_only:
            return self._statistics.present
        return self._statistics.refresh()

    def compact(self) -> None:
        if self.path is not None and not self.read_only:
            self.refresh_statistics()
            self._store.flush()  # the memtables to files, so that the write-ahead log can go
            self._store.optimize()  # a full RocksDB compaction: a bulk ingest leaves its writes in level-0 files

    def close(self) -> None:
        """Close the store; a store opened for writing leaves a clean-close stamp beside it (clean_close) when its
        open finished what it started and this close really closed it, so that the next open skips its scans."""
        try:
            epoch = None
            if self.path is not None and not self.read_only:
                self._store.flush()
                epoch = self._closing_epoch()
            generation = self.generation
            del self._statistics  # it holds the pyoxigraph Store too: the store closes when the last one goes
            closed = self._release()
            if epoch is not None and closed and self.generation == generation and self.close_record is not None \
                    and self.path is not None:  # nothing wrote between the checks and the files' digest
                self.close_record.stamp(self.path, epoch)
        finally:
            self._unlock()

    # internals ------------------------------------------------------------------

    def _settle(self, path: Path) -> None:
        """Finish or roll back a rewrite of the store's folder that a crash cut off (attest/store/rewrite.py)."""
        if not needs_settling(path):
            return
        if self.read_only:  # settling moves folders: only under the writers' lock, taken for that moment
            with lock_writer(path):
                done = settle(path)
        else:
            done = settle(path)
        if done:
            log.warning("store at %s: %s", path, done)

    def _unlock(self) -> None:
        if self._folder_lock is not None:
            self._folder_lock.close()
            self._folder_lock = None

    def _write(self, op: Callable[[], object]) -> None:
        try:
            with self._statistics.writing():
                op()
        except OSError as exc:
            raise StoreError(f"write failed, nothing was changed: {exc}") from exc
        finally:
            self.bump_generation()

    def _new_staging_graph(self) -> str:
        return f"{self.iris.staging_graph_prefix}{uuid.uuid4().hex}"

    def _size(self, graph: NamedNode | DefaultGraph | None) -> int:
        """Quads in one graph, or in the whole store when `graph` is None."""
        if graph is None:
            return len(self._store)
        if isinstance(graph, DefaultGraph):
            rows = solutions(self._store.query(DEFAULT_GRAPH_SIZE))
        else:
            rows = solutions(self._store.query(GRAPH_SIZES, substitutions={Variable("g"): graph}))
        return next((int(lexical(row["n"])) for row in rows), 0)

    def _has_quads(self, graph: NamedNode | DefaultGraph) -> bool:
        return next(iter(self._store.quads_for_pattern(None, None, None, graph)), None) is not None

    def _roll_back(self, markers: list[Quad]) -> None:
        """Empty the graphs that unfinished bulk writes name, then drop their markers."""
        with self._statistics.writing():
            self._remove_loads(markers)

    def _remove_loads(self, markers: list[Quad]) -> None:
        for marker in markers:
            target = marker.object  # a graph's IRI, or DEFAULT_GRAPH_MARKER (_graph_marker)
            if isinstance(target, NamedNode) and target.value == DEFAULT_GRAPH_MARKER:
                self._store.clear_graph(DefaultGraph())
            elif isinstance(target, (NamedNode, BlankNode)):
                self._store.remove_graph(target)
            self._store.remove(marker)

    def _drop_stale_staging(self, *, listing: bool) -> None:
        """A staged write or bulk load that a crash interrupted is discarded: it never completed. Bulk loads are found
        by their markers; staging graphs by listing every named graph, unless the store is as a clean close left
        it, which it does only when none is left (`_closing_epoch`)."""
        prefix = self.iris.staging_graph_prefix
        markers = list(self._store.quads_for_pattern(None, NamedNode(LOADING_INTO), None, None))
        stale = [g for g in self._store.named_graphs() if isinstance(g, NamedNode) and g.value.startswith(prefix)] \
            if listing else []
        if not stale and not markers:
            return
        with self._statistics.writing():
            self._remove_loads(markers)
            for g in stale:
                self._store.remove_graph(g)

    def _note_staged(self, batch: list[Quad]) -> None:
        """Remember the staging graphs a write puts quads into (a close checks that they are gone)."""
        if self.close_record is None:
            return
        prefix = self.iris.staging_graph_prefix
        for g in {q.graph_name for q in batch}:
            if isinstance(g, NamedNode) and g.value.startswith(prefix):
                self.close_record.staged.add(g.value)

    def _forget_staged_gone(self, update: str) -> None:
        """Forget the staging graphs an update named (moved or dropped) that are gone after it."""
        staged = self.close_record.staged if self.close_record is not None else set()
        for g in [g for g in list(staged) if g in update]:
            if not self._store.contains_named_graph(NamedNode(g)):
                staged.discard(g)

    def _closing_epoch(self) -> str | None:
        """The epoch the clean-close stamp will carry; None when none may be left, as when a staging graph or a
        bulk-load marker is still there (the next open must list the graphs and roll back)."""
        record = self.close_record
        if record is None:
            return None
        left = any(self._store.contains_named_graph(NamedNode(g)) for g in list(record.staged)) or \
            next(iter(self._store.quads_for_pattern(None, NamedNode(LOADING_INTO), None, None)), None) is not None
        return record.closing_epoch(staging_left=left)

    def _release(self) -> bool:
        """Drop this object's pyoxigraph Store; whether that closed it (no other reference kept it open, so that its
        folder's files are final)."""
        if sys.getrefcount(self._store) > 2:  # the attribute and the argument: others remain, maybe only in cycles
            gc.collect()
        closed = sys.getrefcount(self._store) <= 2
        del self._store
        return closed
