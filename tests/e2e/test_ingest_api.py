"""POST/GET/DELETE /documents and GET /entities/{id} over the real app (in-process client and a live server)."""

from __future__ import annotations

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from attest.main import create_app
from tests.ingest_support import entity, extraction, relation

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

TEXT = "Oxigraph is a graph database written in Rust. Oxigraph uses RocksDB for storage."


def post_text(client, text=TEXT, name="oxigraph.txt", **kw):
    return client.post("/documents", json={"text": text, "name": name}, **kw)


def test_post_json_then_unchanged_then_list_detail_and_delete(client):
    first = post_text(client)
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["report"]["status"] == "done" and body["report"]["outcome"] == "new"
    assert "offline rule extractor" in body["mode"]
    doc_id = body["id"]
    again = post_text(client)
    assert again.status_code == 200 and again.json()["report"]["outcome"] == "unchanged"

    listed = client.get("/documents").json()
    assert listed["count"] == 1 and listed["documents"][0]["id"] == doc_id
    detail = client.get(f"/documents/{doc_id}").json()
    assert detail["status"] == "done" and detail["source"] == "oxigraph.txt"
    assert detail["chunk_status"][0]["status"] in ("done", "quarantined")
    assert detail["report"]["entities"] >= 2 and detail["graph"].endswith(f"graph/document/{doc_id}")

    assert client.get("/entities/oxigraph").status_code == 200
    assert client.delete(f"/documents/{doc_id}").status_code == 204
    assert client.get(f"/documents/{doc_id}").status_code == 404
    assert client.get("/entities/oxigraph").status_code == 404  # its inferred consequences went with it
    assert client.delete(f"/documents/{doc_id}").status_code == 404
    assert client.get("/documents").json()["count"] == 0


def test_upload_markdown_file(client):
    files = {"file": ("notes.md", b"# Jena\n\nApache Jena is a framework. Apache Jena uses TDB.", "text/markdown")}
    response = client.post("/documents", files=files, headers={"X-Requested-With": "test"})  # as the UI sends it
    assert response.status_code == 201, response.text
    assert response.json()["report"]["source"] == "notes.md"


@pytest.mark.parametrize("kwargs, status, words", [
    ({"files": {"file": ("e.txt", b"", "text/plain")}}, 422, "empty"),
    ({"files": {"file": ("b.txt", b"\x00\x01\x02\x03" * 20, "text/plain")}}, 422, "binary"),
    ({"files": {"file": ("u.txt", "caf\u00e9".encode("latin-1"), "text/plain")}}, 422, "not valid UTF-8"),
    ({"files": {"file": ("esc.txt", b"\x1b", "text/plain")}}, 422, "esc.txt: document is empty after cleaning"),
    ({"json": {"text": "# \n---\n**", "name": "m.md", "media_type": "text/markdown"}}, 422, "empty after cleaning"),
    ({"files": {"file": ("i.png", b"\x89PNG\r\n", "application/octet-stream")}}, 415, "unsupported"),
    ({"files": {"file": ("big.txt", b"word " * 1000, "text/plain")}}, 413, "over the limit"),
    ({"json": {"text": ""}}, 400, "invalid JSON document"),
    ({"json": {"text": "x", "media_type": "image/png"}}, 415, "unsupported media type"),
    ({"content": b"plain body", "headers": {"content-type": "text/plain"}}, 415, "multipart/form-data"),
    ({"data": {"other": "x"}, "files": {"notfile": ("a.txt", b"abc", "text/plain")}}, 400, "field 'file'"),
])
def test_bad_input_gets_a_clear_4xx_and_stores_nothing(settings, kwargs, status, words):
    with TestClient(create_app(settings.model_copy(update={"max_file_bytes": 2000})), base_url="http://localhost") as client:
        # the header a script sends with a form's content type (attest/api/guard.py); these cases test the body
        kwargs = {**kwargs, "headers": {"X-Requested-With": "test", **kwargs.get("headers", {})}}
        response = client.post("/documents", **kwargs)
        assert response.status_code == status, response.text
        assert words in response.json()["message"]
        if "after cleaning" in words:
            assert response.json()["reason"] == "empty_after_cleaning" and response.json()["error"] == "DocumentRejected"
        assert client.get("/documents").json()["count"] == 0
        sizes = client.get("/stats").json()["graphs"]
        assert all("/graph/document/" not in g and "/graph/status/" not in g for g in sizes)


def test_writes_need_the_bearer_token_when_one_is_configured(settings):
    with TestClient(create_app(settings.model_copy(update={"token": SecretStr("s3cret")})), base_url="http://localhost") as client:
        assert post_text(client).status_code == 401
        assert post_text(client, headers={"Authorization": "Bearer wrong"}).status_code == 401
        created = post_text(client, headers={"Authorization": "Bearer s3cret"})
        assert created.status_code == 201
        doc_id = created.json()["id"]
        assert client.delete(f"/documents/{doc_id}").status_code == 401
        assert client.get(f"/documents/{doc_id}").status_code == 200  # reads stay open
        assert client.delete(f"/documents/{doc_id}", headers={"Authorization": "Bearer s3cret"}).status_code == 204


