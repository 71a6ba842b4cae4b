"""Passage ranking (BM25 fused with Personalized PageRank over mentions) and the question kinds extractive answers
are typed by: a second-hop passage found through its bridge entity only, BM25's order kept when the graph has
nothing, a hub entity's walk bounded."""

from __future__ import annotations

import time

import numpy as np
import pytest

from attest.answer.asks import asks
from attest.answer.passages import CHUNKS_PER_ENTITY, PassageRanker
from attest.answer.ppr import personalized_pagerank
from attest.answer.retrieve import MAX_SOURCES, STOPWORDS
from attest.store.fulltext import Chunk, FullText, MentionRow

E = "https://example.org/entity/"
C = "https://example.org/chunk/"
QUESTION = "Who headed the publisher of the Journal of Psychotherapy Integration?"
# (document, text, entities it mentions); the second shares no word with the question
DOCUMENTS = [
    ("journal", "The Journal of Psychotherapy Integration is published by the Society of Minds.", ["jpi", "som"]),
    ("som", "Society of Minds. Hall served as its first president, in 1892.", ["som", "hall"]),
    ("other1", "Integration of psychotherapy schools is an old publisher topic.", ["psychotherapy"]),
    ("other2", "A journal publisher headed by nobody in particular.", ["nobody"]),
    ("other3", "Who reads the Journal? Readers of psychotherapy journals.", ["readers"]),
    ("other4", "The integration of journals by a publisher.", []),
]


def _index(tmp_path, documents=DOCUMENTS) -> FullText:
    index = FullText(tmp_path / "fulltext.sqlite")
    for doc, text, entities in documents:
        chunk = C + doc
        index.replace(doc, "sha256:" + doc, [Chunk(chunk, text, 0, len(text))], [],
                      [MentionRow(chunk, E + e, None, None) for e in entities])
    return index


def test_the_second_hop_passage_is_found_through_its_bridge_entity_only(tmp_path):
    index = _index(tmp_path)
    assert C + "som" not in {h.chunk for h in index.search(QUESTION, 50, skip=STOPWORDS)}  # BM25 cannot find it
    bm25 = [h.chunk for h in index.search(QUESTION, MAX_SOURCES, skip=STOPWORDS)]
    ranking = PassageRanker(index).rank(QUESTION, {E + "jpi": 1.0}, MAX_SOURCES, skip=STOPWORDS)
    by_chunk = {p.chunk: p for p in ranking.passages}
    assert ranking.graph_used and ranking.note is None
    assert C + "som" in by_chunk and C + "som" not in bm25  # within the default five, which BM25's five miss
    second = by_chunk[C + "som"]
    assert second.bm25_rank is None and second.graph_rank is not None and second.graph_score > 0
    assert E + "som" in second.bridges
    assert by_chunk[C + "journal"].bm25_rank is not None and by_chunk[C + "journal"].graph_rank == 1
    index.close()


def test_without_the_graph_bm25_order_is_kept_and_said(tmp_path):
    index = _index(tmp_path)
    bm25 = [h.chunk for h in index.search(QUESTION, 4, skip=STOPWORDS)]
    for seeds in ({}, {E + "not-mentioned-anywhere": 1.0}):
        ranking = PassageRanker(index).rank(QUESTION, seeds, 4, skip=STOPWORDS)
        assert [p.chunk for p in ranking.passages] == bm25
        assert not ranking.graph_used and "BM25 only" in ranking.note
        assert all(p.graph_rank is None and p.bridges == [] for p in ranking.passages)
        assert [p.bm25_rank for p in ranking.passages] == [1, 2, 3, 4]
    index.close()


def test_k_bounds_the_passages(tmp_path):
    index = _index(tmp_path)
    assert len(PassageRanker(index).rank(QUESTION, {E + "jpi": 1.0}, 2).passages) == 2
    assert len(PassageRanker(index).rank(QUESTION, {E + "jpi": 1.0}, 20).passages) == len(DOCUMENTS)
    index.close()


