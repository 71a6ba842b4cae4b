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
        piped = extractor.nlp(text)
        for ruler in extractor._rulers:  # what the pipeline did: each EntityRuler writes doc.ents in turn
            piped = ruler(piped)
        doc = extractor.nlp(text)
        found = ruled_entities(extractor._rulers, doc, tokens(doc, text))
        assert [tuple(e) for e in found] == [(e.start, e.end, e.label_, e.text) for e in piped.ents]
    assert len(extractors[1]._rulers) == 3  # exact, folded and cue rulers all took part
