"""Passage ranking (BM25 lifted through what passages are about) and the question kinds extractive answers are typed
by: a second-hop passage found through its bridge entity only, passages two and three bridges away reached by the walk, the second passage chosen for what the first leaves
of the question, BM25's order kept when the graph has nothing, a hub entity's passages read within bounds."""

from __future__ import annotations

import time

import pytest

from attest.answer.asks import asks
from attest.answer import passages
from attest.answer.passages import TOPIC_CHUNKS, PassageRanker
from attest.answer.retrieve import MAX_SOURCES, STOPWORDS
from attest.store.fulltext import Chunk, FullText, MentionRow

E = "https://example.org/entity/"
C = "https://example.org/chunk/"
QUESTION = "Who headed the publisher of the Journal of Psychotherapy Integration?"
# (document, text: a title line and a paragraph, (entity, its name in the text)); "som" shares no word with the question
DOCUMENTS = [
    ("journal", "Journal of Psychotherapy Integration\n\nThe Journal of Psychotherapy Integration is published by the "
                "Society of Minds.", [("jpi", "Journal of Psychotherapy Integration"), ("som", "Society of Minds")]),
    ("som", "Society of Minds\n\nHall served as its first president, in 1892.",
     [("som", "Society of Minds"), ("hall", "Hall")]),
    ("other1", "Integration\n\nIntegration of psychotherapy schools is an old publisher topic.",
     [("psychotherapy", "psychotherapy")]),
    ("other2", "Publishers\n\nA journal publisher headed by nobody in particular.", [("nobody", "nobody")]),
]


# other documents, as a real collection has: BM25's idf is meaningless over six paragraphs that share their words
FILLER = [(f"filler{i}", f"Garden {i}\n\nNotes on growing tomatoes and beans, season {i}.", [(f"garden-{i}", f"Garden {i}")])
          for i in range(40)]


def _mentions(chunk: str, text: str, entities, placed: bool = True) -> list[MentionRow]:
    out = []
    for entity, name in entities:
        start = text.index(name)
        out.append(MentionRow(chunk, E + entity, start if placed else None, start + len(name) if placed else None))
    return out


def _index(tmp_path, documents=DOCUMENTS, placed: bool = True) -> FullText:
    index = FullText(tmp_path / "fulltext.sqlite")
    for doc, text, entities in documents + FILLER:
        chunk = C + doc
        index.replace(doc, "sha256:" + doc, [Chunk(chunk, text, 0, len(text))], [], _mentions(chunk, text, entities, placed))
    return index


def test_the_second_hop_passage_is_found_through_its_bridge_entity_only(tmp_path):
    index = _index(tmp_path)
    assert C + "som" not in {h.chunk for h in index.search(QUESTION, 50, skip=STOPWORDS)}  # BM25 cannot find it
    for seeds in ({E + "jpi": 1.0}, {}):  # named by the question, or found only as the best BM25 passage's entity
        ranking = PassageRanker(index).rank(QUESTION, seeds, MAX_SOURCES, skip=STOPWORDS)
        chunks = [p.chunk for p in ranking.passages]
        assert ranking.graph_used and chunks[0] == C + "journal" and C + "som" in chunks  # within the default five
        second = ranking.passages[chunks.index(C + "som")]
        assert second.bm25_rank is None and second.graph_rank is not None and second.graph_score > 0
        assert second.bridges == [E + "som"]
    assert ranking.note and "names no entity" in ranking.note  # the second time, no entity was named
    index.close()


