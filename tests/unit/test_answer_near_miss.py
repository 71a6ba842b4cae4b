"""Near-miss linking: the length-windowed, batched search finds what rapidfuzz's full scan found, and follows the store."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from pyoxigraph import Literal, NamedNode, Quad
from rapidfuzz import fuzz, process

from attest.answer.linking import LINK_CUTOFF, LabelMatcher
from attest.answer.lookup import GraphLookup
from attest.answer.near_miss import MAX_TIES, best_labels, by_length, length_window
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
    assert best_labels(spans, by_length(labels), cutoff) == expected


def test_best_labels_keep_the_first_ties_by_index_across_many_spans():
    labels = ["zeta cluster", "alpha cluster"] + ["alpha clusters"] * 7 + ["alpha cluster"] * 6
    spans = ["alpha clustr", "zeta clusterr", "nothing like it at all"] * 30  # several cdist batches
    found = best_labels(spans, by_length(labels), LINK_CUTOFF)
    expected = (fuzz.ratio("alpha clustr", "alpha cluster"), [1, 9, 10, 11, 12])  # 7 tie: the first 5 by index
    assert found[0] == _full_scan("alpha clustr", labels, LINK_CUTOFF) == expected
    assert found[1] == (fuzz.ratio("zeta clusterr", "zeta cluster"), [0])
    assert found[2] is None and found == found[:3] * 30


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(near(), max_size=40), spans=st.lists(near(), max_size=10),
       cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0]))
def test_best_labels_equal_a_full_scan_on_edited_names(labels, spans, cutoff):
    expected = [_full_scan(s, labels, cutoff) for s in spans]
    assert best_labels(spans, by_length(labels), cutoff) == expected


@settings(max_examples=500, deadline=None)
@given(a=near(), b=near(), cutoff=st.sampled_from([LINK_CUTOFF, 70.0, 95.0, 100.0]))
def test_a_label_outside_the_length_window_cannot_reach_the_cutoff(a, b, cutoff):
    low, high = length_window(len(a), cutoff)
    if not low <= len(b) <= high:
        assert fuzz.ratio(a, b) < cutoff


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
    commit(store, iris, "redis", document=[], status=[], quarantine=[], fresh=False)  # the document removed
    assert _linked(store, iris, question) == []
