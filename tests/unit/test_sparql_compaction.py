"""Store compaction for the query snapshots: after writes go quiet the live store is compacted, the next query
reads a fresh snapshot of it, and a steady stream of writes postpones the compaction."""

from __future__ import annotations

import time

from pyoxigraph import Literal, NamedNode, Quad

from attest.sparql import compaction
from attest.sparql.compaction import Compactor
from attest.sparql.deadline import DeadlineExecutor, table_files

# the test's own triples (a quiet period also writes the store's class statistics, attest/store/statistics.py)
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/p> ?o }"


def _quads(n: int, start: int = 0) -> list[Quad]:
    return [Quad(NamedNode(f"http://example.org/e/{i}"), NamedNode("http://example.org/p"), Literal(f"value {i}"))
            for i in range(start, start + n)]


def _level0_heavy(store, batches: int = 4) -> int:
    """Flushed batches (level-0 files in every index); returns the store's table file count. RocksDB compacts
    level 0 by itself, in the background, once four files pile up there."""
    for batch in range(batches):
        store.add(_quads(500, start=batch * 500))
        store.raw.flush()
    return len(list(store.path.glob("*.sst")))


def _wait(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


def test_a_quiet_store_is_compacted_once_per_burst_of_writes(store):
    _level0_heavy(store)
    before = table_files(store.path)
    calls = []
    compactor = Compactor(store, lambda: calls.append(store.generation), quiet_s=0.3, poll_s=0.05)
    try:
        assert _wait(lambda: compactor.compactions == 1)
        # compacted: new files, which a further compaction leaves as they are (a count of files cannot tell: the
        # quiet period also wrote the class statistics, a named graph, whose indexes are files of their own)
        compacted = table_files(store.path)
        assert compacted != before
        store.raw.optimize()
        assert table_files(store.path) == compacted
        time.sleep(0.6)
        assert compactor.compactions == 1 and len(calls) == 1  # no writes since: nothing to do
        store.add(_quads(1, start=9000))
        assert _wait(lambda: compactor.compactions == 2)
        assert calls[-1] == store.generation
    finally:
        compactor.close()
    # compaction changes the files, not the data
    assert len(list(store.raw.quads_for_pattern(None, NamedNode("http://example.org/p"), None))) == 2001


def test_writes_that_keep_coming_postpone_the_compaction(store):
    compactor = Compactor(store, lambda: None, quiet_s=0.4, poll_s=0.05)
    try:
        until = time.monotonic() + 1.2
        i = 0
        while time.monotonic() < until:
            store.add(_quads(1, start=i))
            i += 1
            time.sleep(0.05)
        assert compactor.compactions == 0
        assert _wait(lambda: compactor.compactions == 1)
    finally:
        compactor.close()


def test_queries_move_to_a_snapshot_of_the_compacted_store(store, settings, monkeypatch):
    # no compaction before the first snapshot: starting the worker process can outlast a short quiet period
    monkeypatch.setattr(compaction, "QUIET_S", 3600.0)
    monkeypatch.setattr(compaction, "POLL_S", 0.05)
    _level0_heavy(store, batches=3)  # fewer than RocksDB's own trigger: the snapshot links the level-0 files
    executor = DeadlineExecutor(store, settings.model_copy(update={"query_workers": 1}))
    try:
        assert int(next(iter(executor.query(COUNT)))["n"].value) == 1500
        first = executor.snapshots.current
        assert executor.compactor.compactions == 0
        executor.compactor.quiet_s = 0.3
        assert _wait(lambda: executor.compactor.compactions == 1)
        assert int(next(iter(executor.query(COUNT)))["n"].value) == 1500
        assert executor.snapshots.current != first
        executor.query(COUNT)  # the worker now reads the new snapshot: the old one is deleted
        assert not first.exists()
    finally:
        executor.close()


def test_compactions_take_at_most_a_tenth_of_the_time(store, monkeypatch):
    monkeypatch.setattr(compaction, "MAX_DUTY", 0.0001)  # a compaction of t seconds holds the next back 10,000 t
    _level0_heavy(store)
    compactor = Compactor(store, lambda: None, quiet_s=0.1, poll_s=0.02)
    try:
        assert _wait(lambda: compactor.compactions == 1)
        store.add(_quads(1, start=9000))
        time.sleep(0.5)
        assert compactor.compactions == 1  # quiet again, but still inside the first compaction's hold-back
    finally:
        compactor.close()


def test_a_compaction_that_changes_no_file_keeps_the_workers_snapshot(store, settings, monkeypatch):
    # a store with nothing to compact (no writes since its last compaction, as when a server starts on it): the
    # first quiet period still runs a compaction, which changes no file; the workers keep the snapshot they have open
    monkeypatch.setattr(compaction, "QUIET_S", 3600.0)
    monkeypatch.setattr(compaction, "POLL_S", 0.05)
    _level0_heavy(store)
    store.compact()  # as the last quiet period left it: the class statistics written, then the files compacted
    executor = DeadlineExecutor(store, settings.model_copy(update={"query_workers": 1}))
    try:
        assert int(next(iter(executor.query(COUNT)))["n"].value) == 2000
        first = executor.snapshots.current
        executor.compactor.quiet_s = 0.3
        assert _wait(lambda: executor.compactor.compactions == 1)
        assert int(next(iter(executor.query(COUNT)))["n"].value) == 2000
        assert executor.snapshots.current == first and first.exists()
        assert table_files(first) == table_files(store.path)
    finally:
        executor.close()
