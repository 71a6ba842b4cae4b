"""Question words matched against many properties at once: the same scores as `term_matches` on each, remembered alike."""

from __future__ import annotations

from attest.answer import many_words
from attest.answer.many_words import term_matches_many
from attest.answer.predicates import PredicateWords, PropertyText, describing_words, question_terms, term_matches

PROPERTIES = [("director", PropertyText(label="director", other=["directed by"])),
              ("spouse", PropertyText(label="spouse", other=["married to", "wife", "husband"])),
              ("birthPlace", PropertyText(label="place of birth", other=["born in"])),
              ("screenwriter", PropertyText(label="screenwriter")),
              ("hasParent", PropertyText(label="parents")),
              ("relatesTo", PropertyText(other=["A generic relation between two entities that a text names together."]))]
QUESTIONS = ["Who directed the film whose screenwriter was born in Ohio?", "Whom did the director of Jaws marry?",
             "Where was the wife of the film director born?", "Which film is related to the novel?",
             "Who is the better half of the screnwriter?",  # a collocation's last word, a misspelling
             "Who was the father of the directorial debut's star?",  # WordNet: father ~ parent; a prefix
             "Thomas Jahn (born 9 July 1965) is a German film and television director."]


def _many() -> list[PredicateWords]:
    """Fresh property readings (nothing remembered), both ways."""
    return [PredicateWords(dict(w.stems), dict(w.related))
            for local, text in PROPERTIES for inverse in (False, True) for w in [describing_words(text, local, inverse)]]


def test_the_same_scores_as_one_property_at_a_time():
    one_by_one, together = _many(), _many()
    spelled = related = 0
    for question in QUESTIONS * 2:  # the second round reads what the first remembered
        terms = question_terms(question, [])
        expected = [term_matches(terms, words) for words in one_by_one]
        assert term_matches_many(terms, together) == expected
        spelled += sum(1 for row in expected for s, _ in row if 0 < s < 1)  # prefix and near spellings
        related += sum(1 for row in expected for _, r in row if r > 0)
    assert spelled and related  # both kinds of match were met, not only zeros


def test_each_word_is_remembered_on_each_property():
    many = _many()
    terms = question_terms("Whom did the director marry?", [])
    first = term_matches_many(terms, many)
    assert all(term.word in words.scored for words in many for term in terms)
    assert [[words.scored[t.word] for t in terms] for words in many] == first
    assert term_matches_many(terms, many) == first


def test_the_index_is_kept_per_sequence_of_properties():
    many = _many()
    terms = question_terms("Who wrote the screenplay?", [])
    term_matches_many(terms, many)
    kept = many_words._index_of(many)
    assert many_words._index_of(many) is kept
    other = many[:-1] + _many()[-1:]  # one property's reading replaced (a write changed its texts)
    assert many_words._index_of(other) is not kept
