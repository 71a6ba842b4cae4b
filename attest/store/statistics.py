"""Class statistics (a VoID class partition) kept in a system graph of the embedded store, present only while exact."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Store

from attest.store.results import lexical, solutions
from attest.vocab import XSD

log = logging.getLogger(__name__)

VOID = "http://rdfs.org/ns/void#"
# every distinct instance of every class, over every graph (the union default graph): what class-counts.rq counts
CLASS_PARTITION = "SELECT ?class (COUNT(DISTINCT ?instance) AS ?n) WHERE { ?instance a ?class } GROUP BY ?class"


class ClassStatistics:
    """The number of distinct instances of each class over every graph, as a VoID description in `graph`:

        <graph> void:classes N ; void:classPartition [ void:class C ; void:entities N ] .

    The invariant: the graph exists only while its counts are those of the store's current content. Every write
    drops it before it changes anything (`writing`), so a reader that sees the graph (a query snapshot, another
    reader) sees it with the content it counts; `refresh` writes it again once no write is in flight and none
    started while it counted. A reader that finds no graph counts for itself (class-counts.rq does). Quads a
    write puts into the graph itself (a dump of another store loaded back) are dropped when it ends.

    Writing the counts does not move the store's write generation: nothing else changed, so page cursors and
    answer caches stay valid; query snapshots get the counts with the compaction that follows (its new files make
    the snapshot stale), and until then count for themselves.
    """

    def __init__(self, store: Store, graph: str) -> None:
        self._store = store
        self.graph = NamedNode(graph)
        self._lock = threading.Lock()
        self._in_flight = 0  # writes started and not yet finished
        self._started = 0  # writes started since the store was opened
        self._present = self._has_graph()

    def _has_graph(self) -> bool:
        return next(iter(self._store.quads_for_pattern(None, None, None, self.graph)), None) is not None

    @property
    def present(self) -> bool:
        return self._present

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around every write of the store: the statistics go before it changes anything."""
        with self._lock:
            self._in_flight += 1
            self._started += 1
            if self._present:
                try:
                    self._store.remove_graph(self.graph)
                finally:
                    self._present = self._has_graph()
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                if not self._present and self._has_graph():  # the write put quads there (a restored dump): not ours
                    self._store.remove_graph(self.graph)

    def refresh(self) -> bool:
        """Count the classes and write the statistics, unless they are there already or a write is in flight or
        starts meanwhile (the counts would not be those of one content). Whether they are there afterwards."""
        with self._lock:
            if self._present or self._in_flight:
                return self._present
            started = self._started
        counts = [(row["class"], int(lexical(row["n"]))) for row in solutions(
            self._store.query(CLASS_PARTITION, use_default_graph_as_union=True))]
        quads = [Quad(self.graph, NamedNode(VOID + "classes"), _integer(len(counts)), self.graph)]
        for cls, instances in counts:
            partition = BlankNode()
            quads += [Quad(self.graph, NamedNode(VOID + "classPartition"), partition, self.graph),
                      Quad(partition, NamedNode(VOID + "class"), cls, self.graph),
                      Quad(partition, NamedNode(VOID + "entities"), _integer(instances), self.graph)]
        with self._lock:  # no write can start while the statistics are written
            if self._in_flight or self._started != started:
                return False
            self._store.extend(quads)
            self._present = True
        log.debug("class statistics written: %d classes", len(counts))
        return True


def _integer(value: int) -> Literal:
    return Literal(str(value), datatype=NamedNode(XSD + "integer"))
