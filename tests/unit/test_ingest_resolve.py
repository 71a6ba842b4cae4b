"""Entity resolution: exact and fuzzy reuse, near misses as candidates, incompatible types never merged, stable ids."""

from __future__ import annotations

import pytest

from attest.ingest.resolve import CANDIDATE_SCORE, MERGE_SCORE, EntityIndex, label_key, slugify
from attest.vocab import Iris


@pytest.fixture
def index(terms):
    return EntityIndex(Iris("https://example.org/kg/"), terms)


def test_new_entity_gets_a_slug_id_under_the_base(index):
    r = index.resolve("Apache Jena", "Software")
    assert r.new and r.id == "apache-jena" and r.iri == "https://example.org/kg/entity/apache-jena"


def test_same_spelling_and_compatible_subtype_reuse_the_entity(index):
    first = index.resolve("RDFLib", "Library")
    again = index.resolve("rdflib", "Software")  # Library is a subclass of Software: compatible
    assert not again.new and again.iri == first.iri
    spaced = index.resolve("RDF Lib", "Library")  # same key once spaces are ignored
    assert spaced.iri == first.iri and spaced.merged and spaced.score == 100.0


def test_fuzzy_match_above_threshold_merges_and_is_marked(index):
    first = index.resolve("PostgreSQL", "Database")
    typo = index.resolve("PostgreSQl", "Database")
    assert typo.iri == first.iri
    near = index.resolve("Postgres", "Database")  # ratio ~89: a near miss, not a merge
    assert near.new and near.iri != first.iri
    assert [iri for iri, score in near.candidates] == [first.iri]
    assert CANDIDATE_SCORE <= near.candidates[0][1] < MERGE_SCORE


@pytest.mark.parametrize("first, second", [("Report 1", "Report 41"), ("GPT-3", "GPT-4"), ("ISO 9001", "ISO 9000")])
def test_spellings_that_differ_in_a_number_are_kept_apart(index, first, second):
    a = index.resolve(first, "Technology")
    b = index.resolve(second, "Technology")
    assert b.iri != a.iri and not b.merged
    assert a.iri in dict(b.candidates)  # still recorded as a near miss


def test_incompatible_types_are_never_merged(index):
    language = index.resolve("Java", "Language")
    place = index.resolve("Java", "Location")
    assert place.new and place.iri != language.iri
    assert place.id == "java-location"
    assert not place.candidates  # an incompatible entity is not even a candidate
    person = index.resolve("Oxigraph", "Person")
    software = index.resolve("Oxigraph", "Software")
    assert software.iri != person.iri


def test_sibling_types_are_incompatible(index):
    concept = index.resolve("Linked Data", "Concept")
    tech = index.resolve("Linked Data", "Technology")  # Concept and Technology are both Topics but disjoint branches
    assert tech.iri != concept.iri


def test_no_merge_rule_keeps_a_spelling_apart(terms):
    iris = Iris("https://example.org/kg/")
    entity = iris.entity("rdflib")
    index = EntityIndex(iris, terms, no_merge={(entity, label_key("RDF Lib"))})
    assert index.resolve("RDFLib", "Library").iri == entity
    split = index.resolve("RDF Lib", "Library")
    assert split.new and split.iri != entity and split.id == "rdf-lib"


def test_slugs_are_stable_ascii_and_keep_symbols_apart():
    assert slugify("Tim Berners-Lee") == "tim-berners-lee"
    assert slugify("C++") != slugify("C") and slugify("C#") != slugify("C")
    assert slugify("Größe Café") == "groe-cafe"
    assert slugify("東京").startswith("e-") and slugify("東京") == slugify("東京")
