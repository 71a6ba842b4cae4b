"""The full-text index beside the store: BM25 search, kept in step with commits, repaired from the store."""

from __future__ import annotations

import logging
import threading

import pytest

from attest.extract.ontology_terms import load_terms
from attest.ingest.resolve import EntityIndex
from attest.ingest.session import known_labels
from attest.ingest.status import sync_fulltext
from attest.store import fulltext
from attest.store.fulltext import FullText
from tests.conftest import REPO


@pytest.fixture
def ingested(client):
    texts = {"rocks.txt": "Oxigraph keeps its data in RocksDB, an embedded key-value store.",
             "jena.txt": "Apache Jena is a Java framework with the TDB storage engine.",
             "owl.txt": "OWL 2 RL is a profile of the Web Ontology Language."}
    for name, text in texts.items():
        assert client.post("/documents", json={"text": text, "name": name}).status_code == 201
    return client


def _index(client) -> FullText:
    return fulltext.for_store(client.app.state.resources.store)


def _contents(index: FullText) -> set:
    with index.lock:
        return (set(index.db.execute("SELECT chunk, document, text FROM chunks").fetchall())
                | set(index.db.execute("SELECT entity, label, type, document FROM labels").fetchall()))


def _known_from_document_graphs(store, iris) -> list:
    """The extractor's known labels as read from every document graph (the path of a store without the index)."""
    terms = load_terms(REPO / "ontology")
    entities = EntityIndex.from_store(store, iris, terms).entities.values()
    return sorted((e.label, sorted(e.types)[0]) for e in entities if e.types and e.label)


def test_search_ranks_the_matching_chunk_first_and_context_uses_it(ingested):
    hits = _index(ingested).search("Which key-value store does Oxigraph use?", 5)
    assert hits and "RocksDB" in hits[0].text and hits[0].score == 1.0
    sources = ingested.post("/context", json={"query": "What storage engine does Apache Jena have?"}).json()["sources"]
    assert "TDB" in sources[0]["text"] and sources[0]["document"].startswith("jena")


def test_replace_and_delete_follow_the_commits(ingested):
    index = _index(ingested)
    assert ingested.post("/documents", json={"text": "Oxigraph is written in Rust.", "name": "rocks.txt"}).status_code == 201
    assert not index.search("RocksDB", 5) and index.search("Rust", 5)
    doc = next(d["id"] for d in ingested.get("/documents").json()["documents"] if d["source"] == "owl.txt")
    assert ingested.delete(f"/documents/{doc}").status_code == 204
    assert not index.search("Ontology Language", 5) and doc not in index.held()
    assert "TDB" in index.search("TDB", 5)[0].text  # other documents keep their chunks
    rows, mapped = (index.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("chunks", "chunk_rows"))
    assert rows == mapped and rows == index.db.execute(
        "SELECT count(*) FROM chunks WHERE rowid IN (SELECT row FROM chunk_rows)").fetchone()[0]


def test_the_extractor_knows_the_labels_the_document_graphs_give_after_adds_replaces_and_deletes(ingested):
    store, iris = ingested.app.state.resources.store, ingested.app.state.resources.iris
    terms = load_terms(REPO / "ontology")
    assert ingested.post("/documents", json={"text": "RocksDB is a key-value store written in C++ by Facebook.",
                                             "name": "more.txt"}).status_code == 201
    first = known_labels(store, iris, terms)
    assert {("RocksDB", "Database"), ("Apache Jena", "Library")} <= set(first)
    assert first == _known_from_document_graphs(store, iris)
    assert ingested.post("/documents", json={"text": "Blazegraph is a triple store.", "name": "more.txt"}).status_code == 201
    doc = next(d["id"] for d in ingested.get("/documents").json()["documents"] if d["source"] == "jena.txt")
    assert ingested.delete(f"/documents/{doc}").status_code == 204
    after = known_labels(store, iris, terms)
    assert after != first and after == _known_from_document_graphs(store, iris)
    assert not any(label in ("Apache Jena", "Facebook") for label, _ in after)  # only the deleted and replaced named them


def test_an_index_behind_the_store_is_repaired_to_what_a_rebuild_gives(ingested):
    store, iris, index = ingested.app.state.resources.store, ingested.app.state.resources.iris, _index(ingested)
    before = _contents(index)
    held = index.held()
    doc = sorted(held)[0]
    index.replace(doc, "", [])  # as if the process died between the store's commit and the index's
    index.replace("gone-doc", "sha256:x", [fulltext.Chunk("urn:c", "stale text", 0, 1)])  # a document deleted since
    assert sync_fulltext(store, iris) == 2
    assert _contents(index) == before and index.held() == held


