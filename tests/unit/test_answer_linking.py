"""Label matching for answers: mentions in source text are exactly the whole-word occurrences of labels."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from attest.answer.linking import MIN_MENTION, LabelMatcher
from attest.answer.words import WORD, normalize
from attest.answer.lookup import LabelIndex

WORDS = st.sampled_from(["rdf", "owl", "sparql", "1.1", "Apache", "Jena", "knowledge", "graph", "c++", "x", "w3c",
                         "open-source", "Tim", "Berners-Lee", "and", "the"])
PHRASES = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)
SEPARATORS = st.sampled_from([" ", ", ", " - ", "\n", "/", "_", ". "])


def _whole_words(labels: list[str], text: str) -> set[str]:
    """The definition: the normalized label between spaces in the normalized words of the text."""
    padded = f" {' '.join(normalize(w) for w in WORD.findall(text))} "
    return {str(i) for i, label in enumerate(labels)
            if len(normalize(label)) >= MIN_MENTION and f" {normalize(label)} " in padded}


def test_mentions_finds_multiword_labels_and_not_parts_of_words():
    index = LabelIndex(["Apache Jena", "SPARQL 1.1", "Jen", "RDF"], ["jena", "sparql", "jen", "rdf"], {})
    found = LabelMatcher(index).mentions("Apache  Jena implements SPARQL-1.1; RDFS is not RDF.")
    assert found == {"jena", "sparql", "rdf"}


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(PHRASES, min_size=1, max_size=8), words=st.lists(WORDS, max_size=30),
       separators=st.lists(SEPARATORS, min_size=30, max_size=30))
def test_mentions_matches_the_whole_word_definition(labels, words, separators):
    text = "".join(w + s for w, s in zip(words, separators))
    index = LabelIndex(labels, [str(i) for i in range(len(labels))], {})
    assert LabelMatcher(index).mentions(text) == _whole_words(labels, text)


def test_the_tables_kept_with_a_label_index_are_not_walked_by_the_garbage_collector():
    import gc

    labels = ["Apache Jena", "SPARQL 1.1", "Jena", "RDF", "Tim Berners-Lee"]
    index = LabelIndex(labels, ["jena", "sparql", "jena-2", "rdf", "tim"], {})
    matcher = LabelMatcher(index)
    assert matcher.table[("jena",)] == ("jena-2",)
    gc.collect()  # a collection stops tracking what holds only strings and numbers: tuples and dicts, not lists
    kept = [matcher.table, *matcher.table.values(), matcher.normalized, matcher.by_length.labels,
            matcher.by_length.lengths]
    assert not any(gc.is_tracked(t) for t in kept)
