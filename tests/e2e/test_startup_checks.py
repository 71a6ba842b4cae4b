"""What a start checks of the embedded store: skipped after a clean close, still done after a crash or an outside write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from attest.ingest.load import LoadedDocument
from attest.ingest.status import sync_fulltext
from attest.main import close_resources, create_app, open_resources
from attest.store import EmbeddedStore, clean_close, fulltext, open_store
from attest.store.rewrite import rewrite_store
from tests.conftest import REPO
from tests.ingest_support import entity, extraction, llm_pipeline, offline_pipeline

TEXTS = {"rocks.txt": "Oxigraph keeps its data in RocksDB, an embedded key-value store.",
         "jena.txt": "Apache Jena is a Java framework with the TDB storage engine.",
         "owl.txt": "OWL 2 RL is a profile of the Web Ontology Language."}
# a child process that opens the store as `attest ingest` does and is killed at one point of its write
CRASH = """
import os, signal, sys
from pathlib import Path
from attest.ingest.load import LoadedDocument
from attest.ingest.session import open_session
from attest.settings import load_settings
from attest.store import fulltext, open_store

settings = load_settings(None, data_dir=Path(sys.argv[1]), ontology_dir=Path(sys.argv[2]), shapes_dir=Path(sys.argv[3]))
store = open_store(settings)
pipeline = open_session(store, settings, offline=True, reason=False).pipeline
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if sys.argv[4] == "before-index":  # the store has committed the document, the index has not followed
    fulltext.on_commit = killed
else:  # the document's new graphs are staged, not yet moved in
    store.update = killed
text = "Blazegraph is a triple store written in Java."
pipeline.ingest(LoadedDocument(sys.argv[5], "text/plain", text, len(text)))
"""


def ingested(settings) -> None:
    """The three documents, ingested through the served app's resources, closed cleanly."""
    resources = open_resources(settings)
    try:
        pipeline = offline_pipeline(resources.store, settings)
        for name, text in TEXTS.items():
            pipeline.ingest(LoadedDocument(name, "text/plain", text, len(text)))
    finally:
        close_resources(resources)


