"""The read-only JSON behind the browser pages: /neighbourhood, /passages/{chunk}, /ontology/terms and files, the
depth, documents and inferred types /entities adds for them, and the pages' routes; bad input is a 4xx."""

from __future__ import annotations


import pytest
from fastapi.testclient import TestClient
from pyoxigraph import RdfFormat

from attest.ontology import term_sources
from tests.conftest import REPO

ENTITY = "https://w3id.org/attest/entity/"
ONT = "https://w3id.org/attest/ontology#"

# one document graph written by hand in Attest's layout: entities, facts, a chunk whose text sits at 100..164 of its
# document, and mentions whose spans are document offsets (the France one drifts by two characters, as cleaned text can)
DOCUMENT = """
@prefix ont: <https://w3id.org/attest/ontology#> .
@prefix att: <https://w3id.org/attest/vocab#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix e: <https://w3id.org/attest/entity/> .
e:lab a ont:Organization ; rdfs:label "Quokka Lab" ; ont:locatedIn e:grenoble .
e:grenoble a ont:City ; rdfs:label "Grenoble" ; ont:locatedIn e:france .
e:france a ont:Country ; rdfs:label "France" .
e:lab ont:uses e:quokkadb .
e:quokkadb a ont:Database ; rdfs:label "QuokkaDB" .
e:island a ont:Location ; rdfs:label "Island" .
<https://w3id.org/attest/document/notes> att:source "notes.md" .
<https://w3id.org/attest/chunk/c1> a ont:Chunk ; att:inDocument <https://w3id.org/attest/document/notes> ;
    att:charStart 100 ; att:charEnd 164 ; att:text "The Quokka Lab sits in Grenoble, and Grenoble is a city in France." .
<https://w3id.org/attest/chunk/c1/mention/lab> att:inChunk <https://w3id.org/attest/chunk/c1> ; att:denotes e:lab ;
    att:charStart 104 ; att:charEnd 114 .
<https://w3id.org/attest/chunk/c1/mention/grenoble> att:inChunk <https://w3id.org/attest/chunk/c1> ;
    att:denotes e:grenoble ; att:charStart 123 ; att:charEnd 131 .
<https://w3id.org/attest/chunk/c1/mention/france> att:inChunk <https://w3id.org/attest/chunk/c1> ;
    att:denotes e:france ; att:charStart 157 ; att:charEnd 163 .
"""


@pytest.fixture
def browse(settings, iris):
    from attest.main import create_app
    from attest.store import open_store

    store = open_store(settings)
    try:
        store.load(DOCUMENT, RdfFormat.TURTLE, graph=iris.document_graph("notes"))
    finally:
        store.close()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.post("/reason").status_code == 200  # lab locatedIn france (prp-trp), usedBy, relatesTo...
        yield client


def test_neighbourhood_grows_with_hops_and_drops_inferred_edges_when_asked(browse):
    one = browse.get("/neighbourhood", params={"entity": "grenoble"}).json()
    assert one["center"] == "grenoble" and one["hops"] == 1 and not one["truncated"]
    assert {n["id"]: n["hop"] for n in one["nodes"]} == {"grenoble": 0, "lab": 1, "france": 1}
    node = {n["id"]: n for n in one["nodes"]}
    assert node["france"]["class"] == ONT + "Country" and node["france"]["label"] == "France"
    edges = {(e["source"], e["label"], e["target"]): e["inferred"] for e in one["edges"]}
    assert edges[("grenoble", "locatedIn", "france")] is False
    assert edges[("lab", "locatedIn", "france")] is True  # inferred (transitive), both ends within one hop
    assert node["grenoble"]["degree"] == sum(1 for e in one["edges"] if "grenoble" in (e["source"], e["target"]))

    two = browse.get("/neighbourhood", params={"entity": "grenoble", "hops": 2}).json()
    assert {n["id"]: n["hop"] for n in two["nodes"]}["quokkadb"] == 2
    asserted_only = browse.get("/neighbourhood", params={"entity": "grenoble", "hops": 2, "inferred": "false"}).json()
    assert asserted_only["edges"] and not any(e["inferred"] for e in asserted_only["edges"])
    assert len(asserted_only["edges"]) < len(two["edges"])
    island = browse.get("/neighbourhood", params={"entity": "island"}).json()
    assert [n["id"] for n in island["nodes"]] == ["island"] and island["edges"] == []


@pytest.mark.parametrize("params, status", [
    ({}, 422),  # no entity
    ({"entity": "grenoble", "hops": 0}, 422),
    ({"entity": "grenoble", "hops": 3}, 422),
    ({"entity": "grenoble", "inferred": "maybe"}, 422),
    ({"entity": "no-such-entity"}, 404),
    ({"entity": "nope:x"}, 404),  # an undeclared prefix
    ({"entity": "a b"}, 404),
])
def test_neighbourhood_refuses_bad_input(browse, params, status):
    response = browse.get("/neighbourhood", params=params)
    assert response.status_code == status, response.text


