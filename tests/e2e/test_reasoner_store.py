"""The Reasoner on a real embedded store: records in SPARQL, explain, depth_of, consistency, incremental, API, CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Triple

from attest.reasoner import Reasoner
from attest.store import EmbeddedStore
from attest.vocab import ATT, OWL, RDF, RDFS, Iris

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)

EX = "http://example.org/"
TYPE, SCO, INV = NamedNode(RDF + "type"), NamedNode(RDFS + "subClassOf"), NamedNode(OWL + "inverseOf")
REIFIES = NamedNode(RDF + "reifies")


def ex(x: str) -> NamedNode:
    return NamedNode(EX + x)


def quads(graph: str, *triples) -> list[Quad]:
    g = NamedNode(graph)
    return [Quad(s, p, o, g) for s, p, o in triples]


ONTOLOGY = [(ex("Employee"), SCO, ex("Person")), (ex("Manager"), SCO, ex("Employee")),
            (ex("manages"), INV, ex("managedBy")), (ex("Person"), NamedNode(OWL + "disjointWith"), ex("Robot"))]


@pytest.fixture
def world(tmp_path):
    iris = Iris("https://w3id.org/attest/")
    store = EmbeddedStore(tmp_path / "store", iris)
    store.add(quads(iris.ontology_graph, *ONTOLOGY))
    doc = iris.document_graph("d1")
    stmt = NamedNode(iris.base + "statement/s1")
    store.add(quads(doc, (ex("ann"), TYPE, ex("Manager")), (ex("ann"), ex("manages"), ex("bob")),
                    (stmt, REIFIES, Triple(ex("ann"), TYPE, ex("Manager"))),
                    (stmt, NamedNode(ATT + "inChunk"), NamedNode(iris.chunk("c1")))))
    yield store, iris
    store.close()


def graph_set(store, graph):
    return {(q.subject, q.predicate, q.object) for q in store.quads(graph)}


def test_materialize_writes_inferred_triples_and_queryable_derivations(world):
    store, iris = world
    report = Reasoner(store, iris).materialize()
    assert report.mode == "full" and report.consistent
    inferred = graph_set(store, iris.inferred_graph)
    assert (ex("ann"), TYPE, ex("Person")) in inferred and (ex("bob"), ex("managedBy"), ex("ann")) in inferred
    assert not inferred & graph_set(store, iris.document_graph("d1"))  # never mixed with asserted triples
    rows = list(store.query(
        "PREFIX att: <https://w3id.org/attest/vocab#> SELECT ?t ?rule ?depth WHERE { GRAPH ?g { "
        "?d att:derives ?t ; att:rule ?rule ; att:depth ?depth } }",
        substitutions={"t": Triple(ex("ann"), TYPE, ex("Person"))}))
    assert [(r["rule"].value, int(r["depth"].value)) for r in rows] == [("cax-sco", 2)]


def test_explain_goes_down_to_documents_and_chunks_and_is_bounded(world):
    store, iris = world
    reasoner = Reasoner(store, iris)
    reasoner.materialize()
    tree = reasoner.explain(ex("ann"), TYPE, ex("Person"))
    assert tree["status"] == "inferred" and tree["rule"] == "cax-sco" and tree["depth"] == 2
    leaves = []

    def walk(node):
        if node["status"] == "asserted":
            leaves.append(node)
        for child in node.get("premises", []):
            walk(child)
    walk(tree)
    doc_leaf = next(n for n in leaves if n["triple"]["o"] == f"<{EX}Manager>")
    assert doc_leaf["sources"] == [{"graph": iris.document_graph("d1"), "document": iris.document("d1"),
                                    "chunks": [iris.chunk("c1")]}]
    assert any(n["sources"][0]["graph"] == iris.ontology_graph for n in leaves)
    # a triple with no reifier: the chunks whose mentions denote its subject
    mention = NamedNode(iris.chunk("c2") + "/mention/bob")
    store.add(quads(iris.document_graph("d1"), (mention, NamedNode(ATT + "denotes"), ex("ann")),
                    (mention, NamedNode(ATT + "inChunk"), NamedNode(iris.chunk("c2")))))
    manages = reasoner.explain(ex("bob"), ex("managedBy"), ex("ann"))
    doc_premise = next(n for n in manages["premises"] if n["sources"][0]["graph"] == iris.document_graph("d1"))
    assert doc_premise["sources"][0]["chunks"] == [iris.chunk("c2")]
    cut = reasoner.explain(ex("ann"), TYPE, ex("Person"), max_depth=1)
    assert all(child.get("truncated") or child["status"] == "asserted" for child in cut["premises"])
    assert reasoner.explain(ex("bob"), TYPE, ex("Person"))["status"] == "unknown"


def test_depth_of_is_batched_and_distinguishes_asserted_inferred_unknown(world):
    store, iris = world
    reasoner = Reasoner(store, iris)
    reasoner.materialize()
    depths = reasoner.depth_of([(ex("ann"), TYPE, ex("Manager")), (ex("ann"), TYPE, ex("Employee")),
                                (ex("ann"), TYPE, ex("Person")), (ex("bob"), TYPE, ex("Person"))])
    assert list(depths.values()) == [0, 1, 2, None]


def test_incremental_add_and_remove_match_a_full_recomputation(world, tmp_path):
    store, iris = world
    reasoner = Reasoner(store, iris)
    reasoner.materialize()
    d2 = iris.document_graph("d2")
    store.add(quads(d2, (ex("cy"), TYPE, ex("Employee")), (ex("cy"), ex("manages"), ex("ann"))))
    report = reasoner.on_graph_replaced(d2)
    assert report.mode == "incremental" and report.added == 2  # cy a Person, ann managedBy cy
    assert (ex("ann"), ex("managedBy"), ex("cy")) in graph_set(store, iris.inferred_graph)
    store.drop_graph(iris.document_graph("d1"))
    report = reasoner.on_graph_removed(iris.document_graph("d1"))
    inferred = graph_set(store, iris.inferred_graph)
    assert (ex("ann"), TYPE, ex("Person")) not in inferred and (ex("bob"), ex("managedBy"), ex("ann")) not in inferred
    assert (ex("cy"), TYPE, ex("Person")) in inferred

    fresh = EmbeddedStore(tmp_path / "fresh", iris)
    for graph in (iris.ontology_graph, d2):
        fresh.add(store.quads(graph))
    Reasoner(fresh, iris).materialize(full=True)
    for graph in (iris.inferred_graph, iris.derivations_graph):
        assert graph_set(store, graph) == graph_set(fresh, graph)
    fresh.close()


def test_inconsistency_is_reported_with_premises(world):
    store, iris = world
    store.add(quads(iris.document_graph("d3"), (ex("ann"), TYPE, ex("Robot"))))
    reasoner = Reasoner(store, iris)
    report = reasoner.materialize()
    assert not report.consistent and report.violations[0]["rule"] == "cax-dw"
    stored = reasoner.consistency()
    assert [v["rule"] for v in stored] == ["cax-dw"]
    assert {"s": f"<{EX}ann>", "p": f"<{RDF}type>", "o": f"<{EX}Robot>"} in stored[0]["premises"]
    store.drop_graph(iris.document_graph("d3"))
    reasoner.on_graph_removed(iris.document_graph("d3"))
    assert reasoner.consistency() == []


def test_literal_objects_are_explained_and_bad_terms_are_refused(world):
    from attest.errors import BadRequest

    store, iris = world
    store.add(quads(iris.ontology_graph, (ex("name"), NamedNode(RDFS + "domain"), ex("Person"))))
    store.add(quads(iris.document_graph("d4"), (ex("dan"), ex("name"), Literal("Dan"))))
    reasoner = Reasoner(store, iris)
    reasoner.materialize()
    assert reasoner.explain(ex("dan"), TYPE, ex("Person"))["rule"] == "prp-dom"
    with pytest.raises(BadRequest):
        reasoner.explain("not an iri", TYPE, ex("Person"))


# --- HTTP and CLI -----------------------------------------------------------------------------------------------

def test_api_explain_consistency_and_reason(client):
    # graphs of the client's own, written through the Graph Store Protocol (the reasoner reads document graphs
    # through the fact summary, which holds only the facts ingestion wrote about entities)
    ttl = {"content-type": "text/turtle"}
    assert client.put("/store", params={"graph": EX + "api"}, content=f"<{EX}eve> a <{EX}Manager> .", headers=ttl).is_success
    assert client.put("/store", params={"graph": EX + "api2"}, headers=ttl,
                      content=f"<{EX}Manager> <{RDFS}subClassOf> <{EX}Boss> .").is_success
    assert client.post("/reason", params={"full": "true"}).status_code == 200
    r = client.get("/explain", params={"s": EX + "eve", "p": RDF + "type", "o": EX + "Boss"})
    assert r.status_code == 200 and r.json()["rule"] == "cax-sco" and r.json()["depth"] == 1
    assert client.get("/explain", params={"s": EX + "eve", "p": RDF + "type", "o": EX + "Nobody"}).status_code == 404
    bad = client.get("/explain", params={"s": "not an iri", "p": RDF + "type", "o": EX + "Boss"})
    assert bad.status_code == 400 and "IRI" in bad.json()["message"]
    both = client.get("/explain", params={"s": EX + "eve", "p": RDF + "type", "o": EX + "Boss", "o_literal": "x"})
    assert both.status_code == 400
    assert client.get("/consistency").json() == {"consistent": True, "violations": []}


def test_cli_reason_then_explain(settings, tmp_path):
    iris = Iris(settings.base_iri)
    store = EmbeddedStore(settings.store_path, iris)
    store.add(quads(iris.document_graph("cli"), (ex("fay"), TYPE, ex("Manager")), (ex("Manager"), SCO, ex("Boss"))))
    store.close()
    base = [sys.executable, "-m", "attest.cli", "--data-dir", str(settings.data_dir)]
    done = subprocess.run(base + ["reason", "--full"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "full:" in done.stdout and "inferred" in done.stdout
    shown = subprocess.run(base + ["explain", EX + "fay", RDF + "type", EX + "Boss"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "[cax-sco, depth 1]" in shown.stdout and "asserted in" in shown.stdout
    bad = subprocess.run(base + ["explain", "not an iri", RDF + "type", EX + "Boss"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "IRI" in bad.stderr



def test_cli_reason_ends_without_teardown_and_leaves_its_writes_durable(settings):
    """`attest reason` leaves its process with os._exit: its report, its exit code and its records are all there."""
    iris = Iris(settings.base_iri)
    store = EmbeddedStore(settings.store_path, iris)
    store.add(quads(iris.document_graph("cli"), (ex("cat"), TYPE, ex("Dog")), (ex("cat"), TYPE, ex("Cat")),
                    (ex("Cat"), NamedNode(OWL + "disjointWith"), ex("Dog")), (ex("Cat"), SCO, ex("Animal"))))
    store.close()
    base = [sys.executable, "-m", "attest.cli", "--data-dir", str(settings.data_dir)]
    done = subprocess.run(base + ["reason", "--full"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr  # the inconsistency's exit code
    assert "full:" in done.stdout and "inconsistency cax-dw" in done.stdout
    store = EmbeddedStore(settings.store_path, iris)
    try:
        assert (ex("cat"), TYPE, ex("Animal")) in graph_set(store, iris.inferred_graph)
        kept = Reasoner(store, iris).materialize()  # the stamp went in last: the records are complete
        assert kept.records_kept
    finally:
        store.close()

def test_materialize_without_full_finds_changed_graphs_itself(world):
    store, iris = world
    reasoner = Reasoner(store, iris)
    assert reasoner.materialize().mode == "full"
    store.add(quads(iris.document_graph("d5"), (ex("gil"), TYPE, ex("Employee"))))
    report = reasoner.materialize()
    assert report.mode == "incremental" and report.changed_graphs == [iris.document_graph("d5")]
    assert (ex("gil"), TYPE, ex("Person")) in graph_set(store, iris.inferred_graph)
    assert reasoner.materialize().changed_graphs == []


# --- a new process and the stored records (closure stamp) ----------------------------------------------------------

def records(store, iris):
    return graph_set(store, iris.inferred_graph), graph_set(store, iris.derivations_graph)


def test_a_new_process_keeps_records_stamped_with_the_same_triples(world):
    store, iris = world
    first = Reasoner(store, iris).materialize()
    assert not first.records_kept
    before = records(store, iris)
    again = Reasoner(store, iris).materialize()  # a new process: closure rebuilt in memory
    assert again.records_kept and again.inferred == first.inferred and records(store, iris) == before
    full = Reasoner(store, iris).materialize(full=True)  # recomputed; the records are already exactly these
    assert full.records_kept and full.inferred == first.inferred and records(store, iris) == before


def test_full_rewrites_records_that_differ_in_any_quad(world):
    """--full leaves the two graphs alone only when they hold exactly its records: a missing quad, an extra one or
    a changed one (each a hand edit behind the stamp) makes it rewrite them all, back to the same records."""
    store, iris = world
    Reasoner(store, iris).materialize()
    before = records(store, iris)
    derivations, inferred = NamedNode(iris.derivations_graph), NamedNode(iris.inferred_graph)
    depth = next(q for q in store.raw.quads_for_pattern(None, NamedNode(ATT + "depth"), None, derivations))
    edits = [
        lambda: store.raw.remove(depth),  # a record loses a quad
        lambda: store.raw.add(Quad(ex("zed"), TYPE, ex("Person"), inferred)),  # an inferred triple no rule derives
        lambda: (store.raw.remove(depth), store.raw.add(Quad(depth.subject, depth.predicate, Literal(
            "9", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer")), derivations))),  # a wrong depth
    ]
    for edit in edits:
        edit()
        assert records(store, iris) != before
        report = Reasoner(store, iris).materialize(full=True)
        assert not report.records_kept and records(store, iris) == before


def test_records_are_rewritten_when_the_triples_or_the_inferred_graph_changed_behind_the_reasoner(world):
    store, iris = world
    Reasoner(store, iris).materialize()
    store.add(quads(iris.document_graph("d1"), (ex("cy"), TYPE, ex("Manager"))))  # written with no reasoner running
    report = Reasoner(store, iris).materialize()
    assert not report.records_kept and (ex("cy"), TYPE, ex("Person")) in graph_set(store, iris.inferred_graph)
    store.raw.remove(Quad(ex("cy"), TYPE, ex("Person"), NamedNode(iris.inferred_graph)))  # a hand edit
    assert not Reasoner(store, iris).materialize().records_kept
    assert (ex("cy"), TYPE, ex("Person")) in graph_set(store, iris.inferred_graph)


def test_incremental_runs_keep_the_stamp_current(world):
    store, iris = world
    live = Reasoner(store, iris)
    live.materialize()
    d2 = iris.document_graph("d2")
    store.add(quads(d2, (ex("ann"), TYPE, ex("Manager")), (ex("dan"), TYPE, ex("Employee"))))  # ann in two graphs
    assert live.refresh([d2]).mode == "incremental"
    store.drop_graph(iris.document_graph("d1"))
    live.refresh([iris.document_graph("d1")])
    after = records(store, iris)
    fresh = Reasoner(store, iris).materialize()
    assert fresh.records_kept and records(store, iris) == after
    assert (ex("ann"), TYPE, ex("Person")) in after[0] and (ex("bob"), ex("managedBy"), ex("ann")) not in after[0]
