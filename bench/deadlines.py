"""Query deadlines over LUBM(1): small queries' latency alone and while runaway queries run; how fast a runaway is stopped.

A real server (attest serve) over ../shared/data/lubm (univ-bench ontology + LUBM(1)); one client thread sends a
runaway query (a triple cartesian product with ORDER BY) with a short deadline again and again, while another
sends point lookups and LUBM Q1-like queries. Prints p50/p95/p99 of the small queries with and without the
runaway, and the time from the deadline to the 503.

    .venv/bin/python bench/deadlines.py [--seconds 20] [--timeout 5] [--write-results]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import write_section  # noqa: E402

UB = "http://swat.cse.lehigh.edu/onto/univ-bench.owl#"
RUNAWAY = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"
SMALL = [
    "SELECT ?p ?o WHERE { <http://www.Department0.University0.edu/GraduateStudent1> ?p ?o }",
    f"PREFIX ub: <{UB}> SELECT ?x WHERE {{ ?x a ub:GraduateStudent ; "
    f"ub:takesCourse <http://www.Department0.University0.edu/GraduateCourse0> }}",
    f"PREFIX ub: <{UB}> SELECT ?x ?name WHERE {{ ?x ub:worksFor <http://www.Department0.University0.edu> ; "
    f"ub:name ?name }} LIMIT 20",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def small_queries(url: str, stop: float) -> list[float]:
    out = []
    with httpx.Client(base_url=url, timeout=60) as http:
        i = 0
        while time.monotonic() < stop:
            t = time.perf_counter()
            reply = http.get("/sparql", params={"query": SMALL[i % len(SMALL)]},
                             headers={"Accept": "application/sparql-results+json"})
            out.append(time.perf_counter() - t)
            reply.raise_for_status()
            i += 1
    return out


def runaways(url: str, stop: float, timeout: float, results: list) -> None:
    with httpx.Client(base_url=url, timeout=timeout + 60) as http:
        while time.monotonic() < stop:
            t = time.monotonic()
            reply = http.get("/sparql", params={"query": RUNAWAY, "timeout": str(timeout)})
            results.append((reply.status_code, time.monotonic() - t, reply.json().get("error")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--timeout", type=float, default=5.0, help="deadline of each runaway query (s)")
    parser.add_argument("--runaways", type=int, default=1, help="runaway clients at once")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    lubm = REPO.parent / "shared" / "data" / "lubm"
    if not lubm.is_dir():
        raise SystemExit(f"LUBM data not found at {lubm}")
    from tests.conftest import free_port

    with tempfile.TemporaryDirectory(prefix="attest-deadlines-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
        env.update({"ATTEST_DATA_DIR": str(Path(tmp) / "data"), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology")})
        for part in (lubm / "univ-bench.ttl", lubm / "lubm1.nt.gz"):
            subprocess.run([sys.executable, "-m", "attest.cli", "load", str(part)], cwd=REPO, env=env, check=True,
                           capture_output=True)
        port = free_port()
        server_log = open(Path(tmp) / "server.log", "w+")
        server = subprocess.Popen([sys.executable, "-m", "attest.cli", "serve", "--port", str(port)], cwd=REPO,
                                  env=env, stdout=server_log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(400):
                try:
                    if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.3)
            small_queries(url, time.monotonic() + 2)  # warm the workers
            alone = small_queries(url, time.monotonic() + args.seconds / 2)
            results: list = []
            stop = time.monotonic() + args.seconds
            threads = [threading.Thread(target=runaways, args=(url, stop, args.timeout, results))
                       for _ in range(args.runaways)]
            for t in threads:
                t.start()
            time.sleep(0.5)
            during = small_queries(url, stop)
            for t in threads:
                t.join()
        except Exception:
            server_log.seek(0)
            print("server log (last lines):\n" + "".join(server_log.readlines()[-40:]), file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(timeout=30)
            server_log.close()
    stopped = [elapsed for status, elapsed, error in results if status == 503 and error == "QueryTimeout"]
    lines = [f"LUBM(1) + univ-bench ({os.cpu_count()} cores); runaway: `{RUNAWAY}` with timeout={args.timeout:g} s, "
             f"{args.runaways} at a time; small: a point lookup and two LUBM-style selective queries", "",
             "| small queries | n | p50 ms | p95 ms | p99 ms |", "|---|---:|---:|---:|---:|",
             f"| alone | {len(alone)} | {pct(alone, .5):.1f} | {pct(alone, .95):.1f} | {pct(alone, .99):.1f} |",
             f"| while runaways run | {len(during)} | {pct(during, .5):.1f} | {pct(during, .95):.1f} | "
             f"{pct(during, .99):.1f} |", "",
             f"runaway queries: {len(results)}, answered 503 QueryTimeout: {len(stopped)}; "
             f"time to the 503: min {min(stopped, default=0):.2f} s, max {max(stopped, default=0):.2f} s "
             f"(deadline {args.timeout:g} s)"]
    text = "\n".join(lines)
    print(text)
    if args.write_results:
        write_section("Query deadlines", text, f"python bench/deadlines.py {' '.join(sys.argv[1:])}")
    ok = len(stopped) == len(results) and pct(during, .95) < 50
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