def test_a_third_hop_passage_is_reached_through_two_bridges(tmp_path, monkeypatch):
    """The journal's passage names the society, the society's names Hall, Hall's says where he grew up: neither the
    second nor the third passage shares a word with the question, so BM25 finds neither and the one-bridge lift stops
    at the society; the walk reaches Hall's passage through the society and Hall."""
    question = "Where did the head of the publisher of the Journal of Psychotherapy Integration grow up?"
    documents = [*DOCUMENTS, ("hall", "Hall\n\nHall was raised in Ashfield, a farming town.",
                              [("hall", "Hall"), ("ashfield", "Ashfield")])]
    index = _index(tmp_path, documents)
    found = {h.chunk for h in index.search(question, 50, skip=STOPWORDS)}
    assert C + "som" not in found and C + "hall" not in found
    for seeds in ({E + "jpi": 1.0}, {}):
        monkeypatch.setattr(passages, "WALK_WEIGHT", 0.0)  # the lift alone: one bridge
        assert C + "hall" not in [p.chunk for p in PassageRanker(index).rank(question, seeds, 20, skip=STOPWORDS).passages]
        monkeypatch.undo()
        ranking = PassageRanker(index).rank(question, seeds, MAX_SOURCES, skip=STOPWORDS)
        chunks = [p.chunk for p in ranking.passages]
        assert chunks[0] == C + "journal" and C + "som" in chunks and C + "hall" in chunks
        third = ranking.passages[chunks.index(C + "hall")]
        assert third.bm25_rank is None and third.graph_score and third.graph_score > 0 and third.bridges == [E + "hall"]
        assert chunks.index(C + "som") < chunks.index(C + "hall")  # a further hop weighs less
    index.close()


def _dead(*names: str) -> list[tuple[str, str]]:
    """Names a paragraph writes that no passage is about (most names in real paragraphs)."""
    return [(n.casefold().replace(" ", "-"), n) for n in names]


def _chain(dead: bool) -> list:
    """The journal names the society, the society Hall, Hall Ashfield: three bridges, each passage also writing five
    names (with `dead`) that lead to no passage; passages sharing one question word each compete with the chain."""
    extra = (lambda *names: _dead(*names)) if dead else (lambda *names: [])
    return [
        ("journal", "Journal of Psychotherapy Integration\n\nThe Journal of Psychotherapy Integration is published by the "
                    "Society of Minds and edited by Anna Reyes, Paul Okafor, Lena Voss, Omar Haddad and Ivo Brandt.",
         [("jpi", "Journal of Psychotherapy Integration"), ("som", "Society of Minds"),
          *extra("Anna Reyes", "Paul Okafor", "Lena Voss", "Omar Haddad", "Ivo Brandt")]),
        ("som", "Society of Minds\n\nHall served as its first president, in 1892, beside Mara Quint, Teo Lindqvist, "
                "Rhea Dunmore, Sami Okoro and Bea Falk.",
         [("som", "Society of Minds"), ("hall", "Hall"), *extra("Mara Quint", "Teo Lindqvist", "Rhea Dunmore",
                                                                "Sami Okoro", "Bea Falk")]),
        ("hall", "Hall\n\nHall was raised in Ashfield with Cora Bell, Dane Moss, Eli Shaw, Fay Lund and Gus Rowe.",
         [("hall", "Hall"), ("ashfield", "Ashfield"), *extra("Cora Bell", "Dane Moss", "Eli Shaw", "Fay Lund", "Gus Rowe")]),
        ("ashfield", "Ashfield\n\nAshfield is a farming town on the Deer River.", [("ashfield", "Ashfield")]),
        *DOCUMENTS[2:],
        ("head", "Head\n\nThe head of a river is its source.", [("head-of-river", "Head")]),
        ("grow", "Grow (magazine)\n\nGrow is a magazine for gardeners.", [("grow-magazine", "Grow (magazine)")]),
    ]


def test_passages_two_and_three_bridges_away_are_reached_past_names_that_lead_nowhere(tmp_path):
    """The walk sends a passage's mass only to names that lead on to another passage, and a bridge is one step of it:
    along one chain each bridge keeps half the mass (the damping), however many other names the passages write."""
    question = "Where did the head of the publisher of the Journal of Psychotherapy Integration grow up?"
    scores = {}
    for dead in (True, False):
        (tmp_path / str(dead)).mkdir()
        index = _index(tmp_path / str(dead), _chain(dead))
        assert not {C + "som", C + "hall", C + "ashfield"} & {h.chunk for h in index.search(question, 50, skip=STOPWORDS)}
        for seeds in ({E + "jpi": 1.0}, {}):
            ranking = PassageRanker(index).rank(question, seeds, 20, skip=STOPWORDS)
            chunks = [p.chunk for p in ranking.passages]
            assert chunks.index(C + "som") < chunks.index(C + "hall") < chunks.index(C + "ashfield")
            hall, ashfield = (ranking.passages[chunks.index(C + c)] for c in ("hall", "ashfield"))
            assert hall.bm25_rank is None and hall.bridges == [E + "hall"]  # two bridges past the journal
            assert ashfield.bm25_rank is None and ashfield.bridges == [E + "ashfield"]  # three
            assert ashfield.graph_score == pytest.approx(hall.graph_score / 2, abs=2e-4)
            scores[dead, bool(seeds)] = hall.graph_score
        index.close()
    assert scores[True, True] == scores[False, True] and scores[True, False] == scores[False, False]
    assert min(scores.values()) > 0.2  # the journal's bridge, one of five names, once kept less than 0.001


