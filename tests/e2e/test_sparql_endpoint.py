"""The /sparql endpoint in-process: query forms, formats, dataset rules, errors, limits, auth and atomic updates."""

from __future__ import annotations


import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from pyoxigraph import QueryResultsFormat, RdfFormat, parse, parse_query_results

from attest.main import create_app
from tests.remote_support import embedded_only, virtuoso_differs

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

G1, G2 = "http://example.org/g1", "http://example.org/g2"
DATA = f"""INSERT DATA {{
  GRAPH <{G1}> {{ <http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice" ;
                                     <http://xmlns.com/foaf/0.1/knows> <http://example.org/bob> }}
  GRAPH <{G2}> {{ <http://example.org/bob> <http://xmlns.com/foaf/0.1/name> "Bob, \\"the\\" builder" }}
}}"""
NAMES = "SELECT ?name WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?name } ORDER BY ?name"
UPDATE = {"content-type": "application/sparql-update"}


def names(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [b["name"]["value"] for b in response.json()["results"]["bindings"]]


@pytest.fixture
def loaded(client):
    assert client.post("/sparql", content=DATA, headers=UPDATE).status_code == 204
    return client


def test_query_by_get_post_form_and_post_direct(loaded):
    expected = ["Alice", 'Bob, "the" builder']
    assert names(loaded.get("/sparql", params={"query": NAMES})) == expected
    assert names(loaded.post("/sparql", data={"query": NAMES})) == expected
    assert names(loaded.post("/sparql", content=NAMES, headers={"content-type": "application/sparql-query"})) == expected


@pytest.mark.parametrize("accept,fmt", [
    ("application/sparql-results+xml", QueryResultsFormat.XML),
    ("text/tab-separated-values", QueryResultsFormat.TSV),
    ("application/sparql-results+json", QueryResultsFormat.JSON),
])
def test_select_formats(loaded, accept, fmt):
    response = loaded.get("/sparql", params={"query": NAMES}, headers={"accept": accept})
    assert response.status_code == 200 and response.headers["content-type"].startswith(accept)
    rows = parse_query_results(response.content, fmt)
    assert [r["name"].value for r in rows] == ["Alice", 'Bob, "the" builder']


@pytest.mark.parametrize("accept", ["application/sparql-results+json", "application/sparql-results+xml"])
def test_ask_formats(loaded, accept):
    for query, expected in (("ASK { ?s ?p 'Alice' }", True), ("ASK { ?s ?p 'Carol' }", False)):
        response = loaded.get("/sparql", params={"query": query}, headers={"accept": accept})
        fmt = QueryResultsFormat.JSON if "json" in accept else QueryResultsFormat.XML
        assert bool(parse_query_results(response.content, fmt)) is expected


@pytest.mark.parametrize("accept,fmt", [
    ("text/turtle", RdfFormat.TURTLE), ("application/n-triples", RdfFormat.N_TRIPLES),
    ("application/rdf+xml", RdfFormat.RDF_XML), ("application/ld+json", RdfFormat.JSON_LD),
    ("application/n-quads", RdfFormat.N_QUADS), ("application/trig", RdfFormat.TRIG),
])
def test_construct_and_describe_formats(loaded, accept, fmt):
    query = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{G1}> {{ ?s ?p ?o }} }}"
    response = loaded.post("/sparql", data={"query": query}, headers={"accept": accept})
    assert response.status_code == 200 and response.headers["content-type"].startswith(accept)
    assert len(list(parse(response.content, fmt))) == 2
    describe = loaded.get("/sparql", params={"query": "DESCRIBE <http://example.org/bob>"}, headers={"accept": accept})
    assert describe.status_code == 200 and len(list(parse(describe.content, fmt))) == 1


def test_csv(loaded):
    response = loaded.get("/sparql", params={"query": NAMES}, headers={"accept": "text/csv"})
    assert response.headers["content-type"].startswith("text/csv")
    assert response.text == 'name\r\nAlice\r\n"Bob, ""the"" builder"\r\n'


def test_format_parameter(loaded):
    response = loaded.get("/sparql", params={"query": NAMES, "format": "csv"})
    assert response.headers["content-type"].startswith("text/csv") and response.text.startswith("name\r\n")


