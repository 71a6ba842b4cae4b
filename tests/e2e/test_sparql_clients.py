"""End to end: the real server (uvicorn) on a loopback port, driven by SPARQLWrapper, rdflib's stores and httpx."""

from __future__ import annotations

import httpx
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore
from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper

EX = "http://example.org/"
INSERT = f'INSERT DATA {{ GRAPH <{EX}g> {{ <{EX}alice> <{EX}knows> <{EX}bob> . <{EX}bob> <{EX}name> "Bob" }} }}'


def test_sparqlwrapper_update_select_ask_construct(live_server):
    endpoint = f"{live_server.url}/sparql"
    update = SPARQLWrapper(endpoint, updateEndpoint=endpoint)
    update.addCustomHttpHeader("X-Requested-With", "SPARQLWrapper")  # its updates are forms (docs/security.md)
    update.setMethod(POST)
    update.setQuery(INSERT)
    update.query()

    sparql = SPARQLWrapper(endpoint)
    sparql.setReturnFormat(JSON)
    sparql.setQuery(f"SELECT ?who WHERE {{ <{EX}alice> <{EX}knows> ?who }}")
    rows = sparql.queryAndConvert()["results"]["bindings"]
    assert [r["who"]["value"] for r in rows] == [f"{EX}bob"]

    sparql.setQuery(f"ASK {{ <{EX}bob> <{EX}name> 'Bob' }}")
    assert sparql.queryAndConvert()["boolean"] is True

    sparql.setMethod(POST)
    sparql.setReturnFormat(TURTLE)
    sparql.setQuery(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{EX}g> {{ ?s ?p ?o }} }}")
    graph = Graph().parse(data=sparql.queryAndConvert(), format="turtle")
    assert len(graph) == 2


def test_rdflib_sparql_update_store_and_sparql_store(live_server):
    endpoint = f"{live_server.url}/sparql"
    writer = SPARQLUpdateStore(query_endpoint=endpoint, update_endpoint=endpoint)
    graph = Graph(store=writer, identifier=URIRef(f"{EX}rdflib"))
    graph.add((URIRef(f"{EX}carol"), URIRef(f"{EX}name"), Literal('Carol "C" O\'Neil\nsecond line')))
    writer.commit()

    reader = Graph(store=SPARQLStore(endpoint))
    rows = list(reader.query(f"SELECT ?n WHERE {{ <{EX}carol> <{EX}name> ?n }}"))
    assert [str(r[0]) for r in rows] == ['Carol "C" O\'Neil\nsecond line']
    assert reader.query(f"ASK {{ <{EX}carol> ?p ?o }}").askAnswer is True
    constructed = reader.query(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{EX}rdflib> {{ ?s ?p ?o }} }}").graph
    assert len(constructed) == 1


def test_plain_http_query_update_and_graph_store(live_server):
    with httpx.Client(base_url=live_server.url) as http:
        assert http.post("/sparql", content=INSERT, headers={"content-type": "application/sparql-update"}).status_code == 204
        response = http.get("/sparql", params={"query": f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{EX}g> {{ ?s ?p ?o }} }}"},
                            headers={"accept": "text/csv"})
        assert response.text.splitlines() == ["n", "2"]
        graph = http.get("/store", params={"graph": f"{EX}g"}, headers={"accept": "application/n-triples"})
        assert len(graph.text.strip().splitlines()) == 2
        bad = http.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p }"})
        assert bad.status_code == 400 and "error at" in bad.json()["message"]
        assert http.get("/store", params={"graph": f"{EX}missing"}).status_code == 404


def test_a_large_construct_streams_completely(live_server):
    lines = "\n".join(f'<{EX}s{i}> <{EX}p> "{"v" * 50} {i}" .' for i in range(15000))
    with httpx.Client(base_url=live_server.url, timeout=60) as http:
        assert http.put("/store", params={"graph": f"{EX}big"}, content=lines,
                        headers={"content-type": "application/n-triples"}).status_code == 201
        with http.stream("GET", "/sparql", params={"query": f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{EX}big> {{ ?s ?p ?o }} }}"},
                         headers={"accept": "application/n-triples"}) as response:
            assert response.status_code == 200
            body = b"".join(response.iter_bytes())
        assert len(body.splitlines()) == 15000
