"""Batched commits for bulk ingestion: new documents written together by the bulk loader, all or nothing."""

from __future__ import annotations

from pyoxigraph import Quad

from attest.ingest import validity
from attest.ingest.stages import StageClock
from attest.ingest.summary import summary_quads
from attest.store import GraphStore, fulltext, fulltext_step
from attest.store.rdfio import quad_data
from attest.vocab import Iris


class CommitBatch:
    """New documents (graph + status graph + quarantine records) waiting for one guarded bulk write.

    Only documents with nothing stored yet may join: their graphs are empty, so the store's bulk write guard
    can undo the write by emptying them. Quarantine records go into the shared quarantine graph by the guard's
    finishing update (INSERT DATA), in the transaction that makes the batch permanent.
    """

    def __init__(self, store: GraphStore, iris: Iris, max_quads: int, clock: StageClock | None = None) -> None:
        self.store, self.iris, self.max_quads = store, iris, max_quads
        self.clock = clock or StageClock()
        self._graphs: dict[str, list[Quad]] = {}  # doc id -> quads of its document and status graphs
        self._quarantine: list[Quad] = []
        self._size = 0
        # the stored statements of the pairs earlier batches read (valid time), for the next batches; a server
        # store is written by other processes too, unseen until its generation catches up: read each time there
        self.stored = validity.StoredStatements() if store.raw is not None else None

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._graphs

    @property
    def pending(self) -> bool:
        return bool(self._graphs)

    @property
    def full(self) -> bool:
        return self._size >= self.max_quads

    def detach(self) -> CommitBatch:
        """The pending documents as a batch of their own (to be written elsewhere); this one starts empty."""
        other = CommitBatch(self.store, self.iris, self.max_quads, self.clock)
        other._graphs, other._quarantine, other._size = self._graphs, self._quarantine, self._size
        other.stored = self.stored
        self._graphs, self._quarantine, self._size = {}, [], 0
        return other

    def add(self, doc_id: str, *, document: list[Quad], status: list[Quad], quarantine: list[Quad]) -> None:
        self._graphs[doc_id] = [*document, *status]
        self._quarantine.extend(quarantine)
        self._size += len(document) + len(status) + len(quarantine)

    def flush(self) -> list[str]:
        """Write every pending document; returns their document graphs. On any error nothing of it stays."""
        if not self._graphs:
            return []
        doc_ids = list(self._graphs)
        guarded = [self.iris.document_graph(d) for d in doc_ids] + [self.iris.status_graph(d) for d in doc_ids]
        quads = [q for qs in self._graphs.values() for q in qs]
        # the quarantine records and the documents' share of the fact summary become permanent with the batch
        with self.clock.measure("batch.summary"):
            permanent = [*self._quarantine, *dict.fromkeys(summary_quads(self.iris, quads))]  # documents restate facts
        # and the valid time of the facts they state (every graph of the batch is new: nothing is stored in it yet)
        with self.clock.measure("batch.validity"):
            timed = validity.change(self.store, self.iris,
                                    {self.iris.document_graph(d): qs for d, qs in self._graphs.items()}, self.stored)
        finish = " ;\n".join([*([quad_data("INSERT DATA", permanent)] if permanent else []), *timed.operations]) or None
        graphs = self._graphs
        with fulltext_step.following(self.store):  # the full-text index follows (repaired from the store on open)
            try:  # its documents stay `in` the batch until they are in the store: one given again meanwhile must wait
                with self.clock.measure("batch.bulk_load"), self.store.bulk_write_guard(guarded, finish=finish):
                    self.store.bulk_add(quads)
            finally:
                self._graphs, self._quarantine, self._size = {}, [], 0
            with self.clock.measure("batch.fulltext"):
                fulltext.on_commit_many(self.store, self.iris, {doc_id: (qs, qs) for doc_id, qs in graphs.items()})
        return guarded[: len(doc_ids)]

    def settled(self) -> None:
        """The batch's write and what follows it (the reasoner's) are done, and nothing else wrote meanwhile: the
        stored statements kept for the next batch are current as of the store's generation now."""
        if self.stored is not None:
            with self.clock.measure("batch.validity"):
                self.stored.settled(self.iris, self.store.generation)
