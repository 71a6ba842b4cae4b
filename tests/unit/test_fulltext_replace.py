"""`FullText.replace_many`: a document's rows replace what the index held of it, whether it held some or not."""

from __future__ import annotations

import sqlite3

from attest.store.fulltext import Chunk, FullText, Label, MentionRow

TABLES = ("chunk_rows", "labels", "mentions", "links", "topics", "documents")


def rows_of(path, document: str) -> dict[str, list]:
    db = sqlite3.connect(path)
    try:
        out = {t: sorted(db.execute(f"SELECT * FROM {t} WHERE document = ?", (document,)).fetchall()) for t in TABLES}
        out["chunks"] = sorted(db.execute("SELECT text, chunk FROM chunks WHERE document = ?", (document,)).fetchall())
        return out
    finally:
        db.close()


def doc(name: str, word: str, content_hash: str = "h1"):
    chunk, entity = f"urn:c/{name}/{word}", f"urn:e/{word}"
    return (name, content_hash, [Chunk(chunk, f"{word} text", 0, 9)], [Label(entity, word, "Thing")],
            [MentionRow(chunk, entity, 0, len(word))], [(entity, "urn:e/other")])


def test_new_held_repeated_and_deleted_documents(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc("a", "alpha"), doc("b", "beta")])  # both new
    assert rows_of(path, "a")["chunks"] == [("alpha text", "urn:c/a/alpha")]
    assert rows_of(path, "a")["documents"] == [("a", "h1")]
    # a held document replaced, a new one beside it, and the same new document twice in one call: the last wins
    index.replace_many([doc("a", "gamma", "h2"), doc("c", "delta"), doc("c", "epsilon", "h3")])
    a, c = rows_of(path, "a"), rows_of(path, "c")
    assert a["chunks"] == [("gamma text", "urn:c/a/gamma")] and a["documents"] == [("a", "h2")]
    assert [r[2] for r in a["labels"]] == ["gamma"] and len(a["chunk_rows"]) == 1 and len(a["mentions"]) == 1
    assert c["chunks"] == [("epsilon text", "urn:c/c/epsilon")] and c["documents"] == [("c", "h3")]
    assert len(c["labels"]) == len(c["mentions"]) == len(c["links"]) == len(c["topics"]) == len(c["chunk_rows"]) == 1
    assert rows_of(path, "b")["chunks"] == [("beta text", "urn:c/b/beta")]  # untouched
    index.replace("b", "", [])  # an empty hash deletes
    assert all(not rows for rows in rows_of(path, "b").values())
    assert [h.chunk for h in index.search("beta", 5)] == []
    assert [h.chunk for h in index.search("epsilon", 5)] == ["urn:c/c/epsilon"]
    assert [h.chunk for h in index.search("delta", 5)] == []


def test_many_documents_past_the_parameter_limit(tmp_path):
    path = tmp_path / "fulltext.sqlite"
    index = FullText(path)
    index.replace_many([doc(f"d{i}", "old") for i in range(600)])
    index.replace_many([doc(f"d{i}", "new", "h2") for i in range(600)])  # every one held: each replaced
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT count(*) FROM chunks").fetchone() == (600,)
        assert db.execute("SELECT count(*) FROM labels WHERE label = 'old'").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM documents WHERE hash = 'h2'").fetchone() == (600,)
    finally:
        db.close()
