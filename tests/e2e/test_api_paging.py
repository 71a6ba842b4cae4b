"""Paging where a list grows with the corpus: /entities/{id} facts and sources, capped limits, forged and stale cursors."""

from __future__ import annotations

import pytest

from attest.operations import paging


@pytest.fixture
def many(client):
    """Oxigraph mentioned in 25 documents, with a few facts each."""
    for i in range(25):
        text = f"Report {i}. Oxigraph uses RocksDB for storage. Oxigraph implements SPARQL. Apache Jena implements SPARQL."
        assert client.post("/documents", json={"text": text, "name": f"r{i}.txt"}).status_code == 201
    return client


def test_sources_and_facts_come_in_pages_that_add_up(many):
    first = many.get("/entities/oxigraph", params={"limit": 10}).json()
    assert len(first["sources"]) == 10 and first["sources_next"] and first["limit"] == 10
    seen = [(s["document"], s["start"]) for s in first["sources"]]
    cursor = first["sources_next"]
    while cursor:
        page = many.get("/entities/oxigraph", params={"limit": 10, "sources_cursor": cursor}).json()
        assert page["facts"] == [] and page["label"] == "Oxigraph"
        seen += [(s["document"], s["start"]) for s in page["sources"]]
        cursor = page["sources_next"]
    assert len(seen) == len(set(seen)) == 25  # every mention once: one per chunk that names it, 25 documents
    uses = next(f for f in first["facts"] if f["predicate"].endswith("#uses"))
    assert uses["document_count"] == 25 and 0 < len(uses["chunks"]) <= 5  # support counted, chunks bounded


def test_a_limit_over_the_maximum_is_capped_and_says_so(many):
    body = many.get("/entities/oxigraph", params={"limit": 10_000}).json()
    assert body["limit"] == paging.MAX_LIMIT and body["limit_capped"] is True
    assert many.get("/entities/oxigraph", params={"limit": 0}).status_code in (400, 422)


@pytest.mark.parametrize("cursor", ["nope", "eyJ4IjoxfQ", "A" * 400, "%00%ff"])
def test_a_forged_cursor_is_400(many, cursor):
    response = many.get("/entities/oxigraph", params={"sources_cursor": cursor})
    assert response.status_code == 400 and "cursor" in response.json()["message"]


def test_a_stale_or_foreign_cursor_is_400(many):
    cursor = many.get("/entities/oxigraph", params={"limit": 5}).json()["sources_next"]
    foreign = many.get("/entities/apache-jena", params={"sources_cursor": cursor})
    assert foreign.status_code == 400 and "another list" in foreign.json()["message"]
    wrong_list = many.get("/entities/oxigraph", params={"facts_cursor": cursor})
    assert wrong_list.status_code == 400
    many.post("/documents", json={"text": "Oxigraph uses Redis.", "name": "later.txt"})
    stale = many.get("/entities/oxigraph", params={"sources_cursor": cursor})
    assert stale.status_code == 400 and "stale" in stale.json()["message"]


def _rows(response) -> list:
    assert response.status_code == 200, response.text
    return response.json()["results"]["bindings"]


def test_named_queries_page_with_limit_and_offset(many):
    url, accept = "/queries/documents-mentioning", {"Accept": "application/sparql-results+json"}
    whole = _rows(many.get(url, params={"entity": "oxigraph"}, headers=accept))
    assert len(whole) == 25
    first = many.get(url, params={"entity": "oxigraph", "limit": 10}, headers=accept)
    assert len(_rows(first)) == 10 and first.headers["X-Attest-Next-Offset"] == "10"
    last = many.get(url, params={"entity": "oxigraph", "limit": 10, "offset": 20}, headers=accept)
    assert len(_rows(last)) == 5 and "X-Attest-Next-Offset" not in last.headers
    pages = _rows(first) + _rows(many.get(url, params={"entity": "oxigraph", "limit": 10, "offset": 10}, headers=accept)) + _rows(last)
    assert pages == whole  # the same order, every row once
    capped = many.get(url, params={"entity": "oxigraph", "limit": 100_000}, headers=accept)
    assert capped.headers["X-Attest-Limit-Capped"] == "10000" and len(_rows(capped)) == 25


@pytest.mark.parametrize("params", [{"limit": "abc"}, {"limit": "0"}, {"offset": "-1"}, {"limit": ["1", "2"]}])
def test_bad_named_query_paging_is_400(many, params):
    response = many.get("/queries/documents-mentioning", params={"entity": "oxigraph", **params})
    assert response.status_code == 400, response.text


def test_documents_come_in_pages_with_counts_by_status(many):
    first = many.get("/documents", params={"limit": 10}).json()
    assert first["count"] == 25 and first["by_status"] == {"done": 25} and len(first["documents"]) == 10
    ids = [d["id"] for d in first["documents"]]
    cursor = first["next"]
    while cursor:
        page = many.get("/documents", params={"limit": 10, "cursor": cursor}).json()
        ids += [d["id"] for d in page["documents"]]
        cursor = page["next"]
    assert len(ids) == len(set(ids)) == 25
    sources = [d["source"] for d in many.get("/documents", params={"limit": 100}).json()["documents"]]
    assert sources == sorted(sources)
    assert many.get("/documents", params={"cursor": "forged"}).status_code == 400


def test_cli_status_pages_and_says_how_many_more(tmp_path):
    import subprocess
    import sys

    from tests.conftest import REPO

    for i in range(4):
        (tmp_path / f"n{i}.txt").write_text(f"Note {i}. Oxigraph uses RocksDB.", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"), "ATTEST_SHAPES_DIR": str(REPO / "shapes"),
           "ATTEST_QUERIES_DIR": str(REPO / "queries"), "ATTEST_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    run = lambda *args: subprocess.run([sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data"), *args],  # noqa: E731
                                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert run("ingest", "--offline", *[str(tmp_path / f"n{i}.txt") for i in range(4)]).returncode == 0
    out = run("status", "--limit", "2").stdout
    assert out.count("done ") == 2 and "... 2 more (--offset 2)" in out and "4 documents: 4 done" in out
    assert run("status", "--limit", "2", "--offset", "2").stdout.count("done ") == 2