def test_a_passage_the_walk_finds_past_bm25s_first_is_fused_with_its_own_bm25_score(tmp_path):
    """A three-passage chain (journal -> society -> its two founders): the society's passage names Hall and Abbot alike,
    so the walk brings their passages the same mass. Sixty short passages about being born fill BM25's first fifty, so
    neither founder's passage is among them; Hall's says where he was born, as asked. Fused with its own BM25 score
    (what BM25 gives it, had it read that deep) Hall's passage ranks above Abbot's; fused with none, the two tie."""
    question = "Where was the founder of the publisher of the Journal of Psychotherapy Integration born?"
    documents = [
        ("journal", "Journal of Psychotherapy Integration\n\nThe Journal of Psychotherapy Integration is published by the "
                    "Society of Minds.", [("jpi", "Journal of Psychotherapy Integration"), ("som", "Society of Minds")]),
        ("som", "Society of Minds\n\nHall and Abbot set it up in 1892.",
         [("som", "Society of Minds"), ("hall", "Hall"), ("abbot", "Abbot")]),
        ("abbot", "Abbot\n\nAbbot kept bees in Dunmore, farming country.", [("abbot", "Abbot"), ("dunmore", "Dunmore")]),
        ("hall", "Hall\n\nHall was born in Ashfield, farming country.", [("hall", "Hall"), ("ashfield", "Ashfield")]),
        *[(f"born{i}", f"Born {i}\n\nBorn born, born {i}.", []) for i in range(60)],
        *[(f"note{i}", f"Note {i}\n\nNotes on weather, number {i}.", []) for i in range(300)],  # "born" not too common
    ]
    index = _index(tmp_path, documents)
    deep = {h.chunk: h for h in index.search(question, 200, skip=STOPWORDS)}
    assert not {C + "hall", C + "abbot"} & {h.chunk for h in index.search(question, passages.BM25_DEPTH, skip=STOPWORDS)}
    assert C + "hall" in deep and C + "abbot" not in deep  # Hall's passage has a BM25 score, past the first fifty
    ranking = PassageRanker(index).rank(question, {E + "jpi": 1.0}, 100, skip=STOPWORDS)
    by_chunk = {p.chunk: p for p in ranking.passages}
    hall, abbot = by_chunk[C + "hall"], by_chunk[C + "abbot"]
    assert hall.graph_score == abbot.graph_score > 0 and hall.bridges == [E + "hall"] and abbot.bridges == [E + "abbot"]
    assert hall.bm25_rank is None and abbot.bm25_rank is None  # not among BM25's first fifty: said so
    assert hall.bm25_score == pytest.approx(deep[C + "hall"].score, abs=2e-3) and hall.bm25_score > 0
    assert abbot.bm25_score == 0.0  # it shares no word with the question
    chunks = [p.chunk for p in ranking.passages]
    assert chunks.index(C + "hall") < chunks.index(C + "abbot")
    index.close()


def test_the_second_passage_adds_what_the_first_leaves_of_the_question(tmp_path):
    """BM25's second is a look-alike of the first; the passage the first bridges to, which holds the question's other
    words, comes second."""
    documents = [
        ("freedonia", "Freedonia\n\nThe capital of Freedonia is Sylvania.", [("freedonia", "Freedonia"),
                                                                             ("sylvania", "Sylvania")]),
        ("band", "Freedonia (band)\n\nFreedonia is a band named after the capital of Freedonia.",
         [("freedonia-band", "Freedonia (band)")]),
        ("sylvania", "Sylvania\n\nSylvania lies on the Blue River.", [("sylvania", "Sylvania"),
                                                                      ("blue-river", "Blue River")]),
    ]
    question = "Which river flows through the capital of Freedonia?"
    index = _index(tmp_path, documents)
    assert [h.chunk for h in index.search(question, 3, skip=STOPWORDS)][2] == C + "sylvania"
    ranking = PassageRanker(index).rank(question, {E + "freedonia": 1.0}, 3, skip=STOPWORDS)
    assert [p.chunk for p in ranking.passages] == [C + "freedonia", C + "sylvania", C + "band"]
    index.close()


