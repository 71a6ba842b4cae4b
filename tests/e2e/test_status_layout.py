"""The status graph's compact layout: chunk text kept once (in the document graph), the extraction deflated, and
status graphs written before it still read and rebuilt."""

from __future__ import annotations

import json

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from attest.ingest.load import LoadedDocument
from attest.ingest.status import DEFLATED_JSON
from attest.vocab import ATT, XSD
from tests.ingest_support import entity, extraction, llm_pipeline, offline_pipeline, relation

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

TEXT = "Oxigraph is a graph database written in Rust. Oxigraph uses RocksDB for storage."
CHUNK_TEXT, EXTRACTION = NamedNode(ATT + "chunkText"), NamedNode(ATT + "extraction")
# what a done document's graph states about its chunks, and so its status graph does not
REPEATED = {NamedNode(ATT + name) for name in ("chunkText", "chunkIndex", "chunkStart", "chunkEnd")}


def doc(source: str, text: str) -> LoadedDocument:
    return LoadedDocument(source, "text/plain", text, len(text.encode()))


def status_quads(store, iris, doc_id: str) -> list[Quad]:
    return list(store.quads(iris.status_graph(doc_id)))


def document_quads(store, iris, doc_id: str) -> set[str]:
    return {str(q) for q in store.quads(iris.document_graph(doc_id)) if "/activity/" not in str(q)}


def test_a_done_document_keeps_its_chunk_text_once_and_its_extraction_deflated(store, settings, iris):
    pipeline = offline_pipeline(store, settings)
    report = pipeline.ingest(doc("ox.txt", TEXT))
    assert report.status == "done"
    quads = status_quads(store, iris, report.doc_id)
    assert not [q for q in quads if q.predicate in REPEATED]
    chunks = {q.subject for q in quads if q.predicate == EXTRACTION}
    assert not [q for q in quads if q.subject in chunks and q.predicate == NamedNode(ATT + "extractor")]  # the document's
    extractions = [q.object for q in quads if q.predicate == EXTRACTION]
    assert extractions and all(isinstance(o, Literal) and o.datatype == DEFLATED_JSON for o in extractions)
    # the registry reads the text back from the document graph and the extraction inflated
    status = pipeline.registry.get(report.doc_id)
    assert status is not None and "".join(c.text for c in status.chunks).strip() == TEXT
    assert [c.index for c in status.chunks] == list(range(len(status.chunks)))
    assert all(TEXT[c.start:c.end] == c.text for c in status.chunks) and {c.extractor for c in status.chunks} == {report.extractor}
    assert all(json.loads(c.cache or "")["raw"]["entities"] for c in status.chunks)
    before = document_quads(store, iris, report.doc_id)
    assert pipeline.rebuild(report.doc_id).status == "done"  # from the stored chunks (unmerge, retry)
    assert document_quads(store, iris, report.doc_id) == before


def test_a_failed_document_keeps_its_chunk_text_in_the_status_graph_until_retried(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    for _ in range(llm_settings.llm_max_retries + 1):
        fake_llm.reply("this is not JSON at all")
    report = pipeline.ingest(doc("f.txt", TEXT))
    assert report.status == "failed" and not store.has_graph(iris.document_graph(report.doc_id))
    texts = [q.object.value for q in status_quads(store, iris, report.doc_id) if q.predicate == CHUNK_TEXT]
    assert "".join(texts).strip() == TEXT  # the only copy of the text until the document graph is written
    assert {q.predicate for q in status_quads(store, iris, report.doc_id)} >= REPEATED
    fake_llm.reply(extraction([entity("Oxigraph", "TripleStore"), entity("RocksDB", "Database")],
                              [relation("Oxigraph", "uses", "RocksDB")]))
    assert [r.status for r in pipeline.retry_failed()] == ["done"]
    assert not [q for q in status_quads(store, iris, report.doc_id) if q.predicate == CHUNK_TEXT]


def test_a_status_graph_written_before_is_read_and_rewritten_compact(store, settings, iris):
    pipeline = offline_pipeline(store, settings)
    report = pipeline.ingest(doc("old.txt", TEXT))
    graph = NamedNode(iris.status_graph(report.doc_id))
    status = pipeline.registry.get(report.doc_id)
    assert status is not None
    # the layout written before: each chunk's text repeated as att:chunkText, the extraction as plain JSON
    # (and its index, offsets and extractor)
    old = [q for q in status_quads(store, iris, report.doc_id) if q.predicate != EXTRACTION]
    for c in status.chunks:
        node = NamedNode(iris.chunk(c.id))
        old += [Quad(node, NamedNode(ATT + p), Literal(str(v), datatype=NamedNode(XSD + "integer")), graph)
                for p, v in (("chunkIndex", c.index), ("chunkStart", c.start), ("chunkEnd", c.end))]
        old += [Quad(node, CHUNK_TEXT, Literal(c.text), graph), Quad(node, EXTRACTION, Literal(c.cache or ""), graph),
                Quad(node, NamedNode(ATT + "extractor"), Literal(c.extractor), graph)]
    store.replace_graph(graph.value, old)
    read = pipeline.registry.get(report.doc_id)
    assert read is not None and [(c.index, c.start, c.end, c.text, c.extractor, c.cache) for c in read.chunks] == \
        [(c.index, c.start, c.end, c.text, c.extractor, c.cache) for c in status.chunks]
    before = document_quads(store, iris, report.doc_id)
    assert pipeline.rebuild(report.doc_id).status == "done"
    assert document_quads(store, iris, report.doc_id) == before
    quads = status_quads(store, iris, report.doc_id)
    assert not [q for q in quads if q.predicate in REPEATED]
    assert all(q.object.datatype == DEFLATED_JSON for q in quads if q.predicate == EXTRACTION)
