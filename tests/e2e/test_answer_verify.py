"""Verification of cited text against a real store and the real reasoner's derivation records (DESIGN.md confidence model)."""

from __future__ import annotations

import pytest

from attest.answer.inference import reasoner_inference
from attest.answer.lookup import GraphLookup, relation_id
from attest.answer.verify import Verifier
from attest.ontology import load_ontology
from attest.vocab import ONT, OWL, RDF
from tests.answer_support import load_graph, reason, triple

pytestmark = pytest.mark.remote  # run again on a remote store (make test, test-oxigraph, test-virtuoso)


@pytest.fixture
def verifier(store, iris, settings):
    load_ontology(store, settings.ontology_dir, iris)
    load_graph(store, iris)
    reason(store, iris)
    return Verifier(GraphLookup(store, iris), reasoner_inference(store, iris, settings), settings.max_trace_depth)


def only_claim(report):
    assert len(report.claims) == 1, report.claims
    return report.claims[0]


def test_existing_entity_and_asserted_relation_score_one(verifier, iris):
    report = verifier.verify("Oxigraph stores data in RocksDB <<entity:oxigraph>> <<relation:oxigraph|uses|rocksdb>>.")
    claim = only_claim(report)
    entity, relation = claim.citations
    assert (entity.status, entity.confidence, entity.label, entity.iri) == ("found", 1.0, "Oxigraph", iris.entity("oxigraph"))
    assert (relation.status, relation.confidence, relation.depth) == ("asserted", 1.0, 0)
    assert relation.triple == list(triple(iris, "oxigraph", "uses", "rocksdb"))
    assert claim.confidence == 1.0 and claim.flags == [] and report.confidence == 1.0 and report.flags == []


def test_relation_id_from_context_resolves(verifier, iris):
    rid = relation_id(iris, triple(iris, "oxigraph", "implements", "sparql-1-1"))
    citation = only_claim(verifier.verify(f"Oxigraph implements SPARQL 1.1 <<relation:{rid}>>.")).citations[0]
    assert citation.status == "asserted" and citation.confidence == 1.0 and citation.label == "Oxigraph implements SPARQL 1.1"


def test_hallucinated_ids_score_zero_and_low_claims_are_removed(verifier):
    text = ("Oxigraph uses RocksDB <<entity:oxigraph>>. It was written by aliens <<entity:alien-corp>>. "
            "Jena improves Oxigraph <<relation:apache-jena|improves|oxigraph>>. Made up <<relation:oxigraph~0123456789>>.")
    report = verifier.verify(text)
    assert [c.confidence for c in report.claims] == [1.0, 0.0, 0.0, 0.0]
    assert [c.citations[0].status for c in report.claims[1:]] == ["not_found", "not_found", "not_found"]
    assert all({"low_confidence", "removed"} <= set(c.flags) for c in report.claims[1:])
    assert report.text == "Oxigraph uses RocksDB <<entity:oxigraph>>."  # removed from the text ...
    assert len(report.claims) == 4  # ... and still reported
    assert {"low_confidence_claims", "removed_claims"} <= set(report.flags)


def test_label_instead_of_id_is_fuzzy_matched_between_half_and_point_nine(verifier, iris):
    exact, close = only_claim(verifier.verify("Jena <<entity:Apache Jena>> and <<entity:Apach Jena>> exist.")).citations
    assert exact.status == "label_match" and exact.iri == iris.entity("apache-jena") and exact.confidence == 0.9
    assert close.status == "label_match" and close.iri == iris.entity("apache-jena") and 0.5 <= close.confidence < 0.9
    assert close.match < exact.match == 100.0
    alt = only_claim(verifier.verify("Served <<entity:oxigraph server>>.")).citations[0]
    assert alt.status == "label_match" and alt.iri == iris.entity("oxigraph")


def test_relation_parts_given_as_labels_resolve_through_labels(verifier):
    citation = only_claim(verifier.verify("Jena implements it <<relation:Apache Jena|implements|SPARQL 1.1>>.")).citations[0]
    assert citation.status == "asserted" and citation.confidence == 0.9  # capped by the label match of its parts


def test_inferred_relation_at_depth_one(verifier, iris):
    # query-engine partOf storage-layer partOf database-core: prp-trp gives the depth-1 triple
    citation = only_claim(verifier.verify(
        "The query engine is part of the database core <<relation:query-engine|partOf|database-core>>.")).citations[0]
    assert (citation.status, citation.depth, citation.confidence) == ("inferred", 1, 0.9)
    top = citation.trace[0]
    assert top.rule == "prp-trp" and top.depth == 1 and top.conclusion == list(triple(iris, "query-engine", "partOf", "database-core"))
    transitive = [ONT + "partOf", RDF + "type", OWL + "TransitiveProperty"]
    assert sorted(top.premises) == sorted([list(triple(iris, "query-engine", "partOf", "storage-layer")),
                                           list(triple(iris, "storage-layer", "partOf", "database-core")), transitive])


def test_inferred_relation_at_depth_two_carries_its_whole_trace(verifier, iris):
    report = verifier.verify("The query engine is part of Oxigraph <<relation:query-engine|partOf|oxigraph>>.")
    citation = only_claim(report).citations[0]
    assert (citation.status, citation.depth, citation.confidence) == ("inferred", 2, 0.8)
    assert report.confidence == 0.8 and only_claim(report).flags == []
    assert [s.depth for s in citation.trace][0] == 2
    assert {s.rule for s in citation.trace} == {"prp-trp"}
    assert any(s.depth == 1 for s in citation.trace)  # the depth-1 premise is explained too, down to asserted triples


