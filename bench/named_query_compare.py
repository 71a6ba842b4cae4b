"""Benchmark: one named query, two versions of its .rq file, in process on an ingested store: same rows, and CPU time.

    python bench/named_query_compare.py --config DIR/attest.yaml --base BASE/queries --query NAME \
        [--now queries] [--param name=value ...] [--rounds 5]

The store is opened read-only (no server may hold it). Both versions run as the route runs them (the page of
`--limit` rows plus the probe row, the parameters bound as substitutions, the graphs of the query's `@dataset`).
First the rows are compared, order included: pages at offsets 0, 100 and 200 and the whole result (the query's own
LIMIT), each also with LATERAL left out as for a store without RDF 1.2. Then `--rounds` alternated rounds time the
first page: each round's best of 3, CPU time of this thread (`time.thread_time`, which load moves less than wall
time). Printed: each comparison, then per version the rounds' figures and their median (ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from attest.named_queries import NamedQuery, parse_named_query
from attest.operations.queries import _dataset
from attest.settings import load_settings
from attest.sparql.lexer import with_page, without_lateral
from attest.store import GraphStore, open_store
from attest.store.results import solutions
from attest.vocab import Iris

Row = tuple[str | None, ...]


def run(store: GraphStore, iris: Iris, query: NamedQuery, given: dict[str, str], *, offset: int | None, limit: int,
        lateral: bool = True) -> tuple[list[Row], float]:
    """The rows of one page (offset None: the whole result) and the CPU ms it took."""
    text = query.text if lateral else without_lateral(query.text)
    if offset is not None:
        text = with_page(text, limit, offset, probe=True)[0]
    substitutions = query.bind({k: [v] for k, v in given.items()}, iris)
    started = time.thread_time()
    found = solutions(store.query(text, substitutions=substitutions, **_dataset(store, iris, query)))
    rows = [tuple(None if s[v] is None else str(s[v]) for v in found.variables) for s in found]
    return rows, (time.thread_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--base", required=True, type=Path, help="the queries folder of the version to compare with")
    parser.add_argument("--now", type=Path, default=Path("queries"), help="the queries folder under test")
    parser.add_argument("--query", required=True)
    parser.add_argument("--param", action="append", default=[], help="name=value, once per parameter")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    given = dict(p.split("=", 1) for p in args.param)
    settings = load_settings(args.config)
    iris = Iris(settings.base_iri)
    versions = {label: parse_named_query(args.query, (folder / f"{args.query}.rq").read_text(encoding="utf-8"))
                for label, folder in (("base", args.base), ("now", args.now))}
    store = open_store(settings, read_only=True)
    same = True
    for offset in (0, 100, 200, None):
        for lateral in (True, False):
            base, now = (run(store, iris, q, given, offset=offset, limit=args.limit, lateral=lateral)[0]
                         for q in versions.values())
            same &= base == now
            print(f"{'whole result' if offset is None else f'offset {offset}'}"
                  f"{'' if lateral else ', LATERAL left out'}: {len(base)} rows, "
                  f"{'same rows and order' if base == now else 'DIFFERENT'}")
    times: dict[str, list[float]] = {label: [] for label in versions}
    for _ in range(args.rounds):
        for label, query in versions.items():
            times[label].append(min(run(store, iris, query, given, offset=0, limit=args.limit)[1] for _ in range(3)))
    for label, figures in times.items():
        print(f"{label}: {', '.join(f'{t:.0f}' for t in figures)} ms CPU, median {statistics.median(figures):.0f}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
