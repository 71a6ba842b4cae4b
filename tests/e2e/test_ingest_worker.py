"""The ingest worker process: the rule extractor and the SHACL gate run there with the results they give in process."""

from __future__ import annotations

import os
import signal

import pytest
from pyoxigraph import Literal, NamedNode

from attest.extract.rules import RuleExtractor
from attest.ingest.worker import OffloadedExtractor, OffloadedGate, offload
from attest.vocab import ONT
from tests.ingest_support import entity, extraction, llm_pipeline, offline_pipeline, relation
from tests.e2e.test_ingest_pipeline import OXIGRAPH_V1, doc

TEXTS = [OXIGRAPH_V1, "Apache Jena is a framework. Apache Jena uses TDB. Jena was developed by the Apache Foundation."]


def _document_graph(store, iris, doc_id: str) -> set:
    """The document graph without its timestamps (the two runs happen at different times)."""
    return {(q.subject, q.predicate, q.object) for q in store.quads(iris.document_graph(doc_id))
            if not (isinstance(q.object, Literal) and q.object.datatype.value.endswith("#dateTime"))}


def test_the_rule_extractor_and_gate_in_the_worker_give_the_graph_they_give_in_process(tmp_path_factory, settings, iris):
    from attest.store import open_store

    graphs = []
    for offloaded in (False, True):
        store = open_store(settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("worker")}))
        pipeline = offline_pipeline(store, settings)
        worker = offload(pipeline) if offloaded else None
        try:
            if offloaded:
                assert isinstance(pipeline.extractor, OffloadedExtractor) and isinstance(pipeline.gate, OffloadedGate)
                assert pipeline.extractor.name == RuleExtractor.name and worker.pid() != os.getpid()
            reports = [pipeline.ingest(doc(f"d{i}.txt", text)) for i, text in enumerate(TEXTS)]
            assert all(r.status == "done" and r.triples for r in reports)
            graphs.append([_document_graph(store, iris, r.doc_id) for r in reports])
        finally:
            if worker is not None:
                worker.close()
            store.close()
    assert graphs[0] == graphs[1]


def test_findings_of_the_gate_come_back_from_the_worker(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    worker = offload(pipeline)
    try:
        assert not isinstance(pipeline.extractor, OffloadedExtractor)  # an LLM extractor waits on the network: stays
        fake_llm.reply(extraction([entity("Oxigraph", "TripleStore"), entity("Tim Berners-Lee", "Person")],
                                  [relation("Oxigraph", "uses", "Tim Berners-Lee")]))  # uses -> Person: not a Topic
        report = pipeline.ingest(doc("q.txt", OXIGRAPH_V1))
    finally:
        worker.close()
    assert report.status == "done" and [q["path"] for q in report.quarantined] == [ONT + "uses"]
    tim = NamedNode(iris.entity("tim-berners-lee"))
    assert not any(q.object == tim and q.predicate.value == ONT + "uses" for q in store.quads(iris.document_graph(report.doc_id)))
    assert list(store.quads(iris.quarantine_graph))


def test_a_worker_that_dies_is_replaced_and_the_document_still_ingested(store, settings, iris, caplog):
    pipeline = offline_pipeline(store, settings)
    worker = offload(pipeline)
    try:
        assert pipeline.ingest(doc("a.txt", TEXTS[0])).status == "done"
        first = worker.pid()
        os.kill(first, signal.SIGKILL)
        report = pipeline.ingest(doc("b.txt", TEXTS[1]))
        assert report.status == "done" and report.triples
        assert worker.pid() != first
        assert "ingest worker process died" in caplog.text
    finally:
        worker.close()


@pytest.mark.parametrize("enabled", [True, False])
def test_post_documents_uses_the_worker_unless_turned_off(settings, enabled):
    from fastapi.testclient import TestClient

    from attest.main import create_app

    with TestClient(create_app(settings.model_copy(update={"ingest_worker": enabled})), base_url="http://localhost") as client:
        assert client.post("/documents", json={"text": TEXTS[0], "name": "a.txt"}).status_code == 201
        pipeline = client.app.state.resources.ingest_pipeline
        assert isinstance(pipeline.gate, OffloadedGate) == enabled
        assert isinstance(pipeline.extractor, OffloadedExtractor) == enabled


def test_a_worker_that_does_not_start_in_time_leaves_the_stage_to_the_server(store, settings, iris, caplog):
    pipeline = offline_pipeline(store, settings)
    worker = offload(pipeline)
    worker.timeout_s = 0.001  # no process starts that fast
    try:
        report = pipeline.ingest(doc("a.txt", TEXTS[0]))
    finally:
        worker.close()
    assert report.status == "done" and report.triples and report.extractor == RuleExtractor.name
    assert "did not start within" in caplog.text
    assert list(store.quads(iris.document_graph(report.doc_id)))