def test_without_the_graph_bm25_order_is_kept_and_said(tmp_path):
    index = _index(tmp_path, placed=False)  # mentions without spans: no document says what it is about
    bm25 = [h.chunk for h in index.search(QUESTION, 3, skip=STOPWORDS)]
    for seeds in ({}, {E + "not-mentioned-anywhere": 1.0}, {E + "jpi": 1.0}):
        ranking = PassageRanker(index).rank(QUESTION, seeds, 3, skip=STOPWORDS)
        assert [p.chunk for p in ranking.passages] == bm25
        assert not ranking.graph_used and "BM25 only" in ranking.note
        assert all(p.graph_rank is None and p.bridges == [] for p in ranking.passages)
        assert [p.bm25_rank for p in ranking.passages] == [1, 2, 3]
    index.close()


def test_k_bounds_the_passages(tmp_path):
    index = _index(tmp_path)
    assert len(PassageRanker(index).rank(QUESTION, {E + "jpi": 1.0}, 2).passages) == 2
    assert len(PassageRanker(index).rank(QUESTION, {E + "jpi": 1.0}, 20).passages) == len(DOCUMENTS)  # the others match nothing
    index.close()


def test_a_hub_entity_is_read_within_bounds(tmp_path):
    """5,000 documents about one entity: TOPIC_CHUNKS of them are read, quickly."""
    index = FullText(tmp_path / "fulltext.sqlite")
    for i in range(5000):
        text = f"Hub\n\nParagraph {i} about the Hub and item {i}."
        index.replace(f"d{i}", f"sha256:{i}", [Chunk(f"{C}hub-{i}", text, 0, len(text))], [],
                      [MentionRow(f"{C}hub-{i}", E + "hub", 0, 3), MentionRow(f"{C}hub-{i}", f"{E}item-{i}", 30, 36)])
    ranker = PassageRanker(index)
    t = time.perf_counter()
    ranking = ranker.rank("What about the Hub?", {E + "hub": 1.0}, 5)
    assert time.perf_counter() - t < 2.0
    assert len(ranking.passages) == 5 and ranking.graph_used
    assert len(ranker._topic_chunks([E + "hub"])[E + "hub"]) == TOPIC_CHUNKS
    assert ranker._passage_counts([E + "hub", E + "item-7", E + "nowhere"]) == {E + "hub": passages.COUNTED,
                                                                                 E + "item-7": 1}
    index.close()


def test_the_passages_of_many_entities_are_read_at_once_each_within_its_bound(tmp_path):
    """One read for every followed entity gives what one bounded read per entity gave; reads by chunk use an index."""
    index = FullText(tmp_path / "fulltext.sqlite")
    for i in range(60):  # entity k is what every k-th document is about: 60, 30, 20 ... documents
        text = f"Doc {i}\n\nText {i}."
        about = [MentionRow(f"{C}c{i:02d}", f"{E}e{k}", 0, 3) for k in range(1, 7) if i % k == 0]
        index.replace(f"d{i}", f"sha256:{i}", [Chunk(f"{C}c{i:02d}", text, 0, len(text))], [], about)
    entities = [f"{E}e{k}" for k in (6, 1, 9, 2, 5)]  # e9 is what no document is about
    one_by_one = {e: [r[0] for r in index.read("SELECT chunk FROM topics WHERE entity = ? ORDER BY chunk LIMIT ?",
                                               (e, TOPIC_CHUNKS))] for e in entities}
    read = PassageRanker(index)._topic_chunks(entities)
    assert read == {e: chunks for e, chunks in one_by_one.items() if chunks} and list(read) == [e for e in entities if e != E + "e9"]
    assert len(read[E + "e1"]) == TOPIC_CHUNKS and len(read[E + "e6"]) == 10
    plan = " ".join(str(r) for r in index.read("EXPLAIN QUERY PLAN SELECT chunk, entity FROM topics WHERE chunk IN (?, ?)",
                                               ("a", "b")))
    assert "topics_by_chunk" in plan
    index.close()


