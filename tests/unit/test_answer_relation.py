"""The relation a question asks about: its words (near the question word, in its clause, not its names, its relative
clauses or the kind it asks for), how many of them a sentence writes around a candidate, the candidate of a passage
whose sentence states the relation named over the one said first, and a fact that states what the question says of
something else (not what it asks) kept from being its answer."""

from __future__ import annotations

import pytest

from attest.answer.asks import asks
from attest.answer.evidence import Candidate, Sentence
from attest.answer.extractive import called
from attest.answer.fit import describe
from attest.answer.predicates import PredicateWords, PropertyText, describing_words
from attest.answer.relation import around, relation_words, says_of_another
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


# the labels and alternative labels of ontology/general.ttl and relations.ttl
LABELS = {"birthPlace": ("place of birth", ["born in", "birthplace"]),
          "educatedAt": ("educated at", ["studied at", "alumnus of", "graduated from"]),
          "locatedIn": ("located in", ["based in", "headquartered in", "situated in"])}


def _predicate(local: str) -> list[PredicateWords]:
    label, other = LABELS[local]
    text = PropertyText(label=label, other=other)
    return [describing_words(text, local, inverse) for inverse in (False, True)]


def _of_another(question: str, local: str) -> bool:
    return says_of_another(question, asks(question, None), STOPWORDS, _predicate(local))


def test_a_fact_the_question_says_of_something_else_is_not_its_answer():
    # "born" is said of the singer (a relative clause), the question asks who produced
    assert _of_another("Who produced the single that the reggae singer born in Kingston was known for?",
                       "birthPlace")
    # "born" is far from the question word: it describes the cricketer, the question asks for the album's DJ
    assert _of_another("Who was the disc jockey of the compilation album partially produced by an English cricketer "
                       "born in Christchurch?", "birthPlace")


def test_a_fact_that_states_the_relation_or_the_kind_asked_is_kept():
    assert not _of_another("Where was the reggae singer born?", "birthPlace")
    assert not _of_another("Charles Andrews graduated from what school?", "educatedAt")
    # the kind asked ("what country located in ...") is the predicate's word: the fact says what the answer is
    assert not _of_another("What landlocked country located in Southern Africa is the birth place of the artist?",
                           "locatedIn")
    # no word of the question is the predicate's: nothing says the fact is about something else
    assert not _of_another("Who produced the single that the singer was known for?", "birthPlace")


def test_a_candidate_the_passages_call_what_is_asked_counts_one_more_relation_word():
    sentences = [_at(text, text.split(" is ")[0]).sentence for text in ("Navvulata is a 1998 Telugu comedy film.",
                                                                          "Koduri Srilekha is a singer.")]
    want = asks("Which Telugu comedy had music by the singer?", None)
    assert want.noun == "comedy"
    assert called(want, describe("Navvulata", sentences))
    assert not called(want, describe("Koduri Srilekha", sentences))  # called a singer, not a comedy
    assert not called(asks("Who wrote it?", None), describe("Navvulata", sentences))  # no noun asked
