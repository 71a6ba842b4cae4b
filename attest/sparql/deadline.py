"""Deadline-enforcing query executor: queries run in worker processes over store snapshots, killed at the deadline.

Why processes: pyoxigraph cannot cancel a query in-process, so a runaway query's CPU work only ends when the
process running it dies. Why snapshots: `Store.read_only` on a store another process writes is undefined
behaviour in Oxigraph 0.5 (a RocksDB read-only instance does not follow the writer's flushes and compactions and
opens table files lazily), so the workers read RocksDB checkpoints (`Store.backup`: hard links, ~1 ms) that
nobody writes. A query always sees every write acknowledged before it started: the store's write generation
(bumped after each write completes) read when the query arrived is compared with the one read before the
current snapshot was taken, and a new snapshot is taken when the snapshot is older. Queries that wait while a
snapshot is taken share the next one, so a stream of writes costs a snapshot per wave of queries. (The store directory's file sizes cannot serve: RocksDB recycles WAL
files, so a write need not change any size.)
Once writes go quiet the live store is compacted (attest/sparql/compaction.py) and the next query takes a
snapshot of the compacted files: a checkpoint turns unflushed writes into level-0 files that slow every seek.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import os
import pickle
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from pyoxigraph import (
    NamedNode, QueryResultsFormat, RdfFormat, parse, parse_query_results,
)

from attest import metrics
from attest.errors import (
    BadRequest, Overloaded, PayloadTooLarge, QueryResourcesExceeded, QueryTimeout, SparqlSyntaxError, StoreError,
)
from attest.sparql.compaction import Compactor
from attest.sparql.outbound import without_remote_body
from attest.store.base import GraphStore, QueryResult, Term, TripleList
from attest.store.view import DeadlineView

if TYPE_CHECKING:
    from attest.settings import Settings

log = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).with_name("worker.py")
WORKER_START_TIMEOUT_S = 30.0
QUEUE_WAIT_S = 2.0  # longest wait for a free worker before 429
WORKER_MEMORY_BYTES = 4 * 1024**3  # address space of one worker: a runaway query fails there, not the machine
RETRY_AFTER_S = 2
# what a worker started ahead of the first query runs: it opens the snapshot and reads an index (RocksDB opens
# table files on first use)
WARM_UP_QUERY = "ASK { GRAPH ?g { ?s ?p ?o } }"
Request = dict[str, Any]  # a query as it goes down the pipe to a worker (see _request; worker.py reads it)
Reply = dict[str, Any]  # a worker's answer (worker.py)


@dataclass(frozen=True)
class QueryOutcome:
    """A finished query: `payload` is serialized in the asked format (or the wire format when none was asked)."""

    kind: str  # solutions | triples | boolean
    payload: bytes
    rows: int  # exact when cut; else at most this many (JSON / XML results are not re-parsed to count)
    truncated: str | None  # None, "rows" or "bytes"
    boolean: bool | None = None
    media_type: str | None = None

    def to_result(self) -> QueryResult:
        """The outcome as pyoxigraph objects, like GraphStore.query returns (outcome must be in the wire format)."""
        if self.kind == "boolean":
            return parse_query_results(b'{"head":{},"boolean":%s}' % (b"true" if self.boolean else b"false"),
                                       QueryResultsFormat.JSON)
        if self.kind == "solutions":
            return parse_query_results(self.payload or b"\n", QueryResultsFormat.TSV)
        return TripleList(q.triple for q in parse(self.payload, RdfFormat.N_TRIPLES))


def resolve_timeout(settings: Settings, requested: float | str | None) -> float:
    """The deadline of one query: the default, or the client's `timeout` within (0, max_query_timeout_s]."""
    if requested is None or requested == "":
        return settings.query_timeout_s
    try:
        value = float(requested)
    except (TypeError, ValueError):
        raise BadRequest(f"timeout must be a number of seconds, not {str(requested)[:40]!r}") from None
    if not 0 < value <= settings.max_query_timeout_s:
        raise BadRequest(f"timeout must be over 0 and at most {settings.max_query_timeout_s:g} seconds",
                         max_timeout=settings.max_query_timeout_s)
    return value


# snapshots -------------------------------------------------------------------------------------------------------

