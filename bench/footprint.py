"""Benchmark: the store's footprint, quads per generated document by graph kind, and bytes of store per byte of text.

    python bench/footprint.py [--docs 200] [--paragraphs 8] [--by-predicate] [--bytes-by-kind] [--fresh-copy] [--corpus generated|2wiki] [--no-rewrite] [--after-write]

Generates --docs documents with bench/ingest.py's generator (the same corpus as bench/scale.py), or takes the first
--docs 2WikiMultihopQA paragraphs (each a titled Markdown file, as bench/ingest_prose.py writes them), ingests them
with `attest ingest --offline` (batched bulk commits, reasoning as configured by default, the compaction that ends
the command: a rewrite through the bulk loader when it pays, `--no-rewrite`: a compaction in place only), then
reports the ingest's wall time and the rewrite's line, and measures the data folder as the user finds it (store, full-text index, the rest) and counts the
quads of each
kind of graph (document, status, fact summary, inferred, derivations, quarantine, ontology, other) and prints them
per document. --by-predicate also breaks the document graphs down by predicate (and by the kind of subject), which
is where the layout's repetitions show.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import du, generate  # noqa: E402

WIKI = REPO.parent / "shared" / "data" / "docqa" / "2wiki_corpus.json"


def kind_of(graph: str, iris) -> str:
    for prefix, kind in ((iris.document_graph_prefix, "document"), (iris.status_graph_prefix, "status"),
                         (iris.staging_graph_prefix, "staging")):
        if graph.startswith(prefix):
            return kind
    named = {iris.facts_graph: "facts", iris.inferred_graph: "inferred", iris.derivations_graph: "derivations",
             iris.quarantine_graph: "quarantine", iris.ontology_graph: "ontology", iris.resolution_graph: "resolution"}
    return named.get(graph, "other")


def subject_kind(subject: str, base: str) -> str:
    if not subject.startswith(base):
        return "other"
    rest = subject[len(base):]
    if "/mention/" in rest:
        return "mention"
    return rest.split("/", 1)[0]


def wiki(folder: Path, docs: int) -> int:
    """The first `docs` 2Wiki paragraphs as titled Markdown files; their text's bytes."""
    paragraphs = json.loads(WIKI.read_text(encoding="utf-8"))[:docs]
    folder.mkdir(parents=True)
    for i, p in enumerate(paragraphs):
        (folder / f"{i:05d}.md").write_text(f"# {p['title']}\n\n{p['text']}\n", encoding="utf-8")
    return du(folder)


def compacted_size(store_dir: Path, drop: list[str]) -> int:
    """Bytes of a copy of the store without the `drop` graphs, written by the bulk loader (the layout `attest
    ingest`'s rewrite leaves; removing graphs from a copy and compacting it would rewrite a compressed store
    uncompressed, so the difference would not be what the graphs hold) and reopened (so that RocksDB deletes its
    obsolete write-ahead logs)."""
    import pyoxigraph

    dropped = {pyoxigraph.NamedNode(g) for g in drop}
    with tempfile.TemporaryDirectory(prefix="attest-footprint-copy-") as tmp:
        copy = Path(tmp) / "store"
        source = pyoxigraph.Store.read_only(str(store_dir))
        store = pyoxigraph.Store(str(copy))
        store.bulk_extend(q for q in source if q.graph_name not in dropped)
        store.flush()
        del store, source
        reopened = pyoxigraph.Store(str(copy))
        del reopened
        return du(copy)


def fresh_copy_size(store_dir: Path) -> tuple[int, float]:
    """Bytes of a new store holding the same quads, written by the bulk loader (its files are LZ4-compressed; a
    compaction of transactional writes leaves a store this small uncompressed), and the seconds the copy took."""
    import pyoxigraph

    with tempfile.TemporaryDirectory(prefix="attest-footprint-fresh-") as tmp:
        start = time.perf_counter()
        source = pyoxigraph.Store.read_only(str(store_dir))
        copy = pyoxigraph.Store(str(Path(tmp) / "store"))
        copy.bulk_extend(source)
        copy.flush()
        del copy, source
        reopened = pyoxigraph.Store(str(Path(tmp) / "store"))  # deletes the obsolete write-ahead logs
        del reopened
        return du(Path(tmp) / "store"), time.perf_counter() - start


def after_a_write(store_dir: Path) -> int:
    """Bytes of a copy of the store after what a server does on its first write: one small transactional write
    (100 quads in a graph of their own), then its background compaction (`optimize`), then a reopen."""
    import pyoxigraph

    with tempfile.TemporaryDirectory(prefix="attest-footprint-written-") as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(store_dir, copy)
        store = pyoxigraph.Store(str(copy))
        graph, p = pyoxigraph.NamedNode("urn:footprint:written"), pyoxigraph.NamedNode("urn:footprint:p")
        store.extend(pyoxigraph.Quad(pyoxigraph.NamedNode(f"urn:footprint:s{i}"), p, pyoxigraph.Literal(str(i)), graph)
                     for i in range(100))
        store.flush()
        store.optimize()
        del store
        reopened = pyoxigraph.Store(str(copy))
        del reopened
        return du(copy)