def test_passage_gives_the_chunk_text_and_mention_spans_into_it(browse):
    body = browse.get("/passages/c1").json()
    assert body["document"] == "notes" and body["source"] == "notes.md"
    assert (body["start"], body["end"]) == (100, 164)
    text = body["text"]
    found = {m["entity"]: text[m["start"]:m["end"]] for m in body["mentions"]}
    # spans moved from document offsets to the text's, the drifted one realigned on its surface form
    assert found == {"lab": "Quokka Lab", "grenoble": "Grenoble", "france": "France"}


@pytest.mark.parametrize("chunk, status", [("no-such-chunk", 404), ("a%20b", 400), ("x" * 201, 400)])
def test_passage_refuses_bad_ids(browse, chunk, status):
    assert browse.get(f"/passages/{chunk}").status_code == status


def test_ontology_terms_have_trees_counts_and_the_line_that_defines_them(browse):
    body = browse.get("/ontology/terms").json()
    classes = {c["iri"]: c for c in body["classes"]}
    city = classes[ONT + "City"]
    assert city["label"] == "city" and ONT + "Location" in city["parents"] and city["entities"] == 1
    assert classes[ONT + "Location"]["entities"] == 3  # Island, and by cax-sco the city and the country
    located = next(p for p in body["properties"] if p["iri"] == ONT + "locatedIn")
    assert "TransitiveProperty" in located["characteristics"] and located["kind"] == "ObjectProperty"
    assert located["range"] == [ONT + "Location"]
    line = (REPO / "ontology" / located["file"]).read_text(encoding="utf-8").splitlines()[located["line"] - 1]
    assert line.startswith("ont:locatedIn ")
    assert body["files"] == ["core.ttl", "general.ttl", "relations.ttl"]


def test_term_sources_read_prefixes_and_full_iris(tmp_path):
    (tmp_path / "a.ttl").write_text("@prefix x: <http://x.org/#> .\n\n<http://x.org/#A> a <http://www.w3.org/2002/07/owl#Class> .\n"
                                    "x:B a <http://www.w3.org/2002/07/owl#Class> ;\n    x:p x:A .\n  x:C x:p x:A .\n",
                                    encoding="utf-8")
    assert term_sources(tmp_path) == {"http://x.org/#A": ("a.ttl", 3), "http://x.org/#B": ("a.ttl", 4)}


def test_ontology_files_are_served_by_name_only(browse):
    raw = browse.get("/ontology/files/core.ttl")
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/turtle")
    assert "ont:Technology a owl:Class" in raw.text
    page = browse.get("/ui/ontology/files/relations.ttl")
    assert page.status_code == 200 and '<tr id="L73">' in page.text and "ont:partOf a owl:ObjectProperty" in page.text
    for bad in ("/ontology/files/nope.ttl", "/ontology/files/..%2Fpyproject.toml", "/ui/ontology/files/nope.ttl",
                "/ontology/files/%2E%2E"):
        assert browse.get(bad).status_code == 404, bad


def test_entity_facts_say_their_depth_documents_and_which_types_are_inferred(browse):
    body = browse.get("/entities/lab").json()
    facts = {(f["predicate"].split("#")[1], (f["object"] or "").rsplit("/", 1)[-1]): f for f in body["facts"]}
    asserted = facts[("locatedIn", "grenoble")]
    assert asserted["asserted"] and asserted["depth"] == 0 and asserted["documents"] == ["notes"]
    assert (asserted["subject_label"], asserted["object_label"]) == ("Quokka Lab", "Grenoble")
    inferred = facts[("locatedIn", "france")]
    assert not inferred["asserted"] and inferred["inferred"] and inferred["depth"] == 1 and inferred["documents"] == []
    assert ONT + "Organization" not in body["inferred_types"] and ONT + "Agent" in body["inferred_types"]


def test_pages_are_served_and_static_templates_are_not(browse):
    for path in ("/", "/ui/sparql", "/ui/ask", "/ui/entity/lab", "/ui/documents", "/ui/ontology"):
        response = browse.get(path)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"], path
        assert "__ATTEST_CONFIG__" not in response.text and '"entityBase": "https://w3id.org/attest/entity/"' in response.text
    assert 'aria-current="page">Ask' in browse.get("/ui/ask").text
    assert "cytoscape.min.js" in browse.get("/ui/entity/lab").text
    for template in ("/static/shell.html", "/static/index.html", "/static/pages/ask.html"):
        assert browse.get(template).status_code == 404
    assert browse.get("/static/pages/ask.js").status_code == 200


def test_neighbourhood_does_not_walk_on_through_a_hub(browse, monkeypatch):
    from attest.api import browse as browse_module

    monkeypatch.setattr(browse_module, "HUB_DEGREE", 3)  # every entity here has more triples than that: all are hubs
    body = browse.get("/neighbourhood", params={"entity": "grenoble", "hops": 2}).json()
    assert {n["id"] for n in body["nodes"]} == {"grenoble", "lab", "france"}  # drawn, not walked through
    assert body["truncated"] is True