class Snapshots:
    """Read-only checkpoints of the live store, refreshed when the store changed, deleted when no one reads them."""

    def __init__(self, store: GraphStore, root: Path) -> None:
        self.store = store  # the live EmbeddedStore (its `raw` pyoxigraph Store and `path`)
        self.root = root
        self.lock = threading.Lock()
        self.current: Path | None = None
        self.generation: int | None = None
        self.in_use: dict[Path, int] = {}
        shutil.rmtree(root, ignore_errors=True)  # snapshots of an earlier run
        root.mkdir(parents=True)

    def acquire(self, wanted: int | None) -> Path:
        """A snapshot holding every write counted in generation `wanted` (read when the request arrived); release() it.

        Requests that arrive while a snapshot is being taken share the next one (like a group commit), so a
        stream of writes costs one snapshot per wave of queries, not one per query.
        """
        with self.lock:
            if self.current is None or wanted is None or self.generation is None or self.generation < wanted:
                current = self._refresh(self.store.generation)
            else:
                current = self.current
            self.in_use[current] = self.in_use.get(current, 0) + 1
            return current

    def try_acquire(self, wanted: int | None) -> Path | None:
        """acquire() when the current snapshot already holds `wanted` and nobody is taking one; else None."""
        if not self.lock.acquire(blocking=False):
            return None
        try:
            if self.current is None or wanted is None or self.generation is None or self.generation < wanted:
                return None
            self.in_use[self.current] = self.in_use.get(self.current, 0) + 1
            return self.current
        finally:
            self.lock.release()

    def stale(self) -> None:
        """The live store was compacted: the next query takes a fresh snapshot, which links the compacted files.

        Unless the current snapshot already links exactly the live store's table files (a compaction of a store
        that had nothing to compact, as on a start with no writes since the last one): a new snapshot would then
        only make each worker reopen its store, with cold caches (+60-140 ms on its next queries on 2Wiki).
        """
        with self.lock:
            native = self.store.path
            if self.current is not None and native is not None and table_files(self.current) == table_files(native):
                return
            self.generation = None

    def release(self, path: Path, still_open: set[Path]) -> None:
        with self.lock:
            self.in_use[path] -= 1
            if not self.in_use[path]:
                del self.in_use[path]
            self._collect(still_open)

    def _refresh(self, generation: int | None) -> Path:
        """Checkpoint the live store; labelled with the generation read before it, so a racing write refreshes again."""
        started = time.perf_counter()
        target = self.root / f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}"
        try:
            native = self.store.raw
            if native is None:
                raise OSError("the store has no native store to checkpoint")
            native.backup(str(target))
        except OSError as exc:
            raise StoreError(f"cannot snapshot the store for queries: {exc}") from exc
        self.current, self.generation = target, generation
        metrics.snapshot_refreshes.inc()
        log.debug("store snapshot %s taken in %.1f ms", target.name, (time.perf_counter() - started) * 1000)
        return target

    def _collect(self, still_open: set[Path]) -> None:
        for path in self.root.iterdir():
            if path != self.current and path not in self.in_use and path not in still_open:
                shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def table_files(store_dir: Path) -> frozenset[str]:
    """The names of a RocksDB folder's table files: a checkpoint links them under the same names, and a compaction
    or flush that changes anything writes new ones (RocksDB never reuses a file number)."""
    return frozenset(p.name for p in store_dir.glob("*.sst"))


# worker processes --------------------------------------------------------------------------------------------------

