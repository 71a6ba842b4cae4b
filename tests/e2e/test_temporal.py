"""Valid time (docs/temporal.md): supersession of changing facts and its undo, as_of answers, /verify of a
superseded citation, bad dates."""

from __future__ import annotations

from attest.ingest import validity
from tests.ingest_support import llm_pipeline
from tests.temporal_support import ingest_all, ingest_text, intervals, person_at


def test_a_newer_employer_closes_the_older_and_deleting_it_reopens(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Contoso", valid_from="2020-03-01"))
    first = ingest_text(pipeline, "a.txt", "Alice Smith has worked for Contoso since March 2020.")
    assert intervals(store, iris) == {("alice-smith", "worksFor", "contoso"): ("2020-03-01", None, None)}
    fake_llm.reply(person_at("Alice Smith", "Fabrikam", valid_from="2025-10-15"))
    second = ingest_text(pipeline, "b.txt", "Alice Smith joined Fabrikam on 15 October 2025.")
    assert intervals(store, iris) == {
        ("alice-smith", "worksFor", "contoso"): ("2020-03-01", "2025-10-14", "fabrikam"),
        ("alice-smith", "worksFor", "fabrikam"): ("2025-10-15", None, None)}
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


def _app(settings):
    from fastapi.testclient import TestClient

    from attest.main import create_app

    return TestClient(create_app(settings), base_url="http://localhost")


CAREER = [(person_at("Alice Smith", "Contoso", valid_from="2020-03-01"), "Alice Smith has worked for Contoso since March 2020."),
          (person_at("Alice Smith", "Fabrikam", valid_from="2025-10-15"), "Alice Smith joined Fabrikam on 15 October 2025.")]


def test_context_prefers_the_current_employer_and_as_of_answers_as_of_then(llm_settings, fake_llm):
    ingest_all(llm_settings, CAREER, fake_llm)
    with _app(llm_settings) as client:
        now = client.post("/context", json={"query": "Who does Alice Smith work for?"}).json()
        facts = {r["object"]: r for r in now["relations"]}
        assert facts["fabrikam"]["time"] == "current" and facts["fabrikam"]["valid_from"] == "2025-10-15"
        assert facts["contoso"]["time"] == "past" and facts["contoso"]["valid_to"] == "2025-10-14"
        assert facts["contoso"]["superseded_by"] == facts["fabrikam"]["id"]
        assert "until 2025-10-14" in facts["contoso"]["text"] and "past" in facts["contoso"]["text"]
        assert now["paths"][0]["end"] == "fabrikam"
        then = client.post("/context", json={"query": "Who does Alice Smith work for?", "as_of": "2024-06-01"}).json()
        facts = {r["object"]: r for r in then["relations"]}
        assert facts["contoso"]["time"] == "current" and facts["fabrikam"]["time"] == "future"
        assert then["paths"][0]["end"] == "contoso"
        answer = client.post("/answer", json={"question": "Which organization does Alice Smith work for?", "mode": "extractive",
                                              "as_of": "2024-06-01"}).json()
        assert answer["answers"][0]["id"] == "contoso"
        answer = client.post("/answer", json={"question": "Which organization does Alice Smith work for?", "mode": "extractive"}).json()
        assert answer["answers"][0]["id"] == "fabrikam"
        for bad in ("2024-13-01", "yesterday", 20240601, "2024-06-01T10:00:00"):
            for route, key in (("/context", "query"), ("/answer", "question")):
                response = client.post(route, json={key: "Who does Alice Smith work for?", "as_of": bad})
                assert response.status_code == 422, (route, bad)
                assert "as_of must be a date written YYYY-MM-DD" in response.text


def test_verify_reports_a_citation_of_a_superseded_fact(llm_settings, fake_llm):
    ingest_all(llm_settings, CAREER, fake_llm)
    with _app(llm_settings) as client:
        text = ("Alice Smith works for Contoso <<relation:alice-smith|worksFor|contoso>>. "
                "She works for Fabrikam <<relation:alice-smith|worksFor|fabrikam>>.")
        report = client.post("/verify", json={"text": text}).json()
        old, new = (claim["citations"][0] for claim in report["claims"])
        assert old["status"] == "superseded" and old["confidence"] == 0.4 and old["valid_to"] == "2025-10-14"
        assert old["superseded_by_triple"] == new["triple"] and "replaced by Fabrikam" in old["label"]
        assert old["superseded_by"].startswith("alice-smith~")
        assert report["claims"][0]["flags"] == ["low_confidence"] and "low_confidence_claims" in report["flags"]
        assert new["status"] == "asserted" and new["confidence"] == 1.0
        then = client.post("/verify", json={"text": text, "as_of": "2025-01-01"}).json()
        assert then["claims"][0]["citations"][0]["status"] == "asserted"


def test_the_reasoner_takes_only_facts_valid_today_as_premises(store, llm_settings, iris, fake_llm):
    from attest.reasoner.reasoner import Reasoner

    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Bob Jones", "spouse", valid_from="2001-06-01", object_type="Person"))
    ingest_text(pipeline, "a.txt", "Alice Smith married Bob Jones in June 2001.")
    fake_llm.reply(person_at("Alice Smith", "Carl Berg", "spouse", valid_from="2015-05-01", object_type="Person"))
    second = ingest_text(pipeline, "b.txt", "Alice Smith married Carl Berg in May 2015.")
    reasoner = Reasoner(store, iris, llm_settings)
    reasoner.materialize(full=True)
    inferred = {(r["s"].value.rsplit("/", 1)[-1], r["o"].value.rsplit("/", 1)[-1]) for r in store.query(
        f"SELECT ?s ?o WHERE {{ GRAPH <{iris.inferred_graph}> {{ ?s <https://w3id.org/attest/ontology#spouse> ?o }} }}")}
    assert ("carl-berg", "alice-smith") in inferred and ("bob-jones", "alice-smith") not in inferred
    pipeline.delete(second.doc_id)  # the older marriage holds again: so does its symmetric consequence
    reasoner.refresh([iris.document_graph(second.doc_id)])
    inferred = {(r["s"].value.rsplit("/", 1)[-1], r["o"].value.rsplit("/", 1)[-1]) for r in store.query(
        f"SELECT ?s ?o WHERE {{ GRAPH <{iris.inferred_graph}> {{ ?s <https://w3id.org/attest/ontology#spouse> ?o }} }}")}
    assert ("bob-jones", "alice-smith") in inferred and ("carl-berg", "alice-smith") not in inferred


def test_contradictory_dates_are_quarantined_and_a_future_date_is_stored_with_a_warning(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Contoso", valid_from="2020-03-01", valid_to="2019-01-01"))
    report = ingest_text(pipeline, "a.txt", "Alice Smith worked for Contoso from 2020 to 2019.")
    messages = [r["message"].value for r in store.query(
        f"SELECT ?message WHERE {{ GRAPH <{iris.quarantine_graph}> {{ ?i <https://w3id.org/attest/vocab#reason> ?message }} }}")]
    assert any("Contradictory valid time" in m for m in messages), messages
    assert not store.query("ASK { GRAPH ?g { ?s <https://w3id.org/attest/ontology#worksFor> ?o } }")
    assert intervals(store, iris) == {}
    assert report.outcome != "failed"
    fake_llm.reply(person_at("Alice Smith", "Fabrikam", valid_from="2999-01-01"))
    report = ingest_text(pipeline, "b.txt", "Alice Smith will join Fabrikam in 2999.")
    assert any("future" in w and "2999-01-01" in w for w in report.to_dict()["warnings"]), report.to_dict()
    assert intervals(store, iris) == {("alice-smith", "worksFor", "fabrikam"): ("2999-01-01", None, None)}


def test_the_named_query_lists_an_entity_history(llm_settings, fake_llm):
    ingest_all(llm_settings, CAREER, fake_llm)
    with _app(llm_settings) as client:
        rows = client.get("/queries/entity-history", params={"entity": "alice-smith"},
                          headers={"Accept": "application/sparql-results+json"}).json()["results"]["bindings"]
        history = [(r["object"]["value"].rsplit("/", 1)[-1], r.get("validFrom", {}).get("value"),
                    r.get("validTo", {}).get("value"), r["state"]["value"],
                    r.get("supersededBy", {}).get("value", "").rsplit("/", 1)[-1]) for r in rows]
        assert history == [("contoso", "2020-03-01", "2025-10-14", "past", "fabrikam"),
                           ("fabrikam", "2025-10-15", None, "current", "")]
        assert rows[0]["supersededIn"]["value"].startswith("https://w3id.org/attest/document/")


def test_a_summary_rebuild_recomputes_the_valid_time(store, llm_settings, iris, fake_llm):
    from attest.ingest import summary

    pipeline = llm_pipeline(store, llm_settings)
    for reply, text in CAREER:
        fake_llm.reply(reply)
        ingest_text(pipeline, f"{text[-12:]}.txt", text)
    expected = intervals(store, iris)
    store.update(f"DROP GRAPH <{iris.validity_graph}> ; " + summary.invalidation(iris))  # a write from outside ingestion
    assert intervals(store, iris) == {}
    assert summary.ensure(store, iris)
    assert intervals(store, iris) == expected and len(expected) == 2


def test_the_bulk_batch_writes_the_valid_time_with_its_documents(store, llm_settings, iris, fake_llm):
    pipeline = llm_pipeline(store, llm_settings)
    fake_llm.reply(person_at("Alice Smith", "Northwind", valid_from="2016-01-01"))
    ingest_text(pipeline, "before.txt", "Alice Smith joined Northwind in 2016.")  # stored before the batch
    with pipeline.batched(100_000, lambda n: None):
        for reply, text in CAREER:
            fake_llm.reply(reply)
            ingest_text(pipeline, f"{text[-12:]}.txt", text)
    assert intervals(store, iris) == {
        ("alice-smith", "worksFor", "northwind"): ("2016-01-01", "2020-02-29", "contoso"),
        ("alice-smith", "worksFor", "contoso"): ("2020-03-01", "2025-10-14", "fabrikam"),
        ("alice-smith", "worksFor", "fabrikam"): ("2025-10-15", None, None)}
    assert {(q.subject, q.predicate, q.object) for q in store.quads(iris.validity_graph)} == \
        {(q.subject, q.predicate, q.object) for q in validity.recomputed(store, iris)}


def test_a_bulk_ingest_reasons_over_each_batch_as_a_full_materialization_would(store, llm_settings, iris, fake_llm):
    """A batch that ends an earlier batch's marriage retracts that marriage's consequences: the closure kept is the
    one a full materialization reads from scratch (before, a batch re-read only the graphs it wrote)."""
    from attest.reasoner.reasoner import Reasoner

    pipeline = llm_pipeline(store, llm_settings)
    pipeline.reasoner = Reasoner(store, iris, llm_settings)
    spouse = "https://w3id.org/attest/ontology#spouse"

    def inferred() -> set:
        return {(q.subject, q.predicate, q.object) for q in store.quads(iris.inferred_graph)}

    marriages = [("Bob Jones", "2001-06-01", "June 2001"), ("Carl Berg", "2015-05-01", "May 2015"),
                 ("Dan Moss", "2019-09-01", "September 2019")]
    with pipeline.batched(1, lambda n: None):  # one document a batch
        for name, day, written in marriages:
            fake_llm.reply(person_at("Alice Smith", name, "spouse", valid_from=day, object_type="Person"))
            ingest_text(pipeline, f"{name}.txt", f"Alice Smith married {name} in {written}.")
    kept = inferred()
    spouses = {(s.value.rsplit("/", 1)[-1], o.value.rsplit("/", 1)[-1]) for s, p, o in kept if p.value == spouse}
    assert spouses == {("dan-moss", "alice-smith")}  # only the marriage that holds today is a premise
    Reasoner(store, iris, llm_settings).materialize(full=True)
    assert inferred() == kept
