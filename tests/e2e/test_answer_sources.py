"""Sources of /context on a store without a full-text index beside it (in memory, remote): the store ranks the
chunks by how many of the question's keywords they contain and sends back the best ones only."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from attest.answer.inference import reasoner_inference
from attest.answer.retrieve import MAX_SOURCES, ContextQuery
from attest.answer.service import AnswerService
from attest.store import EmbeddedStore
from attest.vocab import ATT, Iris

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

IRIS = Iris("https://w3id.org/attest/")
TEXTS = {  # chunk id -> text; the question's keywords are "rocksdb", "oxigraph", "storage"
    "a-0": "Oxigraph keeps its storage in RocksDB.",  # all three
    "b-0": "RocksDB is a key-value store by Facebook.",  # one
    "c-0": "Oxigraph is written in Rust.",  # one
    "d-0": "OXIGRAPH and ROCKSDB, in capitals.",  # two, whatever the case
    "e-0": "Nothing about the question here.",
    **{f"z{i}-0": "Oxigraph again." for i in range(MAX_SOURCES)},  # one each: ties, cut at the limit
}


@pytest.fixture
def store(settings):
    """In memory; with ATTEST_TEST_STORE=oxigraph|virtuoso, that server (neither has an index beside it)."""
    from attest.store import open_store
    from tests.remote_support import store_kind_under_test

    store = EmbeddedStore(None, IRIS) if store_kind_under_test() == "embedded" else open_store(settings)
    _add_chunks(store)
    yield store
    store.close()


def _add_chunks(store) -> None:
    quads = []
    for chunk, text in TEXTS.items():
        node, graph = NamedNode(IRIS.chunk(chunk)), NamedNode(IRIS.document_graph(chunk.split("-")[0]))
        quads += [Quad(node, NamedNode(ATT + "text"), Literal(text), graph),
                  Quad(node, NamedNode(ATT + "inDocument"), NamedNode(IRIS.document(chunk.split("-")[0])), graph)]
    store.add(quads)


def _sources(store, settings, **query) -> list:
    service = AnswerService(store, IRIS, settings, reasoner_inference(store, IRIS, settings))
    return service.context(ContextQuery(query="What does Oxigraph use for storage? RocksDB?", **query)).sources


def test_chunks_come_ranked_by_keyword_hits_ties_by_iri_cut_at_the_limit(store, settings):
    sources = _sources(store, settings)
    assert [s.chunk for s in sources] == [IRIS.chunk(c) for c in ("a-0", "d-0", "b-0", "c-0", "z0-0")]
    assert [s.score for s in sources] == [1.0, round(2 / 3, 4), round(1 / 3, 4), round(1 / 3, 4), round(1 / 3, 4)]
    assert sources[0].document == "a" and sources[0].text.startswith("Oxigraph keeps")


def test_a_documents_own_chunks_only_when_one_is_named(store, settings):
    assert [s.chunk for s in _sources(store, settings, document="b")] == [IRIS.chunk("b-0")]
    assert _sources(store, settings, document="e") == []
