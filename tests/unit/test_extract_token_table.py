"""The rule extractor's plain token lists and its ruler pass give what spaCy's Doc and EntityRuler pipeline give."""

from __future__ import annotations

import random

import pytest

from attest.extract.phrase_rulers import ruled_entities
from attest.extract.rules import RuleExtractor
from attest.extract.token_table import TokenTable, tokens

TEXTS = [
    "# Apache Jena\n\nApache Jena is a Java framework.  It was started at HP Labs in Bristol, U.K. in 2000.",
    'Oxigraph uses RocksDB; the "Leave It to Joan" episode aired.\n\n- item one\n- item two\n\nEnd',
    "Zoë Brontë (1815–1852) lived in São Paulo… She wrote “Villette”.\t\tTabs, e.g. http://x.org ok",
    "   leading spaces and a trailing newline\n",
    "",
]
KNOWN = [("Apache", "Organization"), ("Apache Jena", "Software"), ("Jena", "City"), ("jena", "Software"),
         ("HP Labs", "Organization"), ("Labs", "Concept"), ("Bristol", "City"), ("Go", "ProgrammingLanguage"),
         ("RocksDB", "Software"), ("triple store", "Software"), ("São Paulo", "City"), ("Paulo", "Person")]


@pytest.fixture(scope="module")
def extractors(terms):
    return RuleExtractor(terms), RuleExtractor(terms, KNOWN)


@pytest.mark.parametrize("text", TEXTS)
def test_the_table_holds_what_spacy_tokens_say(extractors, text):
    doc = extractors[0].nlp(text)
    table = TokenTable(doc)
    assert table.text == doc.text == text
    assert table.words == [t.text for t in doc]
    assert table.lower == [t.lower_ for t in doc]
    assert table.space == [bool(t.whitespace_) for t in doc]
    assert table.idx == [t.idx for t in doc]
    assert (table.alpha, table.punct, table.blank, table.stop) == (
        [t.is_alpha for t in doc], [t.is_punct for t in doc], [t.is_space for t in doc], [t.is_stop for t in doc])
    assert table.sent_start == [bool(t.is_sent_start) for t in doc]
    assert table.sentences == [(s.start, s.end) for s in doc.sents]
    assert [(table.sentence_of[i], table.sentence_end[i]) for i in range(len(doc))] == \
        [(t.sent.start, t.sent.end) for t in doc]
    rng = random.Random(0)
    for _ in range(200):
        start, end = rng.randint(-4, len(doc) + 4), rng.randint(-4, len(doc) + 4)
        assert table.text_of(start, end) == doc[start:end].text
    assert tokens(doc) is tokens(doc)  # built once per doc


@pytest.mark.parametrize("text", TEXTS)
def test_the_ruler_pass_finds_the_entities_the_pipeline_sets(extractors, text):
    for extractor in extractors:
        rulers = [ruler for group in extractor._rulers for ruler in group]
        piped = extractor.nlp(text)
        for ruler in rulers:  # what the pipeline did: each EntityRuler writes doc.ents in turn
            piped = ruler(piped)
        doc = extractor.nlp(text)
        found = ruled_entities([[ruler] for ruler in rulers], doc, tokens(doc, text))  # each ruler a step of its own
        assert [tuple(e) for e in found] == [(e.start, e.end, e.label_, e.text) for e in piped.ents]
    assert [len(group) for group in extractors[1]._rulers] == [2, 1]  # exact and folded known labels, then the cues


def test_a_longer_known_name_is_not_cut_by_a_shorter_known_name_inside_it(terms):
    """The known labels matched as written ("Web", "Labs": common words) and those matched in any case ("World Wide
    Web Consortium", "HP Labs") are one step: the longest wins, as within one ruler. As two pipeline steps, the
    shorter name took its word first and the longer name was cut ("World Wide", "Web", "Consortium")."""
    extractor = RuleExtractor(terms, [("Web", "Software"), ("World Wide Web Consortium", "StandardsBody"),
                                      ("Labs", "Concept"), ("HP Labs", "Organization")])
    text = "The World Wide Web Consortium met at HP Labs to discuss the Web."
    doc = extractor.nlp(text)
    found = [(e.text, e.label_) for e in ruled_entities(extractor._rulers, doc, tokens(doc, text))]
    assert found == [("World Wide Web Consortium", "StandardsBody"), ("HP Labs", "Organization"), ("Web", "Software")]
    names = {e.name for e in extractor.extract(text).entities}
    assert {"World Wide Web Consortium", "HP Labs"} <= names and not names & {"World Wide", "Consortium", "Labs"}


def test_of_two_known_labels_of_one_span_the_one_written_as_the_text_wins(terms):
    """"Oxigraph" and "oxigraph" are both known, with different types: the mention written "Oxigraph" takes the type
    of the label written that way, whatever order the matcher gives."""
    for known in ([("Oxigraph", "TripleStore"), ("oxigraph", "Library")], [("oxigraph", "Library"), ("Oxigraph", "TripleStore")]):
        extractor = RuleExtractor(terms, known)
        for text, label in (("Oxigraph is fast.", "TripleStore"), ("OXIGRAPH is fast.", None)):
            doc = extractor.nlp(text)
            found = ruled_entities(extractor._rulers, doc, tokens(doc, text))
            assert len(found) == 1
            if label:
                assert found[0].label_ == label
