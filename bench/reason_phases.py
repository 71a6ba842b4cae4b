"""Where one `attest reason --full` process spends its time, phase by phase, on a data folder `attest load` filled.

The worker is the CLI's own path with timers around each phase (interpreter start, imports, settings, store open,
read, closure, stamp, record write, close, exit); the driver times the whole process from outside, so "exit" is what
the process took after its last line. Run bench/reason_process.py for the comparison with owlrl.

    .venv/bin/python bench/reason_phases.py DATA_DIR [--runs 3]   # DATA_DIR: a folder `attest load` filled (copied)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def worker(data_dir: str, started: float) -> None:
    """The reason command's path (attest/cli/reasoning.py), timed; prints the phases as JSON."""
    t0 = time.time()
    sys.path.insert(0, str(REPO))
    import typer  # noqa: F401  (the CLI's framework, imported by every command)

    from attest.settings import load_settings
    t1 = time.time()
    from attest.reasoner import Reasoner
    from attest.reasoner import engine, reasoner
    from attest.store import open_store
    from attest.vocab import Iris
    t2 = time.time()
    phases: dict[str, float] = {}

    def timing(owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                phases[label] = phases.get(label, 0.0) + time.perf_counter() - start
        setattr(owner, name, timed)

    timing(reasoner.Reasoner, "_read", "read the asserted graphs")
    timing(engine.Engine, "materialize", "closure")
    timing(reasoner.Reasoner, "_write_all", "write the records (stamp computed meanwhile)")
    settings = load_settings(None, data_dir=Path(data_dir))
    t3 = time.time()
    store = open_store(settings)
    t4 = time.time()
    report = Reasoner(store, Iris(settings.base_iri), settings).materialize(full=True)
    t5 = time.time()
    store.close()
    t6 = time.time()
    rest = (t5 - t4) - sum(phases.values())
    out = {"interpreter start": t0 - started, "import typer + settings (pydantic)": t1 - t0,
           "import reasoner + store": t2 - t1, "load settings": t3 - t2, "open the store": t4 - t3, **phases,
           "reasoner other (graph list, report)": rest, "close the store": t6 - t5, "end": t6,
           "inferred": report.inferred}
    print(json.dumps(out), flush=True)
    os._exit(0)  # as `attest reason` leaves (attest/cli/__init__.py)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path, nargs="?")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], float(args.worker[1]))
        return
    if args.data_dir is None:
        ap.error("DATA_DIR is required")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode compiled, as an installed package has it
    rows: list[dict] = []
    totals: list[float] = []
    with tempfile.TemporaryDirectory(prefix="attest-reason-phases-") as tmp:
        for _ in range(args.runs):
            copy = Path(tmp) / "data"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(args.data_dir, copy)
            started = time.time()
            done = subprocess.run([sys.executable, __file__, "--worker", str(copy), str(started)], env=env,
                                  capture_output=True, text=True, check=True)
            ended = time.time()
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row["exit"] = ended - row.pop("end")
            rows.append(row)
            totals.append(ended - started)
    inferred = rows[0].pop("inferred")
    for row in rows[1:]:
        row.pop("inferred")
    print(f"{args.data_dir}: {inferred} inferred triples; whole process median {statistics.median(totals):.3f} s "
          f"(runs {', '.join(f'{t:.2f}' for t in totals)}); load average {os.getloadavg()[0]:.1f}\n")
    print("| phase | median s | share |\n|---|---:|---:|")
    whole = statistics.median(totals)
    for name in rows[0]:
        value = statistics.median(row[name] for row in rows)
        print(f"| {name} | {value:.3f} | {100 * value / whole:.0f}% |")


if __name__ == "__main__":
    main()