def test_only_the_passages_the_ranking_shows_or_weighs_are_read_whole(tmp_path, monkeypatch):
    """A question about a hub: the graph finds TOPIC_CHUNKS passages about it (sharing no word with the question),
    each of a document of three chunks; texts are read for the pool the second passage is chosen from, not for every passage the graph scores, and the
    ranking is the one reading them all gives. A passage the index holds no text for is left out."""
    index = FullText(tmp_path / "fulltext.sqlite")
    for i in range(60):
        chunks = [Chunk(f"{C}d{i}-{n}", f"Widget part {n} of file {i}, on item {i}.", 0, 10) for n in range(3)]
        index.replace(f"d{i}", f"sha256:{i}", chunks, [],
                      [MentionRow(f"{C}d{i}-0", E + "hub", 0, 3), MentionRow(f"{C}d{i}-1", f"{E}item-{i}", 20, 26)])
    ranker = PassageRanker(index)
    read: list[str] = []
    whole_read = ranker._read

    def counted(chunks, documents):
        read.extend(chunks)
        return whole_read(chunks, documents)
    monkeypatch.setattr(ranker, "_read", counted)
    monkeypatch.setattr(passages, "SECOND_POOL", 4)
    ranking = ranker.rank("Which report is about the hub?", {E + "hub": 1.0}, 3)
    graph_found = [p for p in ranking.passages if p.bm25_rank is None]
    assert len(ranking.passages) == 3 and all(p.text.startswith("Widget part") for p in ranking.passages)
    assert 0 < len(read) <= 4 < TOPIC_CHUNKS and {p.chunk for p in graph_found} <= set(read)

    every = PassageRanker(index)  # what reading every scored passage's text gave
    monkeypatch.setattr(passages, "SECOND_POOL", 10_000)
    assert [(p.chunk, p.score, p.text) for p in every.rank("Which report is about the hub?", {E + "hub": 1.0}, 3).passages] \
        == [(p.chunk, p.score, p.text) for p in ranking.passages]
    monkeypatch.setattr(passages, "SECOND_POOL", 4)

    one = PassageRanker(index).rank("Which report is about the hub?", {E + "hub": 1.0}, 3, document="d12")  # among the first TOPIC_CHUNKS
    assert [p.chunk for p in one.passages] == [f"{C}d12-0"] and one.passages[0].document == "d12"

    best = ranking.passages[0].chunk  # its text gone from the index (as a half-written file could leave it)
    index.db.execute("DELETE FROM chunks WHERE chunk = ?", (best,))
    again = PassageRanker(index).rank("Which report is about the hub?", {E + "hub": 1.0}, 3)
    assert best not in [p.chunk for p in again.passages] and len(again.passages) == 3
    index.close()


def test_a_document_is_about_the_entities_it_names_first_and_forgets_them_when_deleted(tmp_path):
    index = _index(tmp_path)
    topics = index.read("SELECT document, chunk, entity FROM topics ORDER BY document, entity")
    assert (("journal", C + "journal", E + "jpi") in topics and ("som", C + "som", E + "som") in topics
            and not any(e == E + "hall" for _, _, e in topics))
    index.replace("som", "", [], [], [])
    assert not index.read("SELECT * FROM topics WHERE document = 'som'")
    index.close()


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


def test_the_index_reads_mentions_and_entity_links_from_a_document_graph():
    from pyoxigraph import Literal, NamedNode, Quad

    from attest.store.fulltext import document_rows
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
    rows = document_rows(quads, iris)
    assert rows.mentions == [MentionRow(chunk.value, hall.value, 3, 7)]
    assert rows.links == [(hall.value, som.value)]


def test_passages_are_scored_on_their_words_as_the_index_folds_them(tmp_path):
    index = _index(tmp_path)
    café, cafe, plain = "Le Café and the CAFÉ beside the cafe.", "A cafe, one.", "Nothing of the kind here."
    scores = index.bm25_of("café", [café, cafe, plain])
    assert scores[2] == 0.0 and scores[0] > scores[1] > 0.0  # three of seven words, then one of three
    again = index.bm25_of("CAFE", [café, cafe, plain])  # remembered foldings give the same scores
    assert again == scores


