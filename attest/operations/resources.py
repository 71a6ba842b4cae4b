"""AppResources: what a running service holds (settings, store, executors), opened once and shared by HTTP and MCP."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import Iris

if TYPE_CHECKING:  # made on first use by the modules that need them; imported here for their types only
    from attest.ingest.background import IngestThread
    from attest.ingest.pipeline import IngestPipeline
    from attest.named_queries import NamedQueries
    from attest.proxy.chat import ChatProxy
    from attest.reasoner import Reasoner
    from attest.sparql.deadline import DeadlineExecutor
    from attest.sparql.executor import SparqlExecutor
    from attest.store.warm import CacheWarmer


@dataclass(eq=False)
class AppResources:
    """The app's resources (`app.state.resources`, or what `attest mcp` opened): attest.main.open_resources makes
    them, close_resources closes them. The fields after query_executor start empty and are made on first use."""

    settings: Settings
    iris: Iris
    store: GraphStore
    query_executor: DeadlineExecutor | None = None  # attest/sparql/deadline.py: None for stores it cannot snapshot
    reasoner: Reasoner | None = None  # one per app: its in-memory closure makes later updates incremental
    named_queries: NamedQueries | None = None
    sparql_executor: SparqlExecutor | None = None  # the /sparql executor, and the store it was made for
    sparql_executor_store: GraphStore | None = None
    heavy_slots: threading.BoundedSemaphore | None = None
    ingest_pipeline: IngestPipeline | None = None
    ingest_mode: str = ""  # which extractor the pipeline runs and why
    ingest_thread: IngestThread | None = None
    proxy: ChatProxy | None = None
    store_closing: bool = False  # set at shutdown: a thread waiting for a remote store stops
    cache_warmer: CacheWarmer | None = None  # reads the store's files into the page cache after a start
