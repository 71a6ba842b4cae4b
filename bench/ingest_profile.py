"""Benchmark: where offline ingest spends its time, stage by stage, wall clock and CPU, and how busy each core is.

    python bench/ingest_profile.py [--corpus 2wiki|generated] [--docs 1000] [--overlap N] [--repeat-check]

Runs what `attest ingest --offline FOLDER` runs (fresh store, default settings: batched bulk commits, SHACL gate,
OWL 2 RL reasoning after ingest, the same `ingest_files` loop) in this process, on the first --docs paragraphs of
`../shared/data/docqa/2wiki_corpus.json` (titled Markdown, as bench/ingest_prose.py writes them) or on
bench/ingest.py's generated technical documents. Start-up (imports, ontology, the reasoner's first closure) is
outside the timed loop, and so is the worker's start (its CPU before the loop is
subtracted). `--overlap 0` runs every stage in this process one document after another; `--overlap N`
(the default setting, 64) lets the worker process extract and gate up to N coming documents meanwhile, and
writes each full batch in a thread while the next documents go on (as `attest ingest` does).

Per stage: wall-clock ms and CPU ms of the thread that ran it, per document. In overlapped runs the worker's
stages are timed in the worker; this process's "extract wait" and "shacl" rows are then the time it waited on it,
and the batch.* and reasoner rows run in the batch thread ("batch wait": the main thread waiting for it).
"Cores busy" is CPU seconds over wall seconds: this process (all its threads: the bulk loader's and RocksDB's too)
and the worker process, out of the machine's 2.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "data" / "docqa" / "2wiki_corpus.json"

from bench.ingest import make_document  # noqa: E402

ROWS = ("load", "chunk", "extract wait", "extract", "validate", "resolve", "map", "shacl", "write", "batch.summary", "batch.validity",
        "batch.bulk_load", "batch.fulltext", "reasoner",
        "batch wait")


def write_corpus(folder: Path, corpus: str, docs: int, paragraphs: int = 6) -> None:
    folder.mkdir()
    if corpus == "2wiki":
        for i, p in enumerate(json.loads(CORPUS.read_text(encoding="utf-8"))[:docs]):
            (folder / f"{i:05d}.md").write_text(f"# {p['title']}\n\n{p['text']}\n", encoding="utf-8")
    else:
        rng = random.Random(42)
        for i in range(docs):
            (folder / f"report-{i:06d}.md").write_text(make_document(rng, i, paragraphs), encoding="utf-8")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pids(worker) -> list[int]:
    return list(getattr(worker._pool, "_processes", {})) if worker is not None else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=("2wiki", "generated"), default="2wiki")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--overlap", type=int, default=64, help="settings.ingest_overlap (0: one process)")
    parser.add_argument("--paragraphs", type=int, default=6, help="paragraphs per generated document (bench/scale.py: 8)")
    parser.add_argument("--batch-quads", type=int, help="settings.ingest_batch_quads (default: the setting's)")
    args = parser.parse_args()

    from attest.ingest import overlap
    from attest.ingest.load import collect_files
    from attest.ingest.session import open_session
    from attest.ontology import load_ontology
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    with tempfile.TemporaryDirectory(prefix="attest-ingest-profile-") as tmp:
        work = Path(tmp)
        write_corpus(work / "corpus", args.corpus, args.docs, args.paragraphs)
        config = work / "attest.yaml"
        batch = f"ingest_batch_quads: {args.batch_quads}\n" if args.batch_quads is not None else ""
        config.write_text(f"data_dir: {work / 'data'}\ningest_overlap: {args.overlap}\n{batch}", encoding="utf-8")
        settings = load_settings(config)
        files = collect_files([work / "corpus"])
        store = open_store(settings)
        try:
            load_ontology(store, settings.ontology_dir, Iris(settings.base_iri), settings.ontology_modules_off)
            pipeline = open_session(store, settings, offline=True).pipeline
            if pipeline.reasoner is not None:
                pipeline.reasoner.materialize()  # start-up, outside the timed loop (the command does it before its first write)
            worker = overlap.start_worker(pipeline) if args.overlap else None
            load_before = os.getloadavg()[0]
            wall, cpu, main_cpu = time.perf_counter(), time.process_time(), time.thread_time()
            worker_cpu = [process_cpu(pid) for pid in worker_pids(worker)]
            with pipeline.batched(settings.ingest_batch_quads, background=args.overlap > 0):
                reports = list(overlap.ingest_files(pipeline, files, ahead=args.overlap, worker=worker))
            worker_cpu = [sum(process_cpu(pid) for pid in worker_pids(worker)) - sum(worker_cpu)] if worker else []
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            main_cpu = time.thread_time() - main_cpu
            load_after = os.getloadavg()[0]
        finally:
            if args.overlap and worker is not None:
                worker.close()
            store.close()
    n = len(reports)
    failed = sum(r.outcome in ("failed", "rejected") for r in reports)
    clock = pipeline.clock
    print(f"{args.corpus}: {n} documents ({failed} failed), overlap {args.overlap}, load average {load_before:.1f} "
          f"before, {load_after:.1f} after")
    print(f"wall {wall:.1f} s = {n / wall:.1f} documents/s; CPU {1000 * cpu / n:.1f} ms per document in this process "
          f"({1000 * main_cpu / n:.1f} on its main thread)" + (f" + {1000 * worker_cpu[0] / n:.1f} in the worker"
                                                                 if worker_cpu else ""))
    print(f"other threads of this process (RocksDB's compaction, the bulk loader; overlapped: the batch thread too): "
          f"{1000 * (cpu - main_cpu) / n:.1f} ms CPU per document")
    print(f"cores busy: this process {cpu / wall:.2f}" + (f", the worker {worker_cpu[0] / wall:.2f}" if worker_cpu else "")
          + " (of 2)")
    print("\n| stage | wall ms/doc | CPU ms/doc (its thread) | share of wall |\n|---|---:|---:|---:|")
    for stage in ROWS:
        if stage in clock.wall:
            print(f"| {stage} | {1000 * clock.wall[stage] / n:.2f} | {1000 * clock.cpu[stage] / n:.2f} | "
                  f"{100 * clock.wall[stage] / wall:.1f}% |")
    other = wall - sum(clock.wall.values())
    print(f"| other (the loop, reports) | {1000 * other / n:.2f} | | {100 * other / wall:.1f}% |")


if __name__ == "__main__":
    main()
