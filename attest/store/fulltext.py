"""Full-text index of chunk text (SQLite FTS5, BM25), each document's entity labels, chunk mentions and entity links,
beside the store, kept in step with commits."""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from pyoxigraph import Literal, NamedNode, Quad

from attest.vocab import ATT, ONT, RDF, RDFS, Iris

log = logging.getLogger("attest.fulltext")
FILE = "fulltext.sqlite"
TERM = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 16
LAYOUT = 5  # PRAGMA user_version of the file; an older layout is emptied and refilled from the store
# chunk_rows: which rows of `chunks` hold a document's text. FTS5 cannot index its UNINDEXED `document` column, so a
# delete by document through it reads every chunk row; through chunk_rows it reads that document's rows only.
SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (document TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
  text, chunk UNINDEXED, document UNINDEXED, start UNINDEXED, end UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS chunk_rows (document TEXT NOT NULL, row INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunk_rows_by_document ON chunk_rows (document);
CREATE TABLE IF NOT EXISTS labels (document TEXT NOT NULL, entity TEXT NOT NULL, label TEXT NOT NULL, type TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS labels_by_document ON labels (document);
CREATE TABLE IF NOT EXISTS mentions (document TEXT NOT NULL, chunk TEXT NOT NULL, entity TEXT NOT NULL,
  start INTEGER, end INTEGER);
CREATE INDEX IF NOT EXISTS mentions_by_document ON mentions (document);
CREATE INDEX IF NOT EXISTS mentions_by_entity ON mentions (entity, chunk);
CREATE INDEX IF NOT EXISTS mentions_by_chunk ON mentions (chunk);
CREATE TABLE IF NOT EXISTS links (document TEXT NOT NULL, subject TEXT NOT NULL, object TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_by_document ON links (document);
CREATE INDEX IF NOT EXISTS links_by_subject ON links (subject);
CREATE INDEX IF NOT EXISTS links_by_object ON links (object);
CREATE TABLE IF NOT EXISTS topics (document TEXT NOT NULL, chunk TEXT NOT NULL, entity TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS topics_by_document ON topics (document);
CREATE INDEX IF NOT EXISTS topics_by_entity ON topics (entity);
"""
# mentions: which chunk names which entity (the graph's att:denotes mention records), where in the document;
# links: a fact a document states between two entities, direction and predicate dropped;
# topics: what a document is about, the entities of its first mention (its title or heading, or the subject of its first
# sentence), and the chunk that names them there (the passage ranking's bridges lead to it)
_OPEN: dict[Path, "FullText"] = {}
_opening = threading.Lock()


@dataclass(frozen=True)
class Hit:
    chunk: str
    document: str
    start: int | None
    end: int | None
    text: str
    score: float  # 0-1, the best hit 1


@dataclass(frozen=True)
class Chunk:
    iri: str
    text: str
    start: int | None
    end: int | None


@dataclass(frozen=True)
class MentionRow:
    """One chunk naming one entity, at a span of its document (None when the extractor gave none)."""

    chunk: str
    entity: str
    start: int | None
    end: int | None


@dataclass(frozen=True)
class Label:
    """What one document says an entity is called (rdfs:label, '' when it only types it) and is (an ontology class's
    local name, '' when it only labels it)."""

    entity: str
    label: str
    type: str


class FullText:
    """One SQLite file: `documents` says which content hash of each document the index holds, `chunks` its text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()  # the writing connection's; searches read through a connection per thread
        self._readers = threading.local()
        self._reader_list: list[sqlite3.Connection] = []
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError as exc:  # a corrupt file: the store holds everything it had
            log.warning("full-text index %s is unreadable (%s): rebuilt from the store", path, exc)
            path.unlink(missing_ok=True)
            self.db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        db.execute("SELECT count(*) FROM documents").fetchone()
        if db.execute("PRAGMA user_version").fetchone()[0] < LAYOUT:  # documents forgotten: the next sync refills them
            db.executescript("DELETE FROM documents; DELETE FROM chunks; DELETE FROM chunk_rows; DELETE FROM labels; "
                             "DELETE FROM mentions; DELETE FROM links; DELETE FROM topics; "
                             f"PRAGMA user_version = {LAYOUT};")
        return db

    def held(self) -> dict[str, str]:
        with self.lock:
            return dict(self.db.execute("SELECT document, hash FROM documents").fetchall())

    def replace(self, document: str, content_hash: str, chunks: Iterable[Chunk], labels: Iterable[Label] = (),
                mentions: Iterable[MentionRow] = (), links: Iterable[tuple[str, str]] = ()) -> None:
        """The document's chunks, labels, mentions and links, in one SQLite transaction (an empty hash deletes them)."""
        rows = [(c.text, c.iri, document, c.start, c.end) for c in chunks]
        label_rows = [(document, x.entity, x.label, x.type) for x in labels]
        mention_rows = [(document, m.chunk, m.entity, m.start, m.end) for m in mentions]
        link_rows = [(document, s, o) for s, o in links]
        placed = [m for m in mention_rows if m[3] is not None]
        first = min((m[3] for m in placed), default=None)
        topic_rows = sorted({(document, m[1], m[2]) for m in placed if m[3] == first})
        with self.lock:
            self.db.execute("BEGIN")
            try:
                self.db.execute("DELETE FROM chunks WHERE rowid IN (SELECT row FROM chunk_rows WHERE document = ?)",
                                (document,))
                for table in ("chunk_rows", "labels", "mentions", "links", "topics", "documents"):
                    self.db.execute(f"DELETE FROM {table} WHERE document = ?", (document,))
                if content_hash:
                    written = [(document, self.db.execute("INSERT INTO chunks VALUES (?, ?, ?, ?, ?)", row).lastrowid)
                               for row in rows]
                    self.db.executemany("INSERT INTO chunk_rows VALUES (?, ?)", written)
                    self.db.executemany("INSERT INTO labels VALUES (?, ?, ?, ?)", label_rows)
                    self.db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?)", mention_rows)
                    self.db.executemany("INSERT INTO links VALUES (?, ?, ?)", link_rows)
                    self.db.executemany("INSERT INTO topics VALUES (?, ?, ?)", topic_rows)
                    self.db.execute("INSERT INTO documents VALUES (?, ?)", (document, content_hash))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def search(self, text: str, limit: int, document: str | None = None, *, skip: frozenset[str] = frozenset()) -> list[Hit]:
        """The chunks that best match the words of `text` (BM25), any word sufficing; words are quoted, so FTS5
        operators in the text (NEAR, AND, *, ^, quotes) are read as words. Words in `skip` (stop words) are left
        out unless nothing else is left: each matches most chunks, and BM25 scores every chunk a word matches
        (at 50,000 documents "what does ... use" made the search 150 ms)."""
        match = _match(text, skip)
        if match is None:
            return []
        query = ("SELECT chunk, document, start, end, text, bm25(chunks) AS rank FROM chunks WHERE chunks MATCH ?"
                 + (" AND document = ?" if document else "") + " ORDER BY rank LIMIT ?")
        args = (match, document, limit) if document else (match, limit)
        return _hits(self._reader().execute(query, args).fetchall())

    def search_among(self, text: str, chunks: list[str], *, skip: frozenset[str] = frozenset()) -> list[Hit]:
        """`search` over the given chunks only, best first, scored against the whole index as `search` scores."""
        match = _match(text, skip)
        if match is None or not chunks:
            return []
        marks = ",".join("?" * len(chunks))
        query = ("SELECT chunk, document, start, end, text, bm25(chunks) AS rank FROM chunks WHERE chunks MATCH ? "
                 f"AND chunk IN ({marks}) ORDER BY rank")
        return _hits(self._reader().execute(query, (match, *chunks)).fetchall())

    def known_entities(self) -> dict[str, tuple[str, set[str]]]:
        """Entity IRI -> (its least rdfs:label over all documents, '' when none; every type they give it)."""
        with self.lock:
            rows = self.db.execute("SELECT DISTINCT entity, label, type FROM labels").fetchall()
        out: dict[str, tuple[str, set[str]]] = {}
        for entity, label, type_name in rows:
            known, types = out.get(entity, ("", set()))
            if type_name:
                types.add(type_name)
            out[entity] = (min(known, label) if known and label else known or label, types)
        return out

    def read(self, query: str, args: tuple = ()) -> list[tuple]:
        """Rows of a read-only query on this thread's reading connection (the passage ranking's bounded reads)."""
        return self._reader().execute(query, args).fetchall()

    def _reader(self) -> sqlite3.Connection:
        """This thread's reading connection: in WAL mode readers neither wait for the writer nor for each other (one
        shared connection made every search of a busy server queue behind the others)."""
        db = getattr(self._readers, "db", None)
        if db is None:
            db = self._readers.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            with self.lock:
                self._reader_list.append(db)
        return db

    def close(self) -> None:
        with self.lock:
            for db in (*self._reader_list, self.db):
                db.close()
            self._reader_list.clear()


def _match(text: str, skip: frozenset[str]) -> str | None:
    """An FTS5 query matching any word of the text (each quoted), stop words left out unless nothing else is left."""
    words = list(dict.fromkeys(t.casefold() for t in TERM.findall(text)))
    terms = ([t for t in words if t not in skip] or words)[:MAX_TERMS]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms) if terms else None


def _hits(rows: list[tuple]) -> list[Hit]:
    best = min((r[5] for r in rows), default=-1.0)  # bm25: lower is better, negative
    return [Hit(r[0], r[1], r[2], r[3], r[4], round(r[5] / best, 4) if best else 1.0) for r in rows]


def for_store(store) -> FullText | None:
    """The index beside an on-disk store (None for stores without a directory: in memory, remote); one per
    directory in this process, whichever view of the store asks."""
    path = getattr(store, "path", None)
    if path is None:
        return None
    file = Path(path).parent / FILE
    with _opening:
        index = _OPEN.get(file)
        if index is None:
            index = _OPEN[file] = FullText(file)
        return index


def close_for(store) -> None:
    """Close and forget the index beside a store that is going away (a purged memory namespace)."""
    path = getattr(store, "path", None)
    if path is None:
        return
    with _opening:
        index = _OPEN.pop(Path(path).parent / FILE, None)
    if index is not None:
        index.close()


def chunks_of(quads: Iterable[Quad], iris: Iris) -> dict[str, list[Chunk]]:
    """Document id -> its chunks, read from a document graph's quads as ingestion writes them."""
    props: dict[str, dict[str, object]] = {}
    for q in quads:
        p = q.predicate.value
        if p in (ATT + "text", ATT + "inDocument", ATT + "charStart", ATT + "charEnd") and isinstance(q.subject, NamedNode):
            props.setdefault(q.subject.value, {})[p[len(ATT):]] = q.object
    out: dict[str, list[Chunk]] = {}
    prefix = iris.document("")
    for iri, p in props.items():
        if "text" in p and "inDocument" in p:
            doc = p["inDocument"].value.removeprefix(prefix)
            out.setdefault(doc, []).append(Chunk(iri, p["text"].value, _int(p.get("charStart")), _int(p.get("charEnd"))))
    return out


def labels_of(quads: Iterable[Quad], iris: Iris) -> list[Label]:
    """The labels and ontology types a document graph gives the entities Attest minted."""
    out = set()
    for q in quads:
        p, o = q.predicate.value, q.object
        if not isinstance(q.subject, NamedNode) or iris.entity_id(q.subject.value) is None:
            continue
        if p == RDFS + "label" and isinstance(o, Literal):
            out.add(Label(q.subject.value, o.value, ""))
        elif p == RDF + "type" and isinstance(o, NamedNode) and o.value.startswith(ONT):
            out.add(Label(q.subject.value, "", o.value[len(ONT):]))
    return sorted(out, key=lambda x: (x.entity, x.label, x.type))


def mentions_of(quads: Iterable[Quad], iris: Iris) -> list[MentionRow]:
    """The mention records of a document graph: which chunk names which minted entity, and where."""
    props: dict[str, dict[str, object]] = {}
    for q in quads:
        p = q.predicate.value
        if p in (ATT + "inChunk", ATT + "denotes", ATT + "charStart", ATT + "charEnd") and isinstance(q.subject, NamedNode) \
                and "/mention/" in q.subject.value:
            props.setdefault(q.subject.value, {})[p[len(ATT):]] = q.object
    out = set()
    for p in props.values():
        if "inChunk" in p and "denotes" in p and iris.entity_id(p["denotes"].value) is not None:
            out.add(MentionRow(p["inChunk"].value, p["denotes"].value, _int(p.get("charStart")), _int(p.get("charEnd"))))
    return sorted(out, key=lambda m: (m.chunk, m.start or 0, m.entity))


def links_of(quads: Iterable[Quad], iris: Iris) -> list[tuple[str, str]]:
    """The facts a document graph states between two minted entities, as (subject, object)."""
    out = set()
    for q in quads:
        s, o = q.subject, q.object
        if isinstance(s, NamedNode) and isinstance(o, NamedNode) and s != o and iris.entity_id(s.value) is not None \
                and iris.entity_id(o.value) is not None:
            out.add((s.value, o.value))
    return sorted(out)


def _int(term) -> int | None:
    return int(term.value) if isinstance(term, Literal) else None


def reindex(store, iris: Iris, doc: str, content_hash: str) -> None:
    index = for_store(store)
    if index is None:
        return
    quads = list(store.quads(iris.document_graph(doc)))
    index.replace(doc, content_hash, chunks_of(quads, iris).get(doc, []), labels_of(quads, iris), mentions_of(quads, iris),
                  links_of(quads, iris))


def on_commit(store, iris: Iris, doc: str, document: list[Quad], status: list[Quad]) -> None:
    """After a document's commit: its chunks and labels replace what the index held for it (none when it was deleted)."""
    index = for_store(store)
    if index is None:
        return
    content_hash = next((q.object.value for q in status if q.predicate.value == ATT + "contentHash"
                         and q.subject.value == iris.document(doc)), "")
    index.replace(doc, content_hash if document else "", chunks_of(document, iris).get(doc, []), labels_of(document, iris),
                  mentions_of(document, iris), links_of(document, iris))
