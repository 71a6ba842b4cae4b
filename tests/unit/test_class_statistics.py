"""The class counts kept in graph/statistics: there only while exact (every write drops them first), written again
by refresh, and class-counts.rq gives the same rows with them and without them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad, RdfFormat

from attest.named_queries import parse_named_query
from attest.sparql import compaction
from attest.sparql.compaction import Compactor
from attest.sparql.deadline import DeadlineExecutor
from attest.store.embedded import EmbeddedStore
from attest.store.statistics import VOID
from attest.vocab import ATT, ONT, OWL, RDF, RDFS, XSD, Iris

IRIS = Iris("http://example.org/")
QUERY = parse_named_query("class-counts", (Path("attest/bundled/queries") / "class-counts.rq").read_text())
TYPE = NamedNode(RDF + "type")


def _entity(name: str) -> NamedNode:
    return NamedNode(IRIS.entity(name))


def _typed(name: str, cls: str, graph: str) -> Quad:
    return Quad(_entity(name), TYPE, NamedNode(ONT + cls), NamedNode(graph))


def _store(path: Path | None = None) -> EmbeddedStore:
    store = EmbeddedStore(path, IRIS)
    ontology = NamedNode(IRIS.ontology_graph)
    store.add([Quad(NamedNode(ONT + c), TYPE, NamedNode(OWL + "Class"), ontology) for c in ("Person", "City", "Place")]
              + [Quad(NamedNode(ONT + "City"), NamedNode(RDFS + "label"), Literal("City"), ontology)])
    return store


def _counts(store: EmbeddedStore) -> dict[str, int]:
    return {row["class"].value.removeprefix(ONT): int(row["instances"].value) for row in store.query(QUERY.text)}


def _kept(store: EmbeddedStore) -> dict[str, int]:
    graph = NamedNode(IRIS.statistics_graph)
    partitions = {q.object for q in store.quads(IRIS.statistics_graph) if q.predicate.value == VOID + "classPartition"}
    out = {}
    for partition in partitions:
        cls, = store.raw.quads_for_pattern(partition, NamedNode(VOID + "class"), None, graph)
        n, = store.raw.quads_for_pattern(partition, NamedNode(VOID + "entities"), None, graph)
        out[cls.object.value] = int(n.object.value)
    return out


def _tamper(store: EmbeddedStore, cls: str, instances: int) -> None:
    """Change a kept count behind the store's back (no Attest writer does this): tells whether the query reads it."""
    graph = NamedNode(IRIS.statistics_graph)
    native = store._store  # the pyoxigraph Store itself, past the guard every write goes through
    for quad in list(native.quads_for_pattern(None, NamedNode(VOID + "class"), NamedNode(ONT + cls), graph)):
        old, = native.quads_for_pattern(quad.subject, NamedNode(VOID + "entities"), None, graph)
        native.remove(old)
        native.add(Quad(quad.subject, old.predicate, Literal(str(instances), datatype=NamedNode(XSD + "integer")), graph))


def test_a_fresh_store_counts_and_after_refresh_reads_the_kept_counts():
    store = _store()
    store.add([_typed("ada", "Person", IRIS.document_graph("d1")), _typed("ada", "Person", IRIS.document_graph("d2")),
               _typed("paris", "City", IRIS.document_graph("d1")), _typed("paris", "Place", IRIS.inferred_graph)])
    assert not store.has_graph(IRIS.statistics_graph)
    counted = _counts(store)
    assert counted == {"Person": 1, "City": 1, "Place": 1}  # ada typed in two graphs is one instance
    assert store.refresh_statistics()
    assert _kept(store) == {ONT + "Person": 1, ONT + "City": 1, ONT + "Place": 1, OWL + "Class": 3}
    assert _counts(store) == counted
    _tamper(store, "Person", 7)
    assert _counts(store)["Person"] == 7  # the kept counts are what the query reads


def test_every_kind_of_write_drops_the_counts_first_and_the_query_stays_right():
    store = _store()
    store.add([_typed("ada", "Person", IRIS.document_graph("d1")), _typed("ada", "Person", IRIS.document_graph("d2")),
               _typed("bob", "Person", IRIS.document_graph("d2"))])
    writes = [
        ("add", lambda: store.add([_typed("cy", "Person", IRIS.document_graph("d3"))]), 3),
        ("delete one of two documents typing ada", lambda: store.drop_graph(IRIS.document_graph("d1")), 3),
        ("delete the other", lambda: store.drop_graph(IRIS.document_graph("d2")), 1),
        ("SPARQL update", lambda: store.update(
            f"INSERT DATA {{ GRAPH <{IRIS.inferred_graph}> {{ <{IRIS.entity('dee')}> a <{ONT}Person> }} }}"), 2),
        ("replace a graph", lambda: store.replace_graph(IRIS.document_graph("d3"), [
            _typed("eve", "Person", IRIS.document_graph("d3")), _typed("fay", "Person", IRIS.document_graph("d3"))]), 3),
        ("native write (the reasoner's)", lambda: store.raw.remove(
            Quad(_entity("dee"), TYPE, NamedNode(ONT + "Person"), NamedNode(IRIS.inferred_graph))), 2),
        ("load", lambda: store.load(f"<{IRIS.entity('gus')}> a <{ONT}Person> .", RdfFormat.TURTLE,
                                    graph=IRIS.document_graph("d4")), 3),
    ]
    for name, write, persons in writes:
        assert store.refresh_statistics(), name
        _tamper(store, "Person", 99)
        write()
        assert not store.has_graph(IRIS.statistics_graph), name
        assert _counts(store)["Person"] == persons, name
        assert store.refresh_statistics() and _counts(store)["Person"] == persons, name


