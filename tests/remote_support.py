"""Real SPARQL servers for the tests (Oxigraph from its PyPI package, Virtuoso open source), and settings aimed at them."""

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

TEST_STORE_ENV = "ATTEST_TEST_STORE"  # embedded (default) | oxigraph | virtuoso: the store the end-to-end tests run on
TEST_STORES = ("embedded", "oxigraph", "virtuoso")


def store_kind_under_test() -> str:
    kind = os.environ.get(TEST_STORE_ENV, "embedded")
    if kind not in TEST_STORES:
        raise RuntimeError(f"{TEST_STORE_ENV}={kind!r}: use one of {', '.join(TEST_STORES)}")
    return kind


def oxigraph_binary() -> str:
    """The server binary installed beside this Python (the `oxigraph` package), else one on PATH."""
    beside = Path(sys.executable).with_name("oxigraph")
    found = str(beside) if beside.exists() else shutil.which("oxigraph")
    if not found:
        raise RuntimeError("the oxigraph server binary is missing: pip install -e '.[test]' installs it")
    return found


def stop_process(proc: subprocess.Popen | None, timeout_s: float) -> None:
    """Terminate a server process, killing it when it has not exited within `timeout_s`."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
        stop_process(self.proc, 10)

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> "OxigraphServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def restart(self) -> None:
        """Stop and start again on the same port and data: the only way to end a query whose client gave up, since
        the server computes it to the end whatever its `--timeout-s` (oxigraph 0.5), on the cores every later test
        needs. Killed: a busy server can take seconds to honour SIGTERM, and its store survives a kill."""
        self.proc.kill()
        self.proc.wait()
        self.start()

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


VIRTUOSO_BINARY = "virtuoso-t"  # Debian package virtuoso-opensource-7 (`make virtuoso` installs it)
VIRTUOSO_ISQL = "isql-vt"
VIRTUOSO_INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx

[Parameters]
ServerPort = {sql_port}
DisableUnixSocket = 1
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
CheckpointInterval = 0
DirsAllowed = ., {dir}
VADInstallDir = /usr/share/virtuoso-opensource-7/vad/

[HTTPServer]
ServerPort = {http_port}
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
ServerThreads = 20
MaxClientConnections = 20
KeepAliveTimeout = 10

[SPARQL]
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = 600
MaxQueryCostEstimationTime = 0
DefaultQuery = ASK {{}}
"""
# anonymous writes through /sparql: the SPARQL user may run updates and write every graph (a throwaway test server)
# Virtuoso's TSV writes IRIs as quoted strings and its JSON writes booleans as 1/0: ask for XML and N-Triples
VIRTUOSO_ACCEPT = "application/sparql-results+xml, application/n-triples;q=0.9"
VIRTUOSO_GRANTS = ('GRANT SPARQL_UPDATE TO "SPARQL";', "DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 7);")



