"""Phrase-rule readings: a person at an organization, a place in a place against a list of places, hedges and months."""

from __future__ import annotations

import pytest

from attest.extract import rules_lexicon as lex
from attest.extract.rules import RuleExtractor


@pytest.fixture(scope="module")
def rules(terms):
    extractor = RuleExtractor(terms)
    extractor.relation_model = None  # the phrase rules alone
    return extractor


def facts(extractor, text: str) -> dict[tuple[str, str, str], float]:
    return {(r.subject, r.predicate, r.object): r.confidence for r in extractor.extract(text).relations}


@pytest.mark.parametrize("text,fact", [
    ("Guido van Rossum created Python while he was at CWI in Amsterdam.", ("Guido van Rossum", "worksFor", "CWI")),
    ("In 1990 the chemist Anna Berg was at the Zorbly Institute in Oslo.", ("Anna Berg", "worksFor", "Zorbly Institute")),
    ("Anna Berg, who was at the Zorbly Institute, wrote Kelp.", ("Anna Berg", "worksFor", "Zorbly Institute")),
])
def test_a_person_at_an_organization_works_for_it(rules, text, fact):
    assert facts(rules, text).get(fact, 0.0) >= 0.6


def test_at_a_place_or_said_of_no_person_is_no_employment(rules):
    # a place is where one is; a thing "at" an organization is not employed there
    assert not [f for f in facts(rules, "In 1990 the chemist Anna Berg was at Oslo in the spring.") if f[1] == "worksFor"]
    assert not [f for f in facts(rules, "The Zorbly library was at the Kelp Institute for years.") if f[1] == "worksFor"]


def test_g34_keeps_the_place_with_the_organization(rules):
    found = facts(rules, "Guido van Rossum created Python while he was at CWI in Amsterdam.")
    assert ("CWI", "locatedIn", "Amsterdam") in found
    assert not [f for f in found if {f[0], f[2]} == {"Guido van Rossum", "Amsterdam"}]


def test_a_comma_with_nothing_after_it_closes_no_apposition(rules):
    # ", in Liverpool, UK": the second comma joins a place to the place it lies in
    found = facts(rules, "It takes place at the historic Liverpool Medical Institution, in Liverpool, UK.")
    assert ("Liverpool", "locatedIn", "UK") in found


def test_a_list_of_places_is_no_place_in_a_place(rules):
    for text in ("He also served the communal governments of Florence, Siena and Forlì.",
                 "It was sold in the Philippines, Malaysia, Indonesia, Singapore, Thailand, Egypt, Kenya and Peru.",
                 "He was educated in Dhaka as well as London, Paris, and Tokyo."):
        assert not [f for f in facts(rules, text) if f[1] == "locatedIn"], text


def test_a_place_in_a_place_still_reads_where_no_list_is(rules):
    found = facts(rules, "Anna Berg was born in Troy, New York, United States.")
    assert {("Troy", "locatedIn", "New York"), ("New York", "locatedIn", "United States")} <= set(found)
    # a list whose every item is a place and its place
    found = facts(rules, "Capistrano Films has offices in Los Angeles, California and Detroit, Michigan.")
    assert {("Los Angeles", "locatedIn", "California"), ("Detroit", "locatedIn", "Michigan")} <= set(found)


def test_the_month_may_is_no_hedge(rules):
    found = facts(rules, "The course takes place during May at the Zorbly Institute in Oslo.")
    assert found.get(("Zorbly Institute", "locatedIn", "Oslo"), 0.0) >= 0.6
    assert facts(rules, "Oxigraph may use RocksDB.").get(("Oxigraph", "uses", "RocksDB"), 1.0) < 0.6


@pytest.mark.parametrize("words,k,hedge", [
    (["may", "use"], 0, True),
    (["May", "use"], 0, True),        # opening the words: the modal
    (["May", "1990", "in"], 0, False),  # a month before a number
    (["born", "5", "May", "1950"], 2, False),  # capitalized inside: the month
    (["perhaps"], 0, True),
    (["uses"], 0, False),
])
def test_hedges(words, k, hedge):
    assert lex.hedges(words, k) is hedge


