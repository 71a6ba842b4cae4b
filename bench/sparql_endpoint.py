"""Benchmark: Attest's /sparql vs the Oxigraph server vs rdflib in memory, on LUBM(1) with the 14 LUBM queries.

    .venv/bin/python bench/sparql_endpoint.py [--materialized] [--reps N] [--seconds S] [--rdflib-timeout S] [--write]

Same data on every engine: the Attest store (LUBM ontology + LUBM(1) in named graphs, plus Attest's own
ontology graph, loaded with `attest load`'s bulk path, then compacted) is dumped as N-Quads and loaded into
`oxigraph` (PyPI package, the Rust server: `oxigraph load`, `oxigraph optimize`, then `serve-read-only
--union-default-graph`); rdflib gets the same quads in a Dataset whose default graph is the union. By default
no reasoning (raw data: most queries find no answer). With `--materialized` the store also holds the OWL 2 RL
closure computed by attest/reasoner (its derivation records left out), so the queries return their real answers;
the row counts are then checked against ../shared/data/lubm/answers. Every engine is asked for SPARQL JSON and
must return the same row count. Attest runs under uvicorn in a subprocess, as `attest serve` runs it, twice:
with the default deadline worker processes and with `sparql_in_process=true`. `--write` records the table in
bench/RESULTS.md under "## SPARQL endpoint", in the subsection of the mode.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
LUBM = REPO.parent / "shared" / "data" / "lubm"
ACCEPT = {"accept": "application/sparql-results+json"}
ONTOLOGY_GRAPH = "urn:lubm:ontology"
DATA_GRAPH = "urn:lubm:data"
POINT_LOOKUP = "SELECT ?p ?o WHERE { <http://www.Department0.University0.edu/GraduateStudent1> ?p ?o }"
LAUNCH_ATTEST = """
import sys, uvicorn
from attest.main import create_app
from attest.settings import load_settings
settings = load_settings(None, data_dir=sys.argv[1], port=int(sys.argv[2]))
uvicorn.run(create_app(settings), host="127.0.0.1", port=settings.port, log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reference_rows() -> dict[str, int]:
    """Rows of each LUBM query's reference answer on LUBM(1) (answers_queryN.csv: a header, then one row each)."""
    out = {}
    for path in LUBM.joinpath("answers").glob("answers_query*.csv"):
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        out["q" + path.stem.removeprefix("answers_query")] = sum(1 for line in lines if line.strip())
    return out


def queries() -> dict[str, str]:
    named = {p.stem: p.read_text() for p in sorted(LUBM.joinpath("queries").glob("q*.rq"), key=lambda p: int(p.stem[1:]))}
    named["point"] = POINT_LOOKUP
    return named


# data ------------------------------------------------------------------------------------------------------

def prepare(work: Path, materialized: bool) -> Path:
    """Build the Attest store (reasoned when `materialized`) and dump it as N-Quads for the other engines."""
    sys.path.insert(0, str(REPO))
    from pyoxigraph import NamedNode, RdfFormat

    from attest.ontology import load_ontology
    from attest.reasoner import Reasoner
    from attest.settings import load_settings
    from attest.store import open_store
    from attest.vocab import Iris

    settings = load_settings(None, data_dir=work / "attest")
    store = open_store(settings)
    iris = Iris(settings.base_iri)
    try:
        load_ontology(store, settings.ontology_dir, iris)
        store.bulk_load_file(LUBM / "univ-bench.ttl", graph=ONTOLOGY_GRAPH)
        store.bulk_load_file(LUBM / "lubm1.nt.gz", graph=DATA_GRAPH)
        if materialized:
            started = time.perf_counter()
            report = Reasoner(store, iris, settings).materialize(full=True)
            if not report.consistent:
                raise SystemExit(f"the reasoner found LUBM(1) inconsistent: {report.violations[:3]}")
            # the closure only: the derivation records are Attest's bookkeeping, not data the queries read
            store.raw.remove_graph(NamedNode(iris.derivations_graph))
            print(f"closure: {report.inferred} inferred triples in {time.perf_counter() - started:.1f} s", flush=True)
        # the loader's staging graph leaves deleted keys in every index; compact them away (oxigraph gets the same)
        store.raw.optimize()
        dump = work / "dataset.nq"
        with dump.open("wb") as out:
            store.dump(out, RdfFormat.N_QUADS)
    finally:
        store.close()
    return dump


# servers ---------------------------------------------------------------------------------------------------

def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(url, params={"query": "ASK {}"}, headers=ACCEPT, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def start_attest(work: Path, log, *, in_process: bool) -> tuple[subprocess.Popen, str]:
    """Attest on its own copy of the store: deadline worker processes (default) or in-process threads."""
    data_dir = work / ("attest-threads" if in_process else "attest-workers")
    shutil.copytree(work / "attest", data_dir)
    port = free_port()
    env = {**os.environ, "ATTEST_SPARQL_IN_PROCESS": "true" if in_process else "false"}
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH_ATTEST, str(data_dir), str(port)],
                            cwd=REPO, stdout=log, stderr=log, env=env)
    url = f"http://127.0.0.1:{port}/sparql"
    wait_ready(url, proc)
    return proc, url


