"""Near-miss linking: the length-windowed, bigram-filtered, batched search finds what rapidfuzz's full scan found, and
follows the store."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings, strategies as st
from pyoxigraph import Literal, NamedNode, Quad
from rapidfuzz import fuzz, process

from attest.answer.linking import LINK_CUTOFF, LabelMatcher
from attest.answer.lookup import GraphLookup
from attest.answer import near_miss
from attest.answer.near_miss import MAX_TIES, best_labels, bigrams, by_length, length_window, shared_bigrams
from attest.ingest import summary
from attest.ingest.status import commit
from tests.answer_support import load_graph

# a small alphabet: labels and spans that are near each other, of many lengths, with repeats (ties)
TEXT = st.text(alphabet="abcde ", min_size=0, max_size=24)
BASES = st.sampled_from(["alpha cluster", "new york city", "redis", "abcdefghijklmnopqrstuvwxyz0123456789"])


@st.composite
def near(draw, base=BASES):
    """A base name with a few characters cut out of it or put into it: a label or span near others of another length."""
    text = draw(base)
    i = draw(st.integers(0, len(text)))
    j = draw(st.integers(i, min(len(text), i + 4)))
    return text[:i] + draw(st.text(alphabet="xyz", max_size=4)) + text[j:]


def _full_scan(span: str, labels: list[str], cutoff: float) -> tuple[float, list[int]] | None:
    """What the linker did before: process.extract over every label, its best-scored hits."""
    hits = process.extract(span, labels, scorer=fuzz.ratio, score_cutoff=cutoff, limit=MAX_TIES)
    if not hits:
        return None
    best = max(score for _, score, _ in hits)
    return best, [k for _, score, k in hits if score == best]


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(TEXT, max_size=60), spans=st.lists(TEXT, max_size=10),
       cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0]))
def test_best_labels_equal_a_full_scan(labels, spans, cutoff):
    expected = [_full_scan(s, labels, cutoff) for s in spans]
    table = by_length(labels)
    assert best_labels(spans, table, cutoff) == expected  # windows this small are scored whole
    assert best_labels(spans, table, cutoff, filter_from=0) == expected  # ... or through the bigram filter


def test_best_labels_keep_the_first_ties_by_index_across_many_spans():
    labels = ["zeta cluster", "alpha cluster"] + ["alpha clusters"] * 7 + ["alpha cluster"] * 6
    spans = ["alpha clustr", "zeta clusterr", "nothing like it at all"] * 30  # several cdist batches
    found = best_labels(spans, by_length(labels), LINK_CUTOFF)
    assert best_labels(spans, by_length(labels), LINK_CUTOFF, filter_from=0) == found
    expected = (fuzz.ratio("alpha clustr", "alpha cluster"), [1, 9, 10, 11, 12])  # 7 tie: the first 5 by index
    assert found[0] == _full_scan("alpha clustr", labels, LINK_CUTOFF) == expected
    assert found[1] == (fuzz.ratio("zeta clusterr", "zeta cluster"), [0])
    assert found[2] is None and found == found[:3] * 30


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(near(), max_size=40), spans=st.lists(near(), max_size=10),
       cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0]))
def test_best_labels_equal_a_full_scan_on_edited_names(labels, spans, cutoff):
    expected = [_full_scan(s, labels, cutoff) for s in spans]
    table = by_length(labels)
    assert best_labels(spans, table, cutoff) == expected
    assert best_labels(spans, table, cutoff, filter_from=0) == expected


@settings(max_examples=500, deadline=None)
@given(a=near(), b=near(), cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0, 100.0]))
def test_a_label_outside_the_length_window_cannot_reach_the_cutoff(a, b, cutoff):
    low, high = length_window(len(a), cutoff)
    if not low <= len(b) <= high:
        assert fuzz.ratio(a, b) < cutoff


def _bigram_bag(text: str) -> Counter[str]:
    return Counter(text[i:i + 2] for i in range(len(text) - 1))


@settings(max_examples=500, deadline=None)
@given(a=near(), b=near(), cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0, 100.0]))
def test_a_label_within_the_cutoff_shares_the_bigrams_the_bound_asks(a, b, cutoff):
    low, high = length_window(len(a), cutoff)
    if fuzz.ratio(a, b) >= cutoff:
        assert low <= len(b) <= high
        assert sum((_bigram_bag(a) & _bigram_bag(b)).values()) >= shared_bigrams(len(a), cutoff)


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.one_of(TEXT, near(), st.text(max_size=12)), max_size=30), span=st.one_of(near(), TEXT))
def test_the_bigram_index_counts_shared_bigrams_with_repeats(labels, span):
    index = bigrams(labels)
    assert index is not None
    shared: Counter[int] = Counter()
    for key in index.keys_of(span):
        k = int(index.keys.searchsorted(key))
        if k < len(index.keys) and index.keys[k] == key:
            shared.update(index.postings[index.starts[k]:index.starts[k + 1]].tolist())
    assert [shared[i] for i in range(len(labels))] == [sum((_bigram_bag(span) & _bigram_bag(label)).values())
                                                        for label in labels]


def test_characters_outside_the_basic_plane_and_lone_surrogates_are_bigrams_like_others():
    labels = ["caf\u00e9 \U0001f600 club", "caf\u00e9 \ud800 club", "cafe club", "\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600"]
    spans = ["caf\u00e9 \U0001f600 clubs", "caf\u00e9 \ud800 clubs", "\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600", "\ud801\ud801\ud801\ud801\ud801"]
    expected = [_full_scan(s, labels, LINK_CUTOFF) for s in spans]
    assert expected[0] is not None and expected[1] is not None and expected[2] is not None
    assert best_labels(spans, by_length(labels), LINK_CUTOFF, filter_from=0) == expected


def test_labels_whose_keys_do_not_fit_are_all_scored(monkeypatch):
    monkeypatch.setattr(near_miss, "KEY_BITS", 8)  # 2 x 3 character bits + 4 label bits + 4 occurrence bits > 8
    labels = ["alpha cluster", "alpha clusters", "zeta cluster", "beta"] * 3
    table = by_length(labels)
    assert table.bigrams is None
    spans = ["alpha clustr", "zeta clusterr", "nothing like it"]
    assert best_labels(spans, table, LINK_CUTOFF, filter_from=0) == [_full_scan(s, labels, LINK_CUTOFF) for s in spans]


def _label(iris, entity: str, text: str, graph: NamedNode) -> Quad:
    return Quad(NamedNode(iris.entity(entity)), NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), Literal(text),
                graph)


def _linked(store, iris, question: str) -> list[list[str]]:
    return [link.iris for link in LabelMatcher(GraphLookup(store, iris).label_index()).link(question)]


def test_near_misses_follow_documents_added_and_removed(store, iris):
    load_graph(store, iris)
    summary.ensure(store, iris)
    question = "Which company sells Redis Enterprize Cluster?"  # one letter off the label written below
    assert _linked(store, iris, question) == []
    before = GraphLookup(store, iris).label_index().by_length
    graph = NamedNode(iris.document_graph("redis"))
    commit(store, iris, "redis", document=[_label(iris, "redis-cluster", "Redis Enterprise Cluster", graph)], status=[],
           quarantine=[], fresh=True)
    index = GraphLookup(store, iris).label_index()
    assert _linked(store, iris, question) == [[iris.entity("redis-cluster")]]
    assert index.by_length is not None and index.by_length is not before  # the length table was rebuilt with the labels
    assert index.by_length.bigrams is not None and before is not None and before.bigrams is not None
    assert len(index.by_length.bigrams.postings) > len(before.bigrams.postings)  # ... and its bigrams with them
    commit(store, iris, "redis", document=[], status=[], quarantine=[], fresh=False)  # the document removed
    assert _linked(store, iris, question) == []
