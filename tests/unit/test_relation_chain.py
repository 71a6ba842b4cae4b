"""The classifier's pair of two names the phrase rules join through a third, and pairs of two nations."""

from __future__ import annotations

import numpy as np
import pytest

from attest.extract.demonyms import nations
from attest.extract.relation_model import RelationModel
from attest.extract.rules import RuleExtractor


def _extractor(terms, classes: list[str], weights: list[float]) -> RuleExtractor:
    """The rule extractor with a classifier that gives every pair of one sentence the same probabilities."""
    extractor = RuleExtractor(terms)
    extractor.relation_model = RelationModel(["S"], np.array([weights], dtype=np.float32),
                                             np.zeros(len(classes), dtype=np.float32), classes,
                                             {"S": 0.5, "typed": 0.5})
    return extractor


@pytest.fixture(scope="module")
def related(terms):
    return _extractor(terms, ["none", "related"], [0.0, 6.0])  # P(related) ~ 0.998


@pytest.fixture(scope="module")
def located(terms):
    return _extractor(terms, ["none", "related", "locatedIn>"], [0.0, 0.0, 6.0])  # the earlier name in the later


def facts(extractor, text: str) -> set[tuple[str, str, str]]:
    return {(r.subject, r.predicate, r.object) for r in extractor.extract(text).relations}


def test_prose_states_the_pair_a_chain_of_rule_facts_joins(related):
    # the rules read birthPlace and locatedIn; the person and the country are related through the city
    found = facts(related, "Anna Berg was born in Vienna, Austria.")
    assert {("Anna Berg", "birthPlace", "Vienna"), ("Vienna", "locatedIn", "Austria")} <= found
    assert ("Anna Berg", "relatesTo", "Austria") in found


def test_technical_text_leaves_the_pair_to_the_chain(related):
    # a technology named by a type of its own makes the chunk technical: the chain says how the two relate
    found = facts(related, "GraphDB is developed by Ontotext, a company headquartered in Sofia, Bulgaria.")
    assert ("Ontotext", "locatedIn", "Sofia") in found and ("Sofia", "locatedIn", "Bulgaria") in found
    assert not any({"Ontotext", "Bulgaria"} == {s, o} or {"GraphDB", "Sofia"} == {s, o} for s, _, o in found)


def test_the_fact_the_chain_derives_is_left_to_the_reasoner(located):
    found = facts(located, "The Massachusetts Institute of Technology is located in Cambridge, Massachusetts.")
    assert ("Massachusetts Institute of Technology", "locatedIn", "Cambridge") in found
    assert ("Cambridge", "locatedIn", "Massachusetts") in found
    assert not any({"Massachusetts Institute of Technology", "Massachusetts"} == {s, o} for s, _, o in found)


def test_a_peoples_adjective_and_a_nation_are_not_related(related):
    found = facts(related, "Anna Berg is a Finnish singer from Finland.")
    assert ("Anna Berg", "relatesTo", "Finland") in found
    assert not any({"Finnish", "Finland"} == {s, o} for s, _, o in found)
    listed = facts(related, "The Finnish, Swedish and Norwegian delegations met in Oslo.")
    assert ("Finnish", "relatesTo", "Oslo") in listed
    assert not any(s in {"Finnish", "Swedish", "Norwegian"} and o in {"Finnish", "Swedish", "Norwegian"}
                   for s, _, o in listed)


def test_nations():
    assert nations("Finnish", "Finland", False, True)  # its own country, either way round
    assert nations("Finland", "Finnish", True, False)
    assert nations("Swedish", "Norwegian", False, False)  # two peoples' adjectives
    assert nations("Canadian", "Peru", False, True)  # another country, typed so
    assert not nations("Canadian", "Anna Berg", False, False)  # a person of that nation
    assert not nations("Canadian", "Toronto", False, False)  # a city
    assert not nations("Finland", "Sweden", True, True)  # two countries' names: the classifier decides