def test_a_hub_entity_is_walked_within_bounds(tmp_path):
    """An entity named by 5,000 chunks: its passages are read CHUNKS_PER_ENTITY at a time, and quickly."""
    index = FullText(tmp_path / "fulltext.sqlite")
    chunks = [Chunk(f"{C}hub-{i}", f"Paragraph {i} about the Hub and item {i}.", 0, 40) for i in range(5000)]
    mentions = [MentionRow(c.iri, E + "hub", None, None) for c in chunks] + \
               [MentionRow(c.iri, f"{E}item-{i}", None, None) for i, c in enumerate(chunks)]
    index.replace("hub", "sha256:hub", chunks, [], mentions)
    ranker = PassageRanker(index)
    t = time.perf_counter()
    ranking = ranker.rank("What about the Hub?", {E + "hub": 1.0}, 5)
    assert time.perf_counter() - t < 2.0
    assert len(ranking.passages) == 5 and ranking.graph_used
    assert len(ranker._chunks_of([E + "hub"], {E + "hub": 5000})[E + "hub"]) == CHUNKS_PER_ENTITY
    index.close()


def test_personalized_pagerank_restarts_at_the_seeds_and_leaks_what_a_bounded_graph_left_out():
    # a path 0 - 1 - 2, seeded at 0
    src, dst = np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1])
    full = personalized_pagerank(3, src, dst, np.ones(4), np.array([1.0, 2.0, 1.0]), np.array([1.0, 0, 0]))
    assert full[0] > full[1] > full[2] > 0 and abs(full.sum() - 1) < 1e-6
    # node 1 said to have 10 neighbours of which only two are here: less reaches node 2
    leaky = personalized_pagerank(3, src, dst, np.ones(4), np.array([1.0, 10.0, 1.0]), np.array([1.0, 0, 0]))
    assert leaky[2] < full[2] and leaky.sum() < 1


@pytest.mark.parametrize("question,kind,cls", [
    ("Who founded the company that makes the lamp?", "person", "Person"),
    ("whom did she marry", "person", "Person"),
    ("Where is the lab that built it located?", "place", "Location"),
    ("When was the bridge opened?", "date", None),
    ("In what year did the band split?", "date", None),
    ("How many moons does the planet have?", "number", None),
    ("How much did it cost?", "number", None),
    ("Which city hosts the festival?", "place", "City"),
    ("In which country was she born?", "place", "Country"),
    ("Which university did the author attend?", "class", "University"),
    ("Which language is the tool written in?", "class", "Language"),
    ("Is the river longer than the canal?", "yesno", None),
    ("Did both of them play for the club?", "yesno", None),
    ("Tell me about the river.", "any", None),
])
def test_what_a_question_asks_for(terms, question, kind, cls):
    found = asks(question, terms)
    assert (found.kind, found.cls) == (kind, cls)


def test_which_x_of_no_ontology_class_keeps_the_noun(terms):
    assert asks("Which rivers flow through them?", terms) == asks("which river flows through them", terms)
    assert asks("Which rivers flow through them?", terms).noun == "river"
    assert asks("What is the river called?", terms).noun is None


def test_several_restart_vectors_walk_as_one_each():
    src, dst = np.array([0, 1, 1, 2, 2, 3]), np.array([1, 0, 2, 1, 3, 2])
    degrees = np.array([1.0, 2.0, 2.0, 1.0])
    resets = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    both = personalized_pagerank(4, src, dst, np.ones(6), degrees, resets)
    for k in range(2):
        alone = personalized_pagerank(4, src, dst, np.ones(6), degrees, resets[:, k])
        assert np.allclose(both[:, k], alone)


def test_the_index_reads_mentions_and_entity_links_from_a_document_graph():
    from pyoxigraph import Literal, NamedNode, Quad

    from attest.store.fulltext import links_of, mentions_of
    from attest.vocab import ATT, ONT, Iris

    iris = Iris("https://w3id.org/attest/")
    g = NamedNode(iris.document_graph("d"))
    chunk, mention = NamedNode(iris.chunk("c1")), NamedNode(iris.chunk("c1") + "/mention/hall")
    hall, som = NamedNode(iris.entity("hall")), NamedNode(iris.entity("som"))
    quads = [Quad(mention, NamedNode(ATT + "inChunk"), chunk, g), Quad(mention, NamedNode(ATT + "denotes"), hall, g),
             Quad(mention, NamedNode(ATT + "charStart"), Literal(3), g),
             Quad(mention, NamedNode(ATT + "charEnd"), Literal(7), g),
             Quad(hall, NamedNode(ONT + "memberOf"), som, g),
             Quad(hall, NamedNode(ONT + "memberOf"), NamedNode("https://elsewhere.org/x"), g)]  # not minted: no link
    assert mentions_of(quads, iris) == [MentionRow(chunk.value, hall.value, 3, 7)]
    assert links_of(quads, iris) == [(hall.value, som.value)]
