"""What the benchmark scripts share: percentiles, a free loopback port, an `attest serve` process on a config."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

REPO = Path(__file__).resolve().parent.parent


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(config: Path, timeout_s: float = 300, *, args: tuple[str, ...] = (),
            pids: list[int] | None = None) -> Iterator[str]:
    """`attest --config CONFIG serve [ARGS]` on a free loopback port until the block ends; yields its base URL (and
    appends the server's process id to `pids`)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "attest.cli", "--config", str(config), "serve", "--port", str(port),
                             *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    if pids is not None:
        pids.append(proc.pid)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the server exited with {proc.returncode} (is another process holding its data dir?)")
            try:
                if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"the server did not become ready within {timeout_s:g} s")
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def process_cpu_ns(pid: int) -> int | None:
    """CPU time a process has used so far, every thread's, in nanoseconds (Linux `/proc/PID/task/*/schedstat`; None
    where it is unreadable). A thread that ends between two readings takes its time with it."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def child_pids(pid: int) -> list[int]:
    """The process ids whose parent is `pid` (Linux `/proc/*/stat`; empty elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found.append(int(entry.name))
    return found


def write_section(title: str, text: str, command: str) -> None:
    """Put `text` under `## {title}` in bench/RESULTS.md with the command that made it (replacing that section)."""
    path = REPO / "bench" / "RESULTS.md"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    section = f"## {title}\n\nCommand: `{command}`\n\n{text}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    updated = pattern.sub(lambda _: section + "\n", current) if pattern.search(current) else \
        current.rstrip("\n") + "\n\n" + section
    path.write_text(updated, encoding="utf-8")
