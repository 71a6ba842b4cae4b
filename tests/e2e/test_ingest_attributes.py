"""Dates read from prose land as literal attributes: `entity ont:birthDate "value"` in the document graph, with a
reifier carrying chunk, sentence span and confidence like a relation's, answerable by SPARQL; a date is no entity."""

from __future__ import annotations

import json

from pyoxigraph import Literal, NamedNode

from attest.ingest.load import LoadedDocument
from attest.vocab import ATT, ONT, RDF, RDFS
from tests.ingest_support import entity, llm_pipeline, offline_pipeline

TEXT = ("Marta Kowalczyk (born 12 March 1955) is a Polish chemist. "
        "The Lindqvist Institute was founded in 1921. Marta Kowalczyk works for the Lindqvist Institute.")
ATTRIBUTES = """
PREFIX ont: <https://w3id.org/attest/ontology#>
PREFIX att: <https://w3id.org/attest/vocab#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?name ?p ?value ?confidence ?chunk ?start ?end WHERE {
  GRAPH ?g {
    ?s ?p ?value ; rdfs:label ?name .
    FILTER(?p IN (ont:birthDate, ont:deathDate, ont:inception, ont:publicationDate))
    ?st rdf:reifies <<( ?s ?p ?value )>> ; att:confidence ?confidence ; att:inChunk ?chunk ;
        att:charStart ?start ; att:charEnd ?end .
  }
}
"""


def ingest(pipeline, name: str, text: str):
    report = pipeline.ingest(LoadedDocument(name, "text/plain", text, len(text.encode())))
    assert report.status == "done", report
    return report


def rows(store, query: str) -> list[dict[str, str]]:
    solutions = store.query("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n" + query)
    names = [v.value for v in solutions.variables]
    return [{k: row[k].value for k in names if row[k] is not None} for row in solutions]


def test_offline_dates_land_as_literals_with_provenance(store, settings, iris):
    pipeline = offline_pipeline(store, settings)
    report = ingest(pipeline, "kowalczyk.txt", TEXT)
    assert not report.quarantined
    assert report.attributes == 2  # the report counts the dates, beside the entities and relations
    assert pipeline.registry.get(report.doc_id).report["attributes"] == 2  # and the stored report too
    found = {(r["name"], r["p"].removeprefix(ONT), r["value"]): r for r in rows(store, ATTRIBUTES)}
    assert set(found) == {("Marta Kowalczyk", "birthDate", "12 March 1955"), ("Lindqvist Institute", "inception", "1921")}
    for (_, _, value), r in found.items():
        sentence = TEXT[int(r["start"]):int(r["end"])]
        assert value in sentence and 0.6 <= float(r["confidence"]) <= 1 and r["chunk"].startswith(iris.chunk(""))
    quads = list(store.quads(iris.document_graph(report.doc_id)))
    literal = next(q.object for q in quads if q.predicate == NamedNode(ONT + "birthDate"))
    assert literal == Literal("12 March 1955")  # a plain string as written, never an IRI
    labels = {q.object.value for q in quads if q.predicate == NamedNode(RDFS + "label")}
    assert "Marta Kowalczyk" in labels
    assert not {"1955", "12 March 1955", "March 1955", "1921"} & labels  # a date is never an entity
    assert not any("1955" in q.subject.value or "1921" in q.subject.value
                   for q in quads if q.predicate == NamedNode(ATT + "denotes"))


def test_an_llm_attribute_on_a_wrong_class_is_quarantined_not_stored(store, llm_settings, fake_llm, iris):
    # the model gives a date of birth to an organization: SHACL refuses it, the rest of the document stays
    reply = {"entities": [entity("Lindqvist Institute", "Organization")], "relations": [],
             "attributes": [{"subject": "Lindqvist Institute", "predicate": "birthDate", "value": "1921",
                             "confidence": 0.9, "start": 0, "end": 44}]}
    fake_llm.reply(json.dumps(reply))
    report = ingest(llm_pipeline(store, llm_settings), "institute.txt", "The Lindqvist Institute was founded in 1921.")
    assert report.quarantined
    quads = list(store.quads(iris.document_graph(report.doc_id)))
    assert not [q for q in quads if q.predicate == NamedNode(ONT + "birthDate")]
    assert [q for q in quads if q.predicate == NamedNode(RDF + "type") and q.object == NamedNode(ONT + "Organization")]


def test_an_llm_attribute_lands_with_its_sentence(store, llm_settings, fake_llm, iris):
    text = "Ada Lovelace was born in 1815. She wrote notes."
    reply = {"entities": [entity("Ada Lovelace", "Person")], "relations": [],
             "attributes": [{"subject": "Ada Lovelace", "predicate": "date of birth", "value": "1815",
                             "confidence": 0.9, "start": 0, "end": 30},
                            {"subject": "Ada Lovelace", "predicate": "favouriteColour", "value": "blue",
                             "confidence": 0.9}]}
    fake_llm.reply(json.dumps(reply))
    report = ingest(llm_pipeline(store, llm_settings), "ada.txt", text)
    found = rows(store, ATTRIBUTES)
    assert [(r["name"], r["p"], r["value"], text[int(r["start"]):int(r["end"])]) for r in found] == [
        ("Ada Lovelace", ONT + "birthDate", "1815", "Ada Lovelace was born in 1815.")]
    assert any(r["kind"] == "attribute" and "unknown attribute" in r["reason"] for r in report.rejected_items)


def test_literal_attributes_pass_the_summary_the_valid_time_and_the_reasoner(store, settings, iris):
    from attest.ingest import validity
    from attest.reasoner import Reasoner

    ingest(offline_pipeline(store, settings), "kowalczyk.txt", TEXT)
    person = NamedNode(iris.entity_prefix + "marta-kowalczyk")
    facts = {(q.subject, q.predicate, q.object) for q in store.quads(iris.facts_graph)}
    assert (person, NamedNode(ONT + "birthDate"), Literal("12 March 1955")) in facts  # the summary keeps the literal
    validity.rebuild(store, iris)  # a literal-valued statement neither breaks nor enters graph/validity
    assert not [q for q in store.quads(iris.validity_graph) if isinstance(q.object, Literal)
                and q.object.value == "12 March 1955"]
    report = Reasoner(store, iris).materialize(full=True)
    assert report.consistent  # the domain types the subject Person: no clash with what it already is
