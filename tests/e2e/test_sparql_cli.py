"""attest query / attest update: formats, files, stdin, errors with non-zero exits."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def attest(settings, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", "--data-dir", str(settings.data_dir), *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture
def data(settings):
    done = attest(settings, "update", 'INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/a> <http://example.org/p> "x, y" } }')
    assert done.returncode == 0 and "update applied" in done.stdout
    return settings


def test_query_formats(data, tmp_path):
    out = attest(data, "query", "SELECT ?o WHERE { ?s <http://example.org/p> ?o }")
    assert json.loads(out.stdout)["results"]["bindings"][0]["o"]["value"] == "x, y"
    assert attest(data, "query", "SELECT ?o WHERE { ?s <http://example.org/p> ?o }", "--format", "csv").stdout == 'o\n"x, y"\n'  # CSV's CRLF, read back in text mode
    rq = tmp_path / "q.rq"
    rq.write_text("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }")
    nt = attest(data, "query", "--file", str(rq), "--format", "ntriples")
    assert nt.stdout == '<http://example.org/a> <http://example.org/p> "x, y" .\n'
    nq = attest(data, "query", "-", "--format", "nquads", stdin=rq.read_text())
    assert nq.returncode == 0 and nq.stdout.count(" .") == 1


def test_errors_exit_non_zero_with_a_message(data):
    bad = attest(data, "query", "SELECT ?x WHERE {")
    assert bad.returncode == 1 and "invalid SPARQL query" in bad.stderr
    mismatch = attest(data, "query", "ASK {}", "--format", "turtle")
    assert mismatch.returncode == 1 and "does not fit" in mismatch.stderr
    unknown = attest(data, "query", "ASK {}", "--format", "yaml")
    assert unknown.returncode == 1 and "unknown format" in unknown.stderr
    failing = attest(data, "update", 'INSERT DATA { <http://example.org/b> <http://example.org/p> 1 } ; CREATE GRAPH <http://example.org/g>')
    assert failing.returncode == 1 and "nothing was changed" in failing.stderr
    assert attest(data, "query", "ASK { <http://example.org/b> ?p ?o }").stdout.endswith("false}")
    assert attest(data, "query").returncode != 0