def start_oxigraph(work: Path, dump: Path, log) -> tuple[subprocess.Popen, str]:
    binary = shutil.which("oxigraph", path=str(Path(sys.executable).parent)) or shutil.which("oxigraph")
    if binary is None:
        raise SystemExit("the `oxigraph` server is missing: pip install 'oxigraph>=0.5.13,<0.6' (the bench extra)")
    location = work / "oxigraph"
    subprocess.run([binary, "load", "--location", str(location), "--file", str(dump)], check=True,
                   stdout=log, stderr=log)
    subprocess.run([binary, "optimize", "--location", str(location)], check=True, stdout=log, stderr=log)
    port = free_port()
    proc = subprocess.Popen([binary, "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}",
                             "--union-default-graph"], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/query"
    wait_ready(url, proc)
    return proc, url


# measurement -----------------------------------------------------------------------------------------------

def tree_cpu_s(pid: int) -> float:
    """CPU seconds used so far by a process and its descendants (Linux /proc): what a request costs the server."""
    parents, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        cpu[child] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    total, frontier = 0.0, [pid]
    while frontier:
        current = frontier.pop()
        total += cpu.get(current, 0.0)
        frontier += [c for c, p in parents.items() if p == current]
    return total


def rows(body: bytes) -> int:
    data = json.loads(body)
    return len(data["results"]["bindings"]) if "results" in data else 1


def measure_http(urls: dict[str, str], pids: dict[str, int], query: str, reps: int,
                 seconds: float) -> dict[str, list[float]]:
    """Latencies per engine; the engines take turns request by request so drift hits all alike.

    Also the server CPU per request (the engines do not overlap: the client waits for each answer).
    """
    times: dict[str, list[float]] = {name: [] for name in urls}
    counts: dict[str, int] = {}
    with httpx.Client(timeout=300) as client:
        for name, url in urls.items():  # warm-up, and the row count check
            for _ in range(3):
                response = client.get(url, params={"query": query}, headers=ACCEPT)
                response.raise_for_status()
            counts[name] = rows(response.content)
        if len(set(counts.values())) != 1:  # all engines must return the same answer size
            raise RuntimeError(f"engines disagree on the row count: {counts}")
        cpu_before = {name: tree_cpu_s(pid) for name, pid in pids.items()}
        started = time.monotonic()
        while len(times[next(iter(urls))]) < reps and (time.monotonic() - started < seconds or len(times[next(iter(urls))]) < 5):
            for name, url in urls.items():
                t = time.perf_counter()
                response = client.get(url, params={"query": query}, headers=ACCEPT)
                response.content  # noqa: B018  (the whole body is read)
                times[name].append(time.perf_counter() - t)
    for name, pid in pids.items():
        times[f"{name}_cpu"] = [(tree_cpu_s(pid) - cpu_before[name]) / len(times[name])]
    times["rows"] = [float(next(iter(counts.values())))]
    return times


_RDFLIB_GRAPH = None


def _rdflib_child(query: str, reps: int, conn) -> None:
    from rdflib.plugins.sparql.results.jsonresults import JSONResultSerializer

    latencies = []
    for _ in range(reps):
        t = time.perf_counter()
        result = _RDFLIB_GRAPH.query(query)
        out = __import__("io").StringIO()
        JSONResultSerializer(result).serialize(out)
        latencies.append(time.perf_counter() - t)
        if sum(latencies) > 5:
            break
    conn.send((latencies, rows(out.getvalue().encode())))


def measure_rdflib(query: str, reps: int, timeout: float) -> tuple[list[float], int] | None:
    """(latencies, rows) in a forked child that holds the graph; None when the query ran past `timeout` (killed)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_rdflib_child, args=(query, reps, child))
    proc.start()
    ready = parent.poll(timeout)
    result = parent.recv() if ready else None
    if proc.is_alive():
        proc.kill()
    proc.join()
    return result


def load_rdflib(dump: Path):
    from rdflib import Dataset

    dataset = Dataset(default_union=True)  # the default graph is the union of all graphs, as on the other engines
    started = time.perf_counter()
    dataset.parse(str(dump), format="nquads")
    return dataset, time.perf_counter() - started


# report ----------------------------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def report(results: dict, rdflib_timeout: float, reference: dict[str, int] | None) -> tuple[str, dict]:
    lines = ["| query | rows | Oxigraph p50 / p95 ms | Attest p50 / p95 ms | Attest/Oxigraph | Attest threads p50 / p95 ms | "
             "threads/Oxigraph | target | q/s Oxigraph / Attest / threads | server CPU ms/query Oxigraph / Attest / threads | "
             "CPU Attest/Oxigraph | rdflib p50 ms | rdflib/Attest | rdflib/Oxigraph |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = {k: 0 for k in ("big", "big_ok", "big_ok_threads", "big_cpu_ok", "small", "small_ok",
                              "small_ok_threads", "rdflib", "rdflib_ok", "rdflib_ok_oxigraph")}
    for name, r in results.items():
        a, t, o = r["attest"], r["threads"], r["oxigraph"]
        a50, t50, o50 = statistics.median(a), statistics.median(t), statistics.median(o)
        key = "big" if o50 > 0.010 else "small"
        target = 1.3 if key == "big" else 2.5
        summary[key] += 1
        summary[key + "_ok"] += a50 / o50 <= target
        summary[key + "_ok_threads"] += t50 / o50 <= target
        cpu_ratio = r["attest_cpu"][0] / r["oxigraph_cpu"][0]
        summary["big_cpu_ok"] += key == "big" and cpu_ratio <= target
        killed = r["rdflib"] is None
        rd50 = rdflib_timeout if killed else statistics.median(r["rdflib"])
        more = "> " if killed else ""  # a killed query's time is only known to be over the timeout
        rdflib_cell = f"> {rdflib_timeout * 1000:.0f} (killed)" if killed else ms(rd50)
        speedup, baseline = f"{more}{rd50 / a50:.1f}x", f"{more}{rd50 / o50:.1f}x"
        summary["rdflib_ok"] += rd50 / a50 >= 20
        summary["rdflib_ok_oxigraph"] += rd50 / o50 >= 20
        summary["rdflib"] += 1

        def mark(x: float) -> str:
            return f"{x / o50:.2f}x{'' if x / o50 <= target else ' MISS'}"

        got = int(r["rows"][0])
        rows_cell = str(got)
        if reference is not None and name in reference and reference[name] != got:
            rows_cell += f" (reference {reference[name]}: MISMATCH)"
        if r["rdflib_rows"] not in (None, got):
            rows_cell += f" (rdflib {r['rdflib_rows']}: MISMATCH)"
        lines.append(
            f"| {name} | {rows_cell} | {ms(o50)} / {ms(pct(o, 0.95))} | {ms(a50)} / {ms(pct(a, 0.95))} | "
            f"{mark(a50)} | {ms(t50)} / {ms(pct(t, 0.95))} | {mark(t50)} | <= {target}x | "
            f"{len(o) / sum(o):.0f} / {len(a) / sum(a):.0f} / {len(t) / sum(t):.0f} | "
            f"{ms(r['oxigraph_cpu'][0])} / {ms(r['attest_cpu'][0])} / {ms(r['threads_cpu'][0])} | {cpu_ratio:.2f}x | "
            f"{rdflib_cell} | {speedup} | {baseline} |")
    small = [r for r in results.values() if statistics.median(r["oxigraph"]) <= 0.010]
    for engine in ("attest", "threads"):
        summary[f"{engine}_cpu_extra"] = statistics.median(r[f"{engine}_cpu"][0] - r["oxigraph_cpu"][0] for r in small)
    return "\n".join(lines), summary


def write_results(text: str, heading: str) -> None:
    """Put `text` (which starts with `heading`, a ### line) in place of that subsection of "## SPARQL endpoint"."""
    path = REPO / "bench" / "RESULTS.md"
    current = path.read_text() if path.exists() else "# Benchmark results\n"
    section = "## SPARQL endpoint"
    if section not in current:
        current = current.rstrip("\n") + f"\n\n{section}\n"
    start = current.index(section)
    end = current.find("\n## ", start + len(section))
    end = len(current) if end < 0 else end + 1  # where the next section's heading starts
    at = current.find(heading, start, end)
    if at < 0:  # a new subsection at the end of the section
        head = current[:end].rstrip("\n") + "\n\n"
        current, at = head + current[end:], len(head)
        stop = at
    else:
        stop = current.find("\n### ", at + len(heading), end)
        stop = end if stop < 0 else stop + 1
    path.write_text(current[:at] + text + ("\n" if stop < len(current) else "") + current[stop:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--materialized", action="store_true",
                        help="load LUBM(1) with its OWL 2 RL closure (attest/reasoner) so the queries return real answers")
    parser.add_argument("--reps", type=int, default=200, help="most timed requests per query and engine")
    parser.add_argument("--seconds", type=float, default=4.0, help="time budget per query (both engines together)")
    parser.add_argument("--rdflib-timeout", type=float, default=20.0, help="rdflib queries are killed past this")
    parser.add_argument("--rdflib-reps", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="record the results in bench/RESULTS.md")
    args = parser.parse_args()
    if not LUBM.is_dir():
        raise SystemExit(f"LUBM data missing at {LUBM}")
    reference = reference_rows() if args.materialized else None

    global _RDFLIB_GRAPH
    load_start = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="attest-bench-"))
    procs: list[subprocess.Popen] = []
    mismatches: list[str] = []
    try:
        with (work / "servers.log").open("wb") as log:
            t = time.perf_counter()
            dump = prepare(work, args.materialized)
            print(f"Attest store built and dumped in {time.perf_counter() - t:.1f} s", flush=True)
            _RDFLIB_GRAPH, rdflib_load = load_rdflib(dump)  # before any thread exists: children are forked
            quads = sum(1 for _ in _RDFLIB_GRAPH.quads((None, None, None, None)))
            print(f"rdflib loaded {quads} quads in {rdflib_load:.1f} s", flush=True)
            urls, pids = {}, {}
            for engine, in_process in (("attest", False), ("threads", True)):
                proc, urls[engine] = start_attest(work, log, in_process=in_process)
                procs.append(proc)
                pids[engine] = proc.pid
            attest_up = time.monotonic()
            proc, urls["oxigraph"] = start_oxigraph(work, dump, log)
            procs.append(proc)
            pids["oxigraph"] = proc.pid
            # Attest compacts its store once its writes (the ontology graph it rewrites at start) go quiet, as
            # the Oxigraph store was compacted by `oxigraph optimize`: measure after that, not during it
            from attest.sparql import compaction
            time.sleep(max(0.0, attest_up + compaction.QUIET_S + 3 * compaction.POLL_S - time.monotonic()))
            results = {}
            for name, query in queries().items():
                timed = measure_http(urls, pids, query, args.reps, args.seconds)
                got = int(timed["rows"][0])
                rdflib = measure_rdflib(query, args.rdflib_reps, args.rdflib_timeout)
                timed["rdflib"], timed["rdflib_rows"] = rdflib if rdflib else (None, None)
                results[name] = timed
                print(f"{name}: rows {got}, " + ", ".join(
                    f"{engine} {ms(statistics.median(timed[engine]))} ms (cpu {ms(timed[engine + '_cpu'][0])})"
                    for engine in urls) + ", rdflib "
                      f"{ms(statistics.median(timed['rdflib'])) if timed['rdflib'] else 'timeout'}", flush=True)
                if reference is not None and name in reference and reference[name] != got:
                    mismatches.append(f"{name}: {got} rows, the reference answer has {reference[name]}")
                if timed["rdflib_rows"] not in (None, got):
                    mismatches.append(f"{name}: rdflib returned {timed['rdflib_rows']} rows, the servers {got}")
                for line in mismatches[-2:]:
                    if line.startswith(name + ":"):
                        print(f"!!! ROW COUNT MISMATCH {line}", file=sys.stderr, flush=True)
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    table, s = report(results, args.rdflib_timeout, reference)
    command = "python bench/sparql_endpoint.py " + " ".join(sys.argv[1:])
    if args.materialized:
        heading = "### Materialized: LUBM(1) + its OWL 2 RL closure"
        data = (f"univ-bench + LUBM(1) + Attest ontology + their OWL 2 RL closure from attest/reasoner ({quads} quads), "
                f"row counts checked against the reference answers: "
                f"{'all match' if not mismatches else 'MISMATCHES: ' + '; '.join(mismatches)}")
    else:
        heading = "### Raw data: LUBM(1) without reasoning"
        data = "LUBM(1) + univ-bench + Attest ontology without reasoning, so most queries find no answer"
    text = (f"{heading}\n\nCommand: `{command.strip()}` ({time.strftime('%Y-%m-%d')}, "
            f"{os.cpu_count()} CPUs shared with other work). {data}; identical N-Quads on each engine, union default "
            f"graph, SPARQL JSON over HTTP keep-alive, sequential requests; engines interleaved request by request. "
            f"rdflib: in-memory Graph.query in a forked child, {args.rdflib_reps} runs, killed after "
            f"{args.rdflib_timeout:g} s.\n\n{table}\n\n"
            f"Attest = the default (queries in the deadline worker processes); Attest threads = "
            f"`sparql_in_process=true` (queries in server threads). Targets met, Attest / threads: "
            f"{s['big_ok']} / {s['big_ok_threads']} of {s['big']} queries over 10 ms within 1.3x of Oxigraph, "
            f"{s['small_ok']} / {s['small_ok_threads']} of {s['small']} small queries within 2.5x; "
            f"{s['rdflib_ok']}/{s['rdflib']} at least 20x faster than rdflib (Oxigraph: {s['rdflib_ok_oxigraph']}/"
            f"{s['rdflib']}). By server CPU per query instead of latency, {s['big_cpu_ok']} of {s['big']} queries "
            f"over 10 ms are within 1.3x of Oxigraph. Server CPU per small query above "
            f"Oxigraph's (median): Attest +{ms(s['attest_cpu_extra'])} ms, threads +{ms(s['threads_cpu_extra'])} ms "
            f"(the Python HTTP stack, middleware and, for Attest, the hop to a worker process). "
            f"Load average during the run: {load_start:.1f} at start, {os.getloadavg()[0]:.1f} at the end.\n")
    print("\n" + text)
    for line in mismatches:
        print(f"!!! ROW COUNT MISMATCH {line}", file=sys.stderr)
    if args.write:
        write_results(text, heading)


if __name__ == "__main__":
    main()