def test_a_corrupt_index_file_is_rebuilt_with_a_log_line(tmp_path, caplog):
    path = tmp_path / "fulltext.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING, logger="attest.fulltext"):
        index = FullText(path)
    assert "rebuilt from the store" in caplog.text and index.held() == {}
    index.close()


@pytest.mark.parametrize("query", ['"', 'NEAR(a b)', "a AND OR NOT", "*", "^start", "x:y", "ÜNÏCÖDÉ ✓", "", "'; DROP TABLE chunks; --"])
def test_hostile_query_text_never_errors(ingested, query):
    _index(ingested).search(query, 5)
    assert ingested.post("/context", json={"query": query or "x"}).status_code == 200
    assert _index(ingested).held()


def test_an_index_of_an_older_layout_is_emptied_so_the_store_refills_it(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    old = FullText(path)
    old.replace("doc", "sha256:x", [fulltext.Chunk("urn:c", "text", 0, 4)])
    old.db.execute("PRAGMA user_version = 1")  # written before entity labels were indexed
    old.close()
    index = FullText(path)
    assert index.held() == {} and index.db.execute("PRAGMA user_version").fetchone()[0] == fulltext.LAYOUT
    index.close()


def test_searches_from_many_threads_run_beside_a_writer(tmp_path):
    """Each thread reads through its own connection (WAL): none waits for another, none fails while documents
    are replaced, and each sees only whole commits."""
    index = FullText(tmp_path / "fulltext.sqlite")
    index.replace("keep", "sha256:k", [fulltext.Chunk("urn:keep", "Oxigraph keeps RocksDB", 0, 22)])
    stop, failures = threading.Event(), []

    def write() -> None:
        i = 0
        while not stop.is_set():
            index.replace("churn", f"sha256:{i}", [fulltext.Chunk(f"urn:c{i}-{j}", f"Oxigraph churn {i}", 0, 9) for j in range(3)])
            i += 1

    def search() -> None:
        for _ in range(200):
            hits = index.search("Oxigraph", 10)
            if "urn:keep" not in {h.chunk for h in hits} or len(hits) not in (1, 4):  # 'churn' is all in or all out
                failures.append(hits)

    writer = threading.Thread(target=write)
    readers = [threading.Thread(target=search) for _ in range(4)]
    writer.start()
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    stop.set()
    writer.join()
    index.close()
    assert not failures


def test_stop_words_are_left_out_of_the_search_unless_nothing_else_is_asked(tmp_path):
    index = FullText(tmp_path / "fulltext.sqlite")
    index.replace("d", "sha256:d", [fulltext.Chunk("urn:stop", "What is what is what is the point", 0, 30),
                                    fulltext.Chunk("urn:name", "Oxigraph stores its data in RocksDB", 0, 35)])
    skip = frozenset({"what", "is", "the"})
    assert [h.chunk for h in index.search("What is Oxigraph?", 5, skip=skip)] == ["urn:name"]
    assert {h.chunk for h in index.search("What is Oxigraph?", 5)} == {"urn:stop", "urn:name"}
    assert [h.chunk for h in index.search("What is the", 5, skip=skip)] == ["urn:stop"]  # all stop words: kept
    index.close()


def _corpus(index: FullText, rng) -> None:
    """120 chunks: 'graph' in all, 'store' in most, 'rocksdb' in 10, 'sparql' in 4; lengths and repeats vary."""
    for n in range(120):
        words = ["graph"] * rng.randint(1, 3) + ["filler"] * rng.randint(0, 30)
        words += ["store"] * rng.randint(1, 2) if n % 5 else []
        words += ["rocksdb"] * rng.randint(1, 2) if n % 12 == 0 else []
        words += ["sparql"] if n % 30 == 7 else []
        rng.shuffle(words)
        index.replace(f"d{n}", f"sha256:{n}", [fulltext.Chunk(f"urn:c{n}", " ".join(words), 0, 10)])


def test_a_bounded_search_is_exact_bm25_while_the_words_match_few_chunks_or_the_rare_words_decide(tmp_path, monkeypatch):
    import random

    index = FullText(tmp_path / "fulltext.sqlite")
    _corpus(index, random.Random(3))
    assert index.search_scores("rocksdb sparql graph", 10, exact=True)  # the words are there
    for query in ("rocksdb sparql", "graph store rocksdb", "rocksdb graph", "sparql store graph filler"):
        exact = index.search_scores(query, 5, exact=True)
        assert index.search_scores(query, 5) == exact  # 120 chunks: under CANDIDATES, FTS5 scores them all
        monkeypatch.setattr(fulltext, "CANDIDATES", 14)  # 'rocksdb' and 'sparql' are rare, 'graph' and 'store' common
        bounded = index.search_scores(query, 5)
        monkeypatch.setattr(fulltext, "CANDIDATES", 2_000)
        if query != "sparql store graph filler":  # a chunk naming a rare word outscores any naming only common ones
            assert [r for r, _ in bounded] == [r for r, _ in exact], query
            assert [rank for _, rank in bounded] == pytest.approx([rank for _, rank in exact], rel=1e-9)
        assert [h.chunk for h in index.search(query, 5)] == [index.read("SELECT chunk FROM chunks WHERE rowid = ?", (r,))[0][0]
                                                             for r, _ in exact]
    index.close()


def test_a_search_over_common_words_scores_a_bounded_set_of_their_newest_chunks(tmp_path, monkeypatch):
    import random

    index = FullText(tmp_path / "fulltext.sqlite")
    _corpus(index, random.Random(5))
    monkeypatch.setattr(fulltext, "CANDIDATES", 20)
    bounded = index.search_scores("graph store", 10)
    exact = index.search_scores("graph store", 200, exact=True)
    both = [r for (r,) in index.read("SELECT rowid FROM chunks WHERE chunks MATCH 'graph AND store' ORDER BY rowid DESC LIMIT 21")]
    assert len(bounded) == 10 and {r for r, _ in bounded} <= set(both[:20])  # only the newest 20 naming both words
    scored = dict(exact)
    assert all(abs(scored[r] - rank) < 1e-9 for r, rank in bounded)  # each with its exact BM25 score
    assert [rank for _, rank in bounded] == sorted(rank for _, rank in bounded)
    wide = index.search_scores("graph store", 40)  # fewer than 40 scored chunks name both: the newest naming either too
    assert 20 < len(wide) <= 40 and any(r not in both for r, _ in wide)
    monkeypatch.setattr(fulltext, "CANDIDATES", 2_000)
    assert [r for r, _ in index.search_scores("graph store", 10)] == [r for r, _ in exact[:10]]
    index.close()


class _Counted:
    """A reading connection that counts the bm25() queries run through it."""

    def __init__(self, db) -> None:
        self.db, self.scored = db, 0

    def execute(self, sql, args=()):
        self.scored += "bm25(" in sql
        return self.db.execute(sql, args)


def _as_before(index: FullText, rare: list[str], common: list[str], limit: int) -> list:
    """`_bounded`'s ranking as it was before its newest chunks were cut to those that can rank: every newest chunk
    merged (the rare words' bound left out: these queries do not meet it)."""
    db, scores = index._reader(), {}
    if rare:
        scores.update(db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ?",
                                 (f"({fulltext._any(rare)}) NOT ({fulltext._any(common)})",)))
        scores.update(db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ?",
                                 (f"({fulltext._any(rare)}) AND ({fulltext._any(common)})",)))
    match = " AND ".join(fulltext._any([t]) for t in common)
    floor = db.execute("SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                       (match, fulltext.CANDIDATES)).fetchone()
    for rowid, rank in db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ? AND rowid > ?",
                                  (match, floor[0])):
        scores.setdefault(rowid, rank)
    return sorted(scores.items(), key=lambda r: r[1])[:limit]


