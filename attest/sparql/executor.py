"""The single place SPARQL queries and updates run: the executor interface and its in-process implementation.

`execute(query, dataset, accept, timeout)` evaluates a query, negotiates the format from the Accept header
once the result kind is known, and streams the serialization. The threaded executor here answers 503 at the
deadline and stops serializing, but cannot interrupt pyoxigraph mid-evaluation (a blocking ORDER BY or
aggregate finishes in the background). When the app runs the deadline executor of attest/sparql/deadline.py
(killable worker processes over store snapshots), `executor_for` wraps it in the same interface instead.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from pyoxigraph import NamedNode

from attest.errors import BadRequest, SparqlSyntaxError, StoreError
from attest.ingest import summary
from attest.sparql.formats import Format, Writer, formats_for, negotiate, result_kind, serialized
from attest.sparql.lexer import add_using_clauses, has_dataset_clause, has_relative_iri
from attest.sparql.outbound import without_remote_body
from attest.sparql.protocol import Dataset
from attest.sparql.streaming import ChunkPipe, Streamed, run_streamed
from attest.store.base import GraphStore, QueryResult
from attest.store.clean_close import written_from_outside
from attest.store.native import NativeStore
from attest.vocab import Iris

if TYPE_CHECKING:
    from attest.settings import Settings
    from attest.sparql.deadline import DeadlineExecutor



class SparqlExecutor(Protocol):
    """Runs SPARQL for the endpoint and anything else that answers users (named queries, /context)."""

    async def execute(self, query: str, dataset: Dataset, accept: str | None, timeout: float, *,
                      base_iri: str | None = None) -> Streamed:
        """Evaluate `query` over `dataset` and stream it in the format `accept` prefers; 503 past `timeout` s."""

    async def update(self, update: str, dataset: Dataset, *, base_iri: str | None = None) -> None:
        """Apply an update atomically (`dataset` = using-graph-uri / using-named-graph-uri)."""

    def close(self) -> None: ...

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The threads that serialize results (GET /store streams graph dumps from them too)."""


def evaluate(store: NativeStore, query: str, dataset: Dataset, *, union_default_graph: bool,
             base_iri: str | None = None) -> QueryResult:
    """Run a query on a pyoxigraph store with the protocol's dataset rules; errors become AttestErrors.

    A dataset named by the request replaces the query's own FROM / FROM NAMED; otherwise the default graph is
    the union of all graphs (when configured) unless the query names its own dataset.
    """
    kwargs: dict[str, Any] = {}
    if dataset.explicit:
        kwargs["default_graph"] = [NamedNode(g) for g in dataset.default_graphs]
        kwargs["named_graphs"] = [NamedNode(g) for g in dataset.named_graphs]
    elif union_default_graph and not has_dataset_clause(query):
        kwargs["use_default_graph_as_union"] = True
    try:
        return store.query(query, base_iri=base_iri, **kwargs)
    except SyntaxError as exc:
        raise SparqlSyntaxError(f"invalid SPARQL query: {exc}") from exc
    except (RuntimeError, ValueError) as exc:  # an evaluation error, e.g. a SERVICE that fails
        raise without_remote_body(str(exc)) or BadRequest(f"query cannot run: {exc}") from exc
    except OSError as exc:  # a SERVICE endpoint's error page is told by status and host, never echoed
        raise without_remote_body(str(exc)) or StoreError(f"query failed: {exc}") from exc


def apply_update(store: NativeStore, update: str, dataset: Dataset, *, base_iri: str | None = None,
                 then: str | None = None) -> None:
    """Run an update in one transaction: on any error nothing is written. `then`: an operation of ours run
    after the client's in the same transaction (e.g. marking the fact summary out of date)."""
    text = add_using_clauses(update, dataset.default_graphs, dataset.named_graphs)
    if then:  # after, not before: Oxigraph takes no PREFIX or BASE after a ';', and the client's text may start so
        text = f"{text.rstrip().removesuffix(';')}\n;\n{then}"
    try:
        store.update(text, base_iri=base_iri)
    except SyntaxError as exc:
        raise SparqlSyntaxError(f"invalid SPARQL update: {exc}") from exc
    except OSError as exc:  # a LOAD target's error page is told by status and host, never echoed
        raise without_remote_body(str(exc)) or StoreError(f"update failed, nothing was changed: {exc}") from exc
    except (RuntimeError, ValueError) as exc:  # e.g. CREATE GRAPH of an existing graph: the transaction is undone
        raise BadRequest(f"update cannot be applied, nothing was changed: {exc}") from exc


def serialize(result: QueryResult, fmt: Format, output: Writer) -> None:
    """Write a result with pyoxigraph's own serializer for `fmt` (evaluation is lazy: errors can surface here)."""
    try:
        serialized(result, fmt, output)
    except RuntimeError as exc:
        raise without_remote_body(str(exc)) or BadRequest(f"query failed during evaluation: {exc}") from exc
    except OSError as exc:
        raise without_remote_body(str(exc)) or StoreError(f"query failed during evaluation: {exc}") from exc


