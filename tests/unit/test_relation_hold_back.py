"""The classifier's bare relatesTo is held back where text may be technical and a name of the pair has no type of its own."""

from __future__ import annotations

import numpy as np
import pytest

from attest.extract.relation_model import RelationModel
from attest.extract.rules import RuleExtractor


@pytest.fixture(scope="module")
def extractor(terms):
    """The rule extractor with a classifier that finds every pair of one sentence related by no predicate it knows:
    what is stated then depends on the hold-back alone."""
    extractor = RuleExtractor(terms)
    weights = np.array([[0.0, 6.0]], dtype=np.float32)  # "S": P(related) ~ 0.998
    extractor.relation_model = RelationModel(["S"], weights, np.zeros(2, dtype=np.float32), ["none", "related"],
                                             {"S": 0.5, "typed": 1.0})
    return extractor


def related(extractor, text: str) -> set[frozenset[str]]:
    extraction = extractor.extract(text)
    return {frozenset((r.subject, r.predicate, r.object)) for r in extraction.relations if r.predicate == "relatesTo"}


def types(extractor, text: str) -> dict[str, tuple[str | None, bool]]:
    return {m.text: (m.type, m.weak) for m in extractor.analyse(text)[1]}


def test_a_typed_name_and_a_default_one_in_prose_are_stated(extractor):
    text = "John Marsh visited Borlin in the spring."
    assert types(extractor, text) == {"John Marsh": ("Person", False), "Borlin": ("Technology", True)}
    assert related(extractor, text) == {frozenset(("John Marsh", "relatesTo", "Borlin"))}


def test_two_typed_names_are_stated_beside_technical_words(extractor):
    text = "John Marsh wrote the software at Borlin Records."
    assert types(extractor, text) == {"John Marsh": ("Person", False), "Borlin Records": ("Company", False)}
    assert related(extractor, text) == {frozenset(("John Marsh", "relatesTo", "Borlin Records"))}


def test_a_default_typed_name_beside_technical_words_is_held_back(extractor):
    # "software" is an ontology class label of a technical kind: the chunk is technical text
    text = "John Marsh wrote the software at Borlin."
    assert types(extractor, text)["Borlin"] == ("Technology", True)
    assert related(extractor, text) == set()


def test_names_of_no_type_in_a_chunk_of_no_typed_person_place_or_body_are_held_back(extractor):
    text = "Quendrel Varn praised Borlin in a letter."
    assert types(extractor, text) == {"Quendrel Varn": ("Technology", True), "Borlin": ("Technology", True)}
    assert related(extractor, text) == set()


def test_names_of_no_type_beside_a_typed_person_are_stated(extractor):
    text = "John Marsh said that Quendrel Varn praised Borlin in a letter."
    assert types(extractor, text) == {"John Marsh": ("Person", False), "Quendrel Varn": ("Technology", True),
                                      "Borlin": ("Technology", True)}
    assert frozenset(("Quendrel Varn", "relatesTo", "Borlin")) in related(extractor, text)


def test_one_technical_word_in_a_paragraph_of_people_and_places_holds_nothing_back(extractor):
    # the chunk's technical evidence (one word) is less than its prose evidence (three typed people and places)
    text = "John Marsh wrote the software at Borlin with Anna Berg in Paris."
    assert types(extractor, text)["Borlin"] == ("Technology", True)
    assert frozenset(("John Marsh", "relatesTo", "Borlin")) in related(extractor, text)


def test_beside_a_technical_name_of_a_type_of_its_own_only_its_own_pairs_are_not_related(extractor):
    # the chunk names a library (technical text), but its people and places outweigh it: the library is related to
    # nothing in general, while the prose names, and a name of no type of its own among them, may be
    text = "Anna Berg moved from Paris to Oslo, where John Marsh wrote the Zorbly library at Borlin."
    assert types(extractor, text)["Zorbly"] == ("Library", False)
    assert types(extractor, text)["Borlin"] == ("Technology", True)
    found = related(extractor, text)
    assert not any("Zorbly" in r for r in found)
    assert frozenset(("John Marsh", "relatesTo", "Oslo")) in found
    assert frozenset(("John Marsh", "relatesTo", "Borlin")) in found


def test_a_technical_chunk_relates_no_names_in_general(extractor):
    text = "John Marsh wrote the Zorbly library in Oslo."
    assert types(extractor, text)["Zorbly"] == ("Library", False)
    assert related(extractor, text) == set()


def test_an_acronym_and_its_expansion_are_not_related(extractor):
    text = "Anna Berg joined the World Wide Web Consortium (W3C) in Paris."
    found = related(extractor, text)
    assert not any("W3C" in r and "World Wide Web Consortium" in r for r in found)
    assert frozenset(("Anna Berg", "relatesTo", "W3C")) in found


def test_a_default_typed_mention_of_a_name_typed_technical_elsewhere_stays_restricted(extractor):
    text = "Anna Berg moved from Paris to Oslo, where John Marsh wrote the Zorbly library. Anna Berg praised Zorbly in Rome."
    mentions = [(m.text, m.type, m.weak) for m in extractor.analyse(text)[1] if m.text == "Zorbly"]
    assert mentions == [("Zorbly", "Library", False), ("Zorbly", "Technology", True)]
    found = related(extractor, text)
    assert not any("Zorbly" in r for r in found)
    assert frozenset(("Anna Berg", "relatesTo", "Rome")) in found
