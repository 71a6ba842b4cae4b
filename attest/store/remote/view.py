"""The remote store's view for one request: its queries share one deadline, which the server is held to."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Mapping

from attest import metrics
from attest.errors import QueryTimeout
from attest.store.base import QueryResult, Term
from attest.store.view import StoreView

if TYPE_CHECKING:
    from attest.store.remote.store import RemoteStore


class RemoteDeadlineView(StoreView):
    """A GraphStore view for one request: every query of it shares one deadline, enforced by the client timeout
    (the connection closes) and the server's own timeout parameter when configured."""

    def __init__(self, store: RemoteStore, timeout: float, source: str) -> None:
        super().__init__(store)
        self._remote, self._timeout, self._source = store, timeout, source
        self._deadline = time.monotonic() + timeout

    def query(self, query: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None,
              union_default_graph: bool = True, substitutions: Mapping[str, Term] | None = None) -> QueryResult:
        left = self._deadline - time.monotonic()
        if left <= 0:
            metrics.query_timeouts.labels(self._source).inc()
            raise QueryTimeout(f"request stopped at its query deadline of {self._timeout:g} s", timeout=self._timeout)
        try:
            result = self._remote.query(query, default_graph=default_graph, named_graphs=named_graphs,
                                        union_default_graph=union_default_graph, substitutions=substitutions,
                                        timeout=left)
        except QueryTimeout:
            metrics.queries.labels(self._source, "timeout").inc()
            raise
        metrics.queries.labels(self._source, "ok").inc()
        return result
