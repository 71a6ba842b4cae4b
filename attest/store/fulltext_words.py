"""How many chunks of the full-text index contain each word, kept as the index is written (BM25's idf without reading
posting lists at query time)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable

TOKENIZE = "unicode61 remove_diacritics 2"  # the chunks table's tokenizer: the counts must split text as it does
# words: term (as the index keeps it) -> chunks containing it, the `doc` column of fts5vocab(chunks, row), kept for
# words in at least one chunk. words_counted holds a row while `words` is exact. Every insert or delete of chunk_rows
# deletes that row (triggers, which a version that does not know the table runs too); this version's writer puts it
# back in the same transaction once it has counted what it wrote, so a write by another version leaves the counts
# marked stale, and the readers count posting lists as before until the next open counts them again (`recount`).
SCHEMA = """
CREATE TABLE IF NOT EXISTS words (term TEXT PRIMARY KEY, chunks INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS words_counted (done INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS words_stale_on_insert AFTER INSERT ON chunk_rows BEGIN DELETE FROM words_counted; END;
CREATE TRIGGER IF NOT EXISTS words_stale_on_delete AFTER DELETE ON chunk_rows BEGIN DELETE FROM words_counted; END;
"""


def counted(db: sqlite3.Connection) -> bool:
    """Whether `words` holds exact counts."""
    return db.execute("SELECT 1 FROM words_counted LIMIT 1").fetchone() is not None


def count(db: sqlite3.Connection, term: str) -> int:
    row = db.execute("SELECT chunks FROM words WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else 0


def recount(db: sqlite3.Connection) -> None:
    """Count every word from the index's own term list (one pass over all posting lists: 0.5 s of CPU at 50,000
    documents), in one transaction, and mark the counts exact."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_terms USING fts5vocab(main, chunks, row)")
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("DELETE FROM words")
        db.execute("INSERT INTO words SELECT term, doc FROM temp.chunk_terms")
        db.execute("DELETE FROM words_counted")
        db.execute("INSERT INTO words_counted VALUES (1)")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def chunks_with(texts: Iterable[str]) -> Counter[str]:
    """Word -> how many of the texts contain it, split by FTS5's own tokenizer (an in-memory table of the same kind),
    so each word is the term the index keeps."""
    mem = sqlite3.connect(":memory:")
    try:
        mem.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize = '{TOKENIZE}')")
        mem.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
        mem.executemany("INSERT INTO t VALUES (?)", ((text,) for text in texts))
        return Counter(dict(mem.execute("SELECT term, doc FROM v")))
    finally:
        mem.close()


def apply(db: sqlite3.Connection, added: list[str], removed: list[str]) -> None:
    """Within the writer's transaction, after its rows: add the words of the chunk texts it wrote, subtract those of
    the texts it deleted, and mark the counts exact again (the triggers unmarked them)."""
    change = chunks_with(added)
    change.subtract(chunks_with(removed))
    db.executemany("INSERT INTO words VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET chunks = chunks + excluded.chunks",
                   [(term, n) for term, n in change.items() if n])
    db.executemany("DELETE FROM words WHERE term = ? AND chunks <= 0", [(term,) for term, n in change.items() if n < 0])
    db.execute("DELETE FROM words_counted")
    db.execute("INSERT INTO words_counted VALUES (1)")
