"""Benchmark: CPU per document of three ingest stages on their own (SHACL gate, full-text rows, fact summary), to
compare two checkouts on a shared machine.

    python bench/ingest_parts.py [--docs 200] [--rounds 3] [--repo CHECKOUT]

Imports `attest` from `--repo` (default: this checkout). Ingests bench/ingest.py's generated documents (seed 42,
6 paragraphs) one after another into a temporary store with that checkout's pipeline, keeping each document's
mapped quads and what it commits. Then, in rounds, times on those inputs: the SHACL gate (a fresh `ShaclGate`, so
its memo starts empty as in a new ingest), the full-text index's rows of each committed document graph, and the
batch's fact-summary quads. Prints the fastest round's CPU ms per document of each and a digest of each one's
output (equal digests: the two checkouts compute the same thing). Run it with `--repo` the base checkout and then
without, alternately: the figures are CPU time of this process's thread, which moves less with the load than wall
time.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode("utf-8")).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=REPO)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "bench"))
    from ingest import make_document  # this checkout's generator: the same documents for both

    sys.path.insert(0, str(args.repo.resolve()))
    from attest.ingest.load import load_bytes
    from attest.ingest.session import open_session
    from attest.ingest.shacl_gate import ShaclGate
    from attest.ingest.summary import summary_quads
    from attest.ontology import load_ontology
    from attest.settings import load_settings
    from attest.store import fulltext, open_store
    from attest.vocab import Iris

    rng = random.Random(42)
    texts = [make_document(rng, i, 6) for i in range(args.docs)]
    with tempfile.TemporaryDirectory(prefix="attest-ingest-parts-") as tmp:
        config = Path(tmp) / "attest.yaml"
        config.write_text(f"data_dir: {Path(tmp) / 'data'}\ningest_overlap: 0\n", encoding="utf-8")
        settings = load_settings(config)
        store = open_store(settings)
        try:
            iris = Iris(settings.base_iri)
            load_ontology(store, settings.ontology_dir, iris, settings.ontology_modules_off)
            pipeline = open_session(store, settings, offline=True).pipeline
            mapped, committed = [], []
            for i, text in enumerate(texts):
                doc = load_bytes(text.encode(), source=f"report-{i:06d}.md", max_bytes=settings.max_file_bytes)
                step = pipeline.prepare(doc)
                assert hasattr(step, "quads"), step  # every generated document is new: mapped, not reported
                mapped.append(list(step.quads))
                pipeline.finish(step, pipeline.gate_quads(step))
                committed.append(list(store.quads(iris.document_graph(step.doc_id))))
        finally:
            store.close()
    import attest

    print(f"{args.docs} generated documents, attest from {Path(attest.__file__).parent}; {sum(map(len, committed)) / args.docs:.0f} "
          "quads per committed document graph")

    def gate_all():
        gate = ShaclGate.from_dirs(settings.shapes_dir, settings.ontology_dir, settings.ontology_modules_off)
        # the extraction activity's times are clocks: left out of what is compared
        return [(sorted(str(q) for q in r.kept if "#dateTime" not in str(q.object)), [f.to_dict() for f in r.findings])
                for r in map(gate.gate, mapped)]

    def fulltext_rows():
        if hasattr(fulltext, "document_rows"):
            return [(r.chunks, r.labels, r.mentions, r.links) for r in (fulltext.document_rows(q, iris) for q in committed)]
        return [(fulltext.chunks_of(q, iris), fulltext.labels_of(q, iris), fulltext.mentions_of(q, iris),
                 fulltext.links_of(q, iris)) for q in committed]

    def summary():
        return [summary_quads(iris, q) for q in committed]

    for name, run in (("SHACL gate", gate_all), ("full-text rows", fulltext_rows), ("fact summary", summary)):
        best, out = float("inf"), None
        for _ in range(args.rounds):
            started = time.thread_time()
            out = run()
            best = min(best, time.thread_time() - started)
        print(f"{name}: {1000 * best / args.docs:.2f} ms CPU per document (fastest of {args.rounds}), "
              f"digest {digest(out)}")


if __name__ == "__main__":
    main()