def test_the_newest_chunks_of_common_words_are_remembered_until_a_commit_and_rank_as_before(tmp_path, monkeypatch):
    import random

    index = FullText(tmp_path / "fulltext.sqlite")
    _corpus(index, random.Random(11))
    monkeypatch.setattr(fulltext, "CANDIDATES", 20)
    counted = _Counted(index._reader())
    monkeypatch.setattr(index, "_reader", lambda: counted)
    for query, rare in (("graph store", []), ("sparql store graph filler", ["sparql"])):
        common = [w for w in query.split() if w not in rare]
        before = _as_before(index, rare, common, 5)
        counted.scored = 0
        first = index.search_scores(query, 5)
        scored = counted.scored
        assert first == before and scored == 1 + 2 * bool(rare), query  # the same rows, scores and order
        counted.scored = 0
        assert index.search_scores(query, 5) == first
        assert counted.scored == scored - 1, query  # the newest chunks' scores were remembered
    text = "graph graph graph store store"  # the newest chunk, and the best for the common words
    index.replace("new", "sha256:new", [fulltext.Chunk("urn:new", text, 0, len(text))])
    counted.scored = 0
    (best, _), *_ = index.search_scores("graph store", 5)
    assert index.read("SELECT chunk FROM chunks WHERE rowid = ?", (best,)) == [("urn:new",)] and counted.scored == 1
    index.close()


