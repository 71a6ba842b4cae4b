"""Graph Store HTTP Protocol at /store: read, replace, merge, delete, HEAD, default graph, direct names, bad input."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from pyoxigraph import RdfFormat, parse

from attest.main import create_app
from tests.remote_support import virtuoso_differs

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

G = "http://example.org/graph/people"
TTL = {"content-type": "text/turtle"}
ALICE = '@prefix foaf: <http://xmlns.com/foaf/0.1/> . <http://example.org/alice> foaf:name "Alice" .'
BOB = '<http://example.org/bob> <http://xmlns.com/foaf/0.1/name> "Bob" .'


def triples(response, fmt=RdfFormat.TURTLE) -> set[str]:
    assert response.status_code == 200, response.text
    return {str(t) for t in parse(response.content, fmt)}


def test_put_creates_then_replaces_and_get_reads(client):
    assert client.put("/store", params={"graph": G}, content=ALICE, headers=TTL).status_code == 201
    assert client.put("/store", params={"graph": G}, content=BOB, headers={"content-type": "application/n-triples"}).status_code == 204
    got = triples(client.get("/store", params={"graph": G}, headers={"accept": "text/turtle"}))
    assert got == {'<http://example.org/bob> <http://xmlns.com/foaf/0.1/name> "Bob"'}


def test_post_merges(client):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    assert client.post("/store", params={"graph": G}, content=BOB, headers=TTL).status_code == 204
    assert len(triples(client.get("/store", params={"graph": G}))) == 2


@pytest.mark.parametrize("accept,fmt", [("application/n-triples", RdfFormat.N_TRIPLES),
                                        ("application/rdf+xml", RdfFormat.RDF_XML),
                                        ("application/ld+json", RdfFormat.JSON_LD)])
def test_get_negotiates(client, accept, fmt):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    response = client.get("/store", params={"graph": G}, headers={"accept": accept})
    assert response.headers["content-type"].startswith(accept) and len(triples(response, fmt)) == 1
    assert client.get("/store", params={"graph": G}, headers={"accept": "text/csv"}).status_code == 406


def test_unknown_graph_is_404_on_get_head_and_delete(client):
    for method in ("GET", "HEAD", "DELETE"):
        assert client.request(method, "/store", params={"graph": "http://example.org/nothing"}).status_code == 404


def test_delete_drops_the_graph(client):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    assert client.head("/store", params={"graph": G}).status_code == 200
    assert client.delete("/store", params={"graph": G}).status_code == 204
    assert client.get("/store", params={"graph": G}).status_code == 404


@virtuoso_differs("its default graph is always the union of all its graphs; it has no default graph of its own to write, read or drop (an INSERT without GRAPH is refused: SP031 'No plain default graph')")
def test_default_graph(client):
    assert client.put("/store?default", content=ALICE, headers=TTL).status_code == 204
    assert client.post("/store?default", content=BOB, headers=TTL).status_code == 204
    assert len(triples(client.get("/store?default"))) == 2
    assert client.put("/store?default", content=BOB, headers=TTL).status_code == 204
    assert len(triples(client.get("/store?default"))) == 1
    assert client.delete("/store?default").status_code == 204
    assert triples(client.get("/store?default")) == set()


def test_post_to_the_store_creates_a_graph(client, settings):
    response = client.post("/store", content=ALICE, headers=TTL)
    assert response.status_code == 201
    location = response.headers["location"]
    assert location.startswith(settings.base_iri + "graph/uploaded/")
    assert len(triples(client.get("/store", params={"graph": location}))) == 1


def test_direct_identification(client):
    assert client.put("/store/people/1", content=ALICE, headers=TTL).status_code == 201
    assert len(triples(client.get("/store/people/1"))) == 1
    assert client.get("/store", params={"graph": "http://localhost/store/people/1"}).status_code == 200


def test_multipart_post_merges_every_part(client):
    files = [("a", ("a.ttl", ALICE, "text/turtle")), ("b", ("b.nt", BOB, "application/n-triples"))]
    assert client.post("/store", params={"graph": G}, files=files, headers={"X-Requested-With": "test"}).status_code == 201
    assert len(triples(client.get("/store", params={"graph": G}))) == 2


def test_whole_dataset_download(client):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    response = client.get("/store", headers={"accept": "application/n-quads"})
    assert any(str(q.graph_name) == f"<{G}>" for q in parse(response.content, RdfFormat.N_QUADS))


def test_malformed_rdf_is_400_with_line_and_column_and_changes_nothing(client):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    broken = ALICE + '\n<http://example.org/carol> <http://xmlns.com/foaf/0.1/name> "Carol .'
    for method in ("PUT", "POST"):
        response = client.request(method, "/store", params={"graph": G}, content=broken, headers=TTL)
        assert response.status_code == 400
        body = response.json()
        assert body["line"] == 2 and body["column"] is not None
    assert len(triples(client.get("/store", params={"graph": G}))) == 1


@pytest.mark.parametrize("params,headers,status", [
    ({"graph": "not an iri"}, TTL, 400),
    ({"graph": "http://a> <http://b"}, TTL, 400),
    ({"graph": G}, {"content-type": "application/pdf"}, 415),
    ({"graph": G}, {}, 415),
])
def test_bad_writes(client, params, headers, status):
    assert client.put("/store", params=params, content=ALICE, headers=headers).status_code == status
    assert client.get("/sparql", params={"query": "ASK { GRAPH ?g { ?s ?p 'Alice' } }"}).json()["boolean"] is False


def test_graph_and_default_together_is_400(client):
    assert client.get(f"/store?default&graph={G}").status_code == 400


def test_a_trig_body_naming_other_graphs_is_refused(client):
    trig = "<http://example.org/other> { <http://a> <http://b> <http://c> }"
    response = client.put("/store", params={"graph": G}, content=trig, headers={"content-type": "application/trig"})
    assert response.status_code == 400
    assert client.get("/store", params={"graph": "http://example.org/other"}).status_code == 404


def test_body_over_the_limit_is_413(client):
    big = "<http://a> <http://b> \"" + "x" * (3 * 1024 * 1024) + "\" ."
    assert client.put("/store", params={"graph": G}, content=big, headers=TTL).status_code == 413
    assert client.get("/store", params={"graph": G}).status_code == 404


def test_writes_need_the_token(settings):
    with TestClient(create_app(settings.model_copy(update={"token": SecretStr("gsp-token")})), base_url="http://localhost") as client:
        for method in ("PUT", "POST", "DELETE"):
            assert client.request(method, "/store", params={"graph": G}, content=ALICE, headers=TTL).status_code == 401
        assert client.put("/store", params={"graph": G}, content=ALICE,
                          headers={**TTL, "authorization": "Bearer gsp-token"}).status_code == 201
        assert client.get("/store", params={"graph": G}).status_code == 200  # reads stay open


def test_writes_are_seen_by_the_next_query(client):
    client.put("/store", params={"graph": G}, content=ALICE, headers=TTL)
    assert client.get("/sparql", params={"query": "ASK { ?s ?p 'Alice' }"}).json()["boolean"] is True
    client.delete("/store", params={"graph": G})
    assert client.get("/sparql", params={"query": "ASK { ?s ?p 'Alice' }"}).json()["boolean"] is False