def bytes_by_kind(store_dir: Path, graphs_of: dict[str, list[str]]) -> dict[str, int]:
    whole = compacted_size(store_dir, [])
    return {kind: whole - compacted_size(store_dir, graphs) for kind, graphs in graphs_of.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--paragraphs", type=int, default=8)
    parser.add_argument("--by-predicate", action="store_true", help="break the document graphs down by predicate")
    parser.add_argument("--bytes-by-kind", action="store_true",
                        help="the store's bytes each graph kind holds: a bulk-loaded copy without its graphs is that much smaller")
    parser.add_argument("--fresh-copy", action="store_true",
                        help="also the bytes of the same quads written into a new store by Oxigraph's bulk loader")
    parser.add_argument("--after-write", action="store_true",
                        help="also the store's bytes after one small write and a full compaction (a server's first)")
    parser.add_argument("--corpus", choices=("generated", "2wiki"), default="generated")
    parser.add_argument("--no-rewrite", action="store_true",
                        help="ingest with ingest_rewrite off, attest ingest's default (a compaction in place); "
                             "without it the rewrite is turned on")
    parser.add_argument("--data-dir", help="work here (kept afterwards; else a temporary folder, removed)")
    args = parser.parse_args()
    if args.data_dir is None:
        with tempfile.TemporaryDirectory(prefix="attest-footprint-") as tmp:
            measure(args, Path(tmp))
    else:
        Path(args.data_dir).mkdir(parents=True, exist_ok=True)
        measure(args, Path(args.data_dir))


def measure(args, work: Path) -> None:
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    config = work / "attest.yaml"
    config.write_text(f"data_dir: {work / 'data'}\n", encoding="utf-8")
    corpus = work / "corpus"
    text_bytes = generate(corpus, args.docs, args.paragraphs) if args.corpus == "generated" else wiki(corpus, args.docs)
    command = [sys.executable, "-m", "attest.cli", "--config", str(config), "ingest", "--offline", str(corpus)]
    env = {**os.environ, "ATTEST_INGEST_REWRITE": "false" if args.no_rewrite else "true"}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    ingest_s = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    ending = [line for line in done.stderr.splitlines() if line.startswith(("store rewritten", "store compacted"))]

    settings = load_settings(config)
    iris = Iris(settings.base_iri)
    store = open_store(settings, read_only=True)
    try:
        by_kind: Counter[str] = Counter()
        graphs_of: dict[str, list[str]] = {}
        for graph, count in store.graph_sizes().items():
            by_kind[kind_of(graph or "", iris)] += count
            if graph:
                graphs_of.setdefault(kind_of(graph, iris), []).append(graph)
        predicates: Counter[tuple[str, str]] = Counter()
        if args.by_predicate:
            for graph in store.graphs():
                if graph.startswith(iris.document_graph_prefix):
                    for q in store.quads(graph):
                        predicates[(subject_kind(q.subject.value, iris.base), q.predicate.value)] += 1
    finally:
        store.close()
    held = bytes_by_kind(work / "data" / "store", graphs_of) if args.bytes_by_kind else {}
    fresh = fresh_copy_size(work / "data" / "store") if args.fresh_copy else None
    written = after_a_write(work / "data" / "store") if args.after_write else None
    store_bytes = du(work / "data" / "store")
    folder_bytes = du(work / "data")
    total = sum(by_kind.values())
    print(f"Command: `python bench/footprint.py --corpus {args.corpus} --docs {args.docs}"
          f"{' --no-rewrite' if args.no_rewrite else ''}`\n")
    print(f"`attest ingest` took {ingest_s:.1f} s ({args.docs / ingest_s:.1f} documents/s); it ended: "
          f"{'; '.join(ending) or 'no compaction line'}\n")
    print(f"{args.docs} documents, {text_bytes / 1e6:.2f} MB of text; data folder right after `attest ingest` "
          f"{folder_bytes / 1e6:.1f} MB = **{folder_bytes / text_bytes:.1f}× the text**\n")
    print("| part of the data folder | MB | × the text |\n|---|---:|---:|")
    parts: Counter[str] = Counter()
    for f in (work / "data").rglob("*"):
        if f.is_file():
            rel = f.relative_to(work / "data")
            parts[rel.parts[0] if len(rel.parts) > 1 else rel.name] += f.stat().st_size
    for name, size in parts.most_common():
        print(f"| {name} | {size / 1e6:.2f} | {size / text_bytes:.1f} |")
    print(f"\nstore {store_bytes / 1e6:.1f} MB, {store_bytes / text_bytes:.1f} bytes per byte of text\n")
    if written is not None:
        print(f"after one small write and a full compaction (a server's first): store {written / 1e6:.1f} MB, "
              f"{written / text_bytes:.1f}× the text\n")
    if fresh is not None:
        print(f"the same quads bulk-loaded into a new store: {fresh[0] / 1e6:.1f} MB, {fresh[0] / text_bytes:.1f}× the text "
              f"(copy {fresh[1]:.1f} s); with the rest of the folder {(folder_bytes - store_bytes + fresh[0]) / text_bytes:.1f}× "
              f"the text\n")
    print("| graph kind | quads | quads per document | MB of the store (bulk-loaded copy without them) | × the text |"
          "\n|---|---:|---:|---:|---:|")
    for kind, count in by_kind.most_common():
        size = f"{held[kind] / 1e6:.1f} | {held[kind] / text_bytes:.1f}" if kind in held else " | "
        print(f"| {kind} | {count:,} | {count / args.docs:.1f} | {size} |")
    print(f"| **total** | {total:,} | **{total / args.docs:.1f}** |")
    print(f"\nquads per document: {total / args.docs:.1f} (document graphs {by_kind['document'] / args.docs:.1f})")
    if args.by_predicate:
        print("\n| subject | predicate | per document |\n|---|---|---:|")
        for (kind, predicate), count in predicates.most_common():
            print(f"| {kind} | {predicate.rsplit('/', 1)[-1]} | {count / args.docs:.1f} |")


if __name__ == "__main__":
    main()
