"""A real Oxigraph server for the tests (the `oxigraph` binary of the PyPI package), and settings aimed at it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port

TEST_STORE_ENV = "ATTEST_TEST_STORE"  # embedded (default) | oxigraph: the store the end-to-end tests run on


def store_kind_under_test() -> str:
    kind = os.environ.get(TEST_STORE_ENV, "embedded")
    if kind not in ("embedded", "oxigraph"):
        raise RuntimeError(f"{TEST_STORE_ENV}={kind!r}: use embedded or oxigraph (virtuoso is not wired up yet)")
    return kind


def oxigraph_binary() -> str:
    """The server binary installed beside this Python (the `oxigraph` package), else one on PATH."""
    beside = Path(sys.executable).with_name("oxigraph")
    found = str(beside) if beside.exists() else shutil.which("oxigraph")
    if not found:
        raise RuntimeError("the oxigraph server binary is missing: pip install -e '.[test]' installs it")
    return found


class OxigraphServer:
    """`oxigraph serve` on a free loopback port over a temporary directory; stopped (and the data removed) on exit."""

    def __init__(self, location: Path | None = None, *, timeout_s: float | None = None) -> None:
        self._tmp = None if location else tempfile.TemporaryDirectory(prefix="attest-oxigraph-")
        self.location = location or Path(self._tmp.name) / "db"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.timeout_s = timeout_s
        self.proc: subprocess.Popen | None = None

    def start(self) -> "OxigraphServer":
        args = [oxigraph_binary(), "serve", "--location", str(self.location), "--bind", f"127.0.0.1:{self.port}"]
        if self.timeout_s:
            args += ["--timeout-s", str(self.timeout_s)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.url}/query", params={"query": "ASK {}"}, timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                self.stop()
                raise RuntimeError(f"oxigraph server did not start: {err[-500:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> "OxigraphServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def clear(self) -> None:
        """Empty the whole dataset (between tests)."""
        httpx.post(f"{self.url}/update", content=b"DROP ALL", timeout=30,
                   headers={"Content-Type": "application/sparql-update"}).raise_for_status()

    def store_settings(self) -> dict:
        return {"store": "sparql", "store_query_url": f"{self.url}/query", "store_update_url": f"{self.url}/update",
                "store_gsp_url": f"{self.url}/store"}


# a test of the embedded store's own machinery (worker processes, snapshots, files on disk)
embedded_only = pytest.mark.skipif(store_kind_under_test() != "embedded",
                                   reason="tests the embedded store's own machinery")
