"""Answer lookups remembered per store write generation: a write is seen by the next request, never a stale value."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from attest.answer.inference import reasoner_inference
from attest.answer.lookup import _LABEL_CACHE, GraphLookup
from attest.answer.memo import GenerationCache
from attest.answer.verify import Verifier
from attest.ingest import summary
from attest.ingest.status import commit
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
    cache.put_many(2, {"a": 1})  # a request that began before a write of unknown scope does not put its values back
    assert cache.get_many(3, ["a"]) == ({}, ["a"])
    assert cache.get_many(2, ["b"]) == ({"b": 2}, [])  # but reads the newer ones: never stale


def test_values_read_before_a_write_about_other_iris_are_kept():
    journal = {(2, 3): {"urn:x"}}
    cache = GenerationCache(changes=lambda since, until: journal.get((since, until)))
    cache.put_many(3, {("facts", "urn:y"): 1})
    # a request that began at 2 ends after the write of 3, which changed facts about urn:x only
    cache.put_many(2, {("facts", "urn:x"): "old", ("facts", "urn:z"): 2})
    assert cache.get_many(3, [("facts", "urn:x"), ("facts", "urn:y"), ("facts", "urn:z")]) == (
        {("facts", "urn:y"): 1, ("facts", "urn:z"): 2}, [("facts", "urn:x")])
    cache.put_many(1, {("facts", "urn:w"): 3})  # the journal cannot say what changed since 1: dropped
    assert cache.get_many(3, [("facts", "urn:w")]) == ({}, [("facts", "urn:w")])


def test_least_recently_used_values_go_first():
    cache = GenerationCache(max_entries=2)
    cache.put_many(1, {"a": 1, "b": 2})
    cache.get_many(1, ["a"])
    cache.put_many(1, {"c": 3})
    assert cache.get_many(1, ["a", "b", "c"]) == ({"a": 1, "c": 3}, ["b"])


def _label(iris, name: str, label: str, graph) -> Quad:
    return Quad(NamedNode(iris.entity(name)), NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), Literal(label), graph)


def test_an_ingest_that_restates_known_facts_keeps_what_answers_remember(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    uses = NamedNode("https://w3id.org/attest/ontology#uses")
    text = "Oxigraph uses RocksDB <<relation:oxigraph|uses|rocksdb>>."
    lookup = GraphLookup(store, iris)
    lookup.label_index()
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["asserted"]
    fact = (iris.entity("oxigraph"), uses.value, iris.entity("rocksdb"))
    supporters = len(GraphLookup(store, iris).documents([fact])[fact])
    before = store.facts_generation

    graph = NamedNode(iris.document_graph("again"))
    again = [Quad(NamedNode(iris.entity("oxigraph")), uses, NamedNode(iris.entity("rocksdb")), graph)]
    commit(store, iris, "again", document=again, status=[], quarantine=[], fresh=True)
    assert store.facts_generation == before and store.generation > before
    remembered = GraphLookup(store, iris)
    assert remembered.memo.facts_cache.get_many(remembered.memo.facts_generation, [("status", fact)])[0]
    assert len(remembered.documents([fact])[fact]) == supporters + 1  # which documents state it: read again

    new = [*again, _label(iris, "redis", "Redis", graph), Quad(NamedNode(iris.entity("oxigraph")), uses,
                                                               NamedNode(iris.entity("redis")), graph)]
    commit(store, iris, "again", document=new, status=[], quarantine=[], fresh=False)
    assert store.facts_generation > before
    assert iris.entity("redis") in GraphLookup(store, iris).label_index()
    text = "Oxigraph uses Redis <<entity:redis>> <<relation:oxigraph|uses|redis>>."
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["found", "asserted"]

    moved = store.facts_generation
    commit(store, iris, "again", document=again, status=[], quarantine=[], fresh=False)  # Redis withdrawn again
    assert store.facts_generation > moved
    assert _statuses(_verifier(store, iris, settings).verify(text)) == ["not_found", "not_found"]


def test_a_write_about_some_entities_drops_only_what_names_them():
    changes = {(1, 2): {"x:a"}, (2, 3): None}
    cache = GenerationCache(changes=lambda since, until: changes[(since, until)])
    cache.put_many(1, {("label", "x:a"): "A", ("label", "x:b"): "B", ("status", ("x:b", "x:p", "x:a")): 1,
                       ("status", ("x:b", "x:p", "x:c")): 2})
    assert cache.get_many(2, [("label", "x:a"), ("label", "x:b"), ("status", ("x:b", "x:p", "x:a")),
                              ("status", ("x:b", "x:p", "x:c"))]) == (
        {("label", "x:b"): "B", ("status", ("x:b", "x:p", "x:c")): 2}, [("label", "x:a"), ("status", ("x:b", "x:p", "x:a"))])
    assert cache.get_many(3, [("label", "x:b")]) == ({}, [("label", "x:b")])  # a write of unknown scope: all go


def test_the_store_tells_which_entities_a_commit_changed(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    oxigraph, rocksdb = iris.entity("oxigraph"), iris.entity("rocksdb")
    GraphLookup(store, iris).details([oxigraph, rocksdb])
    since = store.facts_generation
    graph = NamedNode(iris.document_graph("redis"))
    commit(store, iris, "redis", document=[_label(iris, "redis", "Redis", graph),
                                           Quad(NamedNode(rocksdb), NamedNode("https://w3id.org/attest/ontology#uses"),
                                                NamedNode(iris.entity("redis")), graph)],
           status=[], quarantine=[], fresh=True)
    assert store.facts_changed_about(since, store.facts_generation) == {rocksdb, iris.entity("redis")}
    memo = GraphLookup(store, iris).memo
    kept, missing = memo.facts_cache.get_many(memo.facts_generation, [("details", oxigraph), ("details", rocksdb)])
    assert list(kept) == [("details", oxigraph)] and missing == [("details", rocksdb)]
    store.update(summary.invalidation(iris))  # a write the store cannot scope
    assert store.facts_changed_about(since, store.facts_generation) is None


def test_classes_and_properties_are_read_again_after_a_write_that_may_declare_them(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    oxigraph = iris.entity("oxigraph")
    first = GraphLookup(store, iris)._vocabulary()
    assert oxigraph in GraphLookup(store, iris).label_index()
    graph = NamedNode(iris.document_graph("redis"))
    commit(store, iris, "redis", document=[_label(iris, "redis", "Redis", graph)], status=[], quarantine=[], fresh=True)
    assert GraphLookup(store, iris)._vocabulary() is first  # ingestion declares no class or property
    assert iris.entity("redis") in GraphLookup(store, iris).label_index()
    store.update(f"INSERT DATA {{ GRAPH <http://example.org/mine> {{ <{oxigraph}> a <http://www.w3.org/2002/07/owl#Class> }} }}")
    assert oxigraph in GraphLookup(store, iris)._vocabulary().terms
    assert oxigraph not in GraphLookup(store, iris).label_index()  # a class is not an entity


def _as_read_in_full(store, iris):
    lookup = GraphLookup(store, iris)
    full = lookup._read_labels()
    return full.labels, full.iris, full.preferred


def test_the_label_index_reads_again_only_the_entities_a_commit_changed(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    first = GraphLookup(store, iris).label_index()
    read_at = _LABEL_CACHE[store][1]
    graph = NamedNode(iris.document_graph("more"))
    alt = NamedNode("http://www.w3.org/2004/02/skos/core#altLabel")
    redis = [_label(iris, "redis", "Redis", graph), Quad(NamedNode(iris.entity("redis")), alt, Literal("Redis DB"), graph),
             Quad(NamedNode(iris.entity("oxigraph")), alt, Literal("Oxigraph DB"), graph)]
    steps = [redis, redis[:1], [_label(iris, "rocksdb", "Rocks", graph)], []]  # add, withdraw, relabel, delete
    for fresh, quads in zip([True, False, False, False], steps):
        commit(store, iris, "more", document=quads, status=[], quarantine=[], fresh=fresh)
        patched = GraphLookup(store, iris).label_index()
        assert patched is not first and _LABEL_CACHE[store][1] == read_at  # patched: the full read's time is kept
        assert (patched.labels, patched.iris, patched.preferred) == _as_read_in_full(store, iris)
    assert GraphLookup(store, iris).label_index() is patched  # nothing written since: the same index


def test_which_documents_state_a_triple_is_read_again_only_when_a_write_changes_them(store, iris, settings):
    load_graph(store, iris)
    summary.ensure(store, iris)
    uses = "https://w3id.org/attest/ontology#uses"
    fact = (iris.entity("oxigraph"), uses, iris.entity("rocksdb"))
    before = GraphLookup(store, iris).documents([fact])[fact]
    graph = NamedNode(iris.document_graph("other"))
    commit(store, iris, "other", document=[_label(iris, "redis", "Redis", graph)], status=[], quarantine=[], fresh=True)
    memo = GraphLookup(store, iris).memo
    assert memo.support_cache.get_many(memo.generation, [("documents", fact)])[0]  # kept: Redis is not in it
    restated = [Quad(NamedNode(fact[0]), NamedNode(uses), NamedNode(fact[2]), graph)]
    commit(store, iris, "other", document=restated, status=[], quarantine=[], fresh=False)
    assert GraphLookup(store, iris).documents([fact])[fact] == sorted([*before, graph.value])
    commit(store, iris, "other", document=[], status=[], quarantine=[], fresh=False)  # deleted
    assert GraphLookup(store, iris).documents([fact])[fact] == before


def test_a_property_named_nowhere_keeps_its_text_across_requests(store, iris):
    """Its words (and each question word's match to them) are remembered on its text, as for a named property: a new
    empty text per request made every request match the question against it afresh."""
    load_graph(store, iris)
    unnamed = "https://w3id.org/attest/ontology#neverNamedAnywhere"
    first = GraphLookup(store, iris).property_texts([unnamed])[unnamed]
    assert (first.label, first.other, first.inverse) == ("", [], [])
    assert GraphLookup(store, iris).property_texts([unnamed])[unnamed] is first  # the next request's lookup