def test_passages_scored_as_indexed_get_the_score_search_gives_them(tmp_path):
    """bm25_of with the index's mean length is FTS5's bm25() (scaled alike), for passages of any length."""
    index = _index(tmp_path, _chain(True))
    differs = []
    for question in (QUESTION, "Where did the head of the publisher grow up?", "garden season tomatoes"):
        hits = index.search(question, 50, skip=STOPWORDS)
        scores = index.bm25_of(question, [h.text for h in hits], skip=STOPWORDS, as_indexed=True)
        assert len(hits) >= 3 and [round(s / scores[0], 3) for s in scores] == [round(h.score, 3) for h in hits]
        own = index.bm25_of(question, [h.text for h in hits], skip=STOPWORDS)  # the texts' own mean length
        differs.append([round(s / own[0], 3) for s in own] != [round(h.score, 3) for h in hits])
    assert any(differs)
    index.close()


def test_a_name_many_passages_write_carries_little_of_the_walk(tmp_path, monkeypatch):
    """"American" is named by thirty passages and is what one page is about (an extractor's slip a real collection
    has: a nationality taken for the page's subject). A first BM25 passage whose only name that leads on is
    "American" sends 2/31 of its mass there, the rest lost, rather than all of it to that page; the chain's own
    bridges, each named by two passages, keep theirs: Hall's passage, two bridges away, ranks above that page."""
    question = "Where did the head of the publisher of the Journal of Psychotherapy Integration grow up?"
    chain = [d if d[0] != "other1" else
             ("other1", "Integration\n\nIntegration of psychotherapy schools is an old American publisher topic.",
              [("psychotherapy", "psychotherapy"), ("american", "American")]) for d in _chain(False)]
    documents = [*chain, ("american", "American\n\nAmerican is an episode of a cartoon.", [("american", "American")]),
                 *[(f"note{i}", f"Note {i}\n\nAn American note, number {i}.", [(f"note-{i}", f"Note {i}"),
                                                                              ("american", "American")])
                   for i in range(29)]]
    index = _index(tmp_path, documents)
    assert C + "other1" in [h.chunk for h in index.search(question, 5, skip=STOPWORDS)]  # a first BM25 passage
    monkeypatch.setattr(passages, "BRIDGE_WEIGHT", 0.0)  # the walk alone
    for seeds in ({E + "jpi": 1.0}, {}):
        ranking = PassageRanker(index).rank(question, seeds, 100, skip=STOPWORDS)
        by_chunk = {p.chunk: p for p in ranking.passages}
        som, hub = by_chunk[C + "som"], by_chunk[C + "american"]
        assert hub.bridges[:1] == [E + "american"] and som.bridges[:1] == [E + "som"]
        assert hub.graph_score < 0.1 < som.graph_score
        chunks = [p.chunk for p in ranking.passages]
        assert chunks.index(C + "hall") < chunks.index(C + "american")
    index.close()


def test_a_repeated_question_ranks_alike_without_reading_mentions_or_topics_again(tmp_path, monkeypatch):
    """The passage counts, topic chunks, names, topics and passage texts a ranking read are remembered until the
    index's next commit."""
    index = _index(tmp_path)
    reads: list[str] = []
    read = index.read
    monkeypatch.setattr(index, "read", lambda query, args=(): reads.append(query) or read(query, args))
    seeds = {E + "jpi": 1.0}

    def ranked():
        ranking = PassageRanker(index).rank(QUESTION, seeds, 5, skip=STOPWORDS)
        return [(p.chunk, p.score, p.bridges) for p in ranking.passages]

    first = ranked()
    assert {"FROM mentions", "FROM topics", "FROM chunks"} <= {w for q in reads for w in (
        "FROM mentions", "FROM topics", "FROM chunks") if w in q}
    reads.clear()
    assert ranked() == first
    assert not [q for q in reads if "FROM mentions" in q or "FROM topics" in q or "FROM chunks" in q]
    text = "Society of Minds\n\nThe Society of Minds publishes journals."
    index.replace("som2", "sha256:som2", [Chunk(C + "som2", text, 0, len(text))], [],
                  _mentions(C + "som2", text, [("som", "Society of Minds")]))
    reads.clear()
    ranked()
    assert any("FROM mentions" in q for q in reads)  # read again after the commit
    index.close()
