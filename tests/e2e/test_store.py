"""The embedded store: atomic loads, graph replacement, bulk loads, crash recovery of staged writes."""

from __future__ import annotations

import gzip

import pytest
from pyoxigraph import Literal, NamedNode, Quad, RdfFormat

from attest.errors import NotFound, RdfSyntaxError, SparqlSyntaxError, StoreError
from attest.store import EmbeddedStore
from attest.vocab import ATT, XSD
from tests.remote_support import embedded_only

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

G1, G2, G3 = "http://example.org/g1", "http://example.org/g2", "http://example.org/g3"
EX = "http://example.org/"


def q(s, p, o, g=None):
    return Quad(NamedNode(EX + s), NamedNode(EX + p), Literal(o), NamedNode(g) if g else None)


def test_load_is_all_or_nothing(store):
    store.load(b"<http://example.org/a> <http://example.org/p> 1 .", RdfFormat.TURTLE, graph=G1)
    bad = b"<http://example.org/b> <http://example.org/p> 2 .\n<http://example.org/c> <http://example.org/p> ."
    with pytest.raises(RdfSyntaxError) as err:
        store.load(bad, RdfFormat.TURTLE, graph=G1, source="bad.ttl")
    assert (err.value.line, err.value.column) == (2, 47)
    assert err.value.message.startswith("bad.ttl:2:47: ")
    assert store.graph_sizes() == {G1: 1}


def test_replace_graph_swaps_content_and_leaves_other_graphs(store):
    store.add([q("a", "p", "1", G1), q("b", "p", "2", G1), q("z", "p", "9", G2)])
    assert store.replace_graph(G1, [q("c", "p", "3")]) == 1
    assert {x.subject.value for x in store.quads(G1)} == {EX + "c"}
    assert store.graph_sizes() == {G1: 1, G2: 1}
    assert store.replace_graph(G1, []) == 0
    assert store.graphs() == [G2]


def test_staged_write_left_by_a_crash_is_discarded_on_open(settings, iris):
    path = settings.store_path
    s = EmbeddedStore(path, iris)
    s.add([q("a", "p", "1", iris.staging_graph_prefix + "dead"), q("b", "p", "2", G1)])
    s.close()
    reopened = EmbeddedStore(path, iris)
    assert reopened.graph_sizes() == {G1: 1}
    reopened.close()


def test_bulk_load_is_all_or_nothing(store, tmp_path):
    good = tmp_path / "ok.nt.gz"
    with gzip.open(good, "wt") as f:
        f.write("".join(f"<{EX}s{i}> <{EX}p> \"{i}\" .\n" for i in range(1000)))
    assert store.bulk_load_file(good, graph=G1) == 1000
    bad = tmp_path / "bad.nt"
    bad.write_text(f"<{EX}x> <{EX}p> \"1\" .\n<{EX}y> <{EX}p> \"2 .\n")
    with pytest.raises(RdfSyntaxError) as err:
        store.bulk_load_file(bad, graph=G2)
    assert err.value.line == 2
    assert store.graph_sizes() == {G1: 1000}
    assert not any(g.startswith(store.iris.staging_graph_prefix) for g in store.graphs())


def test_query_errors_and_bound_values(store):
    store.add([q("a", "p", "x\"} UNION {", G1)])
    with pytest.raises(SparqlSyntaxError):
        store.query("SELEC ?s")
    rows = list(store.query("SELECT ?s ?o WHERE { ?s ?p ?o }", substitutions={"o": Literal('x"} UNION {')}))
    assert [r["s"].value for r in rows] == [EX + "a"]
    with pytest.raises(NotFound):
        store.has_graph("not an iri>")


@embedded_only
def test_second_writer_gets_a_clear_error(settings, iris, store):
    with pytest.raises(StoreError, match="cannot open store"):
        EmbeddedStore(settings.store_path, iris)


def test_bulk_write_interrupted_inside_the_guard_is_rolled_back_on_open(settings, iris):
    path = settings.store_path
    s = EmbeddedStore(path, iris)
    s.add([q("keep", "p", "1", G2)])
    with pytest.raises(RuntimeError):
        with s.bulk_write_guard([G1, ""]):
            s.raw.bulk_extend([q("a", "p", "1", G1), q("b", "p", "2")])
            raise RuntimeError("the write fails half-way")
    assert s.graph_sizes() == {G2: 1}
    # a crash instead: the marker is durable before the bulk write, and the next open rolls back
    s.raw.extend([Quad(NamedNode(iris.staging_graph_prefix + "x"), NamedNode(ATT + "loadingInto"), NamedNode(G1),
                       NamedNode(iris.staging_graph_prefix + "loads"))])
    s.raw.bulk_extend([q("a", "p", "1", G1)])
    s.close()
    reopened = EmbeddedStore(path, iris)
    assert reopened.graph_sizes() == {G2: 1}
    with reopened.bulk_write_guard([G1]):
        reopened.raw.bulk_extend([q("a", "p", "1", G1)])
    reopened.close()
    again = EmbeddedStore(path, iris)
    assert again.graph_sizes() == {G1: 1, G2: 1}
    again.close()


def test_bulk_write_guard_finish_update_is_atomic_with_the_release(tmp_path, iris):
    s = EmbeddedStore(tmp_path / "store", iris)
    s.add([q("keep", "p", "1", G2)])
    staging = iris.staging_graph_prefix + "batch"
    with s.bulk_write_guard([G1, staging], finish=f"ADD GRAPH <{staging}> TO GRAPH <{G2}> ; DROP GRAPH <{staging}>"):
        assert s.bulk_add([q("a", "p", "1", G1), q("b", "p", "2", staging)]) == 2
    assert s.graph_sizes() == {G1: 1, G2: 2}
    assert not list(s.quads(iris.staging_graph_prefix + "loads"))  # markers released
    # a finishing update that fails rolls the whole guarded write back; the shared graph keeps its content
    with pytest.raises(StoreError):
        with s.bulk_write_guard([G3, staging], finish=f"ADD GRAPH <{staging}> TO GRAPH <{G2}> ; LOAD <file:///nowhere>"):
            s.bulk_add([q("c", "p", "3", G3), q("d", "p", "4", staging)])
    assert s.graph_sizes() == {G1: 1, G2: 2}
    assert not list(s.quads(iris.staging_graph_prefix + "loads"))
    s.close()


def test_quad_data_round_trips_hostile_literals_and_triple_terms():
    from pyoxigraph import Store, Triple

    from attest.store.rdfio import quad_data

    g = NamedNode(G1)
    nasty = ['a "quoted" } ; DROP ALL', "line\nbreak\\ and tab\t", "\u00e9\u4e2d\U0001F600", ""]
    quads = [Quad(NamedNode(EX + f"s{i}"), NamedNode(EX + "p"), Literal(text), g) for i, text in enumerate(nasty)]
    quads.append(Quad(NamedNode(EX + "r"), NamedNode(EX + "q"),
                      Triple(NamedNode(EX + "a"), NamedNode(EX + "b"), Literal("x", language="en")), g))
    quads.append(Quad(NamedNode(EX + "n"), NamedNode(EX + "v"), Literal("0.5", datatype=NamedNode(XSD + "decimal")), g))
    s = Store()
    s.update(quad_data("INSERT DATA", quads))
    assert set(s) == set(quads)
    s.update(quad_data("DELETE DATA", quads[:2]))
    assert set(s) == set(quads[2:])
