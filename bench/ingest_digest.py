"""Check: `attest ingest --offline` of generated documents stores the same quads and full-text rows in two checkouts.

    python bench/ingest_digest.py [--docs 200] [--corpus generated|2wiki|dated] [--repo CHECKOUT] [--keep DIR]

Writes bench/scale.py's generated technical documents (6 paragraphs, its fixed seed) into a temporary folder, runs
the whole `attest ingest --offline` command of the checkout `--repo` (default: this one) on a fresh data folder
with the default settings, then reads the store with pyoxigraph directly and the full-text index with sqlite3, and
prints a SHA-256 digest of each: every quad sorted, dateTime literals (ingest and valid-time clocks) and the
reasoner's closure stamp left out, blank nodes compared by shape (each load of the ontology names them apart); every
row of every full-text table sorted. Two checkouts that store the same thing print the same digests. The valid-time
records (graph/validity) get a digest of their own too. `--corpus 2wiki`: the first --docs paragraphs of
`../shared/data/docqa/2wiki_corpus.json` as titled Markdown instead (real prose). `--corpus dated`: short notes on
bench/ingest.py's people and organizations, whose employers change (some since a date, some from one year to
another, some undated), so that many pairs are stated by many documents with valid times that close each other.
`--keep DIR`: also write the sorted dumps there (to diff when the digests differ).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from pyoxigraph import BlankNode, Literal, Store

REPO = Path(__file__).resolve().parent.parent
STAMP = "closureStamp"
VALIDITY = "https://w3id.org/attest/graph/validity"  # the default settings' base IRI
TABLES = ("chunks", "chunk_rows", "labels", "mentions", "links", "topics", "documents")


def quad_lines(store_path: Path) -> list[str]:
    store = Store.read_only(str(store_path))
    out = []
    for q in store:
        if isinstance(q.object, Literal) and q.object.datatype.value.endswith("#dateTime"):
            continue
        if q.predicate.value.endswith(STAMP):
            continue
        out.append(" ".join("_:b" if isinstance(t, BlankNode) else str(t)
                            for t in (q.subject, q.predicate, q.object, q.graph_name)))
    return sorted(out)


def table_lines(db_path: Path) -> list[str]:
    db = sqlite3.connect(db_path)
    try:
        out = []
        for table in TABLES:
            rows = db.execute(f"SELECT * FROM {table}").fetchall()  # a fixed name from TABLES, no input
            if table == "chunk_rows":  # the FTS rowid each chunk got: compared through what it points at
                rows = [(d, db.execute("SELECT chunk FROM chunks WHERE rowid = ?", (r,)).fetchone()) for d, r in rows]
            out.extend(f"{table} {row!r}" for row in rows)
        return sorted(out)
    finally:
        db.close()


def write_dated(folder: Path, docs: int) -> None:
    """Notes stating who works for which organization, since when or from when to when (a fixed seed)."""
    sys.path.insert(0, str(REPO))
    from bench.ingest import ORGS, PEOPLE

    rng = random.Random(7)
    folder.mkdir()
    for n in range(docs):
        sentences = []
        for _ in range(3):
            person, org = rng.choice(PEOPLE), rng.choice(ORGS)
            start = rng.randrange(1990, 2024)
            sentences.append(rng.choice([f"{person} works for {org}.",
                                         f"{person} has worked for {org} since {start}.",
                                         f"{person} worked for {org} from {start} to {start + rng.randrange(1, 6)}."]))
        (folder / f"note-{n:06d}.md").write_text(f"# Note {n}\n\n{' '.join(sentences)}\n", encoding="utf-8")


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--corpus", choices=("generated", "2wiki", "dated"), default="generated")
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attest-ingest-digest-") as tmp:
        work = Path(tmp)
        sys.path.insert(0, str(REPO / "bench"))
        from scale import generate

        if args.corpus == "2wiki":
            sys.path.insert(0, str(REPO))
            from bench.ingest_profile import write_corpus

            write_corpus(work / "corpus", "2wiki", args.docs)
        elif args.corpus == "dated":
            write_dated(work / "corpus", args.docs)
        else:
            generate(work / "corpus", args.docs, 6)
        config = work / "attest.yaml"
        config.write_text(f"data_dir: {work / 'data'}\n", encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), "ingest", "--offline",
                               str(work / "corpus")], cwd=args.repo, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        quads, rows = quad_lines(work / "data" / "store"), table_lines(work / "data" / "fulltext.sqlite")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        (args.keep / "quads.txt").write_text("\n".join(quads), encoding="utf-8")
        (args.keep / "fulltext.txt").write_text("\n".join(rows), encoding="utf-8")
    print(f"{args.docs} {args.corpus} documents, {args.repo}")
    print(f"store: {len(quads)} quads, digest {digest(quads)}")
    timed = [q for q in quads if q.endswith(f" <{VALIDITY}>")]
    print(f"graph/validity: {len(timed)} quads, digest {digest(timed)}")
    print(f"full-text index: {len(rows)} rows, digest {digest(rows)}")


if __name__ == "__main__":
    main()
