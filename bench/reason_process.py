"""`attest reason --full` as a whole process (start-up, store open, read, reason, write records, exit) against owlrl
as a whole process (start-up, parse, closure), in the same run, on LUBM data loaded as a user loads it.

Workloads: the first department of LUBM(1) (one generator file, about 8.5k triples) and all of LUBM(1), each with the
univ-bench ontology. Each is loaded once with `attest load` into a data folder; every timed run reasons over a fresh
copy of it ("first": no records yet), and one more run reasons again over a reasoned copy ("again": every record is
already there and is rewritten). Child processes run with compiled bytecode, as an installed package has it.

    .venv/bin/python bench/reason_process.py                # both workloads (owlrl on LUBM(1) takes 1-3 minutes)
    .venv/bin/python bench/reason_process.py --small-only   # the department only
    .venv/bin/python bench/reason_process.py --before DIR   # also time the code checked out in DIR, interleaved
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LUBM = REPO.parent / "shared" / "data" / "lubm"
ONTOLOGY = LUBM / "univ-bench.ttl"
HEADER = "<http://www.w3.org/2002/07/owl#Ontology> ."  # each LUBM generator file (one department) opens with one

OWLRL = """import sys
import owlrl, rdflib
g = rdflib.Graph()
g.parse(sys.argv[1], format="turtle")
g.parse(sys.argv[2], format="nt")
owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(g)
"""


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode compiled
    return env


def departments(count: int | None, out: Path) -> int:
    """Write the first `count` departments of LUBM(1) (all when None) as N-Triples; return the triple count."""
    lines, seen = [], 0
    with gzip.open(LUBM / "lubm1.nt.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if line.rstrip().endswith(HEADER):
                seen += 1
                if count is not None and seen > count:
                    break
            lines.append(line)
    out.write_text("".join(lines), encoding="utf-8")
    return len(lines)


CPU: dict[str, list[float]] = {}  # CPU seconds (user + system) of each timed process, by label


def timed(command: list[str], cwd: Path = REPO, label: str = "") -> tuple[float, subprocess.CompletedProcess]:
    """Wall time of a whole process; `python -m attest` imports the package of the folder it runs in. Its CPU time
    (all threads) goes to CPU[label]: on a machine shared with other jobs it varies less than the wall time."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=child_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = os.times()
    if label:
        CPU.setdefault(label, []).append(after.children_user - before.children_user
                                         + after.children_system - before.children_system)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return elapsed, done


def attest(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "attest", "--data-dir", str(data), *args]


def reason_fresh(base: Path, fresh: Path, code: Path, label: str) -> tuple[float, str]:
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(base, fresh)
    seconds, done = timed(attest(fresh, "reason", "--full"), cwd=code, label=label)
    return seconds, done.stdout.strip()


def workload(name: str, depts: int | None, runs: int, owlrl_runs: int, folder: Path, before: Path | None) -> dict:
    data = folder / f"{name}.nt"
    triples = departments(depts, data)
    base = folder / f"{name}-loaded"
    timed(attest(base, "load", str(ONTOLOGY), str(data)))
    first: list[float] = []
    old: list[float] = []
    owl: list[float] = []
    report = ""
    fresh = folder / f"{name}-run"
    for k in range(max(runs, owlrl_runs)):  # interleaved, so that all see the same load on the machine
        if k < runs and before is not None:
            seconds, text = reason_fresh(base, fresh, before, f"{name} before")
            old.append(seconds)
            print(f"  {name} attest (before) first run {seconds:.2f} s: {text}", file=sys.stderr, flush=True)
        if k < runs:
            seconds, report = reason_fresh(base, fresh, REPO, f"{name} attest")
            first.append(seconds)
            print(f"  {name} attest first run {seconds:.2f} s: {report}", file=sys.stderr, flush=True)
        if k < owlrl_runs:
            seconds, _ = timed([sys.executable, "-c", OWLRL, str(ONTOLOGY), str(data)], label=f"{name} owlrl")
            owl.append(seconds)
            print(f"  {name} owlrl {seconds:.2f} s", file=sys.stderr, flush=True)
    again, done = timed(attest(fresh, "reason", "--full"))
    print(f"  {name} attest again {again:.2f} s: {done.stdout.strip()}", file=sys.stderr, flush=True)
    return {"name": name, "triples": triples, "first": first, "before": old, "again": again, "owlrl": owl,
            "report": report}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="attest runs on the department (3 on LUBM(1))")
    ap.add_argument("--owlrl-runs", type=int, default=3, help="owlrl runs on the department (1 on LUBM(1))")
    ap.add_argument("--small-only", action="store_true")
    ap.add_argument("--before", type=Path, help="a checkout of the earlier code (e.g. from `git archive`) to time too")
    args = ap.parse_args()
    if not ONTOLOGY.exists():
        sys.exit(f"LUBM data not found at {LUBM}")
    bare = min(timed([sys.executable, "-c", "pass"])[0] for _ in range(5))
    for code in (REPO, args.before) if args.before else (REPO,):
        timed(attest(Path(tempfile.gettempdir()) / "attest-bench-none", "--help"), cwd=code)  # bytecode compiled once
    results = []
    with tempfile.TemporaryDirectory(prefix="attest-reason-process-") as tmp:
        results.append(workload("LUBM(1) department 0", 1, args.runs, args.owlrl_runs, Path(tmp), args.before))
        if not args.small_only:
            results.append(workload("LUBM(1)", None, 3, 1, Path(tmp), args.before))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"`python -c pass`: {bare:.3f} s; load average at the end: {load}\n")
    print("| workload | triples (data) | `attest reason --full`, first (median; min-max) | again | "
          "owlrl process (median) | owlrl / attest first | owlrl / attest again | before: first (median) | "
          "owlrl / before |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        first, owl = statistics.median(r["first"]), statistics.median(r["owlrl"])
        old = statistics.median(r["before"]) if r["before"] else None
        was = f"{old:.2f} s | {owl / old:.1f}×" if old else "— | —"
        print(f"| {r['name']} | {r['triples']:,} | {first:.2f} s ({min(r['first']):.2f}-{max(r['first']):.2f}) | "
              f"{r['again']:.2f} s | {owl:.2f} s | **{owl / first:.1f}×** | {owl / r['again']:.1f}× | {was} |")
    print("\nCPU time (user + system, every thread) of the same processes, median:\n")
    print("| workload | attest | owlrl | owlrl / attest | before | owlrl / before |\n|---|---:|---:|---:|---:|---:|")
    for r in results:
        mine, owl = (statistics.median(CPU[f"{r['name']} {k}"]) for k in ("attest", "owlrl"))
        old = CPU.get(f"{r['name']} before")
        was = f"{statistics.median(old):.2f} s | {owl / statistics.median(old):.1f}×" if old else "— | —"
        print(f"| {r['name']} | {mine:.2f} s | {owl:.2f} s | {owl / mine:.1f}× | {was} |")
    for r in results:
        print(f"\n{r['name']}: {r['report']}")


if __name__ == "__main__":
    main()