def test_default_graph_is_the_union_unless_the_request_or_query_names_graphs(loaded):
    assert names(loaded.get("/sparql", params={"query": NAMES})) == ["Alice", 'Bob, "the" builder']
    assert names(loaded.get("/sparql", params={"query": NAMES, "default-graph-uri": G2})) == ['Bob, "the" builder']
    # the query's own FROM is honoured, not overridden by the union default graph (regression)
    from_g1 = NAMES.replace("WHERE", f"FROM <{G1}> WHERE")
    assert names(loaded.get("/sparql", params={"query": from_g1})) == ["Alice"]
    # the protocol's dataset wins over the query's FROM
    assert names(loaded.get("/sparql", params={"query": from_g1, "default-graph-uri": G2})) == ['Bob, "the" builder']
    named = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
    response = loaded.get("/sparql", params={"query": named, "named-graph-uri": G2})
    assert [b["g"]["value"] for b in response.json()["results"]["bindings"]] == [G2]


def test_union_can_be_switched_off(settings):
    with TestClient(create_app(settings.model_copy(update={"default_graph_as_union": False})), base_url="http://localhost") as client:
        client.post("/sparql", content=DATA, headers=UPDATE)
        assert names(client.get("/sparql", params={"query": NAMES})) == []


def test_syntax_error_is_400_with_the_parser_message(client):
    response = client.get("/sparql", params={"query": "SELECT ?x WHERE { ?x ?y }"})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "SparqlSyntaxError" and "error at 1:" in body["message"]
    bad_update = client.post("/sparql", content="INSERT DATA { <http://a> }", headers=UPDATE)
    assert bad_update.status_code == 400 and "invalid SPARQL update" in bad_update.json()["message"]


def test_unservable_accept_is_406(loaded):
    response = loaded.get("/sparql", params={"query": NAMES}, headers={"accept": "text/turtle"})
    assert response.status_code == 406 and "text/csv" in response.json()["message"]
    response = loaded.get("/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"}, headers={"accept": "text/csv"})
    assert response.status_code == 406
    assert loaded.get("/sparql", params={"query": "ASK {}"}, headers={"accept": "image/png"}).status_code == 406


def test_query_text_over_the_limit_is_413(settings):
    with TestClient(create_app(settings.model_copy(update={"max_query_chars": 200})), base_url="http://localhost") as client:
        long_query = "SELECT * WHERE { ?s ?p ?o } #" + "x" * 300
        assert client.get("/sparql", params={"query": long_query}).status_code == 413
        assert client.post("/sparql", content=long_query, headers={"content-type": "application/sparql-query"}).status_code == 413


def test_body_over_the_limit_is_413(client):
    big = "INSERT DATA { <http://a> <http://b> \"" + "x" * (3 * 1024 * 1024) + "\" }"
    assert client.post("/sparql", content=big, headers=UPDATE).status_code == 413
    assert client.get("/sparql", params={"query": "ASK { ?s ?p ?o FILTER(STRLEN(STR(?o)) > 1000000) }"}).json()["boolean"] is False


@virtuoso_differs("an update request is applied operation by operation, not as one transaction; the "
                  "operations before a failing one stay applied")
def test_a_failed_update_changes_nothing(loaded):
    before = loaded.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"}).json()
    failing = f"INSERT DATA {{ <http://example.org/x> <http://example.org/y> 1 }} ; DELETE WHERE {{ GRAPH <{G1}> {{ ?s ?p ?o }} }} ; CREATE GRAPH <{G2}>"
    response = loaded.post("/sparql", content=failing, headers=UPDATE)
    assert response.status_code == 400 and "nothing was changed" in response.json()["message"]
    after = loaded.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"}).json()
    assert after == before
    assert loaded.get("/sparql", params={"query": "ASK { <http://example.org/x> ?p ?o }"}).json()["boolean"] is False


