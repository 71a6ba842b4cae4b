"""Crash safety: kill -9 during a bulk load and during reasoning; on restart the store opens and nothing is half-present.

(kill -9 during ingest is tested in tests/e2e/test_ingest_cli.py; `attest backup` / `restore` here and in test_cli_core.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


from tests.conftest import REPO, free_port

EX = "http://example.org/crash/"
GRAPH = EX + "big"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTEST_")}
    env.update({"ATTEST_DATA_DIR": str(tmp_path / "data"), "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology"),
                "ATTEST_SHAPES_DIR": str(REPO / "shapes"), "ATTEST_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
                **extra})
    return env


def _settings(tmp_path: Path):
    from attest.settings import load_settings

    return load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology")


def _kill_after(cmd: list[str], env: dict[str, str], delay_s: float) -> int | None:
    """Start `cmd`, SIGKILL it after `delay_s` seconds; its exit code when it finished first, else None."""
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return proc.wait(timeout=delay_s)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return None


def _write_big_file(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            out.write(f'<{EX}s{i}> <{EX}p{i % 7}> "value {i} with some padding text" .\n')


def test_kill_9_during_bulk_load_leaves_all_or_nothing(tmp_path):
    from attest.store import open_store

    n = 300_000  # large enough that the bulk load, not the CLI's start-up, fills most of the run
    big = tmp_path / "big.nt"
    _write_big_file(big, n)
    cmd = [sys.executable, "-m", "attest.cli", "load", str(big), "--graph", GRAPH]
    env = _env(tmp_path)
    settings = _settings(tmp_path)
    started = time.monotonic()
    first = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    full_run_s = time.monotonic() - started
    assert first.returncode == 0, first.stderr
    outcomes = []
    # past the CLI start-up, inside the bulk load; on a machine whose speed drifts (another job starts or stops) a
    # kill can land after the load: then earlier ones, until one hits mid-load
    for fraction in (0.6, 0.85, 0.45, 0.3, 0.7):
        store = open_store(settings)
        store.drop_graph(GRAPH)  # each round starts from an empty graph
        store.close()
        finished = _kill_after(cmd, env, full_run_s * fraction)
        store = open_store(settings)  # opens after a kill -9 (RocksDB recovers from its WAL)
        try:
            size = store.graph_sizes().get(GRAPH, 0)
            staging = [g for g in store.graphs() if g.startswith(store.iris.staging_graph_prefix)]
        finally:
            store.close()
        assert staging == [], "a staged write survived the restart"
        assert size in (0, n), f"{size} of {n} triples after kill -9: half a file is present"
        outcomes.append((fraction, size, finished))
        if len(outcomes) >= 2 and any(size == 0 and finished is None for _, size, finished in outcomes):
            break
    assert any(size == 0 and finished is None for _, size, finished in outcomes), outcomes  # a kill hit mid-load
    store = open_store(settings, read_only=True)
    try:
        assert store.graph_sizes().get(GRAPH, 0) in (0, n)
    finally:
        store.close()


REASON_SCRIPT = """
import sys
from pathlib import Path
from attest.reasoner.reasoner import Reasoner
from attest.settings import load_settings
from attest.store import open_store
from attest.vocab import Iris
settings = load_settings(None, data_dir=Path(sys.argv[1]), ontology_dir=Path(sys.argv[2]))
store = open_store(settings)
Reasoner(store, Iris(settings.base_iri), settings).materialize(full=True)
store.close()
"""


def _seed_reasoning_data(settings, iris, n: int) -> None:
    """Entities in a chain of partOf facts (transitive) with typed members: real OWL 2 RL work for the reasoner."""
    from pyoxigraph import NamedNode, Quad

    from attest.store import open_store
    from attest.vocab import ONT, RDF

    store = open_store(settings)
    from attest.ontology import load_ontology

    load_ontology(store, settings.ontology_dir, iris)
    graph = NamedNode(iris.document_graph("chain"))
    quads = []
    for i in range(n):
        e = NamedNode(iris.entity(f"part-{i}"))
        quads.append(Quad(e, NamedNode(RDF + "type"), NamedNode(ONT + "Technology"), graph))
        if i:
            quads.append(Quad(e, NamedNode(ONT + "partOf"), NamedNode(iris.entity(f"part-{i - 1}")), graph))
    store.add(quads)
    store.close()


def _closure(settings, iris) -> tuple[set[str], set[str]]:
    from attest.store import open_store

    store = open_store(settings)
    try:
        inferred = {str(q.subject) + str(q.predicate) + str(q.object) for q in store.quads(iris.inferred_graph)}
        asserted_chain = {str(q) for q in store.quads(iris.document_graph("chain"))}
        return inferred, asserted_chain
    finally:
        store.close()


def test_kill_9_during_reasoning_keeps_derivations_consistent(tmp_path):
    import shutil

    from attest.vocab import Iris

    settings = _settings(tmp_path)
    iris = Iris(settings.base_iri)
    _seed_reasoning_data(settings, iris, 40)
    pristine = tmp_path / "pristine"
    shutil.copytree(settings.store_path, pristine)
    cmd = [sys.executable, "-c", REASON_SCRIPT, str(settings.data_dir), str(REPO / "ontology")]
    reference = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert reference.returncode == 0, reference.stderr
    expected, chain = _closure(settings, iris)
    assert len(expected) > 2000  # partOf is transitive: a quadratic closure, real work to interrupt
    shutil.rmtree(settings.store_path)  # timed on the unreasoned store: --full over current records writes nothing
    shutil.copytree(pristine, settings.store_path)
    started = time.monotonic()
    subprocess.run(cmd, cwd=REPO, check=True, timeout=600)
    full_run_s = time.monotonic() - started
    for fraction in (0.5, 0.85):
        shutil.rmtree(settings.store_path)
        shutil.copytree(pristine, settings.store_path)
        _kill_after(cmd, _env(tmp_path), full_run_s * fraction)
        inferred, asserted = _closure(settings, iris)  # the store opens after the kill
        assert asserted == chain, "asserted data changed under a killed reasoner"
        # what a killed run left is either nothing or the whole closure: never a partial inferred graph
        assert inferred in (set(), expected), f"{len(inferred)} of {len(expected)} inferred triples after kill -9"
        rerun = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, rerun.stderr
        assert _closure(settings, iris)[0] == expected


def test_backup_restore_round_trip_is_exact(tmp_path):
    """`attest backup` then `attest restore --force` gives back exactly the quads of the backup moment."""
    from typer.testing import CliRunner

    from attest.cli import cli
    from attest.store import open_store

    settings = _settings(tmp_path)
    first, second = tmp_path / "first.nq", tmp_path / "second.nt"
    first.write_text("".join(f'<{EX}s{i}> <{EX}p> "v{i}\\nline \\"q\\"" <{EX}g{i % 3}> .\n' for i in range(500)))
    second.write_text(f"<{EX}late> <{EX}p> <{EX}o> .\n")
    runner = CliRunner()

    def attest(*args: str) -> str:
        result = runner.invoke(cli, ["--data-dir", str(settings.data_dir), *args])
        assert result.exit_code == 0, result.output
        return result.output

    def quads() -> set[str]:
        store = open_store(settings, read_only=True)
        try:
            return {str(q) for q in store.quads()}
        finally:
            store.close()

    attest("load", str(first))
    before = quads()
    attest("backup", str(tmp_path / "bk"))
    attest("load", str(second))
    assert quads() != before
    attest("restore", str(tmp_path / "bk"), "--force")
    assert quads() == before and len(before) == 500
