"""`x rdf:type owl:Thing` stays in the closure but is not written, unless a written derivation needs it as a premise;
records written before (with those types) are rewritten without them."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode, Quad, Triple

from attest.reasoner import Reasoner
from attest.store import EmbeddedStore
from attest.vocab import OWL, Iris
from tests.e2e.test_reasoner_store import SCO, TYPE, ex, quads

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

CLASS, THING = NamedNode(OWL + "Class"), NamedNode(OWL + "Thing")


def graph_set(store, graph):
    return {(q.subject, q.predicate, q.object) for q in store.quads(graph)}


def records_of(store, iris, s, p, o) -> list:
    rows = store.query("PREFIX att: <https://w3id.org/attest/vocab#> SELECT ?d ?t WHERE { GRAPH ?g { ?d att:derives ?t } }",
                       substitutions={"t": Triple(s, p, o)})
    return list(rows)


@pytest.fixture
def world(tmp_path):
    iris = Iris("https://w3id.org/attest/")
    store = EmbeddedStore(tmp_path / "store", iris)
    store.add(quads(iris.ontology_graph, (ex("Person"), TYPE, CLASS), (ex("Manager"), TYPE, CLASS),
                    (ex("Manager"), SCO, ex("Person"))))
    store.add(quads(iris.document_graph("d1"), (ex("ann"), TYPE, ex("Manager"))))
    yield store, iris
    store.close()


def test_thing_types_stay_in_the_closure_but_are_not_written(world):
    store, iris = world
    reasoner = Reasoner(store, iris)
    report = reasoner.materialize()
    engine = reasoner.engine
    assert engine is not None
    ann_thing = engine.terms.encode_triples([Triple(ex("ann"), TYPE, THING)])[0]
    assert engine.depth[ann_thing] == 2  # OWL 2 RL (scm-cls, cax-sco), as owlrl derives it
    inferred = graph_set(store, iris.inferred_graph)
    assert (ex("ann"), TYPE, ex("Person")) in inferred and (ex("ann"), TYPE, THING) not in inferred
    assert (ex("Person"), SCO, THING) in inferred  # a class's own axiom is written: one per class, not per entity
    assert not records_of(store, iris, ex("ann"), TYPE, THING)
    assert records_of(store, iris, ex("ann"), TYPE, ex("Person"))
    assert report.inferred == report.added == len(inferred) == engine.inferred_count() - 1
    again = Reasoner(store, iris).materialize()  # a new process finds its records current
    assert again.records_kept and again.inferred == report.inferred


def test_a_thing_type_that_a_written_derivation_needs_is_written_with_its_record(world):
    store, iris = world
    reasoner = Reasoner(store, iris)
    reasoner.materialize()
    # an ontology that says something about owl:Thing: every individual is Visible, through (x rdf:type owl:Thing)
    store.add(quads(iris.ontology_graph, (THING, SCO, ex("Visible"))))
    reasoner.refresh([iris.ontology_graph])
    inferred = graph_set(store, iris.inferred_graph)
    assert {(ex("ann"), TYPE, ex("Visible")), (ex("ann"), TYPE, THING)} <= inferred
    tree = reasoner.explain(ex("ann"), TYPE, ex("Visible"))
    assert tree["status"] == "inferred"
    assert any(p["triple"]["o"] == str(THING) and p["status"] == "inferred" for p in tree["premises"])
    full = Reasoner(store, iris).materialize(full=True)
    assert graph_set(store, iris.inferred_graph) == inferred and full.inferred == len(inferred)


def test_records_written_before_with_thing_types_are_rewritten_without_them(world):
    store, iris = world
    Reasoner(store, iris).materialize()
    # the layout written before: ann's owl:Thing type in the inferred graph, with its record
    record = NamedNode(iris.base + "derivation/old")
    att = "https://w3id.org/attest/vocab#"
    store.add([Quad(ex("ann"), TYPE, THING, NamedNode(iris.inferred_graph)),
               *quads(iris.derivations_graph, (record, NamedNode(att + "derives"), Triple(ex("ann"), TYPE, THING)),
                      (record, NamedNode(att + "rule"), NamedNode(att + "cax-sco")))])
    report = Reasoner(store, iris).materialize()  # a new process: first use of a store written before
    assert not report.records_kept
    assert (ex("ann"), TYPE, THING) not in graph_set(store, iris.inferred_graph)
    assert not records_of(store, iris, ex("ann"), TYPE, THING)
    assert (ex("ann"), TYPE, ex("Person")) in graph_set(store, iris.inferred_graph)


def test_the_count_of_written_triples_follows_asserted_thing_types(world):
    store, iris = world
    store.add(quads(iris.document_graph("d2"), (ex("cy"), TYPE, THING), (ex("cy"), TYPE, ex("Manager"))))
    reasoner = Reasoner(store, iris)
    assert reasoner.materialize().inferred == len(graph_set(store, iris.inferred_graph))
    # incremental: one more asserted owl:Thing type (and an inferred one), then the asserted one goes again
    store.add(quads(iris.document_graph("d3"), (ex("dee"), TYPE, THING), (ex("eve"), TYPE, ex("Person"))))
    assert reasoner.refresh([iris.document_graph("d3")]).inferred == len(graph_set(store, iris.inferred_graph))
    store.replace_graph(iris.document_graph("d2"), quads(iris.document_graph("d2"), (ex("cy"), TYPE, ex("Manager"))))
    report = reasoner.refresh([iris.document_graph("d2")])
    assert report.inferred == len(graph_set(store, iris.inferred_graph))
    assert Reasoner(store, iris).materialize().records_kept  # a new process counts the same
