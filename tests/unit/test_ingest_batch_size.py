"""The default bulk batch of `attest ingest`: large enough that RocksDB's background compaction stays a small cost."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from attest.ingest.batch import CommitBatch
from attest.settings import load_settings
from attest.store import open_store
from attest.vocab import Iris

IRIS = Iris("https://w3id.org/attest/")


def _document(doc: int, quads: int) -> list[Quad]:
    g = NamedNode(IRIS.document_graph(f"d{doc}"))
    return [Quad(NamedNode(IRIS.entity(f"e{doc}-{i}")), NamedNode(IRIS.base + "p"), Literal(str(i)), g)
            for i in range(quads)]


def test_a_default_batch_holds_a_few_hundred_generated_documents(tmp_path):
    """Each batch the bulk loader writes adds table files that compactions merge into everything stored so far, so
    the number of batches sets that cost: 2,000 of bench/scale.py's documents (~900 quads each) spent 13.2 ms CPU a
    document in RocksDB's threads with batches of 50,000 quads, 6.4 with 200,000 (bench/RESULTS.md, session 21).
    160 such documents (144,000 quads) fill no default batch; the batch is full past the setting."""
    settings = load_settings(None, data_dir=tmp_path)
    store = open_store(settings)
    try:
        batch = CommitBatch(store, IRIS, settings.ingest_batch_quads)
        for doc in range(160):
            batch.add(f"d{doc}", document=_document(doc, 900), status=[], quarantine=[])
        assert not batch.full
        while not batch.full:
            doc += 1
            batch.add(f"d{doc}", document=_document(doc, 900), status=[], quarantine=[])
        assert settings.ingest_batch_quads <= 900 * (doc + 1) < settings.ingest_batch_quads + 900
    finally:
        store.close()