def _worker_limits() -> None:
    """In the child: SIGKILL when the server (the spawner thread) dies (Linux), and a bounded address space."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    try:
        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES))
    except (ValueError, OSError):
        pass


class WorkerProcess:
    """One worker: a child process and the two pipes to it."""

    def __init__(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER_SCRIPT), str(req_r), str(rep_w)],
                pass_fds=(req_r, rep_w), stdin=subprocess.DEVNULL, close_fds=True,
                preexec_fn=_worker_limits if sys.platform.startswith("linux") else None,
            )
        finally:
            os.close(req_r)
            os.close(rep_w)
        self.requests = Connection(req_w, readable=False)
        self.replies = Connection(rep_r, writable=False)
        self.snapshot: Path | None = None  # the snapshot its store handle has open
        if not self.replies.poll(WORKER_START_TIMEOUT_S) or self.replies.recv_bytes() != b"ready":
            self.kill()
            raise StoreError("a query worker did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self, *, wait: bool = True) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        if wait:
            self.proc.wait()
        else:  # a big heap takes a while to tear down; the client need not wait for it
            threading.Thread(target=self.proc.wait, name="query-worker-reap", daemon=True).start()
        for conn in (self.requests, self.replies):
            conn.close()
        self.snapshot = None

    def stop(self) -> None:
        """Close its pipe so it exits; kill it if it does not within a second (e.g. it is in a long query)."""
        self.requests.close()
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.replies.close()


class WorkerPool:
    """At most `size` workers, started on demand; a request waits a little for a free one, else 429."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.idle: list[WorkerProcess] = []
        self.busy: set[WorkerProcess] = set()
        self.starting = 0
        self.cond = threading.Condition()
        self.closed = False
        # workers are started from this one long-lived thread: the kernel's parent-death signal follows the
        # thread that forked, so a worker started from a short-lived request thread would die with that thread
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-worker-spawner")

    def _start(self) -> WorkerProcess:
        return self._spawner.submit(WorkerProcess).result()

    def acquire(self, wait_s: float) -> WorkerProcess:
        deadline = time.monotonic() + wait_s
        with self.cond:
            while True:
                if self.closed:
                    raise StoreError("the query executor is shut down")
                worker = self._take_idle()
                if worker is not None:
                    return worker
                if len(self.busy) + self.starting < self.size:
                    self.starting += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    metrics.query_rejections.labels("query").inc()
                    raise Overloaded(f"all {self.size} query workers are busy; retry in {RETRY_AFTER_S} s",
                                     retry_after=RETRY_AFTER_S)
                self.cond.wait(left)
        try:
            worker = self._start()
        except BaseException:
            with self.cond:
                self.starting -= 1
                self.cond.notify()
            raise
        with self.cond:
            self.starting -= 1
            self.busy.add(worker)
            metrics.query_workers.set(len(self.busy) + len(self.idle))
        return worker

    def try_acquire(self) -> WorkerProcess | None:
        """An idle live worker at once, or None (the caller then takes the blocking path)."""
        with self.cond:
            return None if self.closed else self._take_idle()

    def _take_idle(self) -> WorkerProcess | None:
        """A live idle worker, now busy, or None; dead idle workers met on the way are dropped (cond held)."""
        while self.idle:
            worker = self.idle.pop()
            if worker.alive():
                self.busy.add(worker)
                return worker
            worker.kill()
            metrics.worker_restarts.inc()
            self.cond.notify()  # its slot is free: a waiter may start a worker in it
        return None

    def release(self, worker: WorkerProcess, *, dead: bool = False) -> None:
        with self.cond:
            self.busy.discard(worker)
            if not dead and not self.closed:
                self.idle.append(worker)
            metrics.query_workers.set(len(self.busy) + len(self.idle))
            self.cond.notify()
        if self.closed and not dead:
            worker.stop()
        if dead and not self.closed:
            threading.Thread(target=self._replace, name="query-worker-start", daemon=True).start()

    def _replace(self) -> None:
        """Start a worker in place of a killed one, so the next query does not wait for a process start."""
        with self.cond:
            if self.closed or len(self.busy) + len(self.idle) + self.starting >= self.size:
                return
            self.starting += 1
        try:
            worker = self._start()
        except (StoreError, RuntimeError):
            log.warning("could not start a replacement query worker; the next query will try again")
            worker = None
        with self.cond:
            self.starting -= 1
            if worker is not None and not self.closed:
                self.idle.append(worker)
                worker = None
            metrics.query_workers.set(len(self.busy) + len(self.idle))
            self.cond.notify()
        if worker is not None:
            worker.stop()

    def open_snapshots(self) -> set[Path]:
        with self.cond:
            return {w.snapshot for w in (*self.idle, *self.busy) if w.snapshot is not None}

    def close(self) -> None:
        with self.cond:
            self.closed = True
            workers, self.idle = self.idle, []
            self.cond.notify_all()
        for worker in workers:
            worker.stop()
        self._spawner.shutdown(wait=False)
        metrics.query_workers.set(0)


# the executor --------------------------------------------------------------------------------------------------------

