"""Extractive answers name only what evidence tied to the question supports: over a Markdown corpus ingested offline,
a two-hop question names the association's first president (through the journal's paragraph) or nothing, never a
"first" person of an unrelated paragraph; without the association's paragraph it names nothing; a fact answers only
from an entity linked from a name the question writes whole."""

from __future__ import annotations

import pytest

from tests.ingest_support import corpus_api, extractive_answer

JOURNAL = {
    "journal.md": "# Journal of Psychotherapy Integration\n\nThe Journal of Psychotherapy Integration is a quarterly "
                  "peer-reviewed journal published by the Society for Clinical Minds.\n",
    "riemann.md": "# Bernhard Riemann\n\nBernhard Riemann was a German mathematician. Riemann was the first to publish "
                  "a rigorous theory of integration.\n",
}
ASSOCIATION = {
    "society.md": "# Society for Clinical Minds\n\nThe Society for Clinical Minds is a professional association of "
                  "psychologists. William Harper was the first president of the Society for Clinical Minds.\n",
}
QUESTION = "Who was the first president of the association which published Journal of Psychotherapy Integration?"


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("abstain-whole"), JOURNAL | ASSOCIATION) as client:
        yield client


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("abstain-partial"), JOURNAL) as client:
        yield client


def test_the_second_hop_names_the_president_never_the_unrelated_first(whole):
    report = extractive_answer(whole, QUESTION)
    assert "Riemann" not in report["text"]
    assert [a["label"] for a in report["answers"]] in ([], ["William Harper"])
    assert report["answers"], "the president's paragraph is reached through the journal's publisher"
    checked = whole.post("/verify", json={"text": report["text"]}).json()
    assert all(c["status"] in ("found", "asserted", "inferred") for claim in checked["claims"] for c in claim["citations"])


def test_without_the_association_the_answer_names_nothing(partial):
    sources = partial.post("/context", json={"query": QUESTION}).json()["sources"]
    assert any(s["text"].startswith("Bernhard Riemann") for s in sources)  # the distractor was retrieved
    report = extractive_answer(partial, QUESTION)
    assert report["answers"] == []
    assert report["text"].startswith("None of the retrieved facts or passages names a person")


def test_a_sentence_holding_most_of_the_question_still_answers(partial):
    """A question naming nothing the documents name is answered by a sentence that holds most of its words."""
    report = extractive_answer(partial, "Who was the first to publish a rigorous theory of integration?")
    assert len(report["answers"]) == 1 and "Riemann" in report["answers"][0]["label"]


def test_evidence_that_is_absent_names_nothing(whole):
    """Passages that say who was a first president are retrieved, but none is tied to the circle the question names."""
    question = "Who was the first president of the Vienna Circle?"
    assert whole.post("/context", json={"query": question}).json()["sources"]
    report = extractive_answer(whole, question)
    assert report["answers"] == [] and report["text"].startswith("None of the retrieved")


def test_a_fact_answers_only_from_an_entity_the_question_names(whole):
    """The same retrieved facts, with the question's link moved from the journal's whole name to its first word: a fact
    of what a piece of a name, or a common word beside one, links to is not an answer (the issue's "President
    contains ...")."""
    from attest.answer.extractive import compose_answer
    from attest.answer.retrieve import STOPWORDS, ContextQuery
    from attest.operations.answers import answer_service

    service = answer_service(whole.app.state.resources)
    question = "Which organization published the Journal of Psychotherapy Integration?"
    context = service.retriever.context(ContextQuery(query=question, max_hops=2, limit=20))
    facts_only = context.model_copy(update={"sources": []})
    text, answers = compose_answer(question, facts_only, None, service.lookup, service._terms(), STOPWORDS)
    assert [a.label for a in answers] == ["Society for Clinical Minds"]  # the fact "published by" answers
    link = next(link for link in context.links if link.text == "Journal of Psychotherapy Integration")
    start = question.index("Journal of")
    moved = link.model_copy(update={"text": "Journal", "start": start, "end": start + len("Journal")})
    common = facts_only.model_copy(update={"links": [moved]})
    text, answers = compose_answer(question, common, None, service.lookup, service._terms(), STOPWORDS)
    assert answers == []
