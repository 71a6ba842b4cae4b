"""Valid time through the extractors: the rule extractor dates relations from their sentence, the LLM is asked for
ISO dates and its partial or unreadable ones are read or dropped, and an ingested fact's statement carries
att:validFrom / att:validTo."""

from __future__ import annotations

from datetime import date

import pytest
from pyoxigraph import Literal, NamedNode

from attest.extract.llm import LlmExtractor
from attest.extract.llm_client import LlmClient
from attest.extract.ontology_terms import load_terms
from attest.extract.rules import RuleExtractor
from tests.conftest import REPO
from tests.ingest_support import chunk_of, entity, llm_pipeline, offline_pipeline, relation

ATT = "https://w3id.org/attest/vocab#"
ONT = "https://w3id.org/attest/ontology#"
VALIDITY = f"""SELECT ?s ?o ?from ?to WHERE {{ GRAPH ?g {{
  ?stmt <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t .
  BIND(SUBJECT(?t) AS ?s) BIND(OBJECT(?t) AS ?o)
  OPTIONAL {{ ?stmt <{ATT}validFrom> ?from }} OPTIONAL {{ ?stmt <{ATT}validTo> ?to }} }}
  FILTER(CONTAINS(STR(?g), "/graph/document/")) }}"""  # what the documents state (graph/validity derives from it)


@pytest.fixture(scope="module")
def rules(terms):
    return RuleExtractor(terms)


def dated(extraction) -> dict[tuple[str, str, str], tuple[date | None, date | None]]:
    return {(r.subject, r.predicate, r.object): (r.valid_from, r.valid_to) for r in extraction.relations}


def test_the_rule_extractor_dates_each_relation_from_its_own_sentence(rules):
    text = ("Alice Smith worked for Contoso from 2001 to 2005. Falcon uses PostgreSQL. "
            "Since March 2020, Zorbly has used Quuxbase. Alice Smith is married to Bob Jones since 2012.")
    found = dated(rules.extract(text))
    # the classifier may add a bare relatesTo across these sentences (at the operating point 0.50 it states Alice
    # Smith - Zorbly): no sentence of its own dates it
    assert all(when == (None, None) for (_, predicate, _), when in found.items() if predicate == "relatesTo")
    assert {fact: when for fact, when in found.items() if fact[1] != "relatesTo"} == {
        ("Alice Smith", "worksFor", "Contoso"): (date(2001, 1, 1), date(2005, 12, 31)),
        ("Falcon", "uses", "PostgreSQL"): (None, None),
        ("Zorbly", "uses", "Quuxbase"): (date(2020, 3, 1), None),
        ("Alice Smith", "spouse", "Bob Jones"): (date(2012, 1, 1), None),
    }


def test_the_rule_extractor_leaves_other_events_dates_and_relative_dates_without_reference(rules):
    found = dated(rules.extract("Zorbly was developed by Jane Smith in 2011 and implements SPARQL. "
                                "Falcon has used PostgreSQL since last month."))
    assert found[("Zorbly", "developedBy", "Jane Smith")] == (date(2011, 1, 1), None)
    assert found[("Zorbly", "implements", "SPARQL")] == (None, None)  # the year belongs to the first clause
    assert found[("Falcon", "uses", "PostgreSQL")] == (None, None)  # no reference date: "last month" is not read
    again = dated(rules.extract("Falcon has used PostgreSQL since last month.", reference=date(2026, 3, 15)))
    assert again[("Falcon", "uses", "PostgreSQL")] == (date(2026, 2, 1), None)


def test_an_ingested_dated_fact_carries_valid_from_and_valid_to_on_its_statement(store, settings, iris):
    pipeline = offline_pipeline(store, settings)
    report = pipeline.ingest_bytes(b"Alice Smith worked for Contoso from 2001 to 2005. Falcon uses PostgreSQL.",
                                   source="career.txt")
    assert report.status == "done", report.message
    rows = {(r["s"].value.rsplit("/", 1)[-1], r["o"].value.rsplit("/", 1)[-1]): (r["from"], r["to"])
            for r in store.query(VALIDITY)}
    xsd_date = NamedNode("http://www.w3.org/2001/XMLSchema#date")
    assert rows[("alice-smith", "contoso")] == (Literal("2001-01-01", datatype=xsd_date), Literal("2005-12-31", datatype=xsd_date))
    assert rows[("falcon", "postgresql")] == (None, None)
    # the stored extraction (the chunk cache) keeps the dates: a rebuild from it gives the same statement
    pipeline.rebuild(report.doc_id)
    assert {(r["s"].value.rsplit("/", 1)[-1], r["from"]) for r in store.query(VALIDITY)} >= {
        ("alice-smith", Literal("2001-01-01", datatype=xsd_date))}


