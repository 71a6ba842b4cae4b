"""`attest answer` and `attest verify` as a user runs them: real processes on a store with a reasoned graph."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attest.ontology import load_ontology
from attest.store import open_store
from tests.answer_support import load_graph, reason
from tests.conftest import REPO, free_port


def attest(tmp_path, *args, stdin=None):
    cmd = [sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data"), *map(str, args)]
    env = {"PATH": "/usr/bin:/bin", "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
           "ATTEST_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}  # nothing listens there
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, input=stdin)


@pytest.fixture
def graph(settings, iris):
    store = open_store(settings)
    try:
        load_ontology(store, settings.ontology_dir, iris)
        load_graph(store, iris)
        reason(store, iris, settings)
    finally:
        store.close()


def test_answer_prints_claims_with_confidence_and_readable_citations(tmp_path, graph):
    proc = attest(tmp_path, "answer", "What does Oxigraph use?")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "mode: extractive" in out and "no LLM answered" in out
    assert "  1.00  Oxigraph uses RocksDB [1]." in out  # the fact that names the answer, its marker a numbered reference
    assert "<<" not in out.split("citations:")[0]
    assert "relation Oxigraph uses RocksDB: asserted, 1.00" in out


def test_verify_file_shows_scores_traces_and_removed_claims(tmp_path, graph):
    text = tmp_path / "answer.txt"
    text.write_text("The query engine is part of Oxigraph <<relation:query-engine|partOf|oxigraph>>. "
                    "NASA built it <<entity:nasa>>.\n")
    proc = attest(tmp_path, "verify", text)
    assert proc.returncode == 0, proc.stderr
    assert "  0.80  The query engine is part of Oxigraph [1]." in proc.stdout
    assert "  0.00  NASA built it [2].  (low_confidence, removed)" in proc.stdout
    assert "inferred, depth 2, 0.80" in proc.stdout and "prp-trp (depth 2)" in proc.stdout


def test_verify_reads_stdin_and_prints_json(tmp_path, graph):
    import json

    proc = attest(tmp_path, "verify", "-", "--json", stdin="Oxigraph <<entity:oxigraph>>.")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["confidence"] == 1.0


@pytest.mark.parametrize("args,message", [
    (["answer", "q", "--max-hops", "4"], "between 0 and 3"),
    (["answer", "x" * 10241], "10240 bytes"),
    (["verify", "missing.txt"], "cannot read"),
])
def test_bad_input_is_a_clear_message(tmp_path, graph, args, message):
    proc = attest(tmp_path, *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
