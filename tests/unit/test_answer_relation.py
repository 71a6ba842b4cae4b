"""The relation a question asks about: its words (near the question word, in its clause, not its names, its relative
clauses or the kind it asks for), how many of them a sentence writes around a candidate, and the candidate of a
passage whose sentence states the relation named over the one said first."""

from __future__ import annotations

import pytest

from attest.answer.asks import asks
from attest.answer.evidence import Candidate, Sentence
from attest.answer.relation import around, relation_words
from attest.answer.retrieve import STOPWORDS
from tests.ingest_support import corpus_api, extractive_answer

CORPUS = {
    "ardis.md": "# Lena Ardis\n\nLena Ardis is a Westmere actress. She appeared in the play \"Cold Harbor\" in 1990, "
                "and she starred in the sitcom \"Rain Town\" for seven years.\n",
}


def _words(question: str) -> frozenset[str]:
    return relation_words(question, asks(question, None), STOPWORDS)


def _at(text: str, name: str) -> Candidate:
    sentence = Sentence("chunk", "doc", 0, len(text), text, 0, 1.0, 1.0, "Title")
    return Candidate(name, None, sentence, 1.0, "name", text.index(name))


def test_the_relation_is_the_clause_of_the_question_word_less_its_relative_clauses():
    words = _words("What show does a retired Orlando Magic player, who missed the entire season, host?")
    assert {"retir", "playe", "host"} <= words
    assert not words & {"misse", "entir", "seaso"}  # the relative clause describes the player
    assert not words & {"orlan", "magic"}  # a name the question writes is what it asks about, not the relation


def test_a_question_word_inside_a_relative_clause_takes_that_clause():
    assert _words("The club includes the Adelaide team that was formed in what year?") == {"forme"}
    assert _words("The film features an American actress who starred in what for seven years?") == \
        {"starr", "seven", "year"}


def test_the_kind_asked_for_is_not_the_relation():
    assert _words("Simon & Simon starred which television and movie actor from the US?") == {"starr"}
    assert "presi" in _words("Who was the first president of the association which published the journal?")
    assert "publi" not in _words("Who was the first president of the association which published the journal?")


def test_a_sentence_counts_the_relation_words_around_a_candidate():
    text = 'She appeared in the play "Cold Harbor" in 1990, and she starred in the sitcom "Rain Town" for seven years.'
    words = _words("The film features an American actress who starred in what for seven years?")
    assert around(_at(text, "Rain Town"), words) == 3
    assert around(_at(text, "Cold Harbor"), words) == 0  # "and" ends its phrase: what follows is said of the next


def test_a_coordinated_phrase_speaks_of_the_next_name_not_the_one_before():
    text = "It is a film produced by Walt Disney Animation Studios and released by Walt Disney Pictures."
    words = _words("Both were released by what label?")
    assert words == {"relea"}
    assert around(_at(text, "Walt Disney Animation Studios"), words) == 0
    assert around(_at(text, "Walt Disney Pictures"), words) == 1


def test_no_relation_words_count_nothing():
    assert around(_at("He played for Elling Rovers.", "Elling Rovers"), frozenset()) == 0


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("relation"), CORPUS) as client:
        yield client


def _first(report: dict) -> str | None:
    return (report["answers"][0].get("value") or report["answers"][0]["label"]) if report["answers"] else None


def test_the_candidate_whose_sentence_states_the_relation_is_named(api):
    """Both titles are in one sentence of the same passage (the same score before this rule; the one said first would
    win the tie): the question's relation words pick each."""
    assert _first(extractive_answer(api, "Lena Ardis starred in what for seven years?")) == "Rain Town"
    assert _first(extractive_answer(api, "Lena Ardis appeared in what play?")) == "Cold Harbor"