@pytest.fixture
def llm(llm_settings, terms):
    return LlmExtractor(llm_settings, terms, client=LlmClient(llm_settings, backoff_s=0.01))


def test_the_llm_is_asked_for_iso_dates_and_given_the_reference_date(llm, fake_llm):
    fake_llm.reply_json({"entities": [], "relations": []})
    fake_llm.reply_json({"entities": [], "relations": []})
    llm.extract("Alice Smith joined Fabrikam last month.", reference=date(2026, 11, 26))
    llm.extract("Alice Smith joined Fabrikam last month.")
    with_reference, without = fake_llm.chat_requests[-2].messages_text(), fake_llm.chat_requests[-1].messages_text()
    assert "valid_from" in with_reference and "YYYY-MM-DD" in with_reference and '"format":"date"' in with_reference
    assert "Reference date for relative dates: 2026-11-26." in with_reference
    assert "No reference date is known: leave relative dates null." in without
    assert "2026-11-26" not in without


def test_partial_llm_dates_follow_the_conventions_and_unreadable_ones_are_dropped(llm, fake_llm):
    text = "Alice Smith worked for Contoso from 2001 to 2005, then for Fabrikam since March 2019. Bob Jones uses Zorbly."
    people = [entity("Alice Smith", "Person"), entity("Contoso", "Organization"), entity("Fabrikam", "Organization"),
              entity("Bob Jones", "Person"), entity("Zorbly", "Software")]
    fake_llm.reply_json({"entities": people, "relations": [
        {**relation("Alice Smith", "worksFor", "Contoso"), "valid_from": "2001", "valid_to": "2005"},
        {**relation("Alice Smith", "worksFor", "Fabrikam"), "valid_from": "2019-03", "valid_to": None},
        {**relation("Bob Jones", "uses", "Zorbly"), "valid_from": "sometime in spring", "valid_to": 1700000000},
    ]})
    extraction = llm.extract(text)
    assert dated(extraction) == {
        ("Alice Smith", "worksFor", "Contoso"): (date(2001, 1, 1), date(2005, 12, 31)),
        ("Alice Smith", "worksFor", "Fabrikam"): (date(2019, 3, 1), None),
        ("Bob Jones", "uses", "Zorbly"): (None, None),  # kept, undated: a bad date never fails the chunk
    }
    assert len(fake_llm.chat_requests) == 1  # accepted at the first answer, no retry


def test_llm_dates_reach_the_graph(store, llm_settings, iris, fake_llm):
    def reply(request):
        from tests.fakes.openai_server import Reply
        import json

        assert "Alice Smith" in chunk_of(request)
        return Reply(content=json.dumps({
            "entities": [entity("Alice Smith", "Person"), entity("Contoso", "Organization")],
            "relations": [{**relation("Alice Smith", "worksFor", "Contoso"), "valid_from": "2019-03"}]}))

    fake_llm.respond_with(reply)
    report = llm_pipeline(store, llm_settings).ingest_bytes(b"Alice Smith has worked for Contoso since March 2019.",
                                                            source="alice.txt")
    assert report.status == "done", report.message
    rows = [(r["from"], r["to"]) for r in store.query(VALIDITY)]
    assert rows == [(Literal("2019-03-01", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#date")), None)]


def test_a_documents_relative_dates_are_ignored_for_want_of_a_document_date(store, settings, llm_settings, fake_llm):
    """Attest reads no document date, so "last month" in a document counts from nothing: no date is invented (not
    the ingest day either), for the rules and for the LLM, which is told so."""
    pipeline = offline_pipeline(store, settings)
    report = pipeline.ingest_bytes(b"Falcon has used PostgreSQL since last month.", source="relative.txt")
    assert report.status == "done" and report.relations == 1, report
    assert [(r["from"], r["to"]) for r in store.query(VALIDITY)] == [(None, None)]
    fake_llm.reply_json({"entities": [], "relations": []})
    LlmExtractor(llm_settings, load_terms(REPO / "ontology")).extract_many(["Falcon has used PostgreSQL since last month."])
    assert "No reference date is known: leave relative dates null." in fake_llm.chat_requests[-1].messages_text()
