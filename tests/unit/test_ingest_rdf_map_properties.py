"""Property tests of the RDF mapping: any names and texts give valid, deterministic, round-tripping RDF;
text that cleans to nothing has no chunk to map and is refused when loaded."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from pyoxigraph import Dataset, Literal, NamedNode, RdfFormat, parse, serialize

from attest.extract.models import ExtractedEntity, ExtractedRelation
from attest.extract.ontology_terms import load_terms
from attest.errors import DocumentRejected
from attest.ingest.chunk import chunk_text, clean, cleans_to_nothing, content_hash
from attest.ingest.load import load_bytes
from attest.ingest.rdf_map import ChunkExtraction, DocumentInfo, ExtractionRun, Mention, map_document
from attest.ingest.resolve import EntityIndex
from attest.vocab import RDFS, Iris, is_valid_id
from tests.conftest import REPO

IRIS = Iris("https://w3id.org/attest/")
TERMS = load_terms(REPO / "ontology")
TYPES = sorted(TERMS.types)
RUN = ExtractionRun("rules:spacy", None, datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(2026, 1, 1, tzinfo=timezone.utc))

# names as hostile as text gets: quotes, angle brackets, braces, newlines, SPARQL words, any unicode
names = st.text(min_size=1, max_size=40).filter(lambda s: s.strip()) | st.sampled_from(
    ['x"} UNION {', "a>b c", "DROP ALL", "line\nbreak", "<http://evil/>", "\\u0000", "O'Reilly", "Ünïcødé"])
# any text the pipeline accepts: something must be left after cleaning ("\x1b" alone is refused when loaded)
texts = st.text(min_size=1, max_size=300).filter(lambda s: not cleans_to_nothing(s))
# what cleaning takes away (invisible and control characters, whitespace), plus Markdown markup characters
INVISIBLE = "\x1b\x01\x7f\u00ad\u200b\u200d\u2060\u202e\ufeff \t\n\r"
MARKUP = "#*_`->[]()1. "


def build(text: str, entities: list[tuple[str, str]], pairs: list[tuple[int, int]]):
    cleaned = clean(text)
    chunks = chunk_text("doc1", cleaned)
    index = EntityIndex(IRIS, TERMS)
    extraction = ChunkExtraction(chunks[0])
    for name, type_name in entities:
        entity = ExtractedEntity(name=name, type=type_name, confidence=0.9)
        extraction.mentions.setdefault(name, Mention(entity, index.resolve(name, type_name), None))
    names_ = list(extraction.mentions)
    for a, b in pairs:
        if names_ and names_[a % len(names_)] != names_[b % len(names_)]:
            extraction.relations.append(ExtractedRelation(
                subject=names_[a % len(names_)], predicate="relatesTo", object=names_[b % len(names_)], confidence=0.8))
    doc = DocumentInfo("doc1", "doc1.txt", "text/plain", content_hash(text), len(text))
    return map_document(IRIS, doc, RUN, [extraction]), extraction


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=texts,
    entities=st.lists(st.tuples(names, st.sampled_from(TYPES)), min_size=1, max_size=6),
    pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=4),
)
def test_mapping_is_valid_deterministic_rdf(text, entities, pairs):
    quads, extraction = build(text, entities, pairs)
    assert quads == build(text, entities, pairs)[0], "the same input must mint the same quads"

    # valid RDF: N-Quads out, parsed back, the same dataset
    round_trip = list(parse(serialize(quads, format=RdfFormat.N_QUADS), RdfFormat.N_QUADS))
    assert Dataset(round_trip) == Dataset(quads)

    graph = NamedNode(IRIS.document_graph("doc1"))
    assert all(q.graph_name == graph for q in quads)
    for mention in extraction.mentions.values():
        iri = NamedNode(mention.resolution.iri)
        assert is_valid_id(IRIS.entity_id(iri.value) or ""), iri
        labels = {q.object for q in quads if q.subject == iri and q.predicate == NamedNode(RDFS + "label")}
        assert Literal(mention.resolution.label) in labels  # the label kept exactly, never escaped into the IRI


@hsettings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60) | st.text(st.sampled_from(INVISIBLE + MARKUP), max_size=60), markdown=st.booleans())
def test_text_cleans_to_nothing_exactly_when_it_has_no_chunk(text, markdown):
    assert cleans_to_nothing(text, markdown=markdown) == (chunk_text("doc1", clean(text, markdown=markdown)) == [])


@hsettings(max_examples=100, deadline=None)
@given(text=st.text(st.sampled_from(INVISIBLE), min_size=1, max_size=60), media_type=st.sampled_from(
    ["text/plain", "text/markdown", "text/html"]))
def test_text_that_cleans_to_nothing_is_refused_when_loaded(text, media_type):
    with pytest.raises(DocumentRejected) as caught:
        load_bytes(text.encode(), source="blank.txt", media_type=media_type, max_bytes=10_000)
    assert caught.value.detail["reason"] in ("empty", "empty_after_cleaning"), caught.value.message
    assert "empty" in caught.value.message or "no text" in caught.value.message