class ThreadedExecutor:
    """SparqlExecutor over an in-process pyoxigraph store: evaluation and serialization in a thread pool."""

    def __init__(self, store: GraphStore, *, union_default_graph: bool, threads: int = 16,
                 after_update: str | None = None) -> None:
        if store.raw is None:
            raise StoreError(f"no in-process SPARQL executor for a {type(store).__name__}: it has no native store")
        self.store = store  # queries and updates use its pyoxigraph Store (`raw`, read each time: never kept)
        self.union_default_graph = union_default_graph
        self.after_update = after_update
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sparql")

    @property
    def native(self) -> NativeStore:
        """The store's pyoxigraph Store now (a reference kept past close would hold the store's lock)."""
        native = self.store.raw
        if native is None:
            raise StoreError(f"no in-process SPARQL executor for a {type(self.store).__name__}")
        return native

    async def execute(self, query: str, dataset: Dataset, accept: str | None, timeout: float, *,
                      base_iri: str | None = None) -> Streamed:
        formats_for(accept)

        def produce(pipe: ChunkPipe) -> None:
            result = evaluate(self.native, query, dataset, union_default_graph=self.union_default_graph,
                              base_iri=base_iri)
            fmt = negotiate(accept, result_kind(result))
            pipe.media_type = fmt.content_type
            serialize(result, fmt, pipe)

        return await run_streamed(self._pool, produce, timeout)

    async def update(self, update: str, dataset: Dataset, *, base_iri: str | None = None) -> None:
        def run() -> None:  # a write through `raw` counts in the store's generation: snapshots see it
            written_from_outside(self.store)
            apply_update(self.native, update, dataset, base_iri=base_iri, then=self.after_update)

        await asyncio.get_running_loop().run_in_executor(self._pool, run)

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The worker threads, shared with other blocking store work (Graph Store Protocol reads)."""
        return self._pool

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class WorkerPoolExecutor:
    """SparqlExecutor over the deadline executor of attest/sparql/deadline.py (killable worker processes).

    Queries run there (503 at the deadline, rows and bytes bounded); updates run in-process on the live store.
    """

    def __init__(self, deadline_executor: DeadlineExecutor, threaded: ThreadedExecutor) -> None:
        self.deadline_executor = deadline_executor
        self.threaded = threaded
        self.union_default_graph = threaded.union_default_graph

    async def execute(self, query: str, dataset: Dataset, accept: str | None, timeout: float, *,
                      base_iri: str | None = None) -> Streamed:
        results_format, graph_format = formats_for(accept)
        if base_iri and has_relative_iri(query):
            # the workers take no base IRI argument; a BASE declaration (a validated IRI) does the same
            query = f"BASE {NamedNode(base_iri)} {query}"
        union = self.union_default_graph and not dataset.explicit and not has_dataset_clause(query)

        outcome = await self.deadline_executor.execute_async(
            query, timeout=timeout, source="sparql", threads=self.threaded.pool,
            default_graph=list(dataset.default_graphs) or None, named_graphs=list(dataset.named_graphs) or None,
            union_default_graph=union,
            solutions_format=results_format.native if results_format else None,
            triples_format=graph_format.native if graph_format else None,
        )
        if outcome.kind == "boolean":
            fmt = negotiate(accept, "boolean")
            body = serialized(outcome.to_result(), fmt) or b""
        else:
            chosen = results_format if outcome.kind == "solutions" else graph_format
            # None: the Accept header allows no format of this kind, and negotiate raises the 406
            fmt = chosen or negotiate(accept, "solutions" if outcome.kind == "solutions" else "graph")
            body = outcome.payload
        return Streamed(fmt.content_type, body, None, truncated=outcome.truncated)

    async def update(self, update: str, dataset: Dataset, *, base_iri: str | None = None) -> None:
        await self.threaded.update(update, dataset, base_iri=base_iri)

    @property
    def pool(self) -> ThreadPoolExecutor:
        return self.threaded.pool

    def close(self) -> None:
        self.threaded.close()


def executor_for(store: GraphStore, settings: Settings,
                 deadline_executor: DeadlineExecutor | None = None) -> SparqlExecutor:
    """The endpoint's executor: the deadline executor's workers when the app has one, else in-process threads."""
    # a client's update may change document graphs in ways the fact summary cannot follow
    from attest.store.remote import RemoteStore

    if isinstance(store, RemoteStore):  # the server evaluates, under the same deadline and limits
        from attest.sparql.remote_executor import RemoteExecutor

        return RemoteExecutor(store, settings, after_update=summary.invalidation(Iris(settings.base_iri)))
    if store.raw is None:
        raise StoreError(f"no SPARQL executor for a {type(store).__name__}")
    threaded = ThreadedExecutor(store, union_default_graph=settings.default_graph_as_union,
                                after_update=summary.invalidation(Iris(settings.base_iri)))
    if deadline_executor is not None:
        return WorkerPoolExecutor(deadline_executor, threaded)
    return threaded
