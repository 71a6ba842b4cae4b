"""Full-text index of chunk text (SQLite FTS5, BM25), each document's entity labels, chunk mentions and entity links,
beside the store, kept in step with commits."""

from __future__ import annotations

import logging
from collections import Counter
import math
import re
import sqlite3
import threading
import unicodedata
import weakref
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar, cast

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Triple

from attest.store import fulltext_words as words
from attest.store.fulltext_words import TOKENIZE
from attest.vocab import ATT, ONT, RDF, RDFS, Iris

if TYPE_CHECKING:
    from attest.store.base import GraphStore
    from attest.store.clean_close import CloseRecord

Term = NamedNode | BlankNode | Literal | Triple
log = logging.getLogger("attest.fulltext")
FILE = "fulltext.sqlite"
TERM = re.compile(r"\w+", re.UNICODE)
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
MAX_TERMS = 16
CANDIDATES = 2_000  # chunks a search scores, about, per part (`FullText._bounded`)
K1 = 1.2  # FTS5's bm25() parameters: a word adds at most its idf x (K1 + 1) to a chunk's score
B = 0.75
POSTINGS_KEPT = 1 << 16  # words whose posting counts the readers remember (`_postings_of`), forgotten all at once past it
REMEMBERED = 4096  # keys of one kind the readers remember (`remembered`), forgotten all at once past it: ~5 MB a kind
NEWEST_KEPT = 1024  # queries of common words whose newest chunks the readers remember (`_newest`), ~5 KB each
_ABSENT = object()  # a key `remembered`'s fetch left out
_UNSEEN = object()  # a key `remembered` has not fetched
LAYOUT = 5  # PRAGMA user_version of the file; an older layout is emptied and refilled from the store
# chunk_rows: which rows of `chunks` hold a document's text. FTS5 cannot index its UNINDEXED `document` column, so a
# delete by document through it reads every chunk row; through chunk_rows it reads that document's rows only.
SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (document TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
  text, chunk UNINDEXED, document UNINDEXED, start UNINDEXED, end UNINDEXED, tokenize = '""" + TOKENIZE + """');
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
DROP INDEX IF EXISTS topics_by_entity;
CREATE INDEX IF NOT EXISTS topics_by_entity_chunk ON topics (entity, chunk);
CREATE INDEX IF NOT EXISTS topics_by_chunk ON topics (chunk);
CREATE TABLE IF NOT EXISTS epoch (value TEXT NOT NULL);
""" + words.SCHEMA
# mentions: which chunk names which entity (the graph's att:denotes mention records), where in the document;
# links: a fact a document states between two entities, direction and predicate dropped;
# topics: what a document is about, the entities of its first mention (its title or heading, or the subject of its first
# sentence), and the chunk that names them there (the passage ranking's bridges lead to it); read by entity and by chunk (without topics_by_chunk
# each passage ranking scanned the whole table twice: 2 of its 3 ms at 6,119 documents)
# epoch: the store's epoch (clean_close.py) the index was in step with when the store last closed cleanly, deleted by
# every write of the index (fulltext_step.py)
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
        # what the readers read, shared by every thread (a served app spreads its requests over its worker threads):
        # name -> (the commit count it was read under, the value); see `_since_commit`
        self._kept: dict[str, tuple[int, Any]] = {}
        self._kept_lock = threading.Lock()
        self._watch: sqlite3.Connection | None = None  # reads PRAGMA data_version only: the commits it has seen
        self._seen: int | None = None
        self._commits = 0
        # what this process knows of the index against its store's open (fulltext_step.py): in step since a check
        # (the open's close record, its outside writes then), and the commits between their store write and ours
        self.in_step: tuple[weakref.ref[CloseRecord], int] | None = None
        self.in_flight = 0
        self.follow_lock = threading.Lock()
        self.closed = False
        self.hooked: weakref.WeakSet[CloseRecord] = weakref.WeakSet()
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
                             "DELETE FROM mentions; DELETE FROM links; DELETE FROM topics; DELETE FROM epoch; "
                             f"PRAGMA user_version = {LAYOUT};")
        if not words.counted(db):  # an index written before the counts or, since, by a version without them
            try:
                words.recount(db)
            except sqlite3.OperationalError as exc:  # another process holds the write lock: not a corrupt file
                log.warning("full-text index %s: word counts not made (%s); searches count postings", self.path, exc)
        return db

    def held(self) -> dict[str, str]:
        with self.lock:
            return dict(self.db.execute("SELECT document, hash FROM documents").fetchall())

    def epoch(self) -> str | None:
        """The store epoch recorded at the store's last clean close, if the index has not been written since."""
        with self.lock:
            row = self.db.execute("SELECT value FROM epoch").fetchone()
        return row[0] if row else None

    def record_epoch(self, epoch: str) -> None:
        with self.lock:
            self.db.execute("BEGIN")
            try:
                self.db.execute("DELETE FROM epoch")
                self.db.execute("INSERT INTO epoch VALUES (?)", (epoch,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def recount_words(self) -> None:
        """Count every word's chunks again from the index itself (`attest index rebuild`)."""
        with self.lock:
            words.recount(self.db)

    def replace(self, document: str, content_hash: str, chunks: Iterable[Chunk], labels: Iterable[Label] = (),
                mentions: Iterable[MentionRow] = (), links: Iterable[tuple[str, str]] = (), *,
                followed: bool = False) -> None:
        """The document's chunks, labels, mentions and links, in one SQLite transaction (an empty hash deletes them)."""
        self.replace_many([(document, content_hash, chunks, labels, mentions, links)], followed=followed)

    def replace_many(self, documents: Iterable[tuple[str, str, Iterable[Chunk], Iterable[Label], Iterable[MentionRow],
                                                     Iterable[tuple[str, str]]]], *, followed: bool = False) -> None:
        """`replace` for many documents in one SQLite transaction (a bulk ingest's batch: one disk sync, not one
        per document). `followed`: the write follows the store's (a commit's, a check's); any other makes this
        process check the index against the store again (fulltext_step.py)."""
        documents = list(documents)
        if not followed:
            self.in_step = None
        with self.lock:
            self.db.execute("BEGIN")
            try:
                self.db.execute("DELETE FROM epoch")  # the index is no longer as the store's last clean close left it
                counting = words.counted(self.db)
                added: list[str] = []
                removed: list[str] = []
                held = self._held_of([d[0] for d in documents])
                for document, content_hash, chunks, labels, mentions, links in documents:
                    self._replace_rows(document, content_hash, chunks, labels, mentions, links, document in held,
                                       added, removed)
                    held.add(document)  # the same document again in this call replaces what the first wrote
                if counting:
                    words.apply(self.db, added, removed)
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def _held_of(self, documents: list[str]) -> set[str]:
        """Which of the documents the index holds rows of (a row of `documents` is written with every other row of a
        document, in the same transaction, and deleted with them)."""
        held: set[str] = set()
        for i in range(0, len(documents), 500):  # under SQLite's limit on bound parameters
            part = documents[i:i + 500]
            held.update(d for (d,) in self.db.execute(
                f"SELECT document FROM documents WHERE document IN ({', '.join('?' * len(part))})", part))
        return held

    def _replace_rows(self, document: str, content_hash: str, chunks: Iterable[Chunk], labels: Iterable[Label],
                      mentions: Iterable[MentionRow], links: Iterable[tuple[str, str]], held: bool,
                      added: list[str], removed: list[str]) -> None:
        """`added` and `removed` gather the texts of the chunks written and deleted (the word counts follow them)."""
        rows = [(c.text, c.iri, document, c.start, c.end) for c in chunks]
        label_rows = [(document, x.entity, x.label, x.type) for x in labels]
        mention_rows = [(document, m.chunk, m.entity, m.start, m.end) for m in mentions]
        link_rows = [(document, s, o) for s, o in links]
        first = min((start for _, _, _, start, _ in mention_rows if start is not None), default=None)
        topic_rows = sorted({(document, chunk, entity) for _, chunk, entity, start, _ in mention_rows
                             if first is not None and start == first})
        if held:  # a new document (a bulk ingest's, mostly) has no rows to delete: six statements a document saved
            removed.extend(t for (t,) in self.db.execute(
                "SELECT text FROM chunks WHERE rowid IN (SELECT row FROM chunk_rows WHERE document = ?)", (document,)))
            self.db.execute("DELETE FROM chunks WHERE rowid IN (SELECT row FROM chunk_rows WHERE document = ?)",
                            (document,))
            for table in ("chunk_rows", "labels", "mentions", "links", "topics", "documents"):
                self.db.execute(f"DELETE FROM {table} WHERE document = ?", (document,))
        if content_hash:
            added.extend(row[0] for row in rows)
            written = [(document, self.db.execute("INSERT INTO chunks VALUES (?, ?, ?, ?, ?)", row).lastrowid)
                       for row in rows]
            self.db.executemany("INSERT INTO chunk_rows VALUES (?, ?)", written)
            self.db.executemany("INSERT INTO labels VALUES (?, ?, ?, ?)", label_rows)
            self.db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?)", mention_rows)
            self.db.executemany("INSERT INTO links VALUES (?, ?, ?)", link_rows)
            self.db.executemany("INSERT INTO topics VALUES (?, ?, ?)", topic_rows)
            self.db.execute("INSERT INTO documents VALUES (?, ?)", (document, content_hash))

    def search(self, text: str, limit: int, document: str | None = None, *, skip: frozenset[str] = frozenset()) -> list[Hit]:
        """The chunks that best match the words of `text` (BM25), any word sufficing; words are quoted, so FTS5
        operators in the text (NEAR, AND, *, ^, quotes) are read as words. Words in `skip` (stop words) are left
        out unless nothing else is left: each matches most chunks (at 50,000 documents "what does ... use" made the
        search 150 ms). The search scores a bounded number of chunks whatever the words match (`_bounded`)."""
        terms = _terms(text, skip)
        if not terms:
            return []
        db = self._reader()
        if document:  # one document's chunks: FTS5 reads the rows the words match and keeps the document's
            ranked = db.execute("SELECT rowid, bm25(chunks) AS rank FROM chunks WHERE chunks MATCH ? AND document = ? "
                                "ORDER BY rank LIMIT ?", (_any(terms), document, limit)).fetchall()
        else:
            ranked = self._bounded(db, terms, limit)
        return self._hits(db, ranked)

    def search_scores(self, text: str, limit: int, *, skip: frozenset[str] = frozenset(), exact: bool = False
                      ) -> list[tuple[int, float]]:
        """(row, bm25) of `search`'s ranking, or with `exact` of FTS5 scoring every chunk the words match (what
        `search` did before it was bounded; bench/fulltext_scale.py compares the two)."""
        terms = _terms(text, skip)
        if not terms:
            return []
        db = self._reader()
        return self._scored(db, _any(terms), limit) if exact else self._bounded(db, terms, limit)

    def _bounded(self, db: sqlite3.Connection, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """(rowid, bm25) of the best `limit` chunks, scoring at most about 2 x CANDIDATES rows. FTS5 scores every
        row a word matches before it keeps the best, so a word that thousands of chunks contain made each search
        cost as much as those chunks (131 ms of a 175 ms /context at 50,000 documents). Here:
        - each word's chunks are counted up to CANDIDATES + 1 (a common word's count stops there);
        - words are read from the rarest up while their rows add up to at most CANDIDATES: every chunk naming one of
          them is scored over all the words, once (two bounded queries: the chunks naming rare words and no common
          one, then those naming a rare and a common word; BM25 is the sum over the words a chunk contains). That is
          exact BM25 for them;
        - a chunk naming only the common words scores at most the sum of their idf x (k1 + 1). When the best `limit`
          rows already reach that bound, no such chunk can enter and the result is exactly FTS5's;
        - otherwise the newest CANDIDATES chunks naming all the common words are scored too (a row range that FTS5
          seeks to), or naming any of them when fewer than `limit` name all; the rest of their rows are not: the one
          approximation, for words too common to tell chunks apart (at 50,000 generated documents a name is in
          two thirds of the chunks, and its idf is near 0)."""
        rows = self._row_count(db)
        if rows <= CANDIDATES:  # a small index: FTS5 scores every row the words match, as few as that
            return self._scored(db, _any(terms), limit)
        counts = self._capped(db, terms, CANDIDATES + 1)  # a common word's count stops there
        if sum(counts.values()) <= CANDIDATES:
            return self._scored(db, _any(terms), limit)
        rare: list[str] = []
        total = 0
        for term in sorted(terms, key=lambda t: counts[t]):
            if total + counts[term] > CANDIDATES:
                break
            rare.append(term)
            total += counts[term]
        common = [t for t in terms if t not in rare]
        scores: dict[int, float] = {}
        if rare:
            # each chunk scored once: those naming no common word, then those naming one, over all the words (a
            # phrase a chunk lacks adds 0 to its bm25(), so the first score is the rare words' alone, as before)
            scores.update(db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ?",
                                     (f"({_any(rare)}) NOT ({_any(common)})" if common else _any(rare),)))
            scores.update(db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ?",
                                     (f"({_any(rare)}) AND ({_any(common)})",)))
            postings = self._postings_of(db, common)
            bound = -sum(_idf(rows, postings[t]) * (K1 + 1) for t in common)  # bm25() < 0: lower is better
            if len(scores) >= limit and sorted(scores.values())[limit - 1] <= bound:
                return sorted(scores.items(), key=lambda r: r[1])[:limit]
        # the chunks naming every common word first: they usually outscore those that name fewer of them
        for match in ([" AND ".join(_any([t]) for t in common)] if len(common) > 1 else []) + [_any(common)]:
            matched, newest = self._newest(db, match, limit)
            for rowid, rank in newest:
                scores.setdefault(rowid, rank)  # a chunk that also names a rare word keeps its full score
            if matched >= limit:
                break
        return sorted(scores.items(), key=lambda r: r[1])[:limit]

    def _newest(self, db: sqlite3.Connection, match: str, limit: int) -> tuple[int, list[tuple[int, float]]]:
        """How many of the newest CANDIDATES chunks matching `match` there are, and (rowid, bm25) of those that can be
        among `_bounded`'s best `limit`, in FTS5's order: the best `limit` and their ties. One that scores worse than
        `limit` of them cannot: a chunk's score in `_bounded` is this one or, when it also names a rare word, its
        score over more words, which bm25() makes no worse. Remembered until another connection's commit: bm25()
        first counts every chunk each of the words is in, for their idf (6.5 of the 9 ms of this query at 50,000
        documents, however few rows it scores), and questions share their common words."""
        key = (match, limit, CANDIDATES)
        known: dict[tuple[str, int, int], tuple[int, list[tuple[int, float]]]] = self._since_commit("newest", dict)
        if (found := known.get(key)) is None:
            floor = db.execute("SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                               (match, CANDIDATES)).fetchone()
            newest = db.execute("SELECT rowid, bm25(chunks) FROM chunks WHERE chunks MATCH ? AND rowid > ?",
                                (match, floor[0] if floor else -1)).fetchall()
            cut = sorted(rank for _, rank in newest)[limit - 1] if len(newest) >= limit else math.inf
            if len(known) >= NEWEST_KEPT:
                known.clear()
            found = known[key] = (len(newest), [(rowid, rank) for rowid, rank in newest if rank <= cut])
        return found

    def bm25_of(self, text: str, texts: list[str], *, skip: frozenset[str] = frozenset(),
                as_indexed: bool = False) -> list[float]:
        """BM25 of the words of `text` in each of `texts` (passages already read), with the index's idf and the texts'
        own mean length: ranks a few passages against some words without FTS5 scoring every row the words match.
        With `as_indexed`, the index's mean length instead: FTS5's bm25() of those passages (negated, higher better),
        the score `search` gives a row, for passages it did not read that deep (FTS5 scoring a few rows by rowid
        reads every row its words match, to count them: 35 ms for 46 rows at 6,119 documents)."""
        terms = [_fold(t) for t in _terms(text, skip)]
        if not terms or not texts:
            return [0.0] * len(texts)
        db = self._reader()
        rows = self._row_count(db)
        postings = self._postings_of(db, terms)
        idf = {t: _idf(rows, postings[t]) for t in terms}
        counted = [_word_counts(t) for t in texts]
        mean = (self._mean_length(db) if as_indexed else sum(n for _, n in counted) / len(counted)) or 1.0
        return [sum(idf[t] * c[t] * (K1 + 1) / (c[t] + K1 * (1 - B + B * n / mean)) for t in terms if c[t])
                for c, n in counted]

    def _mean_length(self, db: sqlite3.Connection) -> float:
        """The chunks' mean length in words, as FTS5's bm25() takes it: its averages record (the row count, then each
        column's token total, as varints), read again only after another connection's commit."""
        def mean() -> float:
            row = db.execute("SELECT block FROM chunks_data WHERE id = 1").fetchone()
            counts = _varints(row[0]) if row else []
            return counts[1] / counts[0] if len(counts) > 1 and counts[0] else 0.0
        return self._since_commit("mean", mean)

    @staticmethod
    def _scored(db: sqlite3.Connection, match: str, limit: int) -> list[tuple[int, float]]:
        return db.execute("SELECT rowid, bm25(chunks) AS rank FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT ?",
                          (match, limit)).fetchall()

    @staticmethod
    def _hits(db: sqlite3.Connection, ranked: list[tuple[int, float]]) -> list[Hit]:
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = {r[0]: r[1:] for r in db.execute(
            f"SELECT rowid, chunk, document, start, end, text FROM chunks WHERE rowid IN ({marks})", [r for r, _ in ranked])}
        best = ranked[0][1] or -1.0  # bm25: lower is better, negative
        return [Hit(rows[r][0], rows[r][1], rows[r][2], rows[r][3], rows[r][4], round(rank / best, 4) if best else 1.0)
                for r, rank in ranked if r in rows]

    def _capped(self, db: sqlite3.Connection, terms: list[str], cap: int) -> dict[str, int]:
        """How many chunks contain each word, up to `cap`: from the word counts where they are exact and the word is
        one term of the index as written (ASCII letters and digits: the query's tokenizer reads it as that one
        term, case folded), else counted from its postings (`_rows_with`)."""
        if not self._counted(db):
            return {t: self._rows_with(db, t, cap) for t in terms}
        return {t: min(self._postings_of(db, [t])[t], cap) if t.isascii() and t.isalnum() else self._rows_with(db, t, cap)
                for t in terms}

    def _counted(self, db: sqlite3.Connection) -> bool:
        """Whether the index's word counts are exact (fulltext_words.py), read again after another connection's commit."""
        return self._since_commit("counted", lambda: words.counted(db))

    @staticmethod
    def _rows_with(db: sqlite3.Connection, term: str, cap: int) -> int:
        """How many chunks contain the word, counted up to `cap` (reading at most that many of its postings)."""
        return int(db.execute("SELECT count(*) FROM (SELECT 1 FROM chunks WHERE chunks MATCH ? LIMIT ?)",
                              (_any([term]), cap)).fetchone()[0])

    def remembered(self, kind: str, keys: list[K], fetch: Callable[[list[K]], dict[K, V]], keep: int = REMEMBERED
                   ) -> dict[K, V]:
        """Key -> `fetch`'s value, fetched only for the keys no thread's reader has fetched under `kind` since
        another connection's commit (what a stream of questions reads again: the passage counts and topic chunks of
        the same hub entities); a key `fetch` leaves out is left out, and remembered as absent. At most about `keep`
        keys are remembered. The values are shared: callers must not change them."""
        known: dict[K, object] = self._since_commit("remembered " + kind, dict)
        if len(known) >= keep:
            known.clear()
        found = {k: known.get(k, _UNSEEN) for k in dict.fromkeys(keys)}  # another thread may clear `known` meanwhile
        missing = [k for k, v in found.items() if v is _UNSEEN]
        if missing:
            fetched = fetch(missing)
            for k in missing:
                found[k] = known[k] = fetched.get(k, _ABSENT)
        return {k: cast(V, v) for k, v in found.items() if v is not _ABSENT}

    def _postings_of(self, db: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
        """`_postings` of each word, remembered until another connection's commit (questions share their words, and
        a ranking scores its passages against the question's words twice: BM25 beside the first hits, and the words
        the first passage leaves out)."""
        known: dict[str, int] = self._since_commit("postings", dict)
        if len(known) > POSTINGS_KEPT:
            known.clear()
        counted = self._counted(db)
        out: dict[str, int] = {}
        for term in terms:
            if (count := known.get(term)) is None:
                count = known[term] = words.count(db, _fold(term)) if counted else self._postings(db, term)
            out[term] = count
        return out

    @staticmethod
    def _postings(db: sqlite3.Connection, term: str) -> int:
        """How many chunks contain the word, from the index's term list (every posting counted, none scored): where
        the word counts are not exact (an index another version wrote since they were counted)."""
        row = db.execute("SELECT doc FROM temp.chunk_terms WHERE term = ?", (_fold(term),)).fetchone()
        return int(row[0]) if row else 0

    def _row_count(self, db: sqlite3.Connection) -> int:
        """The number of chunks, counted again only after another connection's commit."""
        return self._since_commit("rows", lambda: int(db.execute("SELECT count(*) FROM chunk_rows").fetchone()[0]))

    def _since_commit(self, name: str, compute: Callable[[], T]) -> T:
        """`compute()`, remembered under `name` for every thread until a connection commits (this process's writer or
        another's). The commits are counted by one connection that only reads PRAGMA data_version, so all threads
        compare the same count (each reader's own data_version moves on its own). A value computed while a commit
        was seen is not kept; one computed from reads that a commit nobody has seen yet overtook is dropped at the
        next call, whichever thread makes it."""
        with self._kept_lock:
            commits = self._commits_seen()
            cached = self._kept.get(name)
        if cached is not None and cached[0] == commits:
            return cast(T, cached[1])
        value = compute()
        with self._kept_lock:
            if self._commits_seen() != commits:
                return value
            cached = self._kept.get(name)
            if cached is not None and cached[0] == commits:  # another thread computed it meanwhile: one value for all
                return cast(T, cached[1])
            self._kept[name] = (commits, value)
        return value

    def _commits_seen(self) -> int:
        """How many times the watching connection found the file changed by a commit (under `_kept_lock`)."""
        if self._watch is None:
            self._watch = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        version = self._watch.execute("PRAGMA data_version").fetchone()[0]
        if version != self._seen:
            self._seen = version
            self._commits += 1
        return self._commits

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

    def read(self, query: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query on this thread's reading connection (the passage ranking's bounded reads)."""
        return self._reader().execute(query, args).fetchall()

    def _reader(self) -> sqlite3.Connection:
        """This thread's reading connection: in WAL mode readers neither wait for the writer nor for each other (one
        shared connection made every search of a busy server queue behind the others)."""
        db = getattr(self._readers, "db", None)
        if db is None:
            db = self._readers.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_terms USING fts5vocab(main, chunks, row)")
            with self.lock:
                self._reader_list.append(db)
        return db

    def close(self) -> None:
        with self.lock:
            self.closed = True
            for db in (*self._reader_list, self.db):
                db.close()
            self._reader_list.clear()
        with self._kept_lock:
            if self._watch is not None:
                self._watch.close()
            self._kept.clear()


def for_store(store: object) -> FullText | None:
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


def close_for(store: object) -> None:
    """Close and forget the index beside a store that is going away (a purged memory namespace)."""
    path = getattr(store, "path", None)
    if path is None:
        return
    with _opening:
        index = _OPEN.pop(Path(path).parent / FILE, None)
    if index is not None:
        index.close()


@dataclass
class DocumentRows:
    """What the index holds for one document graph, read from its quads in one pass (`document_rows`)."""

    chunks: dict[str, list[Chunk]]  # document id -> its chunks
    labels: list[Label]
    mentions: list[MentionRow]
    links: list[tuple[str, str]]


_CHUNK_PROPS = frozenset((ATT + "text", ATT + "inDocument", ATT + "charStart", ATT + "charEnd"))
_MENTION_PROPS = frozenset((ATT + "inChunk", ATT + "denotes", ATT + "charStart", ATT + "charEnd"))
_LABEL, _TYPE = RDFS + "label", RDF + "type"


def document_rows(quads: Iterable[Quad], iris: Iris) -> DocumentRows:
    """A document graph's chunks, labels, mentions and links (as ingestion writes them), each quad's terms read once
    (pyoxigraph builds a new object on every accessor) and each IRI's entity test made once."""
    is_entity: dict[str, bool] = {}

    def entity(iri: str) -> bool:
        known = is_entity.get(iri)
        if known is None:
            known = is_entity[iri] = iris.entity_id(iri) is not None
        return known

    chunk_props: dict[str, dict[str, Term]] = {}
    mention_props: dict[str, dict[str, Term]] = {}
    labels: set[Label] = set()
    links: set[tuple[str, str]] = set()
    for q in quads:
        s, o = q.subject, q.object
        if not isinstance(s, NamedNode):
            continue
        p, subject = q.predicate.value, s.value
        if p in _CHUNK_PROPS:
            chunk_props.setdefault(subject, {})[p[len(ATT):]] = o
        if p in _MENTION_PROPS and "/mention/" in subject:
            mention_props.setdefault(subject, {})[p[len(ATT):]] = o
        if not entity(subject):
            continue
        if isinstance(o, NamedNode):
            target = o.value
            if target != subject and entity(target):
                links.add((subject, target))
            if p == _TYPE and target.startswith(ONT):
                labels.add(Label(subject, "", target[len(ONT):]))
        elif p == _LABEL and isinstance(o, Literal):
            labels.add(Label(subject, o.value, ""))
    chunks: dict[str, list[Chunk]] = {}
    prefix = iris.document("")
    for iri, found in chunk_props.items():
        text, document = found.get("text"), found.get("inDocument")
        if isinstance(text, Literal) and isinstance(document, NamedNode):
            doc = document.value.removeprefix(prefix)
            chunks.setdefault(doc, []).append(Chunk(iri, text.value, _int(found.get("charStart")), _int(found.get("charEnd"))))
    mentions: set[MentionRow] = set()
    for found in mention_props.values():
        chunk, named = found.get("inChunk"), found.get("denotes")
        if isinstance(chunk, NamedNode) and isinstance(named, NamedNode) and entity(named.value):
            mentions.add(MentionRow(chunk.value, named.value, _int(found.get("charStart")), _int(found.get("charEnd"))))
    return DocumentRows(chunks, sorted(labels, key=lambda x: (x.entity, x.label, x.type)),
                        sorted(mentions, key=lambda m: (m.chunk, m.start or 0, m.entity)), sorted(links))


def _terms(text: str, skip: frozenset[str]) -> list[str]:
    """The words a search looks for: casefolded, once each, stop words left out unless nothing else is left."""
    words = list(dict.fromkeys(t.casefold() for t in TERM.findall(text)))
    return ([t for t in words if t not in skip] or words)[:MAX_TERMS]


def _fold(word: str) -> str:
    """A casefolded word as the index's tokenizer keeps it (unicode61, remove_diacritics 2: diacritics dropped)."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=1 << 16)
def _folded(word: str) -> str:
    """A word of a passage as the index keeps it (`_fold` of its casefolded form): passages repeat their words, and
    a hub's passages are scored again and again (bm25_of)."""
    return _fold(word.casefold())


@lru_cache(maxsize=4096)
def _word_counts(text: str) -> tuple[Counter[str], int]:
    """A passage's words as the index keeps them, counted, and how many there are: the passages a hub's questions
    score again and again (bm25_of) are split once."""
    words = TERM.findall(text)
    return Counter(map(_folded, words)), len(words)


def _any(terms: list[str]) -> str:
    """An FTS5 query matching any of the words, each quoted (so operators in them are read as words)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints, as FTS5 writes its records: 7 bits a byte, the high bit set while more follow, a 9th byte
    of 8 bits."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def _idf(rows: int, containing: int) -> float:
    """FTS5 bm25()'s idf of a word that `containing` of `rows` chunks contain."""
    return max(math.log((rows - containing + 0.5) / (containing + 0.5)), 1e-6)


def _int(term: Term | None) -> int | None:
    return int(term.value) if isinstance(term, Literal) else None


def reindex(store: GraphStore, iris: Iris, doc: str, content_hash: str) -> None:
    index = for_store(store)
    if index is None:
        return
    rows = document_rows(store.quads(iris.document_graph(doc)), iris)
    index.replace(doc, content_hash, rows.chunks.get(doc, []), rows.labels, rows.mentions, rows.links)


def on_commit(store: GraphStore, iris: Iris, doc: str, document: list[Quad] | None, status: list[Quad]) -> None:
    """After a document's commit: its chunks and labels replace what the index held for it (none when it was deleted
    or is not done); `document` None: the commit kept the document graph as it was."""
    on_commit_many(store, iris, {doc: (document, status)})


def on_commit_many(store: GraphStore, iris: Iris, docs: dict[str, tuple[list[Quad] | None, list[Quad]]]) -> None:
    """`on_commit` for many documents (doc id -> its document and status quads), in one index transaction. The index
    ends as a check against the store leaves it (attest.ingest.status.sync_fulltext): the documents whose status is
    done, at their content hash."""
    index = for_store(store)
    if index is None:
        return
    rows = []
    for doc, (document, status) in docs.items():
        content_hash = _done_hash(status, iris.document(doc))
        if document is None:  # the graph the commit kept, read only where the index holds it
            document = list(store.quads(iris.document_graph(doc))) if content_hash else []
        found = document_rows(document, iris)
        rows.append((doc, content_hash, found.chunks.get(doc, []), found.labels, found.mentions, found.links))
    index.replace_many(rows, followed=True)


def _done_hash(status: list[Quad], document: str) -> str:
    """The content hash a document's status quads give it if they say it is done, else ''."""
    state = content_hash = ""
    for q in status:
        if isinstance(q.object, Literal) and isinstance(q.subject, NamedNode) and q.subject.value == document:
            if q.predicate.value == ATT + "status":
                state = q.object.value
            elif q.predicate.value == ATT + "contentHash":
                content_hash = q.object.value
    return content_hash if state == "done" else ""
