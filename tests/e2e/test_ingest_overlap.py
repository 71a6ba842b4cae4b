"""Overlapped bulk ingest (a worker extracts and gates coming documents): the same store, index and reports as one
document after another, in order, with batches all or nothing and a worker that dies replaced."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, Literal, Quad

from attest.ingest.load import collect_files
from attest.ingest.overlap import ingest_files, start_worker
from attest.ingest.session import open_session
from attest.ontology import load_ontology
from attest.store import open_store
from attest.vocab import ATT, Iris

REPO = Path(__file__).resolve().parents[2]
PROSE = [
    "Marie Curie was a Polish-French physicist. She was born in Warsaw. She worked at the University of Paris.",
    "The Journal of Psychotherapy Integration is published by the American Psychological Association in Washington.",
    "Franz Joseph I of Austria was the Emperor of Austria. He was married to Elisabeth of Bavaria.",
    "Oxigraph is a triple store written in Rust. Oxigraph implements SPARQL. Oxigraph uses RocksDB for storage.",
    "Der Hund läuft schnell über die Wiese und bellt laut, während die Kinder spielen.",
]


def corpus(folder: Path) -> list[tuple[Path, str]]:
    """The demo corpus, some prose, the same text under a second name, and a file that is refused (empty)."""
    folder.mkdir()
    for path in (REPO / "demo" / "corpus").iterdir():
        shutil.copy(path, folder / path.name)
    for i, text in enumerate(PROSE):
        (folder / f"prose-{i}.txt").write_text(text, encoding="utf-8")
    (folder / "prose-copy.txt").write_text(PROSE[0], encoding="utf-8")
    (folder / "empty.txt").write_text("   \n", encoding="utf-8")
    files = collect_files([folder])
    return files[:9] + [files[3]] + files[9:]  # one document twice: the second sees the first committed


def normalized(quad: Quad) -> tuple | None:
    """A quad as a comparable tuple; timestamps and the reasoner's run stamp differ by design between runs (None:
    left out), and blank nodes are named apart by each load of the ontology (compared by shape)."""
    if isinstance(quad.object, Literal) and quad.object.datatype.value.endswith("#dateTime"):
        return None
    if quad.predicate.value == ATT + "closureStamp":
        return None
    return tuple("_:b" if isinstance(t, BlankNode) else str(t) for t in (quad.subject, quad.predicate, quad.object,
                                                                          quad.graph_name))


def index_rows(data_dir: Path) -> dict[str, list]:
    db = sqlite3.connect(data_dir / "fulltext.sqlite")
    try:
        return {"chunks": sorted(db.execute("SELECT * FROM chunks")),
                **{table: sorted(db.execute(f"SELECT * FROM {table}"))
                   for table in ("labels", "mentions", "links", "topics", "documents")}}
    finally:
        db.close()


def run(settings, data_dir: Path, files, ahead: int, kill_worker_after: int | None = None):
    settings = settings.model_copy(update={"data_dir": data_dir, "ingest_batch_quads": 1500})
    store = open_store(settings)
    try:
        load_ontology(store, settings.ontology_dir, Iris(settings.base_iri), settings.ontology_modules_off)
        pipeline = open_session(store, settings, offline=True).pipeline
        worker = start_worker(pipeline) if ahead else None
        reports, batches = [], []
        try:
            with pipeline.batched(settings.ingest_batch_quads, batches.append, background=ahead > 0):
                for report in ingest_files(pipeline, files, ahead=ahead, worker=worker):
                    reports.append(report)
                    if kill_worker_after is not None and len(reports) == kill_worker_after:
                        assert worker is not None
                        os.kill(worker.pid(), signal.SIGKILL)
        finally:
            if worker is not None:
                worker.close()
        quads = sorted(q for q in map(normalized, store.quads()) if q is not None)
        waited = "extract wait" in pipeline.clock.wall
    finally:
        store.close()
    summary = [(r.source, r.outcome, r.status, r.chunks, r.entities, r.relations, r.triples, r.message, r.warnings,
                [q["message"] for q in r.quarantined], r.rejected_items) for r in reports]
    return summary, batches, quads, index_rows(data_dir), waited


@pytest.mark.slow
def test_overlapped_ingest_stores_what_one_after_another_stores(settings, tmp_path):
    files = corpus(tmp_path / "corpus")
    one_by_one = run(settings, tmp_path / "sequential", files, ahead=0)
    overlapped = run(settings, tmp_path / "overlapped", files, ahead=3)
    reports, batches, quads, index, waited = overlapped
    assert waited and not one_by_one[4]  # the worker extracted in the overlapped run, nothing waited on one before
    assert [r[1] for r in reports].count("unchanged") == 1 and "rejected" in [r[1] for r in reports]
    assert len(batches) > 1  # several bulk batches: their boundaries fall at the same documents
    assert any(r[9] for r in reports)  # the demo corpus has quarantined items: the gate's findings came back
    assert reports == one_by_one[0]
    assert batches == one_by_one[1]
    assert quads == one_by_one[2]
    assert index == one_by_one[3]


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_replaced_and_the_graph_is_the_same(settings, tmp_path):
    files = corpus(tmp_path / "corpus")[:8]
    one_by_one = run(settings, tmp_path / "sequential", files, ahead=0)
    overlapped = run(settings, tmp_path / "overlapped", files, ahead=3, kill_worker_after=2)
    assert overlapped[0] == one_by_one[0] and overlapped[2] == one_by_one[2]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads child processes from /proc (Linux)")
def test_the_worker_ends_when_the_command_is_killed(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i in range(400):
        (folder / f"doc-{i:03d}.txt").write_text(f"{PROSE[i % 4]} Document {i} was written in Vienna.", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data"), "ingest",
                             "--offline", str(folder)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # a line per document without a terminal: the worker has extracted some
        if line.startswith("new "):
            break
    workers = [int(pid) for task in Path(f"/proc/{proc.pid}/task").iterdir()
               for pid in (task / "children").read_text().split()
               if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert len(workers) == 1, "the command runs one worker process"
    worker = workers[0]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the worker outlived the command that started it"
