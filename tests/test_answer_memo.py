"""Answer lookups remembered per store write generation: a write is seen by the next request, never a stale value."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from app.answer.inference import reasoner_inference
from app.answer.lookup import GraphLookup
from app.answer.memo import GenerationCache
from app.answer.verify import Verifier
from app.ingest import summary
from app.ingest.status import commit
from tests.answer_support import DOC, load_graph


def _verifier(store, iris, settings) -> Verifier:
    """A new verifier per request, as the API builds one."""
    return Verifier(GraphLookup(store, iris), reasoner_inference(store, iris, settings), settings.max_trace_depth)


def _statuses(report) -> list[str]:
    return [c.status for claim in report.claims for c in claim.citations]


def test_a_write_is_seen_by_the_next_request(store, iris, settings):
    load_graph(store, iris)
    text = "Oxigraph uses Redis <<entity:redis>> <<relation:oxigraph|uses|redis>>."
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["not_found", "not_found"]
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["not_found", "not_found"]  # remembered
    graph, redis = NamedNode(iris.document_graph("more")), NamedNode(iris.entity("redis"))
    added = [Quad(redis, NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), Literal("Redis"), graph),
             Quad(NamedNode(iris.entity("oxigraph")), NamedNode("https://w3id.org/attest/ontology#uses"), redis, graph)]
    commit(store, iris, "more", document=added, status=[], quarantine=[], fresh=True)  # as ingestion writes
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["found", "asserted"]


def test_a_deletion_is_seen_by_the_next_request(store, iris, settings):
    load_graph(store, iris)
    text = "Oxigraph uses RocksDB <<relation:oxigraph|uses|rocksdb>>."
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["asserted"]
    # a client's SPARQL update, as the endpoint runs it: the fact summary is marked out of date in the same transaction
    store.update(summary.invalidation(iris) + f" ; DELETE DATA {{ GRAPH <{iris.document_graph(DOC)}> {{ "
                 f"<{iris.entity('oxigraph')}> <https://w3id.org/attest/ontology#uses> <{iris.entity('rocksdb')}> }} }}")
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["not_found"]


def test_values_read_before_a_write_are_not_kept_after_it():
    cache = GenerationCache()
    cache.put_many(2, {"a": 1})
    assert cache.get_many(2, ["a", "b"]) == ({"a": 1}, ["b"])
    cache.put_many(3, {"b": 2})  # a newer generation empties the cache
    assert cache.get_many(3, ["a", "b"]) == ({"b": 2}, ["a"])
    cache.put_many(2, {"a": 1})  # a request that began before the write does not put its values back
    assert cache.get_many(3, ["a"]) == ({}, ["a"])
    assert cache.get_many(2, ["b"]) == ({}, ["b"])  # nor read the newer ones


def test_least_recently_used_values_go_first():
    cache = GenerationCache(max_entries=2)
    cache.put_many(1, {"a": 1, "b": 2})
    cache.get_many(1, ["a"])
    cache.put_many(1, {"c": 3})
    assert cache.get_many(1, ["a", "b", "c"]) == ({"a": 1, "c": 3}, ["b"])
