"""Facts past the first hop: ordinary nodes read whole once and remembered, inferred relatesTo twins and schema
predicates left out."""

from __future__ import annotations

from attest.answer.lookup import GraphLookup
from attest.answer.paths import PathSearch
from attest.ingest import summary
from attest.vocab import ATT, ONT, OWL, PROV, RDF, RDFS, SKOS
from tests.answer_support import load_graph


def _twin(store, iris) -> tuple[str, str, str]:
    """An inferred relatesTo between two nodes that a specific fact joins, as the reasoner writes one."""
    twin = (iris.entity("oxigraph"), ONT + "relatesTo", iris.entity("rocksdb"))
    store.update(f"INSERT DATA {{ GRAPH <{iris.inferred_graph}> {{ <{twin[0]}> <{twin[1]}> <{twin[2]}> }} }}")
    summary.ensure(store, iris)
    return twin


def test_an_ordinary_node_past_the_first_hop_is_read_once_for_every_question(store, iris, settings, monkeypatch):
    load_graph(store, iris)
    summary.ensure(store, iris)
    node = iris.entity("storage-layer")  # one partOf fact leaves it, one leads into it
    first = PathSearch(GraphLookup(store, iris), [])._facts({node}, [ONT + "partOf"])
    assert {t[1] for t in first[node]} == {ONT + "partOf"} and len(first[node]) == 2
    reads: list[str] = []
    query = store.query
    monkeypatch.setattr(store, "query", lambda text, **kw: (reads.append(text), query(text, **kw))[1])
    # the next request asks along other relations: the node's facts are remembered whole, nothing is read again
    other = PathSearch(GraphLookup(store, iris), [])._facts({node}, [ONT + "partOf", ONT + "uses"])
    assert reads == [] and other[node] == first[node]
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('x')}> {{ <{iris.entity('x')}> <{ONT}partOf> <{node}> }} }}")
    summary.rebuild(store, iris)  # a write about the node: it is read again, with the new fact
    after = PathSearch(GraphLookup(store, iris), [])._facts({node}, [ONT + "partOf"])
    assert reads and (iris.entity("x"), ONT + "partOf", node) in after[node]


def test_inferred_relates_to_twins_are_left_out_past_the_first_hop_as_in_the_first(store, iris, settings):
    load_graph(store, iris)
    twin = _twin(store, iris)
    node = twin[0]
    for hop_one in (True, False):
        search = PathSearch(GraphLookup(store, iris), [])
        facts = search._facts({node}, [] if hop_one else [ONT + "relatesTo", ONT + "uses"])
        assert facts[node] and twin not in facts[node]
    # a hub's sample along relatesTo leaves them out too
    assert twin not in GraphLookup(store, iris).hub_facts([node], [ONT + "relatesTo"])


def test_schema_predicates_are_never_facts_of_a_node_read_whole(store, iris, settings):
    load_graph(store, iris)
    node = iris.entity("storage-layer")
    schema = [RDF + "type", RDFS + "seeAlso", OWL + "sameAs", SKOS + "note", PROV + "wasDerivedFrom", ATT + "extractedBy"]
    triples = " ".join(f"<{node}> <{p}> <{iris.entity('oxigraph')}> ." for p in schema)
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('schema')}> {{ {triples} }} }}")
    store.update(summary.invalidation(iris))  # as a manual edit does: every graph is read, this one too
    lookup = GraphLookup(store, iris)
    assert iris.document_graph("schema") in lookup.dataset["named_graphs"]
    read = {t[1] for t in lookup.facts_touching([node])} | {t[1] for t in lookup.facts_from([node])}
    assert ONT + "partOf" in read and not read & set(schema)
