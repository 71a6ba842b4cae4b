"""Start-up of the command line: `attest --help` and `attest query` as whole processes, against a bare interpreter.

Usage: python bench/startup.py [--runs 7]
Prints each command's min / median / max in seconds and its median as a multiple of `python -c pass`.
Targets (issue 25): `attest --help` < 0.5 s, `attest query` < 1 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(command: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attest-startup-") as folder:
        attest = [sys.executable, "-m", "attest", "--data-dir", str(Path(folder) / "data")]
        subprocess.run([*attest, "load", str(REPO / "ontology" / "core.ttl")], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "attest --help": [*attest, "--help"],
            "attest query": [*attest, "query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"],
        }
        results = {name: timed(command, args.runs) for name, command in commands.items()}
    base = statistics.median(results["python -c pass"])
    print(f"{'command':<16} {'min':>7} {'median':>7} {'max':>7}  median / bare interpreter")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"{name:<16} {min(times):7.3f} {median:7.3f} {max(times):7.3f}  {median / base:6.1f}x")


if __name__ == "__main__":
    main()
