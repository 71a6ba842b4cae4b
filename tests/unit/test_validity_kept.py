"""Valid time across a bulk ingest's batches: the stored statements kept between batches give the records a
recomputation from every document graph gives, and are dropped when anything else writes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Triple

from attest.ingest import validity
from attest.ingest.batch import CommitBatch
from attest.ingest.status import commit
from attest.settings import load_settings
from attest.store import open_store
from attest.vocab import ATT, ONT, PROV, XSD, Iris

IRIS = Iris("https://w3id.org/attest/")
PEOPLE = [NamedNode(IRIS.entity(f"p{i}")) for i in range(2)]
ORGS = [NamedNode(IRIS.entity(f"o{i}")) for i in range(3)]
WORKS_FOR, USES = NamedNode(ONT + "worksFor"), NamedNode(ONT + "uses")  # changing; not changing
DAYS = [None, "2019-03-01", "2020-06-01", "2021-01-15"]
# a fact a document states: (person, predicate, org, valid from, valid to)
FACT = st.tuples(st.integers(0, 1), st.sampled_from([WORKS_FOR, USES]), st.integers(0, 2), st.sampled_from(DAYS),
                 st.sampled_from(DAYS))
DOC = st.tuples(st.sampled_from(["2020-01-01", "2020-07-01", "2022-02-02"]), st.lists(FACT, min_size=1, max_size=3))
OPS = st.lists(st.one_of(st.tuples(st.just("batch"), st.lists(DOC, min_size=1, max_size=3)),
                         st.tuples(st.just("write"), DOC), st.tuples(st.just("delete"), st.integers(0, 20))),
               min_size=2, max_size=8)


def _document(doc: str, stated: str, facts) -> list[Quad]:
    """A document graph as the mapper writes one: each fact stated, reified by a statement node with its dates,
    and the extraction's start (the document's time)."""
    g = NamedNode(IRIS.document_graph(doc))
    out = [Quad(NamedNode(IRIS.base + f"run/{doc}"), NamedNode(PROV + "startedAtTime"),
                Literal(f"{stated}T10:00:00Z", datatype=NamedNode(XSD + "dateTime")), g)]
    for i, (person, p, org, start, end) in enumerate(facts):
        s, o = PEOPLE[person], ORGS[org]
        node = NamedNode(IRIS.base + f"statement/{doc}/{i}")
        out += [Quad(s, p, o, g), Quad(node, validity.REIFIES, Triple(s, p, o), g)]
        for day, prop in ((start, validity.VALID_FROM), (end, validity.VALID_TO)):
            if day is not None:
                out.append(Quad(node, prop, Literal(day, datatype=validity.DATE), g))
    return out


def _records(store) -> set:
    return {(q.subject, q.predicate, q.object) for q in store.quads(IRIS.validity_graph)}


def _recomputed(store) -> set:
    return {(q.subject, q.predicate, q.object) for q in validity.recomputed(store, IRIS)}


def _open(path):
    store = open_store(load_settings(None, data_dir=path))
    store.add([Quad(WORKS_FOR, NamedNode(ATT + "changesOverTime"), Literal(True), NamedNode(IRIS.ontology_graph))])
    return store


def _write_batch(store, kept, docs: dict[str, list[Quad]]) -> None:
    """What the pipeline does with a full batch: write it, then say the store is settled (pipeline._write_batch)."""
    batch = CommitBatch(store, IRIS, max_quads=10_000)
    batch.stored = kept
    for doc, quads in docs.items():
        batch.add(doc, document=quads, status=[], quarantine=[])
    batch.flush()
    batch.settled()


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_records_after_batches_equal_a_recomputation(tmp_path_factory, ops):
    """Batches of new documents restating, dating and superseding facts, with single commits and deletions between
    them: graph/validity is what a recomputation from every document graph gives, after every step."""
    store = _open(tmp_path_factory.mktemp("kept"))
    try:
        kept = validity.StoredStatements()
        written: list[str] = []
        for n, (op, arg) in enumerate(ops):
            if op == "batch":
                docs = {f"d{n}-{i}": _document(f"d{n}-{i}", stated, facts) for i, (stated, facts) in enumerate(arg)}
                _write_batch(store, kept, docs)
                written += docs
            elif op == "write":  # a document of its own, outside any batch (status.commit reads the store itself)
                commit(store, IRIS, f"d{n}", document=_document(f"d{n}", *arg), status=[], quarantine=[], fresh=True)
                written.append(f"d{n}")
            elif written:
                doc = written.pop(arg % len(written))
                commit(store, IRIS, doc, document=[], status=[], quarantine=[], fresh=False)
            assert _records(store) == _recomputed(store)
    finally:
        store.close()


def test_a_write_between_batches_drops_what_was_kept(tmp_path):
    """A commit outside the batches (status.commit) states a newer fact of a kept pair: the next batch's records
    count it, as reading the store does (kept statements from before it would say the oldest fact was closed by
    the newest)."""
    store = _open(tmp_path / "data")
    try:
        kept = validity.StoredStatements()
        _write_batch(store, kept, {"a": _document("a", "2020-01-01", [(0, WORKS_FOR, 0, None, None)])})
        assert (PEOPLE[0], WORKS_FOR) in kept.known
        commit(store, IRIS, "b", document=_document("b", "2020-07-01", [(0, WORKS_FOR, 1, None, None)]), status=[],
               quarantine=[], fresh=True)
        _write_batch(store, kept, {"c": _document("c", "2022-02-02", [(0, WORKS_FOR, 2, None, None)])})
        records = _records(store)
        assert records == _recomputed(store)
        closed = {(s, o) for s, p, o in records if p == validity.SUPERSEDED_BY}
        first, second, third = (validity.record_iri(IRIS, PEOPLE[0], WORKS_FOR, org) for org in ORGS)
        assert closed == {(first, second), (second, third)}
    finally:
        store.close()


def test_a_batch_that_is_not_written_leaves_nothing_kept(tmp_path):
    """A change whose write never happens (settled not told) adds none of its documents to what is kept."""
    store = _open(tmp_path / "data")
    try:
        kept = validity.StoredStatements()
        _write_batch(store, kept, {"a": _document("a", "2020-01-01", [(0, WORKS_FOR, 0, None, None)])})
        validity.change(store, IRIS, {IRIS.document_graph("x"): _document("x", "2021-01-01", [(0, WORKS_FOR, 1, None, None)])},
                        kept)
        _write_batch(store, kept, {"c": _document("c", "2022-02-02", [(0, WORKS_FOR, 2, None, None)])})
        assert _records(store) == _recomputed(store)
        assert {o.document for o in kept.known[(PEOPLE[0], WORKS_FOR)]} == {IRIS.document_graph(d) for d in "ac"}
    finally:
        store.close()


def test_as_stored_reads_a_graph_as_the_store_does(tmp_path):
    """as_stored gives the statements stored_occurrences reads back from the written graph; a statement node whose
    read would pick one of several rows (two facts, two starts) names its pairs as unsure instead."""
    store = _open(tmp_path / "data")
    try:
        quads = _document("a", "2020-01-01", [(0, WORKS_FOR, 0, "2019-03-01", None), (1, USES, 2, None, "2021-01-15"),
                                              (1, WORKS_FOR, 1, None, None)])
        g = NamedNode(IRIS.document_graph("a"))
        quads.append(Quad(PEOPLE[0], USES, ORGS[2], NamedNode(IRIS.document_graph("other"))))  # another graph's
        quads.append(Quad(BlankNode(), validity.REIFIES, Triple(PEOPLE[1], USES, ORGS[0]), g))  # not stated: no row
        store.add(quads)
        found, unsure = validity.as_stored(IRIS, g.value, quads)
        read = validity.stored_occurrences(store, IRIS, None, set())
        assert unsure == set() and sorted(map(repr, found)) == sorted(map(repr, (o for o in read if o.document == g.value)))
        assert len(found) == 3
        node = NamedNode(IRIS.base + "statement/a/0")
        twice = [Quad(node, validity.VALID_FROM, Literal("2018-01-01", datatype=validity.DATE), g),
                 Quad(node, validity.REIFIES, Triple(PEOPLE[1], WORKS_FOR, ORGS[1]), g)]
        found, unsure = validity.as_stored(IRIS, g.value, quads + twice)
        assert unsure == {(PEOPLE[0], WORKS_FOR), (PEOPLE[1], WORKS_FOR)}
        assert {(o.subject, o.predicate) for o in found} == {(PEOPLE[1], USES), (PEOPLE[1], WORKS_FOR)}
    finally:
        store.close()


def test_what_is_kept_is_what_the_store_reads(tmp_path):
    """After a change that rewrites a stored document, and a batch with a statement node of two starts, what is
    kept of each pair is what stored_occurrences reads, or the pair is not kept (to be read again)."""
    store = _open(tmp_path / "data")
    try:
        kept = validity.StoredStatements()
        key, other = (PEOPLE[0], WORKS_FOR), (PEOPLE[1], WORKS_FOR)
        _write_batch(store, kept, {"a": _document("a", "2020-01-01", [(0, WORKS_FOR, 0, None, None),
                                                                      (1, WORKS_FOR, 0, None, None)])})
        assert set(kept.known) == {key, other}
        rewritten = _document("a", "2020-07-01", [(0, WORKS_FOR, 1, "2019-03-01", None)])
        change = validity.change(store, IRIS, {IRIS.document_graph("a"): rewritten}, kept)
        store.replace_graph(IRIS.document_graph("a"), rewritten)
        store.update(" ;\n".join(change.operations))
        kept.settled(IRIS, store.generation)
        assert kept.known[key] == validity.stored_occurrences(store, IRIS, {key}, set())
        assert kept.known[other] == []
        quads = _document("b", "2021-01-01", [(0, WORKS_FOR, 2, None, None)])
        quads.append(Quad(NamedNode(IRIS.base + "statement/b/0"), validity.VALID_FROM,
                          Literal("2018-01-01", datatype=validity.DATE), NamedNode(IRIS.document_graph("b"))))
        quads.append(Quad(NamedNode(IRIS.base + "statement/b/0"), validity.VALID_FROM,
                          Literal("2018-02-01", datatype=validity.DATE), NamedNode(IRIS.document_graph("b"))))
        _write_batch(store, kept, {"b": quads})
        assert key not in kept.known and _records(store) == _recomputed(store)
    finally:
        store.close()


def test_settled_without_a_change_does_not_hide_a_write(tmp_path):
    """Told `settled` with no change since (an empty batch), what was kept stays tied to the generation it was read
    at: a commit made before is still seen by the next batch."""
    store = _open(tmp_path / "data")
    try:
        kept = validity.StoredStatements()
        _write_batch(store, kept, {"a": _document("a", "2020-01-01", [(0, WORKS_FOR, 0, None, None)])})
        commit(store, IRIS, "b", document=_document("b", "2020-07-01", [(0, WORKS_FOR, 1, None, None)]), status=[],
               quarantine=[], fresh=True)
        empty = CommitBatch(store, IRIS, max_quads=10_000)
        empty.stored = kept
        assert empty.flush() == []
        empty.settled()
        _write_batch(store, kept, {"c": _document("c", "2022-02-02", [(0, WORKS_FOR, 2, None, None)])})
        assert _records(store) == _recomputed(store)
    finally:
        store.close()
