"""OntologyTerms: types and predicates read from ontology/*.ttl (or the store's ontology graph), label-aware normalization."""

from __future__ import annotations


import pytest

from attest.errors import OntologyError
from attest.extract.ontology_terms import load_terms, terms_from_store
from attest.ontology import load_ontology



def test_types_are_the_entity_subclasses_of_the_ontology(terms):
    assert {"Person", "Organization", "Technology", "Location", "Concept", "Section", "TripleStore"} <= set(terms.types)
    # the root and the information resources (documents, chunks) are not extractable types
    assert not {"Entity", "Document", "Chunk", "InformationResource"} & set(terms.types)
    assert terms.types["TripleStore"].parents == {"Database"}


def test_predicates_are_the_object_properties_between_entities(terms):
    assert {"uses", "partOf", "improves", "implements", "cites", "proposes", "relatesTo", "developedBy", "locatedIn"} <= set(terms.predicates)
    # sectionOf / hasSection link to ont:Document, which is not an entity
    assert "sectionOf" not in terms.predicates and "hasSection" not in terms.predicates
    assert terms.predicates["developedBy"].domain == "Technology"
    assert terms.predicates["developedBy"].range == "Agent"
    assert terms.predicates["usedBy"].inverse == "uses"
    # owl:TransitiveProperty, read from the files: a chain of two such facts derives a third
    assert terms.predicates["locatedIn"].transitive and terms.predicates["partOf"].transitive
    assert not terms.predicates["relatesTo"].transitive and not terms.predicates["developedBy"].transitive


@pytest.mark.parametrize("written", ["part of", "part_of", "partOf", "PART-OF", "  Part  Of ", "component of",
                                     "https://w3id.org/attest/ontology#partOf", "ont:partOf"])
def test_predicate_spellings_normalize_to_the_local_name(terms, written):
    assert terms.normalize_predicate(written) == "partOf"


@pytest.mark.parametrize("written,expected", [
    ("improves on", "improves"), ("outperforms", "improves"), ("developed by", "developedBy"),
    ("based in", "locatedIn"), ("proposed", "proposes"), ("used_by", "usedBy"),
])
def test_predicate_labels_and_alt_labels(terms, written, expected):
    assert terms.normalize_predicate(written) == expected


@pytest.mark.parametrize("written,expected", [
    ("person", "Person"), ("PERSON", "Person"), ("organisation", "Organization"), ("firm", "Company"),
    ("triple store", "TripleStore"), ("triple_store", "TripleStore"), ("RDF store", "TripleStore"),
    ("research lab", "ResearchLab"), ("ont:Technology", "Technology"),
])
def test_type_spellings(terms, written, expected):
    assert terms.normalize_type(written) == expected


def test_unknown_and_ambiguous_spellings_are_none(terms):
    assert terms.normalize_type("Spaceship") is None
    assert terms.normalize_type("") is None
    assert terms.normalize_predicate("teleports") is None
    # "belongs to" is an altLabel of both partOf and memberOf: refused rather than guessed
    assert terms.normalize_predicate("belongs to") is None
    # a type name is not a predicate and vice versa
    assert terms.normalize_predicate("Person") is None and terms.normalize_type("uses") is None


def test_subtypes(terms):
    assert terms.is_subtype("TripleStore", "Technology")
    assert terms.is_subtype("Person", "Agent")
    assert not terms.is_subtype("Person", "Technology")
    assert terms.ancestors("Library") == {"Library", "Software", "Technology", "Topic"}


def test_terms_follow_the_ontology_files_not_a_fixed_list(tmp_path):
    (tmp_path / "tiny.ttl").write_text("""
@prefix ont: <https://w3id.org/attest/ontology#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ont:Entity a owl:Class .
ont:Gadget a owl:Class ; rdfs:subClassOf ont:Entity ; rdfs:label "gadget"@en ; skos:altLabel "widget"@en .
ont:wires a owl:ObjectProperty ; rdfs:label "wires"@en ; skos:altLabel "is wired to"@en ;
    rdfs:domain ont:Gadget ; rdfs:range ont:Gadget .
""", encoding="utf-8")
    tiny = load_terms(tmp_path)
    assert set(tiny.types) == {"Gadget"} and set(tiny.predicates) == {"wires"}
    assert tiny.normalize_type("Widget") == "Gadget"
    assert tiny.normalize_predicate("is wired to") == "wires"
    assert tiny.normalize_type("Person") is None


def test_broken_or_empty_ontology_is_an_error(tmp_path):
    (tmp_path / "bad.ttl").write_text("@prefix ont: <x#> . ont:A ont:b", encoding="utf-8")
    with pytest.raises(OntologyError):
        load_terms(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "nothing.ttl").write_text("# no classes\n", encoding="utf-8")
    with pytest.raises(OntologyError):
        load_terms(empty)


def test_terms_from_the_stores_ontology_graph(store, settings, iris, terms):
    load_ontology(store, settings.ontology_dir, iris)
    live = terms_from_store(store, iris.ontology_graph)
    assert set(live.types) == set(terms.types)
    assert set(live.predicates) == set(terms.predicates)
    assert live.normalize_predicate("is based on") == "uses"
