"""Every /context path carries the SPARQL that walks it; run on /sparql it returns the path's ends, on a minted graph
and on a graph loaded under its own prefixes; /answer returns the query whose rows hold its answers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from attest.answer.path_query import path_sparql, walks_sparql
from attest.main import create_app
from tests.answer_support import load_graph, reason
from tests.conftest import REPO
from tests.e2e.test_answer_any_graph import MOVIES


def run_sparql(client, query: str) -> list[dict]:
    response = client.post("/sparql", data={"query": query}, headers={"Accept": "application/sparql-results+json"})
    assert response.status_code == 200, response.text
    return response.json()["results"]["bindings"]


def ends(client, query: str, iri_of) -> set[str]:
    """The ?answer column as ids (entities) or values (literals)."""
    out = set()
    for row in run_sparql(client, query):
        term = row["answer"]
        out.add(iri_of(term["value"]) if term["type"] == "uri" else term["value"])
    return out


@pytest.fixture
def minted(settings):
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        state = client.app.state.resources
        load_graph(state.store, state.iris)
        reason(state.store, state.iris, settings)
        yield client


@pytest.fixture(scope="module")
def movies(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("movies")
    (tmp / "movies.ttl").write_text(MOVIES, encoding="utf-8")
    config = tmp / "attest.yaml"
    config.write_text(f"data_dir: {tmp / 'data'}\nontology_dir: {REPO / 'ontology'}\nshapes_dir: {REPO / 'shapes'}\n"
                      f"queries_dir: {REPO / 'queries'}\nprefixes:\n  movie: https://example.org/movies/\n  rel: https://example.org/rel/\n",
                      encoding="utf-8")
    subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), "load", str(tmp / "movies.ttl")],
                   check=True, capture_output=True, cwd=tmp, timeout=300,
                   env={**os.environ, "PYTHONPATH": str(REPO)})  # this checkout's package, whatever the cwd
    from attest.settings import load_settings

    with TestClient(create_app(load_settings(config)), base_url="http://localhost") as client:
        yield client


def _paths_run_to_their_ends(client, question: str, iri_of, **body) -> list[dict]:
    response = client.post("/context", json={"query": question, **body})
    assert response.status_code == 200, response.text
    paths = response.json()["paths"]
    assert paths
    for path in paths:
        found = ends(client, path["sparql"], iri_of)
        assert (path["end"] or path["value"]) in found, (path, found)
    return paths


def test_paths_on_a_minted_graph_run_on_sparql_and_return_their_ends(minted):
    state = minted.app.state.resources
    iri_of = lambda iri: state.iris.entity_id(iri) or iri  # noqa: E731
    paths = _paths_run_to_their_ends(minted, "What does Oxigraph use?", iri_of, max_hops=1)
    assert paths[0]["end"] == "rocksdb" and ends(minted, paths[0]["sparql"], iri_of) == {"rocksdb"}


def test_a_hop_held_only_by_inference_is_walked_over_the_union_default_graph(minted):
    state = minted.app.state.resources
    iri_of = lambda iri: state.iris.entity_id(iri) or iri  # noqa: E731
    # query-engine partOf oxigraph holds only in the inferred graph (prp-trp at depth 2)
    paths = _paths_run_to_their_ends(minted, "What is the query engine part of?", iri_of, max_hops=1)
    assert {"oxigraph", "database-core", "storage-layer"} <= ends(minted, paths[0]["sparql"], iri_of)


def test_paths_under_a_graphs_own_prefixes_run_on_sparql(movies):
    curie = lambda iri: iri.replace("https://example.org/movies/", "movie:")  # noqa: E731
    paths = _paths_run_to_their_ends(movies, "which films were directed by the director of Kismet", curie, max_hops=2)
    best = paths[0]
    assert best["end"] == "movie:Juarez" and ends(movies, best["sparql"], curie) == {"movie:Juarez"}  # not Kismet again
    value = _paths_run_to_their_ends(movies, "when was Kismet released", curie, max_hops=1)[0]
    assert value["value"] == "1944"


def test_answer_returns_the_query_whose_rows_hold_its_answers(movies):
    curie = lambda iri: iri.replace("https://example.org/movies/", "movie:")  # noqa: E731
    report = movies.post("/answer", json={"question": "who is the couple of the director of Kismet", "mode": "extractive"}).json()
    assert report["answers"] and report["sparql"]
    assert {a["id"] or a["value"] for a in report["answers"]} <= ends(movies, report["sparql"], curie)
    nothing = movies.post("/answer", json={"question": "zebra xylophone quantum", "mode": "extractive"}).json()
    assert nothing["sparql"] is None


def test_the_query_text_holds_iris_only_as_validated_terms():
    query = path_sparql("https://example.org/movies/Kismet", [("https://example.org/rel/directed_by", True),
                                                              ("https://example.org/rel/directed_by", False)])
    assert "<https://example.org/movies/Kismet> <https://example.org/rel/directed_by> ?x1 ." in query
    assert "?answer <https://example.org/rel/directed_by> ?x1 ." in query and "NOT IN" in query
    for bad in ("https://x.org/a> } ; DROP ALL ; SELECT * { <b", "not an iri", 'https://x.org/"'):
        with pytest.raises(ValueError):
            path_sparql(bad, [("https://example.org/rel/p", True)])
        with pytest.raises(ValueError):
            path_sparql("https://example.org/a", [(bad, True)])
    assert walks_sparql([("https://x.org/a", [("https://x.org/p", True)])] * 2).count("UNION") == 0


def test_the_prompt_slice_of_a_graph_under_its_own_prefixes(movies):
    from attest.answer.retrieve import ContextQuery
    from attest.api.sparql_generate import generator_of

    generator = generator_of(movies.app.state.resources)
    question = "which films were directed by the director of Kismet"
    context = generator.service.context(ContextQuery(query=question))
    prompt = "\n".join(m["content"] for m in generator.messages(question, context)[0])
    # the vocabulary was loaded into the store's default graph: its labels, domains and ranges are read there
    assert ('<https://example.org/rel/directed_by> "directed by": <https://example.org/rel/Film> -> '
            '<https://example.org/rel/Person>') in prompt
    assert '<https://example.org/rel/Film> "film"' in prompt and '<https://example.org/movies/Kismet> "Kismet"' in prompt
