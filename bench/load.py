"""Mixed load on a real server over loopback: SPARQL reads, named queries, /context, /verify and a stream of ingests.

Several client threads run for a fixed time; the script prints throughput, p50/p95/p99 per kind and errors, then
checks that every acknowledged ingest is present (its status is done and its graph holds triples).

    .venv/bin/python bench/load.py --seconds 60 --clients 6 [--write-results]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import write_section  # noqa: E402

TOPICS = ["Oxigraph", "Apache Jena", "RDFLib", "Blazegraph", "Virtuoso", "GraphDB", "Stardog", "AllegroGraph",
          "RocksDB", "SPARQL", "Acme Labs", "Semantic Web"]
READS = [
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } LIMIT 20",
    "SELECT ?type (COUNT(?s) AS ?n) WHERE { ?s a ?type } GROUP BY ?type ORDER BY DESC(?n) LIMIT 10",
    "ASK { ?s ?p ?o }",
]


def document(i: int) -> str:
    a, b, c = TOPICS[i % len(TOPICS)], TOPICS[(i * 5 + 3) % len(TOPICS)], TOPICS[(i * 7 + 1) % len(TOPICS)]
    return (f"# Report {i}\n\n{a} is a triple store. {a} uses {b}. {a} was developed by Acme Labs. "
            f"{c} implements SPARQL. {b} is part of the Semantic Web stack. Report number {i} mentions {c}.\n")


class Recorder:
    """Latencies and errors per request kind, shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.acknowledged: list[str] = []

    def record(self, kind: str, seconds: float, error: str | None = None) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            if error:
                self.errors[kind].append(error)


def timed(rec: Recorder, kind: str, call) -> httpx.Response | None:
    start = time.perf_counter()
    try:
        reply = call()
    except httpx.HTTPError as exc:
        rec.record(kind, time.perf_counter() - start, f"{type(exc).__name__}: {exc}")
        return None
    ok = reply.status_code < 400
    rec.record(kind, time.perf_counter() - start, None if ok else f"{reply.status_code}: {reply.text[:200]}")
    return reply


def reader(url: str, rec: Recorder, stop: float, seed: int, entity_ids: list[str]) -> None:
    rnd = random.Random(seed)
    with httpx.Client(base_url=url, timeout=60) as http:
        while time.monotonic() < stop:
            roll = rnd.random()
            if roll < 0.4:
                timed(rec, "sparql", lambda: http.get("/sparql", params={"query": rnd.choice(READS)},
                                                      headers={"Accept": "application/sparql-results+json"}))
            elif roll < 0.55:
                # neighbours of a known entity
                timed(rec, "named_query", lambda: http.get("/queries/neighbours",
                                                           params={"entity": rnd.choice(entity_ids)},
                                                           headers={"Accept": "application/sparql-results+json"}))
            elif roll < 0.8:
                topic = rnd.choice(TOPICS)
                timed(rec, "context", lambda: http.post("/context", json={"query": f"What uses {topic}?", "limit": 10}))
            else:
                ids = rnd.sample(entity_ids, k=min(2, len(entity_ids))) if entity_ids else ["nothing"]
                text = f"{TOPICS[0]} uses RocksDB <<entity:{ids[0]}>>. It implements SPARQL <<entity:{ids[-1]}>>."
                timed(rec, "verify", lambda: http.post("/verify", json={"text": text}))


def ingester(url: str, rec: Recorder, stop: float, start_index: int, headers: dict[str, str]) -> None:
    i = start_index
    with httpx.Client(base_url=url, timeout=120, headers=headers) as http:
        while time.monotonic() < stop:
            reply = timed(rec, "ingest", lambda: http.post("/documents", json={"text": document(i),
                                                                              "name": f"load-{i:05}.md",
                                                                              "media_type": "text/markdown"}))
            if reply is not None and reply.status_code in (200, 201):
                with rec.lock:
                    rec.acknowledged.append(reply.json()["id"])
            i += 1


