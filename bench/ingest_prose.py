"""Benchmark: `attest ingest --offline` of real Wikipedia paragraphs (2WikiMultihopQA corpus), documents/s.

    python bench/ingest_prose.py [--docs 6119] [--repo CHECKOUT] [--generated [--paragraphs 6]]

Each paragraph is written as one Markdown file, its title as the heading (as the docqa README says), into a
temporary folder; then `attest ingest --offline FOLDER` runs on a fresh store with the default settings (batched
bulk commits, the SHACL gate, OWL 2 RL reasoning after ingest) and the whole command is timed. The machine's load
average is printed before and after: the wall-clock figure is only comparable at a similar load; the command's CPU
time (user + system, all its threads and its worker process) gives documents per CPU second, which the load does
not change as much. `--generated`: bench/ingest.py's generated technical documents (seed 42, as bench/scale.py writes
them; `--paragraphs` each, 6 by default as in the earlier runs, bench/scale.py's default is 8) instead of the paragraphs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "data" / "docqa" / "2wiki_corpus.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=6119)
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose attest runs (to compare branches)")
    parser.add_argument("--generated", action="store_true", help="generated technical documents, not the paragraphs")
    parser.add_argument("--paragraphs", type=int, default=6, help="paragraphs per generated document")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attest-prose-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus"
        if args.generated:
            sys.path.insert(0, str(REPO / "bench"))
            from scale import generate  # bench/scale.py's corpus: its own imports are bench/'s modules

            generate(corpus, args.docs, args.paragraphs)
            paragraphs = list(range(args.docs))
        else:
            if not CORPUS.exists():
                raise SystemExit(f"{CORPUS} is missing (see ../shared/data/docqa/README.md)")
            paragraphs = json.loads(CORPUS.read_text(encoding="utf-8"))[: args.docs]
            corpus.mkdir()
            for i, p in enumerate(paragraphs):
                (corpus / f"{i:05d}.md").write_text(f"# {p['title']}\n\n{p['text']}\n", encoding="utf-8")
        config = work / "attest.yaml"
        config.write_text(f"data_dir: {work / 'data'}\n", encoding="utf-8")
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), "ingest", "--offline",
                               str(corpus)], cwd=args.repo, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        tail = [line for line in done.stdout.splitlines() if line.strip()][-4:]
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = usage.ru_utime + usage.ru_stime
        print(f"ingest --offline: {len(paragraphs)} documents in {seconds:.1f} s = {len(paragraphs) / seconds:.1f} documents/s "
              f"(wall); the command's CPU time {cpu:.1f} s = {len(paragraphs) / cpu:.1f} documents per CPU second; "
              f"peak memory {usage.ru_maxrss / 1024:.0f} MB (its largest process)")
        print("  " + "\n  ".join(tail))
        ending = [line for line in done.stderr.splitlines() if line.startswith(("store compacted", "store rewritten"))]
        print("  " + "\n  ".join(ending))  # what the command did once the documents were in (its share of the time)


if __name__ == "__main__":
    main()
