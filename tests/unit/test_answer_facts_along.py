"""Facts read along the question's predicates from ordinary nodes: hub_facts' result, read one index range per node."""

from __future__ import annotations

from itertools import combinations

import pytest
from pyoxigraph import Literal, NamedNode

from attest.answer import queries as q
from attest.answer.lookup import GraphLookup
from attest.ingest import summary
from attest.vocab import ONT, RDFS
from tests.answer_support import load_graph

PREDICATES = [ONT + "uses", ONT + "implements", ONT + "partOf", ONT + "relatesTo", RDFS + "label"]
NODES = ["oxigraph", "rocksdb", "sparql-1-1", "apache-jena", "storage-layer", "database-core"]


def test_facts_along_equal_hub_facts_when_the_bound_is_not_reached(store, iris, settings):
    load_graph(store, iris)
    twin = (iris.entity("oxigraph"), ONT + "relatesTo", iris.entity("rocksdb"))  # as the reasoner writes one
    store.update(f"INSERT DATA {{ GRAPH <{iris.inferred_graph}> {{ <{twin[0]}> <{twin[1]}> <{twin[2]}> }} }}")
    summary.ensure(store, iris)
    lookup = GraphLookup(store, iris)
    nodes = [iris.entity(n) for n in NODES]
    compared = 0
    for n in (1, 2, 3):
        for wanted in combinations(PREDICATES, n):
            for some in (nodes[:1], nodes[2:4], nodes):
                along = lookup.facts_along(some, wanted, limit=1000)
                assert along == lookup.hub_facts(some, wanted, limit=1000)
                compared += bool(along)
    assert compared > 20  # most combinations hold facts: the comparison is not of empty results
    inferred = lookup.facts_along(nodes, [ONT + "relatesTo"])
    assert list(inferred) == [twin] and inferred[twin].inferred  # inferred facts are read too


def test_facts_along_read_at_most_limit_per_node_those_leaving_the_nodes_first(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    lookup = GraphLookup(store, iris)
    sparql = iris.entity("sparql-1-1")  # two facts lead into it, none leaves it
    partof = [iris.entity("storage-layer")]  # one fact leaves it (to database-core), one leads into it
    assert len(lookup.facts_along([sparql], [ONT + "implements"], limit=5)) == 2
    assert len(lookup.facts_along([sparql], [ONT + "implements"], limit=1)) == 1
    one = lookup.facts_along(partof, [ONT + "partOf"], limit=1)
    assert list(one) == [(partof[0], ONT + "partOf", iris.entity("database-core"))]
    assert lookup.facts_along([], [ONT + "partOf"]) == {} and lookup.facts_along(partof, [RDFS + "label"]) == {}


def test_an_iri_list_writes_named_nodes_only():
    listed = q.IriList((NamedNode(ONT + "uses"), NamedNode(ONT + "partOf")))
    assert q.with_values("FILTER(?p IN (%(wanted)s))", wanted=listed) == f"FILTER(?p IN (<{ONT}uses>, <{ONT}partOf>))"
    with pytest.raises(TypeError):
        q.with_values("FILTER(?p IN (%(wanted)s))", wanted=q.IriList((Literal("> ) } DROP ALL #"),)))  # type: ignore[arg-type]
