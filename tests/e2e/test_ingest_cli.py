"""`attest ingest|status|validate` as subprocesses: bad input in a batch, summary, and crash safety under kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, free_port

TOPICS = ["Oxigraph", "Apache Jena", "RDFLib", "Blazegraph", "Virtuoso", "GraphDB", "Stardog", "AllegroGraph"]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
    env.update({
        "ATTEST_DATA_DIR": str(tmp_path / "data"),
        "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
        "ATTEST_SHAPES_DIR": str(REPO / "shapes"),
        "ATTEST_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens: offline fallback
        "ATTEST_REASON_AFTER_INGEST": "false",
        **extra,
    })
    return env


def attest(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", *args], cwd=REPO, env=env_for(tmp_path, **extra),
                          capture_output=True, text=True, timeout=300)


def write_corpus(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        a, b = TOPICS[i % len(TOPICS)], TOPICS[(i + 3) % len(TOPICS)]
        paragraphs = [f"{a} is a triple store. {a} uses RocksDB. {a} was developed by Acme Labs {i}. "
                      f"{a} implements SPARQL. {b} is part of the Semantic Web stack." for _ in range(12)]
        (folder / f"doc{i:03}.md").write_text(f"# Report {i}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")


def test_batch_with_bad_files_reports_each_and_continues(tmp_path):
    folder = tmp_path / "in"
    write_corpus(folder, 2)
    (folder / "empty.txt").write_bytes(b"")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 64)
    (folder / "latin1.txt").write_bytes("caf\u00e9 cr\u00e8me br\u00fbl\u00e9e".encode("latin-1"))
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "huge.txt").write_text("Oxigraph " * 500)
    result = attest(tmp_path, "ingest", str(folder), ATTEST_MAX_FILE_BYTES="3000")
    assert result.returncode == 1, result.stderr
    err = result.stderr
    assert "empty.txt: document is empty" in err
    assert "binary.txt: looks like a binary file" in err
    assert "latin1.txt: not valid UTF-8 text" in err
    assert "picture.png: unsupported document type .png" in err
    assert "huge.txt: file is 4500 bytes, over the limit of 3000" in err
    assert "offline rule extractor (no LLM answered" in result.stdout
    assert "documents: 2 new, 0 changed, 0 unchanged, 5 failed" in result.stdout
    status = attest(tmp_path, "status")
    assert status.returncode == 0 and "2 documents: 2 done" in status.stdout
    assert "empty.txt" not in status.stdout and "binary.txt" not in status.stdout
    validate = attest(tmp_path, "validate")
    assert validate.returncode == 0 and "2 graphs validated, 2 conform" in validate.stdout
    again = attest(tmp_path, "ingest", str(folder / "doc000.md"), str(folder / "doc001.md"), "--offline")
    assert again.returncode == 0 and "extractor: offline rule extractor (--offline)" in again.stdout
    assert "documents: 0 new, 0 changed, 2 unchanged, 0 failed" in again.stdout


def test_cli_usage_errors(tmp_path):
    assert attest(tmp_path, "ingest").returncode != 0
    missing = attest(tmp_path, "ingest", str(tmp_path / "nope"))
    assert missing.returncode != 0 and "does not exist" in missing.stderr
    no_store = attest(tmp_path, "status")
    assert no_store.returncode == 1 and "no store" in no_store.stderr
    unmerge = attest(tmp_path, "entities", "unmerge", "no-such-entity")
    assert unmerge.returncode == 1 and "no merge of any spelling into entity 'no-such-entity'" in unmerge.stderr


def consistent(tmp_path: Path) -> tuple[int, int]:
    """Open the store after a crash and check that status and graphs agree; returns (done, pending)."""
    from attest.ingest.status import StatusRegistry
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import ATT

    settings = load_settings(None, data_dir=tmp_path / "data")
    store = open_store(settings)
    try:
        iris, registry = store.iris, StatusRegistry(store, store.iris)
        assert not [g for g in store.graphs() if g.startswith(iris.staging_graph_prefix)]
        done = pending = 0
        docs = registry.list()
        for summary in docs:
            status = registry.get(summary["id"])
            graph = iris.document_graph(status.id)
            if status.state == "done":
                done += 1
                quads = list(store.quads(graph))
                hashes = {q.object.value for q in quads if q.predicate.value == ATT + "contentHash"
                          and q.subject.value == iris.document(status.id)}
                chunks = {q.subject.value for q in quads if q.predicate.value == ATT + "inDocument"}
                assert hashes == {status.content_hash}
                assert len(chunks) == len(status.chunks) and all(c.state in ("done", "quarantined") for c in status.chunks)
            else:
                assert status.state == "pending", status.state
                pending += 1
                assert not store.has_graph(graph)  # a new document interrupted mid-way left no graph
        stored = {g for g in store.graphs() if g.startswith(iris.document_graph_prefix)}
        assert stored == {iris.document_graph(d["id"]) for d in docs if d["status"] == "done"}
        return done, pending
    finally:
        store.close()


@pytest.mark.slow
def test_kill_9_mid_ingest_leaves_no_half_written_document(tmp_path):
    folder = tmp_path / "in"
    write_corpus(folder, 40)
    for kill_after in (3, 9):  # documents reported committed (batches of ~2 documents) before the kill
        proc = subprocess.Popen([sys.executable, "-m", "attest.cli", "ingest", str(folder), "--offline"], cwd=REPO,
                                env=env_for(tmp_path, ATTEST_INGEST_BATCH_QUADS="3000"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        seen = 0
        deadline = time.monotonic() + 120
        while seen < kill_after and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            if line.startswith("committed "):
                seen += int(line.split()[1])
        assert seen >= kill_after, "ingest did not get going"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
        done, pending = consistent(tmp_path)
        assert done >= kill_after and done + pending < 40
    final = attest(tmp_path, "ingest", str(folder), "--offline")
    assert final.returncode == 0, final.stderr
    assert "0 failed" in final.stdout
    assert consistent(tmp_path) == (40, 0)
    assert "40 graphs validated, 40 conform" in attest(tmp_path, "validate").stdout


def test_each_ingest_process_reasons_only_over_what_it_added(tmp_path):
    """A new process keeps the stored records (their stamp is current) and derives only the new documents'
    consequences; the records it leaves are those a full recomputation gives. A run that writes nothing
    does not reason at all."""
    folder = tmp_path / "in"
    write_corpus(folder, 2)
    reasoning = {"ATTEST_REASON_AFTER_INGEST": "true"}
    first = attest(tmp_path, "ingest", str(folder / "doc000.md"), "--offline", **reasoning)
    assert first.returncode == 0 and "reasoner: came up" in first.stdout, first.stderr
    second = attest(tmp_path, "ingest", str(folder / "doc001.md"), "--offline", **reasoning)
    assert second.returncode == 0 and "(kept the stored records)" in second.stdout, second.stdout
    unchanged = attest(tmp_path, "ingest", str(folder / "doc001.md"), "--offline", **reasoning)
    assert unchanged.returncode == 0 and "reasoner:" not in unchanged.stdout, unchanged.stdout
    kept = attest(tmp_path, "reason", **reasoning)
    assert kept.returncode == 0 and "stored records already current" in kept.stdout, kept.stdout
    full = attest(tmp_path, "reason", "--full", **reasoning)
    assert full.returncode == 0 and "s writing" in full.stdout
    counts = [line.split(": ", 1)[1].split(" (")[0] for line in (kept.stdout, full.stdout)]
    assert counts[0] == counts[1]


def test_summary_counts_mentions_and_distinct_entities_apart(tmp_path):
    for i in (1, 2):  # the same four entities in both documents, plus each one's title
        (tmp_path / f"d{i}.txt").write_text(f"Doc {i}. Oxigraph uses RocksDB. Apache Jena implements SPARQL.", encoding="utf-8")
    proc = attest(tmp_path, "ingest", "--offline", str(tmp_path / "d1.txt"), str(tmp_path / "d2.txt"))
    assert proc.returncode == 0, proc.stderr
    assert "chunks: 2, entity mentions: 10, relation statements: 4, quarantined: 0" in proc.stdout
    assert "the store now holds 6 distinct entities and 2 distinct relations between them" in proc.stdout


def test_a_file_that_cleans_to_nothing_is_refused_by_name(tmp_path):
    (tmp_path / "blank.txt").write_bytes("\u200b\x1b\n".encode())
    (tmp_path / "markup.md").write_text("# \n\n---\n\n**`\n", encoding="utf-8")  # Markdown markup only
    (tmp_path / "ok.txt").write_text("Oxigraph uses RocksDB.", encoding="utf-8")
    proc = attest(tmp_path, "ingest", "--offline", *(str(tmp_path / n) for n in ("blank.txt", "markup.md", "ok.txt")))
    assert proc.returncode == 1
    assert "rejected: blank.txt: document is empty after cleaning" in proc.stderr
    assert "rejected: markup.md: document is empty after cleaning" in proc.stderr
    assert "documents: 1 new, 0 changed, 0 unchanged, 2 failed" in proc.stdout
    status = attest(tmp_path, "status").stdout
    assert "ok.txt" in status and "blank.txt" not in status and "markup.md" not in status  # nothing stored for them


def test_a_bulk_ingest_leaves_the_store_compacted(tmp_path):
    """Its writes are not left in level-0 files: a further full compaction finds nothing to merge."""
    from pyoxigraph import Store

    write_corpus(tmp_path / "in", 20)
    result = attest(tmp_path, "ingest", str(tmp_path / "in"))
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "data" / "store"
    after_ingest = sorted(p.name for p in folder.glob("*.sst"))
    # the write-ahead logs the compaction made obsolete are gone (RocksDB deletes them on the next open)
    assert sum(p.stat().st_size for p in folder.glob("*.log")) < 4096, [(p.name, p.stat().st_size) for p in folder.glob("*.log")]
    store = Store(str(folder))
    store.optimize()
    del store
    assert len(after_ingest) == len(list(folder.glob("*.sst"))), after_ingest


def _quads(folder: Path) -> tuple[set, set]:
    from pyoxigraph import Store

    store = Store.read_only(str(folder))
    try:
        return set(store), set(store.named_graphs())
    finally:
        del store


@pytest.mark.slow
def test_attest_compact_rewrites_the_store_smaller_with_every_quad_and_a_bulk_ingest_does_when_it_pays(tmp_path):
    """Documents, status, provenance, the fact summary and the reasoner's records are the same quads after the
    rewrite; the files are smaller (LZ4 instead of uncompressed); the full-text index still finds the chunks."""
    from attest.store.embedded import EmbeddedStore
    from attest.vocab import Iris

    nothing = attest(tmp_path, "compact")  # no store yet: refused, and none is made
    assert nothing.returncode == 1 and "no store at" in nothing.stderr, nothing.stderr
    assert not (tmp_path / "data" / "store").exists()
    write_corpus(tmp_path / "in", 12)
    ingested = attest(tmp_path, "ingest", str(tmp_path / "in"), ATTEST_REASON_AFTER_INGEST="true")
    assert ingested.returncode == 0, ingested.stderr
    assert "not rewritten: ingest_rewrite is off" in ingested.stderr  # the default
    folder = tmp_path / "data" / "store"
    before, size_before = _quads(folder), sum(f.stat().st_size for f in folder.iterdir())
    assert len(before[0]) > 5000 and any("derivations" in g.value for g in before[1])

    compacted = attest(tmp_path, "compact")
    assert compacted.returncode == 0, compacted.stderr
    assert "store rewritten compactly" in compacted.stdout
    assert _quads(folder) == before
    assert sum(f.stat().st_size for f in folder.iterdir()) < 0.8 * size_before
    # nothing of the rewrite left beside the store; its clean-close stamp carried over (attest/store/clean_close.py)
    assert sorted(p.name for p in folder.parent.iterdir()) == ["fulltext.sqlite", "store", "store.closed", "store.lock",
                                                              "store.readers"]
    found = attest(tmp_path, "answer", "--mode", "extractive", "What does Oxigraph use?")
    assert found.returncode == 0 and "RocksDB" in found.stdout, found.stdout + found.stderr

    write_corpus(tmp_path / "more", 14)  # two new documents: a rewrite when the rule lets any growth through
    again = attest(tmp_path, "ingest", str(tmp_path / "more"), ATTEST_INGEST_REWRITE="true",
                   ATTEST_INGEST_REWRITE_MIN_MB="0", ATTEST_INGEST_REWRITE_GROWTH="0")
    assert again.returncode == 0, again.stderr
    assert "store rewritten compactly" in again.stderr

    holder = EmbeddedStore(folder, Iris("https://w3id.org/attest/"))  # another process has the store open
    try:
        refused = attest(tmp_path, "compact")
    finally:
        holder.close()
    assert refused.returncode == 1 and "open for writing elsewhere" in refused.stderr, refused.stderr
