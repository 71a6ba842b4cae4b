"""Benchmark: one full-text search (`FullText.search`, as /context calls it) at bench/scale.py's corpus sizes.

    python bench/fulltext_scale.py [--docs 50000] [--queries 200] [--index FILE]

Builds the full-text index alone (no graph store) from bench/scale.py's generated documents, cleaned and chunked
by the ingest pipeline's own chunker, each document written with `FullText.replace` as a commit writes it; then
times `search(question, 50, skip=STOPWORDS)` (the passage ranking's call) over bench/scale.py's question
templates. It also compares each result with the exact BM25 ranking of the same index (every matching chunk
scored, `FullText.search_scores(exact=True)`): the share of the returned top 5 and top 50 whose BM25 score is at least the exact
ranking's 5th and 50th (a chunk that ties with the exact k-th may stand in for it), and the summed BM25 score of
the returned top k as a share of the exact top k's (on this corpus a name occurs in half the chunks or more, so
thousands of chunks score within a few percent of each other). --index keeps the built file for reruns (an existing file is reused).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct  # noqa: E402
from ingest import CONCEPTS, LANGS, ORGS, PEOPLE, TECH, make_document  # noqa: E402
from scale import QUESTIONS  # noqa: E402

from attest.answer.retrieve import STOPWORDS  # noqa: E402
from attest.ingest.chunk import chunk_text, clean, content_hash  # noqa: E402
from attest.store.fulltext import Chunk, FullText  # noqa: E402

DEPTH = 50  # attest/answer/passages.py's BM25_DEPTH


def build(path: Path, docs: int, paragraphs: int) -> None:
    index = FullText(path)
    rng = random.Random(42)  # bench/scale.py's generator and seed: the same documents
    started = time.perf_counter()
    for n in range(docs):
        text = make_document(rng, n, paragraphs)
        doc = f"report-{n:06d}"
        chunks = [Chunk(f"urn:chunk:{c.id}", c.text, c.start, c.end) for c in chunk_text(doc, clean(text, markdown=True))]
        index.replace(doc, content_hash(text), chunks)
    print(f"built {docs} documents in {time.perf_counter() - started:.1f} s")
    index.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--paragraphs", type=int, default=8)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--index", type=Path, help="keep the index file here (reused when it exists)")
    args = parser.parse_args()
    path = args.index or Path(tempfile.mkdtemp(prefix="attest-fts-")) / "fulltext.sqlite"
    if not path.exists():
        build(path, args.docs, args.paragraphs)
    index = FullText(path)
    chunks = index.read("SELECT count(*) FROM chunks")[0][0]
    rng = random.Random(7)
    questions = [rng.choice(QUESTIONS).format(t=rng.choice(TECH + LANGS), p=rng.choice(PEOPLE), o=rng.choice(ORGS),
                                              c=rng.choice(CONCEPTS)) for _ in range(args.queries)]
    index.search(questions[0], DEPTH, skip=STOPWORDS)
    times: list[float] = []
    overlap5: list[float] = []
    overlap50: list[float] = []
    exact_times: list[float] = []
    ratio: dict[int, list[float]] = {}
    exact = functools.partial(index.search_scores, exact=True)
    for q in questions:
        t = time.perf_counter()
        index.search(q, DEPTH, skip=STOPWORDS)
        times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        full = [rank for _, rank in exact(q, DEPTH, skip=STOPWORDS)]
        exact_times.append((time.perf_counter() - t) * 1000)
        raw = index.search_scores(q, DEPTH, skip=STOPWORDS)
        for k, out in ((5, overlap5), (DEPTH, overlap50)):
            if len(full) >= k:
                kth = full[k - 1]
                got = [rank for _, rank in raw[:k]]
                out.append(sum(1 for score in got if score <= kth * (1 - 1e-9) + 1e-12) / k)
                if sum(full[:k]):
                    ratio.setdefault(k, []).append(sum(got) / sum(full[:k]))
    print(f"{chunks} chunks, {len(questions)} questions, search(question, {DEPTH}) in ms:")
    print(f"  p50 {statistics.median(times):.1f}, p95 {pct(times, 0.95):.1f}, max {max(times):.1f}")
    if exact_times:
        print(f"  exact BM25 over every match: p50 {statistics.median(exact_times):.1f}, p95 {pct(exact_times, 0.95):.1f}")
        print(f"  share of the returned top 5 scoring at least the exact 5th: {100 * statistics.mean(overlap5):.1f}%; "
              f"of the top {DEPTH} at least the exact {DEPTH}th: {100 * statistics.mean(overlap50):.1f}%")
        for k, shares in ratio.items():
            print(f"  BM25 score of the returned top {k}, as a share of the exact top {k}'s: mean "
                  f"{100 * statistics.mean(shares):.1f}%, lowest {100 * min(shares):.1f}%")
    index.close()


if __name__ == "__main__":
    main()
