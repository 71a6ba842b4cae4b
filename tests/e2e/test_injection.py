"""Injection: every parameter that reaches a query is tried with hostile values; all fail safely and change nothing.

Hostile values: IRIs with `>` and spaces, literals with quotes and newlines, `}` and UNION / DELETE / DROP
payloads. Each request must answer a 4xx or a harmless 2xx (no rows it should not have), never a 5xx, and the
store must hold exactly the same quads afterwards.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from pyoxigraph import Literal, NamedNode, Quad

from attest.main import create_app
from attest.store import open_store
from attest.vocab import ONT, RDF, RDFS

PAYLOADS = [
    'http://example.org/x> } ; DROP ALL ; INSERT DATA { <http://a> <http://b> <http://c> } #',
    "http://example.org/a b",
    'acme> ?p ?o } UNION { ?s ?p ?o',
    'x" } UNION { ?s ?p ?o } #',
    '"quoted" and \'single\'\nnew line\r\n"""',
    "} DELETE WHERE { ?s ?p ?o } #",
    "') } UNION { GRAPH ?g { ?s ?p ?o } } #",
    "<http://evil.example/>",
    "?s ?p ?o",
    "acme\n} ; CLEAR ALL",
    "acme%3E%20DROP%20ALL",
    "x'; DROP GRAPH <urn:g>; '",
    "\u0000\u202e}",
]
GUARDED = {200, 400, 404, 406, 422}  # 200 only where the value is harmlessly bound (checked per route)


@pytest.fixture
def app_client(settings, iris):
    """The app over a store seeded with two entities and a relation in one document graph."""
    store = open_store(settings)
    graph = NamedNode(iris.document_graph("doc-1"))
    acme, widget = NamedNode(iris.entity("acme")), NamedNode(iris.entity("widget"))
    store.add([
        Quad(acme, NamedNode(RDF + "type"), NamedNode(ONT + "Organization"), graph),
        Quad(acme, NamedNode(RDFS + "label"), Literal("Acme Corp"), graph),
        Quad(widget, NamedNode(RDF + "type"), NamedNode(ONT + "Technology"), graph),
        Quad(widget, NamedNode(RDFS + "label"), Literal("Widget"), graph),
        Quad(acme, NamedNode(ONT + "uses"), widget, graph),
    ])
    store.close()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        before = _snapshot(client)
        yield client
        assert _snapshot(client) == before, "an injection attempt changed the store"


def _snapshot(client) -> set[str]:
    return {str(q) for q in client.app.state.resources.store.quads()}


def _rows(reply) -> int:
    return len(reply.json()["results"]["bindings"])


def _named_queries(client) -> list[tuple[str, list[dict]]]:
    return [(q["name"], q["parameters"]) for q in client.get("/queries").json()["queries"] if q["parameters"]]


def test_named_query_parameters(app_client):
    queries = _named_queries(app_client)
    assert len(queries) >= 4
    for name, params in queries:
        for param in params:
            for payload in PAYLOADS:
                values = {p["name"]: ("acme" if p["type"] == "entity" else "ont:Organization") for p in params
                          if p["required"] and p["name"] != param["name"]}
                values[param["name"]] = payload
                reply = app_client.get(f"/queries/{name}", params=values,
                                       headers={"Accept": "application/sparql-results+json"})
                assert reply.status_code in GUARDED, (name, param["name"], payload, reply.text)
                if reply.status_code == 200:
                    # a string parameter is bound as a literal: it matches nothing here, it never widens the query
                    assert param["type"] == "string" and _rows(reply) == 0, (name, payload, reply.text)
                else:
                    assert reply.json()["message"], reply.text


def test_entity_ids_in_paths(app_client):
    assert app_client.get("/entities/acme").status_code == 200
    for payload in PAYLOADS:
        reply = app_client.get(f"/entities/{quote(payload, safe='')}")
        assert reply.status_code in {400, 404, 422}, (payload, reply.text)


def test_context_hints_query_and_document(app_client):
    for payload in PAYLOADS:
        for body in ({"query": payload}, {"query": "Acme", "entities": [payload]},
                     {"query": "Acme", "entities": ["acme", payload], "max_hops": 2},
                     {"query": "Acme", "document": payload}):
            reply = app_client.post("/context", json=body)
            assert reply.status_code in {200, 422}, (body, reply.text)
            if reply.status_code == 200:
                ids = {e.get("id") for e in reply.json()["entities"]}
                assert ids <= {"acme", "widget"}, (body, ids)


def test_verify_markers(app_client):
    for payload in PAYLOADS:
        flat = payload.replace(">", "").replace("\n", " ")
        text = (f"Acme uses Widget <<entity:{flat}>>. Also <<relation:acme|{flat}|widget>>. "
                f"And <<relation:{flat}>> with {{{{entity:{flat}}}}}.")
        reply = app_client.post("/verify", json={"text": text})
        assert reply.status_code == 200, (payload, reply.text)
        for claim in reply.json()["claims"]:
            for citation in claim["citations"]:
                assert citation["confidence"] < 1.0, (payload, citation)


def test_sparql_dataset_parameters_and_updates_over_get(app_client):
    for payload in PAYLOADS:
        for key in ("default-graph-uri", "named-graph-uri"):
            reply = app_client.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }", key: payload})
            assert reply.status_code == 400, (key, payload, reply.text)
    assert app_client.get("/sparql", params={"update": "DROP ALL"}).status_code in {400, 405}
    reply = app_client.post("/sparql", data={"query": "DROP ALL"})
    assert reply.status_code == 400


def test_graph_store_graph_names(app_client, iris):
    doc_graph = iris.document_graph("doc-1")
    for payload in PAYLOADS:
        for name in (payload, f"{doc_graph}> ; DROP ALL ; #", f"{doc_graph} x"):
            assert app_client.get("/store", params={"graph": name}).status_code in {400, 404}, name
            assert app_client.request("DELETE", "/store", params={"graph": name}).status_code in {400, 404}, name
            reply = app_client.put("/store", params={"graph": name}, content=b"<http://a> <http://b> <http://c> .",
                                   headers={"Content-Type": "application/n-triples"})
            assert reply.status_code == 400, (name, reply.text)
        path = quote(payload, safe="")
        assert app_client.get(f"/store/{path}").status_code in {400, 404}, payload
        assert app_client.request("DELETE", f"/store/{path}").status_code in {400, 404}, payload


def test_document_ids(app_client):
    for payload in PAYLOADS[:7]:  # each document request builds the ingest pipeline: keep this one short
        path = quote(payload, safe="")
        assert app_client.get(f"/documents/{path}").status_code in {400, 404, 422}, payload
        assert app_client.delete(f"/documents/{path}").status_code in {400, 404, 422}, payload


def test_answer_question_text(app_client):
    for payload in PAYLOADS[:6]:
        reply = app_client.post("/answer", json={"question": payload, "mode": "extractive"})
        assert reply.status_code in {200, 422}, (payload, reply.text)