def test_a_list_ending_with_the_and_a_name_is_a_list(rules):
    text = "As of 2013, the Zorbly car is available in the United States, Canada, Puerto Rico, and the Middle East."
    assert not [f for f in facts(rules, text) if f[1] == "locatedIn"]


@pytest.fixture(scope="module")
def related(terms):
    """The rule extractor with a classifier that finds every pair of one sentence related."""
    import numpy as np

    from attest.extract.relation_model import RelationModel

    extractor = RuleExtractor(terms)
    extractor.relation_model = RelationModel(["S"], np.array([[0.0, 6.0]], dtype=np.float32),
                                             np.zeros(2, dtype=np.float32), ["none", "related"], {"S": 0.5, "typed": 0.5})
    return extractor


def test_a_rule_reading_the_types_contradict_leaves_the_pair_to_the_classifier(related):
    # birthPlace needs a person: the rule's fact clashes (under the validator's bar) and no longer hides the pair
    found = facts(related, "The Zorbly Institute was born in Oslo.")
    assert found[("Zorbly Institute", "birthPlace", "Oslo")] < 0.6
    assert found.get(("Zorbly Institute", "relatesTo", "Oslo"), 0.0) >= 0.6
    # a hedged reading still does: the text does not state the fact
    found = facts(related, "Anna Berg may have been born in Oslo.")
    assert not [f for f, c in found.items() if c >= 0.6]


def test_a_role_a_peoples_adjective_opens_is_held_by_the_name_it_describes(rules):
    found = facts(rules, "Robert Cailliau, a Belgian engineer at CERN, joined the project.")
    assert found.get(("Robert Cailliau", "worksFor", "CERN"), 0.0) >= 0.6
    assert not [f for f in found if f[0] == "Belgian"]
    assert not facts(rules, "The Belgian engineer at CERN joined the project.")


def test_the_classifier_reads_the_types_as_analysed_not_as_the_rules_retype_them(terms):
    # trained on the types the analysis gives (bench/train_relations.py's collect): "Zorbly" is a default-typed name
    # there, which "works for" retypes an Organization afterwards; the classifier's feature is the analysed type's
    import numpy as np

    from attest.extract.relation_model import RelationModel

    extractor = RuleExtractor(terms)
    extractor.relation_model = RelationModel(["tt=Technology|Person"], np.array([[0.0, 6.0]], dtype=np.float32),
                                             np.array([3.0, 0.0], dtype=np.float32), ["none", "related"],
                                             {"S": 0.5, "typed": 0.5})
    found = facts(extractor, "The singer Anna Berg works for Zorbly with John Marsh.")
    assert found.get(("Anna Berg", "worksFor", "Zorbly"), 0.0) >= 0.6
    assert found.get(("Zorbly", "relatesTo", "John Marsh"), 0.0) >= 0.6
    assert not [f for f in found if {f[0], f[2]} == {"Anna Berg", "John Marsh"}]


def test_a_list_of_places_may_end_in_words(rules):
    found = facts(rules, "In Brazil, France, Romania, Italy, and others, Zorbly is the most successful record seller.")
    assert not [f for f in found if f[1] == "locatedIn"]
    found = facts(rules, "She was born in Paris, France and moved to Berlin.")
    assert ("Paris", "locatedIn", "France") in found


def test_a_closing_comma_before_a_name_of_no_place_type_is_no_place_in_a_place(rules):
    # the apposition ", Illinois," is closed before the sentence's subject; Conti is no place Illinois lies in
    found = facts(rules, "Born in Elmwood Park, Illinois, Conti went to Proviso High School.")
    assert ("Elmwood Park", "locatedIn", "Illinois") in found
    assert not [f for f in found if "Conti" in (f[0], f[2]) and f[1] == "locatedIn"]
