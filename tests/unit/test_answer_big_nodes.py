"""Bounds that keep /context fast past the first hop: the best nodes expanded, big nodes read by a sample, a big label
index kept out of the GC."""

from __future__ import annotations

import gc

from attest.answer import lookup as lookup_module
from attest.answer import paths as paths_module
from attest.answer.lookup import GraphLookup
from attest.answer.paths import BIG_NODE, EXPAND, HUB_SAMPLE, PathSearch
from attest.answer.predicates import question_terms
from attest.vocab import ONT
from tests.answer_support import load_graph


def _spokes(store, iris, hub: str, n: int) -> None:
    """n entities that each use `hub`, in one document graph."""
    triples = " ".join(f"<{iris.entity(f'spoke-{i}')}> <{ONT}uses> <{iris.entity(hub)}> ." for i in range(n))
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('spokes')}> {{ {triples} }} }}")


def test_a_node_with_more_than_big_node_facts_is_read_by_a_sample_past_the_first_hop(store, iris, settings):
    _spokes(store, iris, "big-hub", BIG_NODE + 20)
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('spokes')}> {{ "
                 f"<{iris.entity('spoke-0')}> <{ONT}uses> <{iris.entity('oxigraph')}> }} }}")
    load_graph(store, iris)  # the fact summary is rebuilt over every document graph, these ones too
    search = PathSearch(GraphLookup(store, iris), [])
    big, ordinary = iris.entity("big-hub"), iris.entity("oxigraph")
    facts = search._facts({big, ordinary}, [ONT + "uses"])
    assert search.sampled == {big}  # the ordinary node is read whole, the big one by a sample
    assert 0 < len(facts[big]) <= 2 * HUB_SAMPLE < BIG_NODE
    assert (iris.entity("spoke-0"), ONT + "uses", ordinary) in facts[ordinary]
    first = PathSearch(GraphLookup(store, iris), [])
    whole = first._facts({big}, [])  # the first hop (no wanted predicates) reads a node under HUB_DEGREE whole
    assert len(whole[big]) == BIG_NODE + 20 and not first.sampled


def _expanded_past_the_first_hop(store, iris) -> tuple[set[str], set[str]]:
    """The nodes whose facts a two-hop search from Oxigraph reads along `uses` at its second hop, and the ends of
    its two-hop paths."""
    search = PathSearch(GraphLookup(store, iris), question_terms("What uses what uses Oxigraph?", []),
                        declared=[ONT + "uses"])
    read: set[str] = set()
    facts = search._facts

    def recording(nodes, wanted):
        if wanted:  # past the first hop
            read.update(nodes)
        return facts(nodes, wanted)

    search._facts = recording  # the real read, with the nodes it was asked for noted
    found = search.search([(iris.entity("oxigraph"), 1.0, None)], 2)
    return read, {p.end for p in found if len(p.hops) == 2}


def test_past_the_first_hop_only_the_best_expand_nodes_are_read(store, iris, settings, monkeypatch):
    # 48 spokes around Oxigraph along four relations (the beam keeps at most PER_KIND paths of one kind), each
    # used by a leaf of its own
    triples = " ".join(f"<{iris.entity(f'spoke-{i}')}> <{ONT}{('uses', 'r1', 'r2', 'r3')[i % 4]}> "
                       f"<{iris.entity('oxigraph')}> . <{iris.entity(f'leaf-{i}')}> <{ONT}uses> <{iris.entity(f'spoke-{i}')}> ."
                       for i in range(48))
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('spokes')}> {{ {triples} }} }}")
    load_graph(store, iris)
    read, ends = _expanded_past_the_first_hop(store, iris)
    assert len(read) == EXPAND
    assert {e for e in ends if "leaf-" in e} == {n.replace("spoke-", "leaf-") for n in read if "spoke-" in n}
    monkeypatch.setattr(paths_module, "EXPAND", 1000)
    unbounded, _ = _expanded_past_the_first_hop(store, iris)
    assert len(unbounded) > EXPAND and read < unbounded  # unbounded, every end of the beam is read


def test_a_big_label_index_is_frozen_out_of_the_collector_once_read(store, iris, settings, monkeypatch):
    load_graph(store, iris)
    gc.unfreeze()
    try:
        monkeypatch.setattr(lookup_module, "SETTLE_LABELS", 10 ** 9)
        GraphLookup(store, iris).label_index()
        assert gc.get_freeze_count() == 0  # a small index: nothing frozen
        store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('x')}> {{ <{iris.entity('x')}> <{ONT}uses> "
                     f"<{iris.entity('oxigraph')}> }} }}")  # a write: the next read is a new index
        monkeypatch.setattr(lookup_module, "SETTLE_LABELS", 1)
        monkeypatch.setattr(lookup_module, "_LABEL_CACHE", type(lookup_module._LABEL_CACHE)())
        index = GraphLookup(store, iris).label_index()
        assert gc.get_freeze_count() > 0 and index.labels  # read whole, then frozen
    finally:
        gc.unfreeze()


def test_context_says_when_a_big_node_was_sampled(store, iris, settings):
    from attest.answer.inference import reasoner_inference
    from attest.answer.retrieve import ContextQuery
    from attest.answer.service import AnswerService

    _spokes(store, iris, "big-hub", BIG_NODE + 20)
    store.update(f"INSERT DATA {{ GRAPH <{iris.document_graph('spokes')}> {{ "
                 f"<{iris.entity('oxigraph')}> <{ONT}uses> <{iris.entity('big-hub')}> }} }}")
    load_graph(store, iris)
    service = AnswerService(store, iris, settings, reasoner_inference(store, iris, settings), owner=store)
    walked = service.context(ContextQuery(query="What uses what Oxigraph uses?", limit=20, max_hops=2))
    assert any(f"more than {BIG_NODE} facts" in note for note in walked.notes), walked.notes
    one_hop = service.context(ContextQuery(query="What uses what Oxigraph uses?", limit=20, max_hops=1))
    assert not any("facts were read by a sample" in note for note in one_hop.notes)  # the first hop reads it whole
