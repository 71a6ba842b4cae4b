"""Benchmark: the answer path as the corpus grows (500, 5,000, 50,000 generated documents), over HTTP.

    python bench/scale.py [--docs 5000] [--paragraphs 8] [--rounds 100] [--data-dir DIR] [--corpus dense]

Generates --docs documents with bench/ingest.py's generator (or, with --corpus dense, bench/dense_corpus.py's:
thousands of names, several in every sentence, a few of them hubs; its own questions), ingests them offline with `attest ingest`
(batched bulk commits, reasoning after the batch), then serves the store and measures, each as p50/p95 over
--rounds calls: /context on varied questions, /answer (extractive), the first page of /entities/{id} for the
most-mentioned entity, and the named query `neighbours` about it. Also: ingest documents/s, the store's size
on disk, quads per document and bytes of store per byte of text.
Targets at 5,000 documents: /context p95 < 100 ms, /answer p95 < 200 ms, /entities first page p95 < 50 ms,
neighbours < 100 ms, offline ingest >= 20 documents/s.
With --cpu (Linux), also the server process's CPU time for each request (every thread's; the wall clock of a shared
machine holds the wait for a core besides the request's own work).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct, process_cpu_ns, serving  # noqa: E402
import dense_corpus  # noqa: E402
from ingest import CONCEPTS, LANGS, ORGS, PEOPLE, TECH, make_document  # noqa: E402
from named_queries import most_mentioned  # noqa: E402

QUESTIONS = ["What does {t} use?", "Which standards does {t} implement?", "Who developed {t}?",
             "Where does {p} work?", "What did {p} propose?", "Who is a member of {o}?", "What improves on {t}?",
             "Which languages does {t} implement, and who developed it?", "What is {c}?", "Who founded {o}?"]


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def attest(config: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), *args], cwd=REPO,
                          capture_output=True, text=True, **kw)


def generate(folder: Path, docs: int, paragraphs: int, corpus: str = "generated") -> int:
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(42)
    make = dense_corpus.make_document if corpus == "dense" else make_document
    total = 0
    for n in range(docs):
        text = make(rng, n, paragraphs)
        (folder / f"report-{n:06d}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def timed(client: httpx.Client, method: str, url: str, cpu: list[float] | None = None, pid: int | None = None,
          **kw) -> float:
    """The request's wall clock in ms; with `pid`, the CPU that process spent meanwhile is appended to `cpu` (ms)."""
    before = process_cpu_ns(pid) if pid is not None else None
    t = time.perf_counter()
    response = client.request(method, url, **kw)
    elapsed = (time.perf_counter() - t) * 1000
    after = process_cpu_ns(pid) if pid is not None else None
    response.raise_for_status()
    if cpu is not None and before is not None and after is not None and after >= before:
        cpu.append((after - before) / 1e6)
    return elapsed


def question(rng: random.Random) -> str:
    return rng.choice(QUESTIONS).format(t=rng.choice(TECH + LANGS), p=rng.choice(PEOPLE), o=rng.choice(ORGS),
                                        c=rng.choice(CONCEPTS))