@virtuoso_differs("its default graph is always the union of all its graphs; it has no default graph of its own to write, read or drop (an INSERT without GRAPH is refused: SP031 'No plain default graph'); this test inserts into it")
def test_updates_need_the_token_when_one_is_configured(settings):
    with TestClient(create_app(settings.model_copy(update={"token": SecretStr("s3cret-token")})), base_url="http://localhost") as client:
        insert = "INSERT DATA { <http://a> <http://b> <http://c> }"
        assert client.post("/sparql", content=insert, headers=UPDATE).status_code == 401
        wrong = client.post("/sparql", data={"update": insert}, headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        assert client.get("/sparql", params={"query": "ASK { <http://a> ?p ?o }"}).json()["boolean"] is False
        ok = client.post("/sparql", content=insert, headers={**UPDATE, "authorization": "Bearer s3cret-token"})
        assert ok.status_code == 204
        assert client.get("/sparql", params={"query": "ASK { <http://a> ?p ?o }"}).json()["boolean"] is True


def test_updates_from_non_local_clients_are_refused_without_a_token(settings):
    with TestClient(create_app(settings), client=("203.0.113.9", 40000), base_url="http://localhost") as client:
        response = client.post("/sparql", content="INSERT DATA { <http://a> <http://b> <http://c> }", headers=UPDATE)
        assert response.status_code == 403
        assert client.get("/sparql", params={"query": "ASK { <http://a> ?p ?o }"}).json()["boolean"] is False


def test_using_graph_uri_scopes_the_where_clause(loaded):
    update = ("INSERT { GRAPH <http://example.org/out> { ?s a <http://example.org/Named> } } "
              "WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?n }")
    response = loaded.post("/sparql", params={"using-graph-uri": G2}, content=update, headers=UPDATE)
    assert response.status_code == 204
    query = "SELECT ?s WHERE { GRAPH <http://example.org/out> { ?s a ?t } }"
    rows = loaded.get("/sparql", params={"query": query}).json()["results"]["bindings"]
    assert [r["s"]["value"] for r in rows] == ["http://example.org/bob"]


def test_timeout_parameter(loaded):
    assert loaded.get("/sparql", params={"query": "ASK {}", "timeout": "5"}).status_code == 200
    assert loaded.get("/sparql", params={"query": "ASK {}", "timeout": "-3"}).status_code == 400


@pytest.mark.runaway
def test_runaway_query_is_answered_503_at_its_deadline(client):
    values = " ".join(f"<http://example.org/n{i}>" for i in range(120))
    runaway = (f"SELECT * WHERE {{ VALUES ?a {{ {values} }} VALUES ?b {{ {values} }} VALUES ?c {{ {values} }} "
               f"VALUES ?d {{ {values} }} }} ORDER BY ?d ?c ?b ?a")
    response = client.get("/sparql", params={"query": runaway, "timeout": "1"})
    assert response.status_code == 503 and "deadline" in response.json()["message"]


def test_service_description(client):
    response = client.get("/sparql", headers={"accept": "text/turtle"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/turtle")
    triples = list(parse(response.content, RdfFormat.TURTLE))
    endpoint = [t.object.value for t in triples if t.predicate.value.endswith("#endpoint")]
    assert endpoint == ["http://localhost/sparql"]
    assert client.get("/sparql", headers={"accept": "text/html"}).status_code == 200


def test_methods_other_than_get_and_post_are_refused(client):
    assert client.put("/sparql", params={"query": "ASK {}"}).status_code == 405


def test_injection_attempts_in_dataset_parameters_fail_safely(loaded):
    for evil in ("http://a> } ; DROP ALL ; <http://b", "http://a b", 'http://a"'):
        assert loaded.get("/sparql", params={"query": NAMES, "default-graph-uri": evil}).status_code == 400
        update = "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }"
        assert loaded.post("/sparql", params={"using-graph-uri": evil}, content=update, headers=UPDATE).status_code == 400
    assert names(loaded.get("/sparql", params={"query": NAMES})) == ["Alice", 'Bob, "the" builder']


def test_csv_of_a_big_result_is_complete(client):
    quads = "\n".join(f'<http://example.org/s{i}> <http://example.org/p> "value {i}" .' for i in range(20000))
    assert client.put("/store", params={"graph": G1}, content=quads,
                      headers={"content-type": "application/n-triples"}).status_code == 201
    response = client.get("/sparql", params={"query": f"SELECT ?o WHERE {{ GRAPH <{G1}> {{ ?s ?p ?o }} }}"},
                          headers={"accept": "text/tab-separated-values"})
    assert response.status_code == 200 and len(response.text.splitlines()) == 20001


@embedded_only
def test_in_process_mode_serves_the_same_protocol(settings):
    with TestClient(create_app(settings.model_copy(update={"sparql_in_process": True})), base_url="http://localhost") as client:
        assert client.post("/sparql", content=DATA, headers=UPDATE).status_code == 204
        assert names(client.get("/sparql", params={"query": NAMES})) == ["Alice", 'Bob, "the" builder']
        from_g1 = NAMES.replace("WHERE", f"FROM <{G1}> WHERE")
        assert names(client.post("/sparql", data={"query": from_g1})) == ["Alice"]
        assert client.get("/sparql", params={"query": NAMES}, headers={"accept": "text/turtle"}).status_code == 406
        construct = client.get("/sparql", params={"query": "CONSTRUCT { <s> <p> 1 } WHERE {}"},
                               headers={"accept": "application/n-triples"})
        assert construct.text == '<http://localhost/s> <http://localhost/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
        assert type(client.app.state.resources.sparql_executor).__name__ == "ThreadedExecutor"
