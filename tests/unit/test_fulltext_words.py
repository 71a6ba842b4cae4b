"""The full-text index's word counts: kept exact by its writes, counted again where another version wrote, and read
for BM25's idf in place of the posting lists."""

from __future__ import annotations

import sqlite3

import pytest

from attest.store.fulltext import Chunk, FullText

TEXTS = ["Oxigraph keeps RocksDB data", "Café crème brûlée", "snake_case words and CamelCase", "RocksDB RocksDB again",
         "Ünïcödé ✓ naïve façade", "2024 numbers 3.14 and x86_64", "oxigraph OXIGRAPH Oxigraph"]


def vocab(path) -> dict[str, int]:
    """What FTS5's own term list says: each term and how many chunks contain it."""
    db = sqlite3.connect(path)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks, row)")
        return dict(db.execute("SELECT term, doc FROM temp.v").fetchall())
    finally:
        db.close()


def kept(index: FullText) -> tuple[bool, dict[str, int]]:
    with index.lock:
        counted = index.db.execute("SELECT count(*) FROM words_counted").fetchone()[0] > 0
        return counted, dict(index.db.execute("SELECT term, chunks FROM words").fetchall())


def doc(name: str, texts: list[str], content_hash: str = "h1"):
    return (name, content_hash, [Chunk(f"urn:c/{name}/{i}", t, 0, len(t)) for i, t in enumerate(texts)], [], [], [])


def test_the_counts_follow_new_replaced_repeated_and_deleted_documents(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    assert kept(index) == (True, {})  # a new index: counted, empty
    index.replace_many([doc("a", TEXTS[:3]), doc("b", TEXTS[3:5])])
    assert kept(index) == (True, vocab(path)) and vocab(path)["rocksdb"] == 2 and vocab(path)["creme"] == 1
    # a held document replaced, a new one written twice in one call (the last wins), then one deleted
    index.replace_many([doc("a", TEXTS[5:], "h2"), doc("c", TEXTS[:2]), doc("c", TEXTS[1:4], "h3")])
    assert kept(index) == (True, vocab(path))
    index.replace("b", "", [])
    assert kept(index) == (True, vocab(path)) and "naive" not in kept(index)[1]  # a word no chunk has is not kept
    index.replace_many([doc(d, []) for d in ("a", "c")] + [doc("a", [], "")])
    assert kept(index) == (True, vocab(path))
    index.close()


def test_a_failed_write_leaves_the_counts_as_the_index(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", TEXTS[:2])])
    with pytest.raises(TypeError):
        index.replace_many([doc("b", TEXTS[2:4]), ("c", "h", [Chunk("urn:x", None, 0, 1)], 5, [], [])])  # type: ignore[arg-type]
    assert kept(index) == (True, vocab(path)) and "snake" not in vocab(path)
    index.close()


def test_an_index_written_without_the_counts_is_counted_at_its_next_open(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", TEXTS[:4]), doc("b", TEXTS[4:])])
    index.close()
    db = sqlite3.connect(path)  # as a version before the counts left the file
    db.executescript("DROP TRIGGER words_stale_on_insert; DROP TRIGGER words_stale_on_delete; "
                     "DROP TABLE words; DROP TABLE words_counted;")
    db.close()
    index = FullText(path)
    assert kept(index) == (True, vocab(path)) and kept(index)[1]["oxigraph"] == 2
    index.close()


def test_a_write_by_a_version_without_the_counts_makes_readers_count_postings_until_the_next_open(tmp_path, monkeypatch):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", TEXTS)])
    counted = dict(index._postings_of(index._reader(), ["rocksdb", "creme"]))
    assert counted == {"rocksdb": 2, "creme": 1}
    # another version's writer: its own rows, no counts (the triggers unmark them)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN")
    row = other.execute("INSERT INTO chunks VALUES ('RocksDB elsewhere', 'urn:o', 'o', 0, 9)").lastrowid
    other.execute("INSERT INTO chunk_rows VALUES ('o', ?)", (row,))
    other.execute("INSERT INTO documents VALUES ('o', 'h')")
    other.execute("COMMIT")
    other.close()
    assert not kept(index)[0]
    assert index._postings_of(index._reader(), ["rocksdb"]) == {"rocksdb": 3}  # read from the posting lists
    index.replace_many([doc("p", ["more RocksDB"])])  # this version's writes do not mark stale counts exact
    assert not kept(index)[0] and index._postings_of(index._reader(), ["rocksdb"]) == {"rocksdb": 4}
    index.close()
    index = FullText(path)
    assert kept(index) == (True, vocab(path)) and vocab(path)["rocksdb"] == 4
    index.close()


def test_exact_counts_are_read_for_the_idf_and_the_capped_counts_without_the_posting_lists(tmp_path, monkeypatch):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", TEXTS), doc("b", TEXTS[:3])])
    db = index._reader()
    expected = {t: min(FullText._rows_with(db, t, 3), 3) for t in ("rocksdb", "oxigraph", "café", "snake_case", "naïve")}
    expected_idf = index.bm25_of("rocksdb café naïve", TEXTS)
    index.close()

    def refused(*_args):
        raise AssertionError("posting list read")

    index = FullText(path)
    counted_rows = []
    rows_with = FullText._rows_with
    monkeypatch.setattr(FullText, "_postings", staticmethod(refused))
    monkeypatch.setattr(FullText, "_rows_with", staticmethod(lambda db, t, cap: counted_rows.append(t) or rows_with(db, t, cap)))
    assert index.bm25_of("rocksdb café naïve", TEXTS) == expected_idf
    assert index._capped(index._reader(), list(expected), 3) == expected
    assert counted_rows == ["café", "snake_case", "naïve"]  # only words that are not one ASCII term are counted there
    index.close()


def test_a_corrupt_or_older_layout_index_starts_counted(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    old = FullText(path)
    old.replace("doc", "sha256:x", [Chunk("urn:c", "text", 0, 4)])
    old.db.execute("PRAGMA user_version = 1")
    old.close()
    index = FullText(path)
    assert index.held() == {} and kept(index) == (True, {})
    index.close()
    path.unlink()
    path.write_bytes(b"this is not a database" * 100)
    index = FullText(path)
    index.replace("doc", "sha256:x", [Chunk("urn:c", "text again", 0, 4)])
    assert kept(index) == (True, {"text": 1, "again": 1})
    index.close()


def test_an_index_whose_counts_cannot_be_made_at_open_is_kept_and_searched(tmp_path, monkeypatch, caplog):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", TEXTS)])
    index.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM words_counted")  # stale, as after another version's write
    db.commit()
    db.close()

    def locked(_db):
        raise sqlite3.OperationalError("database is locked")  # another process writing

    monkeypatch.setattr("attest.store.fulltext_words.recount", locked)
    index = FullText(path)
    assert "word counts not made" in caplog.text and index.held() == {"a": "h1"}  # not taken for a corrupt file
    assert not kept(index)[0] and index._postings_of(index._reader(), ["rocksdb"]) == {"rocksdb": 2}
    assert {h.chunk for h in index.search("RocksDB", 5)} == {"urn:c/a/0", "urn:c/a/3"}
    index.close()