def measure(url: str, rounds: int, corpus: str, data_dir: Path, pid: int | None = None
            ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall clock per request kind, and with `pid` the server's CPU per request kind (ms)."""
    rng = random.Random(7)
    ask = dense_corpus.question if corpus == "dense" else question
    out: dict[str, list[float]] = {k: [] for k in ("context", "answer", "entities", "neighbours")}
    cpu: dict[str, list[float]] = {k: [] for k in out}
    with httpx.Client(base_url=url, timeout=120) as client:
        top = top_entity(client) if corpus == "generated" else most_mentioned(data_dir)[0].rsplit("/", 1)[-1]
        timed(client, "POST", "/context", json={"query": ask(random.Random(0))})  # first call: label index
        for i in range(rounds):
            q = ask(rng)
            out["context"].append(timed(client, "POST", "/context", cpu["context"], pid, json={"query": q}))
            out["answer"].append(timed(client, "POST", "/answer", cpu["answer"], pid,
                                       json={"question": q, "mode": "extractive"}))
            out["entities"].append(timed(client, "GET", f"/entities/{top}", cpu["entities"], pid))
            out["neighbours"].append(timed(client, "GET", "/queries/neighbours", cpu["neighbours"], pid,
                                           params={"entity": top},
                                           headers={"Accept": "application/sparql-results+json"}))
    return out, cpu


def top_entity(client: httpx.Client) -> str:
    """The most-mentioned entity, by the mention counts of a few candidates' first pages (cheap, and the same
    every run: the generator draws from fixed lists)."""
    best, count = "oxigraph", -1
    for name in TECH[:4]:
        slug = name.lower().replace(" ", "-")
        response = client.get("/queries/documents-mentioning", params={"entity": slug, "limit": 10_000},
                              headers={"Accept": "application/sparql-results+json"})
        if response.status_code == 200 and len(response.json()["results"]["bindings"]) > count:
            best, count = slug, len(response.json()["results"]["bindings"])
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--paragraphs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--data-dir", help="work here (reused: an existing store is not ingested again)")
    parser.add_argument("--corpus", choices=["generated", "dense"], default="generated",
                        help="bench/ingest.py's generator, or bench/dense_corpus.py's (more names, several a sentence)")
    parser.add_argument("--cpu", action="store_true", help="also the server's CPU time per request (Linux)")
    args = parser.parse_args()
    name = f"docs-{args.docs}" if args.corpus == "generated" else f"dense-{args.docs}"
    work = Path(args.data_dir or tempfile.mkdtemp(prefix="attest-scale-")) / name
    work.mkdir(parents=True, exist_ok=True)
    config = work / "attest.yaml"
    config.write_text(f"data_dir: {work / 'data'}\n", encoding="utf-8")
    corpus = work / "corpus"
    text_bytes = generate(corpus, args.docs, args.paragraphs, args.corpus) if not corpus.exists() else du(corpus)
    if not (work / "data").exists():
        t = time.perf_counter()
        done = attest(config, "ingest", "--offline", str(corpus))
        seconds = time.perf_counter() - t
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        summary = [line for line in done.stdout.splitlines() if line.strip()][-6:]
        print(f"ingest: {args.docs} documents in {seconds:.1f} s = {args.docs / seconds:.1f} documents/s")
        print("  " + "\n  ".join(summary))
    stats = attest(config, "stats", check=True).stdout
    quads = next(int(line.split()[-1]) for line in stats.splitlines() if line.startswith("total"))
    store_bytes = du(work / "data" / "store")
    print(f"store: {quads} quads, {quads / args.docs:.0f} per document; {store_bytes / 1e6:.0f} MB on disk, "
          f"{store_bytes / text_bytes:.1f} bytes per byte of text ({text_bytes / 1e6:.1f} MB of text)")
    pids: list[int] = []
    with serving(config, pids=pids) as url:
        results, cpu = measure(url, args.rounds, args.corpus, work / "data", pids[0] if args.cpu else None)
    print(f"\n{args.docs} documents ({args.corpus}), {args.rounds} rounds (ms):")
    if args.cpu:
        print("| request | p50 | p95 | server CPU p50 | server CPU p95 |\n|---|---|---|---|---|")
    else:
        print("| request | p50 | p95 |\n|---|---|---|")
    for name, values in results.items():
        spent = (f" {statistics.median(cpu[name]):.1f} | {pct(cpu[name], 0.95):.1f} |" if args.cpu and cpu[name]
                 else " - | - |" if args.cpu else "")
        print(f"| {name} | {statistics.median(values):.1f} | {pct(values, 0.95):.1f} |{spent}")


if __name__ == "__main__":
    main()