def test_no_counts_are_written_while_a_write_is_in_flight_or_began_during_the_count():
    store = _store()
    store.add([_typed("ada", "Person", IRIS.document_graph("d1"))])
    with store._statistics.writing():  # as a bulk load between its writes' start and end
        assert not store.refresh_statistics()
    assert not store.has_graph(IRIS.statistics_graph)

    counting = threading.Event()
    original = store._store.query

    def slow_query(*args, **kwargs):  # the count takes a while; a write starts and ends meanwhile
        counting.set()
        time.sleep(0.3)
        return original(*args, **kwargs)

    class Slow:
        def __getattr__(self, name):
            return slow_query if name == "query" else getattr(store._store, name)

    statistics = store._statistics
    statistics._store = Slow()
    writer = threading.Thread(target=lambda: counting.wait(5) and store.add(
        [_typed("bob", "Person", IRIS.document_graph("d2"))]))
    writer.start()
    try:
        assert not store.refresh_statistics()  # counted ada only, while bob was being written
    finally:
        writer.join()
        statistics._store = store._store
    assert not store.has_graph(IRIS.statistics_graph)
    assert store.refresh_statistics() and _counts(store)["Person"] == 2


def test_counts_written_by_something_else_are_not_taken():
    store = _store()
    store.add([_typed("ada", "Person", IRIS.document_graph("d1"))])
    # a dump of another store, loaded back: its statistics graph goes when the write ends
    store.add([Quad(NamedNode(IRIS.statistics_graph), NamedNode(VOID + "classes"), Literal("1"),
                    NamedNode(IRIS.statistics_graph))])
    assert not store.has_graph(IRIS.statistics_graph)
    # a store written with write tokens (a remote one) never reads kept counts, even where some are found
    store.add([Quad(NamedNode(IRIS.staging_graph_prefix + "t"), NamedNode(ATT + "writeToken"), Literal("x"),
                    NamedNode(IRIS.staging_graph_prefix + "t"))])
    assert store.refresh_statistics()
    _tamper(store, "Person", 99)
    assert _counts(store)["Person"] == 1


def test_the_counts_outlive_a_restart_and_are_written_when_writes_go_quiet(tmp_path):
    store = _store(tmp_path / "store")
    try:
        compactor = Compactor(store, lambda: None, quiet_s=0.2, poll_s=0.02)
        try:
            store.add([_typed("ada", "Person", IRIS.document_graph("d1"))])
            generation = store.generation
            deadline = time.monotonic() + 10
            while compactor.compactions == 0 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert store.has_graph(IRIS.statistics_graph)
            # nothing else changed: page cursors and answer caches made at this generation stay valid
            assert store.generation == generation
        finally:
            compactor.close()
    finally:
        store.close()
    reopened = EmbeddedStore(tmp_path / "store", IRIS)
    try:
        assert reopened.has_graph(IRIS.statistics_graph)
        assert _kept(reopened)[ONT + "Person"] == 1
    finally:
        reopened.close()


def test_query_workers_read_the_counts_from_the_snapshot_after_the_quiet_period(store, settings, monkeypatch):
    monkeypatch.setattr(compaction, "QUIET_S", 3600.0)
    monkeypatch.setattr(compaction, "POLL_S", 0.02)
    store.add([_typed("ada", "Person", store.iris.document_graph("d1"))])
    executor = DeadlineExecutor(store, settings.model_copy(update={"query_workers": 1}))
    ask = f"ASK {{ GRAPH <{store.iris.statistics_graph}> {{ ?s ?p ?o }} }}"
    try:
        assert not executor.query(ask)  # its snapshot: taken before the counts
        executor.compactor.quiet_s = 0.1
        deadline = time.monotonic() + 10
        while executor.compactor.compactions == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert executor.query(ask)  # the compaction made the snapshot stale: the next one has them
    finally:
        executor.close()


@pytest.mark.parametrize("kept", [False, True])
def test_the_query_gives_the_counted_rows_with_labels_and_order(kept):
    store = _store()
    store.add([_typed(f"p{i}", "Person", IRIS.document_graph("d1")) for i in range(3)]
              + [_typed("paris", "City", IRIS.document_graph("d1")), _typed("paris", "Place", IRIS.document_graph("d1")),
                 _typed("rome", "Place", IRIS.document_graph("d1"))])
    if kept:
        assert store.refresh_statistics()
    rows = [(r["class"].value, None if r["label"] is None else r["label"].value, int(r["instances"].value))
            for r in store.query(QUERY.text)]
    assert rows == [(ONT + "Person", None, 3), (ONT + "Place", None, 2), (ONT + "City", "City", 1)]
