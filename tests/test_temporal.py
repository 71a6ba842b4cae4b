"""Valid time (docs/temporal.md): supersession of changing facts and its undo, as_of answers, /verify of a
superseded citation, bad dates."""

from __future__ import annotations

from attest.ingest import validity
from tests.ingest_support import llm_pipeline
from tests.temporal_support import ingest_text, intervals, person_at


def test_a_newer_employer_closes_the_older_and_deleting_it_reopens(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Contoso", valid_from="2020-03-01"))
    first = ingest_text(pipeline, "a.txt", "Alice Smith has worked for Contoso since March 2020.")
    assert intervals(store, iris) == {("alice-smith", "worksFor", "contoso"): ("2020-03-01", None, None)}
    fake_llm.reply(person_at("Alice Smith", "Fabrikam", valid_from="2026-10-15"))
    second = ingest_text(pipeline, "b.txt", "Alice Smith joined Fabrikam on 15 October 2026.")
    assert intervals(store, iris) == {
        ("alice-smith", "worksFor", "contoso"): ("2020-03-01", "2026-10-14", "fabrikam"),
        ("alice-smith", "worksFor", "fabrikam"): ("2026-10-15", None, None)}
    reason = list(store.query(f"SELECT ?d WHERE {{ GRAPH <{iris.validity_graph}> {{ ?r <https://w3id.org/attest/vocab#supersededIn> ?d }} }}"))
    assert [r["d"].value for r in reason] == [iris.document(second.doc_id)]
    assert first.doc_id != second.doc_id
    # nothing is deleted: both facts stay in the summary
    assert store.query(f"ASK {{ GRAPH <{iris.facts_graph}> {{ ?s ?p <https://w3id.org/attest/entity/contoso> }} }}")
    assert pipeline.delete(second.doc_id)
    assert intervals(store, iris) == {("alice-smith", "worksFor", "contoso"): ("2020-03-01", None, None)}
    before = intervals(store, iris)
    validity.rebuild(store, iris)
    assert intervals(store, iris) == before


def test_a_fact_restated_without_a_date_never_closes_a_dated_one(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Contoso", valid_from="2020-03-01"))
    ingest_text(pipeline, "a.txt", "Alice Smith has worked for Contoso since March 2020.")
    fake_llm.reply(person_at("Alice Smith", "Fabrikam"))
    ingest_text(pipeline, "b.txt", "Alice Smith works for Fabrikam.")
    assert intervals(store, iris) == {("alice-smith", "worksFor", "contoso"): ("2020-03-01", None, None)}