def test_inferred_by_sub_property(verifier, iris):
    citation = only_claim(verifier.verify("Related <<relation:oxigraph|relatesTo|rocksdb>>.")).citations[0]
    assert citation.status == "inferred" and citation.depth == 1 and citation.trace[0].rule == "prp-spo1"


def test_uncited_sentence_is_flagged_ungrounded_and_kept(verifier):
    report = verifier.verify("Oxigraph uses RocksDB <<entity:oxigraph>>. Everyone loves it.")
    assert report.claims[1].flags == ["ungrounded"] and report.claims[1].confidence is None
    assert "ungrounded_claims" in report.flags and "Everyone loves it." in report.text
    assert report.confidence == 1.0  # the average is over cited claims


def test_text_without_citations(verifier):
    report = verifier.verify("Nothing cited here.")
    assert report.confidence == 0.0 and set(report.flags) == {"ungrounded_claims", "no_citations"}


def test_claim_confidence_is_the_minimum_and_answer_the_weighted_average(verifier):
    text = ("Oxigraph uses RocksDB and is a database <<entity:oxigraph>> <<relation:query-engine|partOf|oxigraph>>. "
            "Jena <<entity:Apache Jena>>.")
    report = verifier.verify(text)
    assert [c.confidence for c in report.claims] == [0.8, 0.9]
    words = [len(c.text.split()) for c in report.claims]
    assert report.confidence == pytest.approx((0.8 * words[0] + 0.9 * words[1]) / sum(words), abs=1e-4)


def test_curly_spelling_is_accepted(verifier):
    citation = only_claim(verifier.verify("Oxigraph {{entity:oxigraph}}.")).citations[0]
    assert citation.status == "found" and citation.confidence == 1.0


@pytest.mark.parametrize("payload, entity_status", [
    ("x> } ; DROP ALL ; #", "invalid"),
    ("oxigraph> ?p ?o } UNION { ?s ?p ?o", "invalid"),
    ("../../etc/passwd", "not_found"),
    ("oxigraph\" . ?s ?p ?o #", "invalid"),
    ("a b c d e f g h", "invalid"),
    ("nope:oxigraph", "not_found"),  # a CURIE whose prefix nobody declared
    ("http://example.org/nothing-here", "not_found"),
])
def test_hostile_or_malformed_ids_resolve_to_nothing_and_change_nothing(verifier, store, payload, entity_status):
    before = store.graph_sizes()
    report = verifier.verify(f"Claim <<entity:{payload}>> <<relation:{payload}|uses|rocksdb>> <<relation:{payload}>>.")
    statuses = [c.status for c in only_claim(report).citations]
    assert statuses[0] == entity_status and statuses[1] == "not_found" and statuses[2] in ("invalid", "not_found")
    assert only_claim(report).confidence == 0.0
    assert store.graph_sizes() == before


def test_a_minted_entity_is_also_cited_by_its_full_iri(verifier, iris):
    citation = only_claim(verifier.verify(f"Oxigraph <<entity:{iris.entity('oxigraph')}>>.")).citations[0]
    assert citation.status == "found" and citation.iri == iris.entity("oxigraph")


def test_bad_predicate_names_are_not_found(verifier):
    for pred in ("uses> <x", "rdf:type", "", "uses }"):
        citation = only_claim(verifier.verify(f"X <<relation:oxigraph|{pred}|rocksdb>>.")).citations[0]
        assert citation.status == "not_found" and citation.confidence == 0.0


def test_batched_resolution_uses_a_few_queries(verifier, store, iris):
    calls = []
    original = store.query

    def counting(query, **kwargs):
        calls.append(query)
        return original(query, **kwargs)

    store.query = counting
    ids = ["oxigraph", "rocksdb", "sparql-1-1", "apache-jena", "query-engine", "storage-layer", "database-core"]
    text = " ".join(f"Fact {i} <<entity:{e}>> <<relation:query-engine|partOf|{e}>>." for i, e in enumerate(ids * 3))
    report = verifier.verify(text)
    assert len(report.claims) == 21
    assert len(calls) <= 4 + 5  # details, status, depths, then one per trace level (max depth 5)


def test_label_index_cache_follows_the_store(verifier, store, iris):
    from pyoxigraph import Literal, NamedNode, Quad

    from attest.ingest.status import commit

    assert only_claim(verifier.verify("X <<entity:Blazegraph>>.")).citations[0].status == "not_found"
    label = Quad(NamedNode(iris.entity("blazegraph")), NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
                 Literal("Blazegraph"), NamedNode(iris.document_graph("more")))
    commit(store, iris, "more", document=[label], status=[], quarantine=[], fresh=True)  # as ingestion writes
    hit = only_claim(verifier.verify("X <<entity:Blazegraph>>.")).citations[0]
    assert hit.status == "label_match" and hit.iri == iris.entity("blazegraph")
    commit(store, iris, "more", document=[], status=[], quarantine=[], fresh=False)  # and deletes
    assert only_claim(verifier.verify("X <<entity:Blazegraph>>.")).citations[0].status == "not_found"