class VirtuosoServer:
    """Virtuoso open source (`virtuoso-t -f`) on free loopback ports over a temporary directory, its SPARQL
    endpoint open to anonymous updates; stopped (and the data removed) on exit."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="attest-virtuoso-")
        self.location = Path(self._tmp.name)
        self.sql_port, self.port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self._system_graphs: set[str] = set()

    def start(self) -> "VirtuosoServer":
        binary = shutil.which(VIRTUOSO_BINARY)
        if not binary:
            raise RuntimeError("virtuoso-t is missing: `make virtuoso` installs the Debian package "
                               "virtuoso-opensource-7")
        ini = self.location / "virtuoso.ini"
        ini.write_text(VIRTUOSO_INI.format(dir=self.location, sql_port=self.sql_port, http_port=self.port))
        self.proc = subprocess.Popen([binary, "-f", "-c", str(ini)], cwd=self.location,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{self.url}/sparql", params={"query": "ASK {}"}, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self.location / "virtuoso.log"
                tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
                self.close()
                raise RuntimeError(f"virtuoso did not start: {tail}")
            time.sleep(0.2)
        self.isql(*VIRTUOSO_GRANTS)
        self._system_graphs = set(self.graphs())
        return self

    def isql(self, *statements: str) -> str:
        """Run SQL statements as dba through isql-vt; an error in any of them fails loudly."""
        done = subprocess.run([shutil.which(VIRTUOSO_ISQL) or VIRTUOSO_ISQL, str(self.sql_port), "dba", "dba",
                               "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF", "ERRORS=STDOUT",
                               *[f"exec={s}" for s in statements]], capture_output=True, text=True, timeout=60)
        if done.returncode != 0 or "*** Error" in done.stdout:
            raise RuntimeError(f"isql-vt failed: {done.stdout[-800:]}{done.stderr[-400:]}")
        return done.stdout

    def graphs(self) -> list[str]:
        response = httpx.post(f"{self.url}/sparql", data={"query": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"},
                              headers={"Accept": "application/sparql-results+json"}, timeout=60)
        response.raise_for_status()
        return [b["g"]["value"] for b in response.json()["results"]["bindings"]]

    def clear(self) -> None:
        """Drop every graph the tests wrote, keeping Virtuoso's own (between tests)."""
        mine = [g for g in self.graphs() if g not in self._system_graphs]
        if mine:
            update = " ;\n".join(f"DROP SILENT GRAPH <{g}>" for g in mine)
            httpx.post(f"{self.url}/sparql", data={"update": update}, timeout=120).raise_for_status()

    def stop(self) -> None:
        stop_process(self.proc, 30)

    def close(self) -> None:
        self.stop()
        self._tmp.cleanup()

    def __enter__(self) -> "VirtuosoServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def store_settings(self) -> dict:
        return {"store": "sparql", "store_query_url": f"{self.url}/sparql", "store_update_url": f"{self.url}/sparql",
                "store_gsp_url": None, "store_union_param": "", "store_timeout_param": "timeout",
                "store_timeout_param_unit": "ms", "store_triple_terms": "encoded", "store_query_form": True,
                "store_accept": VIRTUOSO_ACCEPT, "store_system_graphs": sorted(self._system_graphs)}


def virtuoso_differs(reason: str):
    """Skip a test on Virtuoso only, where Virtuoso itself departs from SPARQL 1.1 or its protocols in a way Attest
    cannot paper over (`reason` names that behaviour; docs/how-to/remote-store.md lists them)."""
    return pytest.mark.skipif(store_kind_under_test() == "virtuoso", reason=f"Virtuoso: {reason}")


def serve_over(server: OxigraphServer, data_dir: Path, host: str = "127.0.0.1") -> tuple[subprocess.Popen, str]:
    """`attest serve` on a free port over the Oxigraph server (offline extraction), once it is ready."""
    from tests.conftest import REPO, free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
    env.update({"ATTEST_STORE": "sparql", "ATTEST_STORE_QUERY_URL": f"{server.url}/query",
                "ATTEST_STORE_UPDATE_URL": f"{server.url}/update", "ATTEST_STORE_GSP_URL": f"{server.url}/store",
                "ATTEST_DATA_DIR": str(data_dir), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
                "ATTEST_SHAPES_DIR": str(REPO / "shapes"), "ATTEST_QUERIES_DIR": str(REPO / "queries"),
                "ATTEST_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "ATTEST_LLM_MAX_RETRIES": "0"})
    proc = subprocess.Popen([sys.executable, "-m", "attest.cli", "serve", "--host", host, "--port", str(port)], cwd=REPO,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://{host}:{port}"
    wait_ready(url, proc, 90)
    return proc, url


def wait_ready(url: str, proc: subprocess.Popen, timeout_s: float) -> None:
    """Until `url`/ready answers 200; fails with the process's last stderr when it exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            err = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr and proc.poll() is not None else ""
            pytest.fail(f"{proc.args[0]} at {url} did not become ready: {err or 'timed out'}")
        time.sleep(0.2)
