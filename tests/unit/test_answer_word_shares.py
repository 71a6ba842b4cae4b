"""A question word that several properties are named by says less of any one of them: a hop to a value (a date) by
"date" alone weighs a share of one named by a word only its property has."""

from __future__ import annotations

import pytest

from attest.answer.lookup import GraphLookup
from attest.answer.paths import IRRELEVANT, SPELLED, PathSearch
from attest.answer.predicates import PropertyText, describing_words, question_terms, relevance_of, term_matches, word_shares
from attest.ingest import summary
from attest.ontology import load_ontology
from attest.vocab import ONT, RDFS

DATES = {"birthDate": PropertyText(label="date of birth"), "deathDate": PropertyText(label="date of death"),
         "publicationDate": PropertyText(label="publication date"), "director": PropertyText(label="director")}


def _matches(question: str) -> tuple[list, dict[str, list[tuple[float, float]]]]:
    terms = question_terms(question, [])
    return terms, {p: term_matches(terms, describing_words(text, p, False)) for p, text in DATES.items()}


def test_a_word_three_properties_are_named_by_weighs_a_third():
    terms, matches = _matches("Which date did the sitcom premiere?")
    shares = word_shares(matches.values(), SPELLED)
    weight = dict(zip([t.word for t in terms], shares))
    assert weight["date"] == 1 / 3  # date of birth, of death, publication date
    assert weight["sitcom"] == 1.0 and weight["premiere"] == 1.0  # named by none: nothing to share
    assert relevance_of(matches["deathDate"])[0] == 1.0  # unweighed, "date" names deathDate fully
    assert relevance_of(matches["deathDate"], shares=shares)[0] == 1 / 3


def test_a_word_one_property_is_named_by_keeps_its_whole_weight():
    terms, matches = _matches("What is the date of death of the director?")
    shares = word_shares(matches.values(), SPELLED)
    assert relevance_of(matches["deathDate"], shares=shares)[0] == 1.0  # "death": only deathDate is named by it
    assert relevance_of(matches["birthDate"], shares=shares)[0] == 1 / 3  # by the shared "date" only
    assert relevance_of(matches["director"], shares=shares)[0] == 1.0


def test_a_date_reached_by_a_shared_word_scores_under_one_reached_by_its_own(store, iris, settings):
    load_ontology(store, settings.ontology_dir, iris)
    person = iris.entity("jean-example")
    store.update(f"""INSERT DATA {{ GRAPH <{iris.document_graph('d')}> {{
        <{person}> <{RDFS}label> "Jean Example" ; <{ONT}deathDate> "April 10, 1999" ; <{ONT}birthDate> "1919" . }} }}""")
    summary.rebuild(store, iris)
    declared = [ONT + p for p in ("birthDate", "deathDate", "publicationDate", "inception")]

    def score(question: str, weighed: bool = True) -> dict[str, float]:
        lookup = GraphLookup(store, iris)
        search = PathSearch(lookup, question_terms(question, []), declared=lookup.properties_in_use(declared))
        if not weighed:
            search.shares = None  # as before the shares: every word a property's name holds counts whole
        return {p.hops[0].triple[1]: p.score for p in search.search([(person, 1.0, None)], 1)}

    question = "On which date did the sitcom originally premiere?"
    shared, whole = score(question), score(question, weighed=False)
    # two properties in use are named by "date" (date of birth, of death): the hop weighs half a match
    assert shared[ONT + "deathDate"] == pytest.approx(whole[ONT + "deathDate"] * (IRRELEVANT + (1 - IRRELEVANT) / 2))
    own = score("What was the date of death?")
    assert own[ONT + "deathDate"] > 1.5 * own[ONT + "birthDate"]  # "death" is deathDate's own word
