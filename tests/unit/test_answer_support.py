"""What ties evidence to a question: the names it writes, the linked entities it is about, the passages that name them,
the passages reached from those through a bridge entity, and sentences holding most of its words."""

from __future__ import annotations

import pytest

from attest.answer.asks import Asks
from attest.answer.evidence import Sentence
from attest.answer.models import ContextLink
from attest.answer.support import _writes_name, question_names, subjects, ties

QUESTION = "Who was the first president of the association which published Journal of Psychotherapy Integration?"
STOP = frozenset("who was the of which".split())
E = "https://example.org/entity/"


def _link(question: str, span: str, entity: str) -> ContextLink:
    start = question.index(span)
    return ContextLink(text=span, start=start, end=start + len(span), entities=[entity], score=1.0, ambiguous=False)


def _sentence(chunk: str, title: str, text: str, entities: list[str]) -> Sentence:
    return Sentence(chunk, "doc", 0, len(text), text, 0, 1.0, 0.5, title, [E + e for e in entities])


def _id(iri: str) -> str | None:
    return iri[len(E):] if iri.startswith(E) else None


def test_the_names_a_question_writes_leave_out_wh_words_and_single_common_words():
    assert [n for _, _, n in question_names(QUESTION)] == ["journal of psychotherapy integration"]
    assert [n for _, _, n in question_names('The writer of "Death of Samantha" married what singer?')] == \
        ["death of samantha"]
    assert question_names("Who invented the telephone?") == []


def test_what_a_question_is_about_is_its_named_links_not_the_asked_words():
    links = [_link(QUESTION, "president", "president"), _link(QUESTION, "Journal of Psychotherapy Integration", "jpi")]
    assert subjects(QUESTION, links) == {"jpi"}
    part = "Who directed the film in which Jung Joon-young made his debut?"
    assert subjects(part, [_link(part, "young", "young")]) == frozenset()  # a piece of a name links something else
    plain = "Who invented the telephone?"
    assert subjects(plain, [_link(plain, "telephone", "telephone")]) == {"telephone"}  # no name: its links


def test_passages_tied_directly_and_through_a_bridge_entity():
    links = [_link(QUESTION, "Journal of Psychotherapy Integration", "jpi")]
    journal = _sentence("c1", "Journal of Psychotherapy Integration", "The journal is published by the American "
                        "Psychological Association.", ["jpi", "apa"])
    president = _sentence("c2", "American Psychological Association", "G. Stanley Hall was its first president.", [])
    named = _sentence("c4", "Psychotherapy", "Psychotherapy is the use of psychological methods.", [])
    riemann = _sentence("c3", "Bernhard Riemann", "Riemann was the first to publish on integration.", ["riemann"])
    tied = ties(QUESTION, Asks("person"), links, [journal, president, riemann, named],
                {"c1": {E + "jpi"}, "c2": {E + "apa"}, "c3": {E + "riemann"}, "c4": {E + "psychotherapy"}}, _id, STOP)
    assert tied.chunks == {"c1", "c2"}  # a word inside the journal's name does not name "Psychotherapy"
    assert tied.supports(president) and not tied.supports(riemann) and not tied.supports(named)


def test_a_heading_the_tied_passage_names_is_a_bridge_without_a_shared_entity():
    """The extractor may give one name two entities (typed differently); the heading, written as a name, still ties."""
    links = [_link(QUESTION, "Journal of Psychotherapy Integration", "jpi")]
    journal = _sentence("c1", "Journal of Psychotherapy Integration", "It is published by the Society for Clinical "
                        "Minds.", ["jpi", "society-organization"])
    society = _sentence("c2", "Society for Clinical Minds", "William Harper was its first president.", [])
    tied = ties(QUESTION, Asks("person"), links, [journal, society], {"c2": {E + "society"}}, _id, STOP)
    assert tied.chunks == {"c1", "c2"}


def test_a_sentence_holding_most_of_the_questions_words_supports_without_a_tie():
    question = "Who was the first to publish a rigorous theory of integration?"
    most = _sentence("c3", "Bernhard Riemann", "Riemann was the first to publish a rigorous theory of integration.", [])
    some = _sentence("c5", "Carl Gauss", "Gauss was the first to publish a star catalogue.", [])
    tied = ties(question, Asks("person"), [], [most, some], {}, _id, STOP | {"to", "a"})
    assert tied.chunks == frozenset()
    assert tied.supports(most) and not tied.supports(some)


JOURNAL = "The Journal of Psychotherapy Integration is published by the Society for Clinical Minds."


@pytest.mark.parametrize("text,name,written", [
    (JOURNAL, "Society for Clinical Minds", True),
    (JOURNAL, "Psychotherapy", False),  # a piece of "Journal of Psychotherapy Integration"
    (JOURNAL, "Clinical Minds", False),  # a piece of "Society for Clinical Minds"
    (JOURNAL, "Integration", False),
    ("Engelbert Humperdinck and Sergio Franchi sang it.", "Engelbert Humperdinck", True),
    ("It was Engelbert Humperdinck's hit.", "Engelbert Humperdinck", True),
    ("It was Engelbert Humperdinck-Smith's hit.", "Engelbert Humperdinck", False),
])
def test_a_name_written_whole_not_as_a_piece_of_a_longer_one(text, name, written):
    assert _writes_name(text, name) is written
