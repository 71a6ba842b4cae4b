"""`attest index rebuild` leaves the full-text index's word counts exact, whatever they held before."""

from __future__ import annotations

import sqlite3

from tests.e2e.test_ingest_cli import attest, write_corpus


def counts(path) -> tuple[int, dict[str, int], dict[str, int]]:
    """(rows of words_counted, the kept counts, FTS5's own term list)."""
    db = sqlite3.connect(path)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks, row)")
        return (db.execute("SELECT count(*) FROM words_counted").fetchone()[0],
                dict(db.execute("SELECT term, chunks FROM words").fetchall()),
                dict(db.execute("SELECT term, doc FROM temp.v").fetchall()))
    finally:
        db.close()


def test_ingest_keeps_the_counts_and_a_rebuild_counts_them_again(tmp_path):
    folder = tmp_path / "in"
    write_corpus(folder, 3)
    assert attest(tmp_path, "ingest", str(folder), "--offline").returncode == 0
    path = tmp_path / "data" / "fulltext.sqlite"
    marked, kept, vocab = counts(path)
    assert marked == 1 and kept == vocab and vocab["rocksdb"] > 0
    db = sqlite3.connect(path)  # counts gone wrong, and a write as another version makes (the marker dropped)
    db.executescript("UPDATE words SET chunks = chunks + 7; INSERT INTO chunk_rows VALUES ('none', -1); "
                     "DELETE FROM chunk_rows WHERE row = -1;")
    db.close()
    assert counts(path)[0] == 0
    result = attest(tmp_path, "index", "rebuild")
    assert result.returncode == 0, result.stderr
    marked, kept, vocab = counts(path)
    assert marked == 1 and kept == vocab and vocab["rocksdb"] > 0
    db = sqlite3.connect(path)  # counts wrong but marked exact (a damaged file): the rebuild counts them from FTS5
    db.executescript("UPDATE words SET chunks = chunks + 7; INSERT INTO words VALUES ('phantom', 3);")
    db.close()
    assert attest(tmp_path, "index", "rebuild").returncode == 0
    marked, kept, vocab = counts(path)
    assert marked == 1 and kept == vocab and "phantom" not in kept
