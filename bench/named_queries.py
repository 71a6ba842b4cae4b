"""Benchmark: every named query (queries/*.rq) over HTTP on an ingested store, about its most-mentioned entity.

    python bench/named_queries.py --config DIR/attest.yaml [--runs 5]

CONFIG is the attest.yaml of an ingested instance, for example a `bench/docqa.py --data-dir` folder's
`<set>/attest.yaml` or a `bench/scale.py` folder's; no other process may hold its store. A server is started on
it, and each named query runs `--runs` times with its parameters bound to the entity mentioned in the most chunks
(the full-text index's mention table): `entity` is it, `label` its label, `type` its class, `subject` /
`predicate` / `object` one fact about it, other parameters their defaults. Its first page (the default limit) is
asked for as SPARQL JSON (N-Triples for a graph). Printed per query: the first call and the slowest of the rest
(ms), rows (triples) on the page, and the CPU time of the slowest call: the server process's and its query workers'
(the deadline executor runs each query in a worker process), which the machine's load moves less than wall time.
Target (issue 25): named queries, max < 100 ms at 2,000-5,000 documents, < 150 ms at 50,000.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

import httpx
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import child_pids, process_cpu_ns, serving  # noqa: E402

SPARQL_JSON = {"Accept": "application/sparql-results+json"}
N_TRIPLES = {"Accept": "application/n-triples"}


def most_mentioned(data_dir: Path) -> tuple[str, str]:
    """The IRI and a label of the entity that the most chunks mention."""
    db = sqlite3.connect(data_dir / "fulltext.sqlite")
    try:
        entity, = db.execute("SELECT entity FROM mentions GROUP BY entity ORDER BY count(*) DESC LIMIT 1").fetchone()
        row = db.execute("SELECT label FROM labels WHERE entity = ? AND label != '' LIMIT 1", (entity,)).fetchone()
    finally:
        db.close()
    return entity, row[0] if row else entity.rsplit("/", 1)[-1]


def bindings(client: httpx.Client, query: str) -> list[dict]:
    response = client.post("/sparql", data={"query": query}, headers={**SPARQL_JSON, "X-Requested-With": "bench"})
    response.raise_for_status()
    return response.json()["results"]["bindings"]


def parameters(client: httpx.Client, entity: str, label: str) -> dict[str, str]:
    """A value for each parameter name the shipped queries take, all about `entity`."""
    kind = bindings(client, f"SELECT ?type WHERE {{ <{entity}> a ?type }} LIMIT 1")
    fact = bindings(client, f"SELECT ?p ?o WHERE {{ <{entity}> ?p ?o FILTER(isIRI(?o)) }} LIMIT 1")
    values = {"entity": entity.rsplit("/", 1)[-1], "label": label,
              "type": kind[0]["type"]["value"] if kind else "https://w3id.org/attest/ontology#Entity"}
    if fact:
        values.update(subject=entity, predicate=fact[0]["p"]["value"], object=fact[0]["o"]["value"])
    return values


def cpu_ms(pids: list[int]) -> list[float]:
    """CPU time so far (ms) of each process in `pids` (0 where it is unreadable)."""
    return [(process_cpu_ns(pid) or 0) / 1e6 for pid in pids]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2 (the first call is reported apart from the rest)")
    data_dir = Path(yaml.safe_load(args.config.read_text(encoding="utf-8"))["data_dir"])
    entity, label = most_mentioned(data_dir)
    server: list[int] = []
    with serving(args.config, pids=server) as url, httpx.Client(base_url=url, timeout=120) as client:
        values = parameters(client, entity, label)
        print(f"entity {entity} ({label!r})\n\n| query | first call | slowest of the rest | its CPU: server, workers "
              "| rows |\n|---|---:|---:|---:|---:|")
        slowest = 0.0
        for query in client.get("/queries").raise_for_status().json()["queries"]:
            given = {p["name"]: values[p["name"]] for p in query.get("parameters", []) if p["name"] in values}
            graph = query["form"] in ("CONSTRUCT", "DESCRIBE")
            times: list[float] = []
            cpu: list[tuple[float, float]] = []
            rows: int | str = 0
            for _ in range(args.runs):
                pids = [server[0], *child_pids(server[0])]  # a worker may have been started or replaced
                before = cpu_ms(pids)
                t = time.perf_counter()
                response = client.get(query["url"], params=given, headers=N_TRIPLES if graph else SPARQL_JSON)
                times.append((time.perf_counter() - t) * 1000)
                used = [b - a for a, b in zip(before, cpu_ms(pids), strict=True)]
                cpu.append((used[0], sum(used[1:])))
                if response.status_code != 200:  # e.g. 503: the query ran past the server's deadline
                    rows = f"HTTP {response.status_code}"
                    continue
                body = response.text if graph else response.json()
                rows = body.count("\n") if graph else len(body["results"]["bindings"]) if "results" in body else 1
            slowest = max(slowest, *times[1:])
            slow = max(range(1, args.runs), key=times.__getitem__)
            print(f"| {query['name']} | {times[0]:.1f} | {times[slow]:.1f} | {cpu[slow][0]:.0f}, {cpu[slow][1]:.0f} "
                  f"| {rows} |")
        print(f"\nslowest after the first call: {slowest:.1f} ms")


if __name__ == "__main__":
    main()
