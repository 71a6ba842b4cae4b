"""Benchmark: ontology discovery time over MetaQA's KB (target < 30 s) and a generated 1M-triple graph (< 5 min).

    python bench/discover.py [--triples 1000000] [--skip-metaqa] [--skip-generated] [--many-predicates 100000]

MetaQA's kb.txt (../shared/data/kbqa/metaqa) is written as N-Triples the way bench/kbqa.py loads it (its own IRIs,
an rdfs:label per entity, no vocabulary) and bulk-loaded into a fresh store. The generated graph has a known
structure: typed people and organisations, worksFor/employs mirroring each other, a functional birth year, a
symmetric knows with closeFriendOf inside it, untyped documents with a title and an author, and 40 filler
predicates, scaled to --triples. --many-predicates adds a third graph with that many distinct predicates (two
triples each), discovered under a 60 s deadline, to show it sampling. Each run times `discover()` (the same
function `attest ontology discover` and POST /ontology/discover call) with its default limits, wall and CPU time
(the queries run in this process; on a shared machine the CPU time says more), and prints what it found.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from attest.discover import discover  # noqa: E402
from attest.settings import load_settings  # noqa: E402
from attest.store import open_store  # noqa: E402

EX = "https://example.org/gen/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def generated(path: Path, triples: int, seed: int = 7) -> int:
    """A graph of about `triples` triples with the structure described above; returns the count written."""
    rng = random.Random(seed)
    people = max(10, triples // 25)
    orgs, docs = max(3, people // 50), people // 2
    count = 0
    with open(path, "w", encoding="utf-8") as f:
        def w(s: str, p: str, o: str) -> None:
            nonlocal count
            f.write(f"<{EX}{s}> <{EX}{p}> {o} .\n")
            count += 1

        for i in range(orgs):
            f.write(f"<{EX}org{i}> {RDF_TYPE} <{EX}Organisation> .\n")
            count += 1
        for i in range(people):
            f.write(f"<{EX}person{i}> {RDF_TYPE} <{EX}Person> .\n")
            count += 1
            w(f"person{i}", "birthYear", f'"{1940 + rng.randrange(70)}"^^<{XSD}gYear>')
            w(f"person{i}", "name", f'"Person {i}"')
            for org in {rng.randrange(orgs) for _ in range(rng.choice((1, 1, 2)))}:
                w(f"person{i}", "worksFor", f"<{EX}org{org}>")
                w(f"org{org}", "employs", f"<{EX}person{i}>")
            for _ in range(2):
                other = rng.randrange(people)
                if other != i:
                    w(f"person{i}", "knows", f"<{EX}person{other}>")
                    w(f"person{other}", "knows", f"<{EX}person{i}>")
                    if rng.random() < 0.3:
                        w(f"person{i}", "closeFriendOf", f"<{EX}person{other}>")
        for i in range(docs):
            w(f"doc{i}", "title", f'"Document {i}"')
            w(f"doc{i}", "author", f"<{EX}person{rng.randrange(people)}>")
        filler = 0
        while count < triples:
            w(f"person{rng.randrange(people)}", f"attribute{filler % 40}", f'"{rng.randrange(1000)}"^^<{XSD}integer>')
            filler += 1
    return count


def many_predicates(path: Path, predicates: int) -> int:
    with open(path, "w", encoding="utf-8") as f:
        for i in range(predicates):
            f.writelines(f"<{EX}s{(i + k) % 5000}> <{EX}p/{i}> \"{i}\" .\n" for k in range(2))
    return 2 * predicates


def measure(name: str, source: Path, work: Path, **limits) -> None:
    data = work / f"{name}-data"
    ontology = work / f"{name}-ontology"
    shutil.copytree(REPO / "ontology", ontology)
    settings = load_settings(None, data_dir=data, ontology_dir=ontology)
    store = open_store(settings)
    try:
        t = time.perf_counter()
        loaded = store.bulk_load_file(source)
        print(f"{name}: {loaded:,} triples loaded in {time.perf_counter() - t:.1f} s", flush=True)
        t, cpu = time.perf_counter(), time.process_time()
        found = discover(store, settings, progress=lambda m: print(f"  {time.perf_counter() - t:7.1f} s  {m}", flush=True),
                         **limits)
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    finally:
        store.close()
    summary = found.summary()
    load = os.getloadavg()[0]
    print(f"{name}: discovery {seconds:.1f} s wall, {cpu:.1f} s CPU (load average {load:.1f}), {summary['queries']} queries; {summary['terms']} terms {summary['kinds']}; "
          f"{summary['predicates_analysed']:,} of {summary['predicates']:,} predicates analysed")
    for note in summary["notes"]:
        print(f"  note: {note}")
    axioms = [(t.iri.rsplit("/", 1)[-1], s.predicate.rsplit("#", 1)[-1], getattr(s.value, "value", str(s.value)).rsplit("/", 1)[-1].rsplit("#", 1)[-1])
              for t in found.proposal.terms for s in t.statements if not s.predicate.endswith("label")]
    print("  axioms: " + "; ".join(" ".join(a) for a in axioms[:40]))
    print(f"  file: {found.path}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, default=1_000_000, help="size of the generated graph")
    parser.add_argument("--many-predicates", type=int, default=0, help="also a graph with this many predicates")
    parser.add_argument("--skip-metaqa", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="attest-discover-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if not args.skip_metaqa:
            import kbqa

            if not kbqa.KBQA.is_dir():
                raise SystemExit(f"MetaQA not found at {kbqa.KBQA}")
            kbqa.write_kb(kbqa.Naming(False), work)
            measure("metaqa", work / "kb.nt", work)
        if not args.skip_generated:
            generated(work / "generated.nt", args.triples)
            measure("generated", work / "generated.nt", work)
        if args.many_predicates:
            many_predicates(work / "many.nt", args.many_predicates)
            measure("many-predicates", work / "many.nt", work, deadline_s=60)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
