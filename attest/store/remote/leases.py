"""Load leases: chunked writes into a remote store made all-or-nothing by durable markers that their writer renews."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone

from pyoxigraph import Literal, NamedNode, Quad

from attest.errors import StoreError
from attest.store.base import GraphStore, Heartbeat
from attest.store.rdfio import graph_node
from attest.store.remote.updates import update_data
from attest.store.results import lexical, solutions
from attest.vocab import ATT, XSD

log = logging.getLogger(__name__)

LOADING_INTO = ATT + "loadingInto"  # marker of a bulk load in progress: marker IRI -> target graph
LEASE_UNTIL = ATT + "leaseUntil"  # until when the process that wrote the marker vouches for it
DEFAULT_GRAPH_MARKER = ATT + "defaultGraph"


class LoadLeases:
    """The markers of the loads in progress in `store` (in its staging graph `<prefix>loads`)."""

    def __init__(self, store: GraphStore, lease_s: float) -> None:
        self.store, self.lease_s = store, lease_s
        self.prefix = store.iris.staging_graph_prefix

    @contextmanager
    def guard(self, graphs: list[str], *, finish: str | None = None) -> Iterator[Heartbeat]:
        """Chunked writes into `graphs` become all-or-nothing: a durable marker per graph, with a lease the
        writer renews (yielded `heartbeat()`), names them while the block runs. An exception empties them at
        once; a crash leaves the marker, and the next process to open the store empties them once the lease
        ran out. `finish` runs in the same update request that drops the markers."""
        loads = NamedNode(self.prefix + "loads")
        markers = [NamedNode(f"{self.prefix}{uuid.uuid4().hex}") for _ in graphs]
        targets = [graph_node(g) if g else NamedNode(DEFAULT_GRAPH_MARKER) for g in graphs]
        lease = {"until": self._lease_literal()}

        def marker_quads(until: Literal) -> list[Quad]:
            return [q for m, t in zip(markers, targets) for q in
                    (Quad(m, NamedNode(LOADING_INTO), t, loads), Quad(m, NamedNode(LEASE_UNTIL), until, loads))]

        self.store.update(update_data("INSERT DATA", marker_quads(lease["until"])))
        renewed = [time.monotonic()]

        def heartbeat() -> None:
            if time.monotonic() - renewed[0] < self.lease_s / 4:
                return
            old, lease["until"] = lease["until"], self._lease_literal()
            self.store.update(f"{update_data('DELETE DATA', marker_quads(old))} ;\n"
                              f"{update_data('INSERT DATA', marker_quads(lease['until']))}")
            renewed[0] = time.monotonic()

        try:
            yield heartbeat
            drop = update_data("DELETE DATA", marker_quads(lease["until"]))
            self.store.update(f"{finish} ;\n{drop}" if finish else drop)
        except BaseException:
            try:
                self.roll_back(list(zip(markers, targets)))
            except StoreError:
                log.warning("could not roll back an interrupted load; the next start will")
            raise

    def _lease_literal(self) -> Literal:
        until = datetime.fromtimestamp(time.time() + self.lease_s, timezone.utc).isoformat()
        return Literal(until, datatype=NamedNode(XSD + "dateTime"))

    def roll_back(self, loads: list[tuple[NamedNode, NamedNode]]) -> None:
        """Empty the graphs that unfinished loads name and drop their markers, in one update."""
        ops = []
        for marker, target in loads:
            ops.append("DROP SILENT DEFAULT" if target.value == DEFAULT_GRAPH_MARKER else f"DROP SILENT GRAPH {target}")
            ops.append(f"DELETE WHERE {{ GRAPH <{self.prefix}loads> {{ {marker} ?p ?o }} }}")
        if ops:
            self.store.update(" ;\n".join(ops))

    def drop_stale(self) -> int:
        """Roll back loads whose writer stopped renewing its lease (it crashed); returns how many."""
        rows = solutions(self.store.query(
            f"SELECT ?m ?t ?until WHERE {{ GRAPH <{self.prefix}loads> {{ "
            f"?m <{LOADING_INTO}> ?t OPTIONAL {{ ?m <{LEASE_UNTIL}> ?until }} }} }}", union_default_graph=False))
        now = datetime.now(timezone.utc)
        stale = []
        for row in rows:
            until, marker, target = row["until"], row["m"], row["t"]
            try:
                expired = until is None or datetime.fromisoformat(lexical(until)) < now
            except (ValueError, StoreError):
                expired = True
            if expired and isinstance(marker, NamedNode) and isinstance(target, NamedNode):  # as guard() wrote them
                stale.append((marker, target))
        if stale:
            log.warning("rolling back %d interrupted load(s) into %s", len(stale), ", ".join(t.value for _, t in stale))
            self.roll_back(stale)
        return len(stale)
