"""The store's rewrite through the bulk loader: every quad kept, a crash at each step of the swap leaves a whole store
at the next open, and the rewrite runs only when nothing else has the store open."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Store, Triple

from attest.cli.compact import rewrite_declined
from attest.errors import StoreError
from attest.settings import Settings
from attest.store.embedded import EmbeddedStore
from attest.store.rewrite import RewriteSkipped, lock_reader, lock_writer, rewrite_store, sibling
from attest.vocab import Iris
from tests.conftest import REPO

EX = "http://example.org/"
IRIS = Iris("https://w3id.org/attest/")
STEPS = ["copying", "copied", "synced", "old-moved", "new-in-place", "old-removed"]


def n(name: str) -> NamedNode:
    return NamedNode(EX + name)


def fill(path: Path) -> tuple[set[Quad], set[NamedNode | BlankNode]]:
    """A store with what Attest's graphs hold: the default graph, named graphs (a status graph, a staging graph, a
    derivation record with triple terms), blank nodes, typed and tagged literals, and a named graph without quads."""
    store = Store(str(path))
    status, records = NamedNode(IRIS.status_graph_prefix + "doc1"), NamedNode(IRIS.derivations_graph)
    record, stated = BlankNode("r1"), Triple(n("a"), n("knows"), n("b"))
    quads = [Quad(n("a"), n("label"), Literal("Ada", language="en"), DefaultGraph()),
             Quad(n("a"), n("knows"), n("b"), n("doc1")),
             Quad(n("doc1"), n("status"), Literal("done"), status),
             Quad(n("x"), n("y"), Literal("2"), NamedNode(IRIS.staging_graph_prefix + "loads")),
             Quad(record, n("derives"), stated, records),
             Quad(record, n("premise"), Triple(n("b"), n("knows"), n("a")), records),
             Quad(BlankNode(), n("depth"), Literal("3", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
                  records)]
    quads += [Quad(n(f"s{i}"), n("p"), Literal(f"value {i}"), n(f"doc{i % 7}")) for i in range(3000)]
    store.extend(quads)
    store.add_graph(n("empty"))
    store.flush()
    held = set(store), set(store.named_graphs())
    del store
    return held


def without_staging(quads: set[Quad]) -> set[Quad]:
    """What an open for writing leaves: staging graphs are unfinished loads, dropped (EmbeddedStore)."""
    return {q for q in quads if not (isinstance(q.graph_name, NamedNode)
                                     and q.graph_name.value.startswith(IRIS.staging_graph_prefix))}


def contents(path: Path) -> tuple[set[Quad], set[NamedNode | BlankNode]]:
    store = Store.read_only(str(path))
    try:
        return set(store), set(store.named_graphs())
    finally:
        del store


def test_a_rewrite_keeps_every_quad_and_every_named_graph(tmp_path):
    path = tmp_path / "store"
    before = fill(path)
    with lock_writer(path):
        done = rewrite_store(path)
    assert contents(path) == before
    assert done.quads == len(before[0])
    assert not sibling(path, ".new").exists() and not sibling(path, ".old").exists()
    EmbeddedStore(path, IRIS).close()  # the store opens as Attest opens it
    assert contents(path)[0] == without_staging(before[0])


CRASH = """
import os, sys
from pathlib import Path
from attest.store.rewrite import lock_writer, rewrite_store
path, at = Path(sys.argv[1]), sys.argv[2]
with lock_writer(path):
    rewrite_store(path, on_step=lambda step: os._exit(9) if step == at else None)
"""


@pytest.mark.parametrize("step", STEPS)
def test_a_crash_at_any_step_of_the_swap_leaves_the_whole_store_at_the_next_open(tmp_path, step):
    path = tmp_path / "store"
    before = fill(path)
    crashed = subprocess.run([sys.executable, "-c", CRASH, str(path), step], cwd=REPO, capture_output=True, text=True,
                             timeout=120)
    assert crashed.returncode == 9, crashed.stderr
    if step == "new-in-place":  # the removal of the old folder cut off halfway too
        next(p for p in sibling(path, ".old").iterdir() if p.suffix == ".sst").unlink()
    reader = EmbeddedStore(path, IRIS, read_only=True)  # a read-only open finishes or rolls back as well
    reader.close()
    assert contents(path) == before
    assert not sibling(path, ".new").exists() and not sibling(path, ".old").exists()
    store = EmbeddedStore(path, IRIS)  # and the store takes writes after it
    store.add([Quad(n("after"), n("p"), n("o"), n("doc1"))])
    store.close()


def test_a_crash_between_the_renames_found_by_a_writer_moves_the_new_store_in(tmp_path):
    path = tmp_path / "store"
    before = fill(path)
    crashed = subprocess.run([sys.executable, "-c", CRASH, str(path), "old-moved"], cwd=REPO, timeout=120)
    assert crashed.returncode == 9
    assert not path.exists() and sibling(path, ".new").exists()
    EmbeddedStore(path, IRIS).close()
    assert contents(path)[0] == without_staging(before[0])


def test_no_rewrite_while_a_reader_has_the_store_open(tmp_path):
    path = tmp_path / "store"
    fill(path)
    EmbeddedStore(path, IRIS).close()  # a writer opened it once: readers now hold store.readers
    before = contents(path)
    reader = EmbeddedStore(path, IRIS, read_only=True)
    try:
        with lock_writer(path), pytest.raises(RewriteSkipped, match="read-only"):
            rewrite_store(path)
    finally:
        reader.close()
    assert contents(path) == before and not sibling(path, ".new").exists()


def test_no_rewrite_while_this_process_still_has_the_store_open(tmp_path):
    path = tmp_path / "store"
    fill(path)
    held = Store(str(path))  # e.g. a reasoner's reference to the native store, left alive
    try:
        with lock_writer(path), pytest.raises(RewriteSkipped, match="still open"):
            rewrite_store(path)
    finally:
        del held
    assert not sibling(path, ".new").exists() and not sibling(path, ".old").exists()


def test_a_second_writer_and_a_reader_during_a_rewrite_are_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "store"
    fill(path)
    store = EmbeddedStore(path, IRIS)
    try:
        with pytest.raises(StoreError, match="open for writing elsewhere"):
            EmbeddedStore(path, IRIS)
        with pytest.raises(StoreError, match="open for writing elsewhere"):
            lock_writer(path)  # what `attest compact` and the end of `attest ingest` take first
    finally:
        store.close()
    with open(sibling(path, ".readers"), "a+b") as rewriting:
        fcntl.flock(rewriting, fcntl.LOCK_EX)  # what a rewrite holds
        with pytest.raises(StoreError, match="being rewritten"):
            lock_reader(path, wait_s=0.2)


def test_the_rewrite_rule():
    on = Settings(ingest_rewrite=True, ingest_rewrite_min_mb=8, ingest_rewrite_growth=0.25)
    mb = 1_000_000
    assert rewrite_declined(on, 40 * mb, 40 * mb) is None  # a first bulk ingest
    assert rewrite_declined(on, 100 * mb, 30 * mb) is None  # grew 30 MB from 70: over a quarter
    assert "ingest_rewrite_growth" in rewrite_declined(on, 100 * mb, 5 * mb)  # a few documents into a large store
    assert "ingest_rewrite_min_mb" in rewrite_declined(on, 5 * mb, 5 * mb)  # half of a small store is not worth it
    assert "off" in rewrite_declined(Settings(), 40 * mb, 40 * mb)  # the default
