"""Answers over a graph loaded under its own IRIs: CURIE ids, linking, relation-aware paths, hubs, whole paths, citations."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from attest.answer.ids import Ids
from attest.answer.linking import LabelMatcher
from attest.answer.lookup import LabelIndex
from attest.answer.predicates import PropertyText, describing_words, question_terms, relevance
from attest.main import create_app
from attest.vocab import PREFIXES, Iris
from tests.conftest import REPO

MOVIES = """
@prefix movie: <https://example.org/movies/> .
@prefix rel: <https://example.org/rel/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

rel:Film a rdfs:Class ; rdfs:label "film" ; skos:altLabel "movie", "movies", "films" .
rel:Person a rdfs:Class ; rdfs:label "person" ; skos:altLabel "who" .
rel:directed_by a rdf:Property ; rdfs:label "directed by" ; skos:altLabel "director", "directed" ;
    rdfs:domain rel:Film ; rdfs:range rel:Person .
rel:starred a rdf:Property ; rdfs:label "starred actors" ; skos:altLabel "actor", "acted", "starring" ;
    rdfs:domain rel:Film ; rdfs:range rel:Person .
rel:release_year a rdf:Property ; rdfs:label "release year" ; skos:altLabel "released", "year" .
rel:spouse a rdf:Property ; rdfs:label "spouse" ; skos:altLabel "couple", "married" ;
    rdfs:domain rel:Person ; rdfs:range rel:Person .

movie:Kismet rdfs:label "Kismet" ; rel:directed_by movie:William_Dieterle ; rel:starred movie:Marlene_Dietrich ;
    rel:release_year "1944"^^xsd:gYear .
