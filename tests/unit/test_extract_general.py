"""A name nothing types in general prose, and a people's adjective ("American"): their types in the rule extractor."""

from __future__ import annotations

import pytest

from attest.extract.demonyms import demonyms
from attest.extract.ontology_terms import load_terms
from attest.extract.rules import RuleExtractor
from tests.conftest import REPO


@pytest.fixture(scope="module")
def rules():
    return RuleExtractor(load_terms(REPO / "ontology"))


def types(extractor, text):
    return {e.name: e.type for e in extractor.extract(text).entities}


@pytest.mark.parametrize("text", [
    "Tom Hanks is an American actor.",
    "The Godfather is a 1972 American film directed by Francis Ford Coppola.",
    "Dallas is the American city of the year.",
    "He was born to American parents in Paris.",
    "He is American.",
])
def test_a_peoples_adjective_is_its_country_wherever_written(rules, text):
    assert types(rules, text)["American"] == "Country"


def test_adjectives_of_nationality_come_from_the_places_lexicon_and_name_their_country():
    table = demonyms()
    assert table["Norwegian"] == "Norway" and table["Canadian"] == "Canada" and table["Japanese"] == "Japan"
    assert table["Italian"] == "Italy" and table["German"] == "Germany" and table["Pakistani"] == "Pakistan"
    assert table["American"] == "United States" and table["French"] == "France"  # irregular: data/demonyms.txt
    assert "Jordan" not in table and "Republican" not in table  # a country itself; a common word's form


def test_in_prose_a_name_nothing_types_is_a_named_thing_not_a_technology(rules):
    found = types(rules, "Marvel Comics hired John Smith in London.")
    assert found["Marvel Comics"] == "NamedThing" and found["John Smith"] == "Person" and found["London"] == "City"


def test_in_technical_text_and_in_the_technology_shape_the_default_stands(rules):
    assert types(rules, "Zorbly uses Quuxbase.")["Zorbly"] == "Technology"
    assert types(rules, "DBpedia is based in Leipzig, and Leipzig is located in Germany.")["DBpedia"] == "Technology"
    assert types(rules, "Marvel Comics uses the SPARQL query language.")["Marvel Comics"] == "Technology"


def test_with_the_general_module_off_the_default_is_technology():
    off = RuleExtractor(load_terms(REPO / "ontology", off=["general"]))
    assert types(off, "Marvel Comics hired John Smith in London.")["Marvel Comics"] == "Technology"


def test_a_known_label_of_no_known_kind_yields_to_a_type_the_graph_has_for_it(terms):
    for known in ([("Ann Lee", "NamedThing"), ("Ann Lee", "Person")], [("Ann Lee", "Person"), ("Ann Lee", "NamedThing")]):
        assert RuleExtractor(terms, known_entities=known).known["Ann Lee"] == "Person"


def test_a_continents_adjective_is_a_location_not_a_country(rules):
    assert types(rules, "Tom Hanks is a European actor.")["European"] == "Location"