def crash(settings, point: str, source: str) -> None:
    done = subprocess.run([sys.executable, "-c", CRASH, str(settings.data_dir), str(settings.ontology_dir),
                           str(settings.shapes_dir), point, source], cwd=REPO, capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()[-2000:]


def index_contents(settings) -> tuple[dict, set]:
    """What the index holds: each document's hash, and its chunks' text."""
    store = open_store(settings, read_only=True)
    try:
        index = fulltext.for_store(store)
        return index.held(), set(index.read("SELECT chunk, document, text FROM chunks"))
    finally:
        store.close()
        fulltext.close_for(store)


def document_lists(monkeypatch) -> list[str]:
    """Records the store queries that list the documents' statuses from now on."""
    seen: list[str] = []
    query = EmbeddedStore.query

    def recording(self, text, *args, **kwargs):
        if "DocumentStatus" in text:
            seen.append(text)
        return query(self, text, *args, **kwargs)

    monkeypatch.setattr(EmbeddedStore, "query", recording)
    return seen


def test_after_a_clean_close_a_start_reads_no_document_and_lists_no_graph(settings, monkeypatch):
    ingested(settings)
    stamp = clean_close.current(settings.store_path, clean_close.read(settings.store_path))
    assert stamp is not None
    listed = document_lists(monkeypatch)
    resources = open_resources(settings)
    try:
        store = resources.store
        assert store.close_record.epoch == stamp.epoch  # as the close left it: staging graphs not listed
        assert fulltext.for_store(store).epoch() == stamp.epoch
        assert listed == []
        assert fulltext.for_store(store).search("TDB", 5)
    finally:
        close_resources(resources)
    assert clean_close.read(settings.store_path).epoch == stamp.epoch  # nothing written: the same content


def test_a_crash_between_a_commit_and_its_index_update_after_a_clean_close_is_repaired(settings):
    ingested(settings)
    assert clean_close.read(settings.store_path) is not None
    crash(settings, "before-index", "blaze.txt")
    assert clean_close.read(settings.store_path) is None  # the crashed open took it and left none
    held, _ = index_contents(settings)
    assert "blaze" not in " ".join(held)
    resources = open_resources(settings)  # checks the index against every document
    try:
        index = fulltext.for_store(resources.store)
        assert any(doc.startswith("blaze") for doc in index.held())
        assert "Blazegraph" in index.search("Blazegraph", 5)[0].text
        assert sync_fulltext(resources.store, resources.iris, full=True) == 0  # as a full check leaves it
    finally:
        close_resources(resources)


def test_a_staged_write_cut_off_by_a_crash_after_a_clean_close_is_dropped(settings, iris):
    ingested(settings)
    crash(settings, "staged", "rocks.txt")  # a changed document: its new graphs are staged, then swapped in
    store = open_store(settings)
    try:
        assert not [g for g in store.graphs() if g.startswith(iris.staging_graph_prefix)]
        assert any("RocksDB" in q.object.value for q in store.quads() if q.predicate.value.endswith("#text"))
    finally:
        store.close()


@pytest.mark.parametrize("write", ["sparql", "gsp"])
def test_a_write_from_outside_ingestion_makes_the_next_start_check_everything(settings, iris, write):
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        docs = {name: client.post("/documents", json={"text": text, "name": name}).json()["id"]
                for name, text in TEXTS.items()}
        gone = docs["owl.txt"]
        if write == "sparql":
            update = f"DROP GRAPH <{iris.status_graph(gone)}> ; DROP GRAPH <{iris.document_graph(gone)}>"
            assert client.post("/sparql", content=update, headers={"content-type": "application/sparql-update"}
                               ).status_code == 204
        else:
            assert client.delete("/store", params={"graph": iris.status_graph(gone)}).status_code == 204
    assert clean_close.read(settings.store_path) is None  # the app closed its store; no stamp after such a write
    assert gone in index_contents(settings)[0]
    resources = open_resources(settings)
    try:
        assert gone not in fulltext.for_store(resources.store).held()
    finally:
        close_resources(resources)


def test_an_index_update_that_failed_is_repaired_at_the_next_start(settings, monkeypatch):
    ingested(settings)
    resources = open_resources(settings)
    try:
        pipeline = offline_pipeline(resources.store, settings)
        with monkeypatch.context() as patched:
            def failing(*args, **kwargs):
                raise OSError("disk full")
            patched.setattr(fulltext, "on_commit", failing)
            text = "Blazegraph is a triple store written in Java."
            with pytest.raises(OSError):
                pipeline.ingest(LoadedDocument("blaze.txt", "text/plain", text, len(text)))
    finally:
        close_resources(resources)
    held, _ = index_contents(settings)
    assert not any(doc.startswith("blaze") for doc in held)
    resources = open_resources(settings)
    try:
        assert any(doc.startswith("blaze") for doc in fulltext.for_store(resources.store).held())
    finally:
        close_resources(resources)


def test_a_commit_leaves_the_index_as_a_check_of_the_store_would(store, llm_settings, fake_llm):
    """A document whose new version failed keeps its old graph but is not done: a check drops it from the index,
    so a commit does too (else a start that skips the check would differ from one that does it)."""
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(extraction([entity("Oxigraph", "TripleStore")]))
    first = pipeline.ingest(LoadedDocument("v.txt", "text/plain", "Oxigraph is a graph database.", 29))
    assert first.doc_id in fulltext.for_store(store).held()
    for _ in range(llm_settings.llm_max_retries + 1):
        fake_llm.error(500, message="model crashed")
    assert pipeline.ingest(LoadedDocument("v.txt", "text/plain", "Oxigraph is written in Rust.", 28)).status == "failed"
    assert sync_fulltext(store, store.iris, full=True) == 0


def test_a_rewrite_keeps_the_stamp_of_a_clean_close(settings):
    ingested(settings)
    before = clean_close.read(settings.store_path)
    contents = index_contents(settings)
    rewrite_store(settings.store_path)
    after = clean_close.current(settings.store_path, clean_close.read(settings.store_path))
    assert after is not None and after.epoch == before.epoch and after.files != before.files
    resources = open_resources(settings)
    try:
        assert resources.store.close_record.epoch == before.epoch
    finally:
        close_resources(resources)
    assert index_contents(settings) == contents


def test_an_unreadable_stamp_is_ignored(settings):
    ingested(settings)
    Path(str(settings.store_path) + clean_close.STAMP).write_text("{not json")
    resources = open_resources(settings)
    try:
        assert resources.store.close_record.epoch is None
        assert fulltext.for_store(resources.store).search("TDB", 5)
    finally:
        close_resources(resources)
