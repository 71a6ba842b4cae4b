"""Benchmark: Attest on the embedded store vs on a remote Oxigraph server with 1, 2 and 4 API processes.

    .venv/bin/python bench/remote.py [--seconds S] [--clients C] [--workers 1,2,4] [--write]

The demo corpus is ingested (offline extractor, reasoning on) into an embedded store, which `attest migrate`
copies into an `oxigraph serve` (the PyPI package's server) on a loopback port. Then, for the embedded store (one
process: it is locked to one) and for the remote store with each number of `attest serve --workers N`
processes (after a warm-up: each process's first ingest builds its closure from the whole store), C client
threads run for S seconds each: POST /context with the demo questions, then a SPARQL point
lookup on /sparql, then ingestion (POST /documents of new small documents). Reported: requests per second and
p50 / p95 latency, and the round trip of a trivial query (`ASK {}`) straight to the server, which each remote
store request pays on top of the evaluation. Then the 14 LUBM queries: LUBM(1) and its OWL 2 RL closure
(`attest load`, `attest reason`) in a second embedded store, migrated to a second Oxigraph server, each query
sent through Attest's /sparql `--lubm-reps` times to each (one process; the row counts must agree with each other
and with the reference answers). `--write` records the tables in bench/RESULTS.md under "## Remote store".
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import count
from pathlib import Path

import httpx
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import REPO, free_port, pct, serving  # noqa: E402
from bench.sparql_endpoint import ACCEPT, DATA_GRAPH, LUBM, ONTOLOGY_GRAPH, queries, reference_rows  # noqa: E402

QUESTIONS = ["What does Oxigraph use for storage?", "Who created the World Wide Web?", "What is SHACL for?",
             "Which query language does Apache Jena implement?", "What is RDF?", "What is rdflib?"]
LOOKUP = "SELECT ?p ?o WHERE { ?s ?p ?o } LIMIT 20"


def oxigraph_server(location: Path) -> tuple[subprocess.Popen, str]:
    binary = Path(sys.executable).with_name("oxigraph")
    port = free_port()
    proc = subprocess.Popen([str(binary), "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(f"{url}/query", params={"query": "ASK {}"}, timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    raise SystemExit("the oxigraph server did not start")


def load(url: str, seconds: float, clients: int, request) -> dict:
    """`clients` threads calling request(client, i) for `seconds`; throughput and latency of the 2xx answers."""
    latencies: list[float] = []
    errors = [0]
    stop = time.monotonic() + seconds
    numbers = count()
    lock = threading.Lock()

    def run() -> None:
        with httpx.Client(base_url=url, timeout=120) as client:
            while time.monotonic() < stop:
                i = next(numbers)
                started = time.perf_counter()
                response = request(client, i)
                took = time.perf_counter() - started
                with lock:
                    if response.status_code < 300:
                        latencies.append(took)
                    else:
                        errors[0] += 1

    threads = [threading.Thread(target=run) for _ in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    return {"rps": len(latencies) / elapsed, "p50": pct(latencies, 0.5) * 1000 if latencies else 0,
            "p95": pct(latencies, 0.95) * 1000 if latencies else 0, "n": len(latencies), "errors": errors[0]}


def context(client: httpx.Client, i: int) -> httpx.Response:
    return client.post("/context", json={"query": QUESTIONS[i % len(QUESTIONS)]})


def lookup(client: httpx.Client, i: int) -> httpx.Response:
    return client.get("/sparql", params={"query": LOOKUP}, headers={"accept": "application/sparql-results+json"})


def make_ingest(tag: str):
    def ingest(client: httpx.Client, i: int) -> httpx.Response:
        text = f"Product{tag}{i} is a database. Product{tag}{i} uses Engine{tag}{i}. Engine{tag}{i} is written in Rust."
        return client.post("/documents", json={"text": text, "name": f"bench-{tag}-{i}.txt"})
    return ingest


def round_trip_ms(url: str, n: int = 200) -> float:
    with httpx.Client(timeout=10) as client:
        started = time.perf_counter()
        for _ in range(n):
            client.post(f"{url}/query", content=b"ASK {}", headers={"content-type": "application/sparql-query"})
        return (time.perf_counter() - started) / n * 1000


def remote_config(path: Path, base: dict, data_dir: Path, server_url: str) -> Path:
    path.write_text(yaml.safe_dump({**base, "data_dir": str(data_dir), "store": "sparql",
                                    "store_query_url": f"{server_url}/query", "store_update_url": f"{server_url}/update",
                                    "store_gsp_url": f"{server_url}/store"}))
    return path


def lubm_queries(root: Path, base: dict, reps: int) -> str:
    """The LUBM table: each query's rows and its median time through /sparql on the embedded and the remote store."""
    config = root / "lubm.yaml"
    config.write_text(yaml.safe_dump({**base, "data_dir": str(root / "lubm-data")}))
    cli = [sys.executable, "-m", "attest.cli", "--config", str(config)]
    for step in (["load", str(LUBM / "univ-bench.ttl"), "--graph", ONTOLOGY_GRAPH],
                 ["load", str(LUBM / "lubm1.nt.gz"), "--graph", DATA_GRAPH], ["reason"]):
        subprocess.run([*cli, *step], cwd=REPO, check=True, capture_output=True)
    server, server_url = oxigraph_server(root / "lubm-oxigraph")
    try:
        subprocess.run([*cli, "migrate", "--to", server_url], cwd=REPO, check=True, capture_output=True)
        remote = remote_config(root / "lubm-remote.yaml", base, root / "lubm-remote-data", server_url)
        measured: dict[str, dict[str, tuple[int, float]]] = {}
        for label, cfg in (("embedded", config), ("remote", remote)):
            with serving(cfg) as url, httpx.Client(base_url=url, timeout=600) as client:
                for name, query in queries().items():
                    times, rows = [], 0
                    for _ in range(reps + 1):  # the first is a warm-up
                        started = time.perf_counter()
                        reply = client.get("/sparql", params={"query": query}, headers=ACCEPT)
                        times.append(time.perf_counter() - started)
                        reply.raise_for_status()
                        rows = len(reply.json()["results"]["bindings"])
                    measured.setdefault(name, {})[label] = (rows, statistics.median(times[1:]) * 1000)
    finally:
        server.terminate()
        server.wait(30)
    reference = reference_rows()
    lines = ["| query | rows | reference rows | embedded ms | oxigraph server ms | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for name, by_store in measured.items():
        (rows, local), (remote_rows, far) = by_store["embedded"], by_store["remote"]
        if remote_rows != rows:
            raise SystemExit(f"LUBM {name}: {rows} rows on the embedded store, {remote_rows} on the remote one")
        lines.append(f"| {name} | {rows} | {reference.get(name, '')} | {local:.1f} | {far:.1f} | {far / local:.2f} |")
    total_local = sum(v["embedded"][1] for v in measured.values())
    total_far = sum(v["remote"][1] for v in measured.values())
    lines.append(f"| all | | | {total_local:.0f} | {total_far:.0f} | {total_far / total_local:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--lubm-reps", type=int, default=5, help="timed runs of each LUBM query per store (0: skip)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attest-bench-remote-") as folder:
        root = Path(folder)
        base = {"ontology_dir": str(REPO / "ontology"), "shapes_dir": str(REPO / "shapes"),
                "queries_dir": str(REPO / "queries"), "llm_base_url": f"http://127.0.0.1:{free_port()}/v1",
                "llm_max_retries": 0, "max_heavy_requests": 64}
        embedded = root / "embedded.yaml"
        embedded.write_text(yaml.safe_dump({**base, "data_dir": str(root / "data")}))
        cli = [sys.executable, "-m", "attest.cli", "--config", str(embedded)]
        subprocess.run([*cli, "ingest", str(REPO / "demo" / "corpus"), "--offline"], cwd=REPO, check=True,
                       capture_output=True)
        server, server_url = oxigraph_server(root / "oxigraph")
        try:
            subprocess.run([*cli, "migrate", "--to", server_url], cwd=REPO, check=True, capture_output=True)
            remote = remote_config(root / "remote.yaml", base, root / "remote-data", server_url)
            runs = [("embedded", embedded, 1)] + [("oxigraph server", remote, int(n)) for n in args.workers.split(",")]
            rows = []
            for label, config, workers in runs:
                with serving(config, args=("--workers", str(workers)) if workers > 1 else ()) as url:
                    httpx.post(f"{url}/context", json={"query": QUESTIONS[0]}, timeout=120)  # warm up
                    # each process's first ingest builds its closure from the whole store: not what is measured
                    warm = make_ingest(f"warm{label[:3]}{workers}")
                    with httpx.Client(base_url=url, timeout=600) as client, ThreadPoolExecutor(4 * workers) as pool:
                        list(pool.map(lambda i: warm(client, i), range(4 * workers)))
                    measured = {name: load(url, args.seconds, args.clients, request) for name, request in
                                (("context", context), ("sparql", lookup),
                                 ("ingest", make_ingest(f"{label[:3]}{workers}")))}
                rows.append((label, workers, measured))
                print(label, workers, measured, flush=True)
            trip = round_trip_ms(server_url)
        finally:
            server.terminate()
            server.wait(30)
        lubm = lubm_queries(root, base, args.lubm_reps) if args.lubm_reps else ""
    lines = ["| store | processes | /context req/s | p50 ms | p95 ms | /sparql lookup req/s | p95 ms | ingest docs/s | p95 ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for label, workers, m in rows:
        c, s, i = m["context"], m["sparql"], m["ingest"]
        lines.append(f"| {label} | {workers} | {c['rps']:.1f} | {c['p50']:.0f} | {c['p95']:.0f} | {s['rps']:.1f} | "
                     f"{s['p95']:.0f} | {i['rps']:.2f} | {i['p95']:.0f} |")
    errors = sum(m[k]["errors"] for _, _, m in rows for k in m)
    table = "\n".join(lines)
    note = (f"\nRound trip of `ASK {{}}` straight to the server: {trip:.2f} ms. {args.clients} client threads, "
            f"{args.seconds:g} s per measurement; {errors} non-2xx answers.\n")
    if lubm:
        note += (f"\nThe LUBM queries through Attest's /sparql, one process, median of {args.lubm_reps} runs after a "
                 f"warm-up (LUBM(1) with its OWL 2 RL closure, the derivation records included):\n\n{lubm}\n")
    print(table + note)
    if args.write:
        write_results(table + "\n" + note, args)


def write_results(body: str, args) -> None:
    path = REPO / "bench" / "RESULTS.md"
    text = path.read_text(encoding="utf-8")
    command = (f".venv/bin/python bench/remote.py --seconds {args.seconds:g} --clients {args.clients} --workers {args.workers}"
               f" --lubm-reps {args.lubm_reps}")
    section = f"## Remote store\n\n`{command}`\n\n{body}"
    start = text.find("## Remote store")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end:] if end >= 0 else "\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