def start_server(data_dir: Path, port: int, token: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
    env.update({"ATTEST_DATA_DIR": str(data_dir), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
                "ATTEST_SHAPES_DIR": str(REPO / "shapes"), "ATTEST_QUERIES_DIR": str(REPO / "queries"),
                "ATTEST_TOKEN": token, "ATTEST_LLM_BASE_URL": "http://127.0.0.1:9/v1"})  # offline extraction
    proc = subprocess.Popen([sys.executable, "-m", "attest.cli", "serve", "--port", str(port)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("server did not become ready")


def check_acknowledged(url: str, ids: list[str]) -> list[str]:
    """Ids of acknowledged ingests that are not fully present."""
    missing = []
    with httpx.Client(base_url=url, timeout=60) as http:
        for doc_id in ids:
            status = http.get(f"/documents/{doc_id}")
            if status.status_code != 200 or status.json().get("status", status.json().get("state")) != "done":
                missing.append(f"{doc_id}: status {status.status_code} {status.text[:120]}")
                continue
            graph = status.json()["graph"]
            ask = http.get("/sparql", params={"query": f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"},
                           headers={"Accept": "application/sparql-results+json"})
            if ask.status_code != 200 or ask.json()["boolean"] is not True:
                missing.append(f"{doc_id}: graph {graph} is empty")
    return missing


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(rec: Recorder, seconds: float, missing: list[str], args) -> str:
    lines = [f"clients: {args.clients} readers + {args.ingesters} ingest stream(s), {seconds:.0f} s, "
             f"{args.seed_docs} documents seeded; machine: {os.cpu_count()} cores", "",
             "| kind | requests | req/s | p50 ms | p95 ms | p99 ms | errors |", "|---|---:|---:|---:|---:|---:|---:|"]
    total = 0
    for kind in sorted(rec.latency):
        values = rec.latency[kind]
        total += len(values)
        lines.append(f"| {kind} | {len(values)} | {len(values) / seconds:.1f} | {pct(values, 0.5):.1f} | "
                     f"{pct(values, 0.95):.1f} | {pct(values, 0.99):.1f} | {len(rec.errors[kind])} |")
    errors = sum(len(e) for e in rec.errors.values())
    lines += ["", f"total: {total} requests, {total / seconds:.1f} req/s, {errors} errors; "
              f"acknowledged ingests: {len(rec.acknowledged)}, missing afterwards: {len(missing)}"]
    for kind, errs in rec.errors.items():
        for e in errs[:3]:
            lines.append(f"- error ({kind}): {e}")
    for m in missing[:5]:
        lines.append(f"- missing: {m}")
    return "\n".join(lines)


def write_results(text: str, command: str) -> None:
    write_section("Load", text, command)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=6, help="reader threads")
    parser.add_argument("--ingesters", type=int, default=1, help="ingest streams")
    parser.add_argument("--seed-docs", type=int, default=10)
    parser.add_argument("--url", help="an already running server (needs ATTEST_TOKEN in the environment for ingest)")
    parser.add_argument("--write-results", action="store_true", help="record under '## Load' in bench/RESULTS.md")
    args = parser.parse_args()
    token = os.environ.get("ATTEST_TOKEN", "load-bench-token")
    headers = {"Authorization": f"Bearer {token}"}
    server = None
    tmp = tempfile.TemporaryDirectory(prefix="attest-load-")
    if args.url:
        url = args.url.rstrip("/")
    else:
        from tests.conftest import free_port

        port = free_port()
        server = start_server(Path(tmp.name) / "data", port, token)
        url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=120, headers=headers) as http:
            for i in range(args.seed_docs):
                http.post("/documents", json={"text": document(i), "name": f"seed-{i:03}.md",
                                              "media_type": "text/markdown"}).raise_for_status()
            entities = ("SELECT DISTINCT ?e WHERE { ?e <http://www.w3.org/2000/01/rdf-schema#label> ?l "
                        "FILTER(STRSTARTS(STR(?e), 'https://w3id.org/attest/entity/')) } LIMIT 50")
            rows = http.get("/sparql", params={"query": entities},
                            headers={"Accept": "application/sparql-results+json"}).json()["results"]["bindings"]
        entity_ids = [r["e"]["value"].rsplit("/", 1)[-1] for r in rows] or ["nothing"]
        rec = Recorder()
        stop = time.monotonic() + args.seconds
        started = time.monotonic()
        threads = [threading.Thread(target=reader, args=(url, rec, stop, n, entity_ids)) for n in range(args.clients)]
        threads += [threading.Thread(target=ingester, args=(url, rec, stop, 1000 * (n + 1), headers))
                    for n in range(args.ingesters)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        missing = check_acknowledged(url, rec.acknowledged)
        text = report(rec, elapsed, missing, args)
        print(text)
        if args.write_results:
            write_results(text, "python bench/load.py " + " ".join(sys.argv[1:]))
        return 1 if missing or any(rec.errors.values()) else 0
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
