"""Facts past the first hop: ordinary nodes read whole once and remembered, nodes with nothing along the wanted
relations not read (their predicates counted), inferred relatesTo twins and schema predicates left out."""

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


def test_a_node_with_nothing_along_the_wanted_relations_is_not_read_until_a_write_gives_it_one(store, iris, settings,
                                                                                                monkeypatch):
    load_graph(store, iris)
    node = iris.entity("storage-layer")  # partOf facts only
    reads: list[str] = []
    query = store.query
    monkeypatch.setattr(store, "query", lambda text, **kw: (reads.append(text), query(text, **kw))[1])
    facts = PathSearch(GraphLookup(store, iris), [])._facts({node}, [ONT + "uses"])
    assert node not in facts
    assert reads and not any("?o ?g WHERE" in text for text in reads)  # its predicates were counted, no fact was read
    uses = (node, ONT + "uses", iris.entity("rocksdb"))
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('x')}> {{ <{uses[0]}> <{uses[1]}> <{uses[2]}> }} }}")
    summary.rebuild(store, iris)  # a write about the node: its counts are not remembered past it
    assert uses in PathSearch(GraphLookup(store, iris), [])._facts({node}, [ONT + "uses"])[node]


def test_predicate_counts_are_the_triples_touching_a_node_and_sum_to_its_degree(store, iris, settings):
    load_graph(store, iris)
    node = iris.entity("storage-layer")
    lookup = GraphLookup(store, iris)
    counts = lookup.predicate_counts([node])[node]
    expected: dict[str, int] = {}
    for g in lookup.dataset["named_graphs"]:
        for quad in store.quads(g):
            if node in (quad.subject.value, quad.object.value):
                expected[quad.predicate.value] = expected.get(quad.predicate.value, 0) + 1
    assert counts == expected and counts[ONT + "partOf"] == 2
    assert lookup.degrees([node]) == {node: sum(counts.values())}


def test_a_relates_to_stated_by_a_document_is_read_its_inferred_twin_is_not(store, iris, settings):
    load_graph(store, iris)
    twin = _twin(store, iris)
    stated = (iris.entity("storage-layer"), ONT + "relatesTo", iris.entity("oxigraph"))
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('x')}> {{ <{stated[0]}> <{stated[1]}> <{stated[2]}> }} }}")
    summary.rebuild(store, iris)
    lookup = GraphLookup(store, iris)
    read = lookup.facts_touching([stated[2]])
    assert stated in read and twin not in read
    sampled = lookup.hub_facts([stated[2]], [ONT + "relatesTo"])
    assert stated in sampled and twin not in sampled