class DeadlineExecutor:
    """The one place user-facing queries run: under a deadline, with row and byte limits, in killable workers."""

    def __init__(self, store: GraphStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.pool = WorkerPool(settings.query_workers)
        self.snapshots = Snapshots(store, settings.data_dir / "snapshots")
        self.compactor = Compactor(store, self.snapshots.stale)

    def warm(self, workers: int) -> int:
        """Start up to `workers` query workers now, each with the store's current snapshot open, so that the first
        queries after a start pay neither a process start nor a store open (a first named query on 2Wiki's 6,119
        paragraphs took 150 ms more than the next). Returns how many are ready; a worker that fails is logged
        and left to start on demand, as before."""
        held: list[WorkerProcess] = []
        snapshot: Path | None = None
        ready = 0
        try:
            for _ in range(min(workers, self.pool.size)):
                held.append(self.pool.acquire(0))
            snapshot = self.snapshots.acquire(self.store.generation)
            request, timeout, _ = self._request(WARM_UP_QUERY, None, None)
            for worker in list(held):
                pending = True
                try:
                    self._send(worker, snapshot, dict(request))
                    if worker.replies.poll(timeout):
                        reply = pickle.loads(worker.replies.recv_bytes())
                        pending = False
                        ready += "error" not in reply
                finally:
                    if pending:  # no reply in time: never reused with one pending
                        held.remove(worker)
                        if not worker.replies.closed:
                            worker.kill(wait=False)
                        self.pool.release(worker, dead=True)
        except (StoreError, Overloaded, QueryResourcesExceeded, OSError, EOFError) as exc:
            log.warning("query workers not started ahead of the first query: %s", exc)
        finally:
            for worker in held:
                self.pool.release(worker)
            if snapshot is not None:
                self.snapshots.release(snapshot, self.pool.open_snapshots())
        return ready

    def execute(self, query: str, *, timeout: float | None = None, source: str = "sparql",
                min_generation: int | None = None, **options: Any) -> QueryOutcome:
        """Run `query` within `timeout` seconds (default settings.query_timeout_s); 503 past it, 429 when saturated.

        The query sees every write acknowledged before this call (or before `min_generation` was read).
        Options: default_graph, named_graphs, union_default_graph, substitutions, solutions_format,
        triples_format, max_rows (see _request).
        """
        request, timeout, wanted = self._request(query, timeout, min_generation, **options)
        started = time.monotonic()
        with self._counted(source, started):
            reply = self._run(request, timeout, started, source, wanted)
        return self._outcome(request, reply)

    async def execute_async(self, query: str, *, timeout: float | None = None, source: str = "sparql",
                            min_generation: int | None = None, threads: Executor | None = None,
                            **options: Any) -> QueryOutcome:
        """execute() for the event loop: with an idle worker and a current snapshot the request goes down the
        pipe and the reply is awaited on the loop (no thread hop: handing a request to a thread and back cost
        more than the query on small lookups); otherwise the blocking path runs in `threads` (an Executor; the loop's default when None)."""
        request, timeout, wanted = self._request(query, timeout, min_generation, **options)
        started = time.monotonic()
        worker = self.pool.try_acquire()
        snapshot = self.snapshots.try_acquire(wanted) if worker is not None else None
        if worker is None or snapshot is None:
            if worker is not None:
                self.pool.release(worker)
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(threads, functools.partial(
                self.execute, query, timeout=timeout, source=source, min_generation=wanted, **options))
        with self._counted(source, started):
            reply = await self._exchange_async(worker, snapshot, request, timeout, started, source)
        return self._outcome(request, reply)

    def _request(self, query: str, timeout: float | None, min_generation: int | None, *,
                 default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
                 union_default_graph: bool | None = None, substitutions: Mapping[str, Term] | None = None,
                 solutions_format: QueryResultsFormat | None = None, triples_format: RdfFormat | None = None,
                 max_rows: int | None = None) -> tuple[Request, float, int | None]:
        if min_generation is None:
            min_generation = self.store.generation
        settings = self.settings
        timeout = settings.query_timeout_s if timeout is None else timeout
        if len(query) > settings.max_query_chars:
            raise PayloadTooLarge(f"query is over the limit of {settings.max_query_chars} characters",
                                  limit=settings.max_query_chars)
        for graph in (*(g for g in default_graph or () if g), *(named_graphs or ())):  # '' is the default graph
            _check_graph_iri(graph)
        request = {
            "query": query,
            "default_graph": list(default_graph or ()),
            "named_graphs": list(named_graphs or ()),
            "union_default_graph": (settings.default_graph_as_union if union_default_graph is None
                                    else union_default_graph) and not default_graph,
            "substitutions": dict(substitutions or {}),
            "solutions_format": solutions_format.media_type if solutions_format else None,
            "triples_format": triples_format.media_type if triples_format else None,
            "max_rows": min(max_rows or settings.max_result_rows, settings.max_result_rows),
            "max_bytes": settings.max_result_bytes,
        }
        return request, timeout, min_generation

    @contextlib.contextmanager
    def _counted(self, source: str, started: float) -> Iterator[None]:
        outcome = "error"
        try:
            yield
            outcome = "ok"
        except QueryTimeout:
            outcome = "timeout"
            raise
        except Overloaded:
            outcome = "rejected"
            raise
        finally:
            metrics.queries.labels(source, outcome).inc()
            metrics.query_latency.labels(source).observe(time.monotonic() - started)

    @staticmethod
    def _outcome(request: Request, reply: Reply) -> QueryOutcome:
        if "error" in reply:
            kind, message = reply["error"], reply["message"]
            if kind == "syntax":
                raise SparqlSyntaxError(f"invalid SPARQL query: {message}")
            if kind == "bad_request":
                raise without_remote_body(message) or BadRequest(f"query cannot run: {message}")
            raise without_remote_body(message) or StoreError(f"query failed: {message}")
        if reply["truncated"]:
            metrics.query_truncations.labels(reply["truncated"]).inc()
        media_type = None
        if reply["kind"] == "solutions":
            media_type = request["solutions_format"] or QueryResultsFormat.TSV.media_type
        elif reply["kind"] == "triples":
            media_type = request["triples_format"] or RdfFormat.N_TRIPLES.media_type
        return QueryOutcome(reply["kind"], reply["payload"], reply["rows"], reply["truncated"],
                            reply.get("value"), media_type)

    def query(self, query: str, *, timeout: float | None = None, source: str = "internal",
              **options: Any) -> QueryResult:
        """Like GraphStore.query (pyoxigraph results back), but under the deadline and the result limits."""
        return self.execute(query, timeout=timeout, source=source, **options).to_result()

    def _run(self, request: Request, timeout: float, started: float, source: str, wanted: int | None) -> Reply:
        worker = self.pool.acquire(min(QUEUE_WAIT_S, timeout))
        snapshot = None
        pending = False  # a request was sent and its reply not read: the worker cannot serve another
        try:
            snapshot = self.snapshots.acquire(wanted)
            pending = True
            self._send(worker, snapshot, request)
            left = timeout - (time.monotonic() - started)
            try:
                if left <= 0 or not worker.replies.poll(left):
                    self._timed_out(worker, timeout, source)
                reply: Reply = pickle.loads(worker.replies.recv_bytes())
            except (EOFError, OSError) as exc:
                self._died(worker, exc)
            pending = False
        finally:
            self._release(worker, snapshot, pending or worker.replies.closed)
        return reply

    async def _exchange_async(self, worker: WorkerProcess, snapshot: Path, request: Request, timeout: float,
                              started: float, source: str) -> Reply:
        pending = True
        try:
            self._send(worker, snapshot, request)
            loop = asyncio.get_running_loop()
            readable: asyncio.Future[None] = loop.create_future()
            fd = worker.replies.fileno()

            def ready() -> None:
                if not readable.done():
                    readable.set_result(None)

            loop.add_reader(fd, ready)
            try:
                await asyncio.wait_for(readable, max(timeout - (time.monotonic() - started), 0))
                late = False
            except asyncio.TimeoutError:
                late = True
            finally:
                loop.remove_reader(fd)  # before a kill closes the descriptor
                os.set_blocking(fd, True)  # uvloop makes a watched descriptor non-blocking; the reply is read whole
            if late:
                self._timed_out(worker, timeout, source)
            try:
                # the worker writes its whole reply at once, after the query finished: this read does not wait on it
                reply: Reply = pickle.loads(worker.replies.recv_bytes())
            except (EOFError, OSError) as exc:
                self._died(worker, exc)
            pending = False
        finally:
            # cancelled (client gone) mid-query: the worker is killed, never reused with a reply pending
            if pending and not worker.replies.closed:
                worker.kill(wait=False)
            self._release(worker, snapshot, pending or worker.replies.closed)
        return reply

    @staticmethod
    def _send(worker: WorkerProcess, snapshot: Path, request: Request) -> None:
        request["snapshot"] = str(snapshot)
        worker.snapshot = snapshot
        try:
            worker.requests.send_bytes(pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            DeadlineExecutor._died(worker, exc)

    def _timed_out(self, worker: WorkerProcess, timeout: float, source: str) -> None:
        worker.kill(wait=False)  # SIGKILL: the query's CPU work ends with the process
        metrics.worker_restarts.inc()
        metrics.query_timeouts.labels(source).inc()
        raise QueryTimeout(
            f"query stopped at its deadline of {timeout:g} s; narrow it, add a LIMIT, or ask for a "
            f"longer timeout (at most {self.settings.max_query_timeout_s:g} s)", timeout=timeout)

    @staticmethod
    def _died(worker: WorkerProcess, exc: BaseException) -> None:
        worker.kill()
        metrics.worker_restarts.inc()
        # a worker dies mid-query when the query outgrew its memory (allocation failure aborts it)
        raise QueryResourcesExceeded(
            f"the query was stopped: it needed more memory than the {WORKER_MEMORY_BYTES // 1024**2} MiB a "
            f"query worker may use (exit status {worker.proc.returncode}); narrow it or add a LIMIT") from exc

    def _release(self, worker: WorkerProcess, snapshot: Path | None, dead: bool) -> None:
        self.pool.release(worker, dead=dead)
        if snapshot is not None:
            self.snapshots.release(snapshot, self.pool.open_snapshots())

    def close(self) -> None:
        self.compactor.close()
        self.pool.close()
        self.snapshots.close()


def _check_graph_iri(graph: str) -> None:
    try:
        NamedNode(graph)
    except ValueError:
        raise BadRequest(f"'{graph[:200]}' is not a valid graph IRI", graph=graph[:200]) from None


def open_executor(store: GraphStore, settings: Settings) -> DeadlineExecutor | None:
    """The executor for a store on disk; None for stores it cannot snapshot (in memory, remote)."""
    if store.path is None or store.raw is None:
        return None
    return DeadlineExecutor(store, settings)


class DeadlineStore(DeadlineView):
    """A GraphStore view for one request: its queries share one deadline and run in the workers.

    Everything else (graph listing, writes) goes to the live store, so callers written against GraphStore
    (named queries, /context, /verify lookups) run under the deadline without changes.
    """

    def __init__(self, executor: DeadlineExecutor, store: GraphStore, timeout: float, source: str) -> None:
        super().__init__(store, timeout, source)
        self._executor = executor
        self._generation = store.generation  # its queries see what was written before it began

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        return self._executor.query(query, timeout=self.left(), source=self._source, default_graph=default_graph,
                                    named_graphs=named_graphs, union_default_graph=union_default_graph,
                                    substitutions=substitutions, min_generation=self._generation)


class LiveStore(DeadlineView):
    """A GraphStore view for one request's own bounded lookups (answers): queries run on the live store, which
    sees every acknowledged write at once (no checkpoint to wait for while ingestion writes), and the request's
    deadline is checked before each query. Only for our own index lookups: a client's query goes to the workers,
    which can be killed mid-query."""

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        self.left()
        metrics.queries.labels(self._source, "ok").inc()
        return self._store.query(query, default_graph=default_graph, named_graphs=named_graphs,
                                 union_default_graph=union_default_graph, substitutions=substitutions)


class OpenStore(Protocol):
    """What the app or `attest mcp` opened (attest.operations.resources.AppResources): its store, settings and
    query workers (None where queries run in-process)."""

    @property
    def store(self) -> GraphStore: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def query_executor(self) -> DeadlineExecutor | None: ...


def live_store(state: OpenStore, source: str, timeout: float | None = None) -> GraphStore:
    """The store an answer's own lookups read: live, under the request's deadline (a remote store's view also
    bounds each request to the server)."""
    timeout = timeout or state.settings.query_timeout_s
    return state.store.deadline_view(timeout, source) or LiveStore(state.store, timeout, source)


def deadline_store(state: OpenStore, source: str, timeout: float | None = None) -> GraphStore:
    """The store a user-facing request should query through."""
    executor = state.query_executor
    if executor is None:
        # a remote store: the server runs it, under this deadline; else a store the executor cannot snapshot:
        # queries run in-process
        view: GraphStore | None = state.store.deadline_view(timeout or state.settings.query_timeout_s, source)
        return view or state.store
    return DeadlineStore(executor, state.store, timeout or executor.settings.query_timeout_s, source)