def test_what_a_reader_remembers_is_fetched_once_a_key_until_a_commit(tmp_path):
    index = FullText(tmp_path / "fulltext.sqlite")
    index.replace("d", "sha256:d", [fulltext.Chunk("urn:a", "alpha", 0, 5)])
    fetched = []

    def fetch(keys):
        fetched.append(keys)
        return {k: [k * 2] for k in keys if k != "absent"}

    assert index.remembered("kind", ["b", "a", "absent"], fetch) == {"b": ["bb"], "a": ["aa"]}
    assert index.remembered("kind", ["c", "absent", "a", "a"], fetch) == {"c": ["cc"], "a": ["aa"]}
    assert fetched == [["b", "a", "absent"], ["c"]]  # absent is remembered as absent
    assert index.remembered("other kind", ["a"], fetch) == {"a": ["aa"]} and fetched[-1] == ["a"]
    index.replace("e", "sha256:e", [fulltext.Chunk("urn:e", "epsilon", 0, 7)])  # the writer's commit
    assert index.remembered("kind", ["a"], fetch) == {"a": ["aa"]} and fetched[-1] == ["a"]
    seen = []
    thread = threading.Thread(target=lambda: seen.append(index.remembered("kind", ["a"], fetch)))
    thread.start()
    thread.join()
    assert seen == [{"a": ["aa"]}] and len(fetched) == 4  # what one thread's reader fetched, another's finds
    assert index.remembered("bounded", ["x", "y", "z"], fetch, keep=3) and fetched[-1] == ["x", "y", "z"]
    assert index.remembered("bounded", ["x"], fetch, keep=3) == {"x": ["xx"]} and fetched[-1] == ["x"]  # past `keep`: forgotten
    index.close()


def test_what_the_readers_remember_is_shared_by_threads_and_dropped_at_any_connections_commit(tmp_path):
    """A served app runs its requests on several worker threads: what one thread's reader fetched, the others find,
    and a commit by any connection (this index's writer, another process's) is seen by every thread, a thread that
    never read included. What was fetched while a commit landed is read again."""
    import sqlite3

    index = FullText(tmp_path / "fulltext.sqlite")
    index.replace("d", "sha256:d", [fulltext.Chunk("urn:a", "alpha", 0, 5)])
    fetched = []

    def fetch(keys):
        fetched.append(keys)
        return {k: k * 2 for k in keys}

    def in_thread(keys):
        seen = []
        thread = threading.Thread(target=lambda: seen.append(index.remembered("kind", keys, fetch)))
        thread.start()
        thread.join()
        return seen[0]

    assert in_thread(["a", "b"]) == {"a": "aa", "b": "bb"} and in_thread(["b", "a"]) == {"b": "bb", "a": "aa"}
    assert index.remembered("kind", ["a"], fetch) == {"a": "aa"} and fetched == [["a", "b"]]
    index.replace("e", "sha256:e", [fulltext.Chunk("urn:e", "epsilon", 0, 7)])  # the writer's commit
    assert in_thread(["a"]) == {"a": "aa"} and fetched[-1] == ["a"]  # a new thread sees it
    assert index.remembered("kind", ["a"], fetch) == {"a": "aa"} and len(fetched) == 2  # read again once, for all
    other = sqlite3.connect(tmp_path / "fulltext.sqlite", isolation_level=None)
    other.execute("INSERT INTO documents VALUES ('outside', 'sha256:o')")  # another connection's commit
    assert index.remembered("kind", ["a"], fetch) == {"a": "aa"} and len(fetched) == 3

    def fetch_while_committing(keys):
        other.execute("INSERT INTO documents VALUES (?, 'sha256:x')", (f"during-{len(fetched)}",))
        return fetch(keys)

    assert index.remembered("kind", ["c"], fetch_while_committing) == {"c": "cc"}
    assert index.remembered("kind", ["c"], fetch) == {"c": "cc"} and len(fetched) == 5  # not kept past that commit
    assert index.remembered("kind", ["c"], fetch) == {"c": "cc"} and len(fetched) == 5
    other.close()
    index.close()
