"""Predicate relevance remembers each question word's match per property: the same scores as computed afresh, bounded."""

from __future__ import annotations

import pytest

from attest.answer import predicates
from attest.answer.predicates import PredicateWords, PropertyText, describing_words, question_terms, relevance

PROPERTIES = [("director", PropertyText(label="director", other=["directed by"])),
              ("spouse", PropertyText(label="spouse", other=["married to", "wife", "husband"])),
              ("birthPlace", PropertyText(label="place of birth", other=["born in"])),
              ("relatesTo", PropertyText(other=["A generic relation between two entities that a text names together."]))]
QUESTIONS = ["Who directed the film whose screenwriter was born in Ohio?", "Whom did the director of Jaws marry?",
             "Where was the wife of the film director born?", "Which film is related to the novel?"]


def _fresh(words: PredicateWords) -> PredicateWords:
    return PredicateWords(dict(words.stems), dict(words.related))


@pytest.mark.parametrize("inverse", [False, True])
def test_remembered_scores_equal_fresh_ones(inverse):
    for local, text in PROPERTIES:
        words = describing_words(text, local, inverse)
        for question in QUESTIONS * 2:  # the second round reads what the first remembered
            terms = question_terms(question, [])
            for lexical in (None, frozenset(), frozenset({0, 2})):
                assert relevance(terms, words, lexical) == relevance(terms, _fresh(words), lexical)
        assert words.scored  # remembered, by question word
    spouse = describing_words(PROPERTIES[1][1], "spouse", False)
    assert relevance(question_terms("Whom did she marry?", []), spouse)[0] > 0  # a WordNet match, remembered or not


def test_at_most_max_scored_words_are_remembered(monkeypatch):
    monkeypatch.setattr(predicates, "MAX_SCORED", 5)
    words = _fresh(describing_words(PROPERTIES[0][1], "director", False))
    for i in range(12):
        relevance(question_terms(f"director number{i} word{i}", []), words)
        assert len(words.scored) <= 5