movie:Salome rdfs:label "Salome Where She Danced" ; rel:directed_by movie:Charles_Lamont ; rel:starred movie:Marlene_Dietrich .
movie:Juarez rdfs:label "Juarez" ; rel:directed_by movie:William_Dieterle ; rel:release_year "1939"^^xsd:gYear .
movie:William_Dieterle rdfs:label "William Dieterle" ; rel:spouse movie:Charlotte_Hagenbruch .
movie:Charlotte_Hagenbruch rdfs:label "Charlotte Hagenbruch" .
movie:Charles_Lamont rdfs:label "Charles Lamont" .
movie:Marlene_Dietrich rdfs:label "Marlene Dietrich" .
movie:Austria rdfs:label "Austria" .
movie:Franz_Joseph rdfs:label "Franz Joseph I of Austria" ; rel:spouse movie:Elisabeth .
movie:Elisabeth rdfs:label "Empress Elisabeth" .
movie:Kismet_1920 rdfs:label "Kismet" .
"""


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("movies")
    (tmp / "movies.ttl").write_text(MOVIES, encoding="utf-8")
    hub = tmp / "hub.nt"  # a genre with 50,000 films
    hub.write_text("".join(f"<https://example.org/movies/f{i}> <https://example.org/rel/genre> <https://example.org/movies/Drama> .\n"
                           for i in range(50_000)) + '<https://example.org/movies/Drama> <http://www.w3.org/2000/01/rdf-schema#label> "Drama" .\n')
    config = tmp / "attest.yaml"
    config.write_text(f"data_dir: {tmp / 'data'}\nontology_dir: {REPO / 'ontology'}\nshapes_dir: {REPO / 'shapes'}\n"
                      f"queries_dir: {REPO / 'queries'}\nprefixes:\n  movie: https://example.org/movies/\n  rel: https://example.org/rel/\n",
                      encoding="utf-8")
    subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), "load", str(tmp / "movies.ttl"), str(hub)],
                   check=True, capture_output=True, cwd=tmp, timeout=300)
    from attest.settings import load_settings

    with TestClient(create_app(load_settings(config)), base_url="http://localhost") as client:
        yield client


def context(api, query, **body):
    response = api.post("/context", json={"query": query, **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_ids_are_curies_that_round_trip():
    ids = Ids(Iris("https://w3id.org/attest/"), {**PREFIXES, "movie": "https://example.org/movies/"})
    assert ids.of("https://example.org/movies/Kismet") == "movie:Kismet"
    assert ids.iri("movie:Kismet") == "https://example.org/movies/Kismet"
    assert ids.of("https://w3id.org/attest/entity/oxigraph") == "oxigraph" and ids.iri("oxigraph").endswith("/entity/oxigraph")
    assert ids.of("http://elsewhere.org/x") == "http://elsewhere.org/x" == ids.iri("http://elsewhere.org/x")
    assert ids.of("https://w3id.org/attest/chunk/c1") is None  # Attest's own records are not entities
    assert ids.iri("nope:x") is None and ids.iri("a b") is None and ids.iri('x"y') is None and ids.iri("<x>") is None


def test_the_longest_span_wins_and_nested_labels_are_not_seeds():
    index = LabelIndex(["Franz Joseph I of Austria", "Austria", "Kismet", "Kismet"], ["fj", "at", "k1", "k2"],
                       {"fj": "Franz Joseph I of Austria", "at": "Austria", "k1": "Kismet", "k2": "Kismet"})
    links = LabelMatcher(index).link("Who was the wife of Franz Joseph I of Austria, and who made Kismet?")
    assert [(link.text, link.iris) for link in links] == [("Franz Joseph I of Austria", ["fj"]), ("Kismet", ["k1", "k2"])]
    assert links[1].candidates == ["k1", "k2"]  # a shared label: both are candidates, and the response says so


def test_linking_folds_case_punctuation_underscores_and_diacritics():
    index = LabelIndex(["Émile Zola", "rdflib"], ["ez", "rl"], {"ez": "Émile Zola", "rl": "rdflib"})
    links = LabelMatcher(index).link("what did emile_zola write, and is RDFLib used?")
    assert [link.iris for link in links] == [["ez"], ["rl"]] and all(link.score < 1.0 for link in links)


def test_predicate_scoring_reads_altlabels_and_inverse_words():
    terms = question_terms("who is the couple of William Dieterle", [(26, 42)])
    spouse = describing_words(PropertyText(label="spouse", other=["couple"]), "spouse", inverse=False)
    directed = describing_words(PropertyText(label="directed by"), "directed_by", inverse=False)
    assert relevance(terms, spouse)[0] == 1.0 and relevance(terms, directed)[0] < 0.3
    parent = PropertyText(label="has parent", inverse=["child of", "children"])
    assert relevance(question_terms("the children of X", []), describing_words(parent, "hasParent", inverse=True))[0] == 1.0
    assert relevance(question_terms("the children of X", []), describing_words(parent, "hasParent", inverse=False))[0] == 0.0


def test_a_two_hop_question_finds_the_whole_path_and_the_answer(api):
    body = context(api, "which films were directed by the director of Kismet", max_hops=2, limit=20)
    best = body["paths"][0]
    assert best["start"] == "movie:Kismet" and best["end"] == "movie:Juarez" and len(best["relations"]) == 2
    ids = {r["id"] for r in body["relations"]}
    assert all(set(p["relations"]) <= ids for p in body["paths"])  # whole paths only
    assert body["entities"][0]["id"] == "movie:Juarez"


def test_a_value_is_an_answer_and_is_cited(api):
    body = context(api, "when was Kismet released", max_hops=1)
    assert body["paths"][0]["value"] == "1944" and body["paths"][0]["end"] is None
    report = api.post("/answer", json={"question": "when was Kismet released", "max_hops": 1, "mode": "extractive"}).json()
    assert report["answers"][0]["value"] == "1944" and report["confidence"] == 1.0
    assert api.post("/verify", json={"text": 'Kismet came out in 1944 <<relation:movie:Kismet|rel:release_year|"1944">>.'}).json()[
        "claims"][0]["citations"][0]["status"] == "asserted"


def test_extractive_answer_names_the_path_end_and_every_citation_verifies(api):
    report = api.post("/answer", json={"question": "who is the couple of the director of Kismet", "mode": "extractive"}).json()
    assert report["mode"] == "extractive" and report["answers"][0]["id"] == "movie:Charlotte_Hagenbruch"
    assert report["text"].startswith("Kismet is directed by William Dieterle <<relation:")
    assert "the spouse of William Dieterle is Charlotte Hagenbruch <<relation:" in report["text"]
    assert "<<entity:" not in report["text"]  # the answer is named by its fact, not by its label beside a chip
    cited = [c for claim in report["claims"] for c in claim["citations"]]
    assert cited and all(c["status"] in ("found", "asserted") for c in cited) and report["confidence"] == 1.0


def test_limit_never_cuts_a_path_in_half(api):
    body = context(api, "which films were directed by the director of Kismet", max_hops=2, limit=3)
    ids = {r["id"] for r in body["relations"]}
    assert len(ids) <= 3 and body["paths"] and all(set(p["relations"]) <= ids for p in body["paths"])


def test_entities_and_explain_answer_for_curies(api):
    entity = api.get("/entities/movie:William_Dieterle").json()
    assert entity["id"] == "movie:William_Dieterle" and entity["label"] == "William Dieterle"
    assert any(f["predicate"] == "https://example.org/rel/spouse" for f in entity["facts"])
    tree = api.get("/explain", params={"s": "movie:Kismet", "p": "rel:directed_by", "o": "movie:William_Dieterle"})
    assert tree.status_code == 200 and tree.json()["status"] == "asserted"
    assert api.get("/entities/nope:Kismet").status_code == 404


def test_unknown_prefix_is_not_found_and_malformed_ids_are_invalid(api):
    report = api.post("/verify", json={"text": "A <<entity:nope:Kismet>>. B <<entity:movie:Kis met>>. "
                                               "C <<relation:movie:Kismet|rel:directed_by|movie:Nobody>>."}).json()
    assert [c["citations"][0]["status"] for c in report["claims"]] == ["not_found", "invalid", "not_found"]


def test_a_hub_with_50000_neighbours_stays_within_limits(api):
    body = context(api, "which films are in the genre Drama", max_hops=2, limit=20)
    assert len(body["relations"]) <= 20 and len(body["entities"]) <= 20
    assert body["links"][0]["entities"] == ["movie:Drama"]


def test_a_question_that_links_to_nothing(api):
    body = context(api, "zebra xylophone quantum")
    assert body["entities"] == [] and body["relations"] == [] and body["paths"] == []
    report = api.post("/answer", json={"question": "zebra xylophone quantum", "mode": "extractive"}).json()
    assert report["text"] == "The knowledge graph holds nothing that matches the question." and report["answers"] == []