def test_entity_route_returns_label_types_facts_and_sources(client):
    post_text(client)
    body = client.get("/entities/oxigraph").json()
    assert body["label"] == "Oxigraph" and body["iri"].endswith("/entity/oxigraph")
    assert any(t.endswith("#TripleStore") or t.endswith("#Database") or t.endswith("#Software") for t in body["types"])
    assert any(t.endswith("#Entity") for t in body["types"])  # inferred (cax-sco) by the reasoner after ingest
    uses = [f for f in body["facts"] if f["predicate"].endswith("#uses")]
    assert uses and uses[0]["asserted"] and uses[0]["object"].endswith("/entity/rocksdb") and uses[0]["chunks"]
    assert 0 < uses[0]["confidence"] <= 1
    assert body["sources"] and body["sources"][0]["source"] == "oxigraph.txt"
    start, end = body["sources"][0]["start"], body["sources"][0]["end"]
    assert TEXT[start:end] == "Oxigraph"


@pytest.mark.parametrize("bad", ["no-such-entity", "x%22%20%7D%20DROP%20ALL", "-leading-dash", "a b", "x" * 300])
def test_unknown_or_malicious_entity_ids_are_404_and_change_nothing(client, bad):
    post_text(client)
    before = client.get("/stats").json()["total"]
    assert client.get(f"/entities/{bad}").status_code == 404
    assert client.get(f"/documents/{bad}").status_code == 404
    assert client.get("/stats").json()["total"] == before


def test_extraction_failure_over_http_is_502_and_status_failed(llm_settings, fake_llm):
    with TestClient(create_app(llm_settings), base_url="http://localhost") as client:
        for _ in range(llm_settings.llm_max_retries + 1):
            fake_llm.reply("{not json")
        response = post_text(client, name="broken.txt")
        assert response.status_code == 502, response.text
        body = response.json()
        assert body["error"] == "ExtractionError" and "extraction failed" in body["message"]
        detail = client.get(f"/documents/{body['id']}").json()
        assert detail["status"] == "failed" and detail["chunk_status"][0]["status"] == "failed"
        assert client.get("/entities/oxigraph").status_code == 404


def test_llm_mode_over_a_live_server(llm_settings, fake_llm):
    from tests.conftest import LiveServer

    fake_llm.reply(extraction([entity("Oxigraph", "TripleStore"), entity("RocksDB", "Database")],
                              [relation("Oxigraph", "uses", "RocksDB")]))
    with LiveServer(llm_settings) as server:
        response = httpx.post(f"{server.url}/documents", json={"text": TEXT, "name": "live.txt"}, timeout=30)
        assert response.status_code == 201, response.text
        assert response.json()["mode"].startswith("extractor: LLM test-model")
        facts = httpx.get(f"{server.url}/entities/oxigraph", timeout=10).json()["facts"]
        assert any(f["predicate"].endswith("#uses") and f["object"].endswith("/rocksdb") for f in facts)


def test_a_restarted_app_keeps_current_records_and_reasons_over_each_document(settings, iris):
    from attest.reasoner import Reasoner
    from attest.store import open_store

    with TestClient(create_app(settings), base_url="http://localhost") as first:
        assert post_text(first).status_code == 201
        assert not first.app.state.resources.reasoner.first.records_kept  # a new store: nothing stored to keep
    with TestClient(create_app(settings), base_url="http://localhost") as restarted:  # a new reasoner over the same store
        assert restarted.get("/documents/no-such-doc").status_code == 404
        idle = restarted.app.state.resources.reasoner
        assert idle is None or idle.engine is None  # reads bring no closure up
        assert post_text(restarted, text="Apache Jena uses TDB.", name="jena.txt").status_code == 201
        assert restarted.app.state.resources.reasoner.first.records_kept  # came up before the write, over current records
        assert restarted.get("/entities/apache-jena").status_code == 200
    store = open_store(settings)
    try:
        assert Reasoner(store, iris).materialize().records_kept  # the document's consequences kept it current
    finally:
        store.close()


@pytest.mark.parametrize("text", ["\x1b", "\u200b\u2060 \n", "\x1b\x1b\t"])
def test_text_that_cleans_to_nothing_is_422_and_stores_nothing(client, text):
    before = client.app.state.resources.store.graph_sizes()
    response = post_text(client, text=text, name="blank.txt")
    assert response.status_code == 422, response.text
    assert "empty" in response.json()["message"]
    assert client.app.state.resources.store.graph_sizes() == before and client.get("/documents").json()["count"] == 0
