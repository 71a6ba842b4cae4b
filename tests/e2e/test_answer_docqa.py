"""End to end over documents: a Markdown corpus ingested offline, then /context (passages ranked by BM25 and lifted
through the graph, each saying why) and /answer (extractive, typed, cited); every citation verifies through /verify."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

from attest.answer.evidence import candidates
from attest.answer.models import ContextSource
from attest.store.fulltext import Chunk, FullText
from tests.ingest_support import corpus_api

CORPUS = {
    "journal.md": "# Journal of Psychotherapy Integration\n\nThe Journal of Psychotherapy Integration is a quarterly "
                  "journal published by the Society for Clinical Minds.\n",
    "society.md": "# Society for Clinical Minds\n\nThe Society for Clinical Minds was founded in Boston in 1892. "
                  "William Harper was the first president of the Society for Clinical Minds.\n",
    "therapy.md": "# Psychotherapy\n\nPsychotherapy is the use of psychological methods to help a person change. "
                  "Integration of schools of psychotherapy became a topic in the 1980s.\n",
    "quarterly.md": "# Quarterly Review\n\nThe Quarterly Review was a literary and political periodical published in "
                    "London by John Murray.\n",
}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("docqa"), CORPUS) as client:
        yield client


def _titles(sources: list[dict]) -> list[str]:
    return [s["text"].split("\n", 1)[0] for s in sources]


def test_context_lifts_bm25_through_the_graph_and_says_why(api):
    body = api.post("/context", json={"query": "Who was the first president of the publisher of the Journal of "
                                                "Psychotherapy Integration?", "k": 3}).json()
    sources = body["sources"]
    assert len(sources) == 3 and body["notes"] == []
    titles = _titles(sources)
    assert "Journal of Psychotherapy Integration" in titles and "Society for Clinical Minds" in titles
    society = sources[titles.index("Society for Clinical Minds")]
    assert society["graph_rank"] is not None and society["bridges"]  # reached through the entities it names
    assert all(set(s) >= {"bm25_rank", "graph_rank", "graph_score", "bridges", "score"} for s in sources)
    assert sources[0]["score"] == 1.0


def test_one_retriever_everywhere_and_the_passages_come_first_for_a_model(api):
    from attest.operations.answers import KagQuery
    from attest.mcp.tools import _kag_query

    question = "Who was the first president of the publisher of the Journal of Psychotherapy Integration?"
    over_http = api.post("/context", json={"query": question}).json()
    over_mcp = _kag_query(api.app.state.resources, KagQuery(query=question))  # what MCP's kag_query returns
    assert [s["chunk"] for s in over_mcp["sources"]] == [s["chunk"] for s in over_http["sources"]]
    assert over_http["context"].startswith("SOURCES (passages ranked by words and the graph")


def test_answer_names_the_typed_answer_and_every_citation_verifies(api):
    report = api.post("/answer", json={"question": "Who was the first president of the society that publishes the "
                                                   "Journal of Psychotherapy Integration?", "mode": "extractive"}).json()
    assert report["mode"] == "extractive"
    assert report["answers"] and report["answers"][0]["label"] == "William Harper"
    assert report["text"].startswith("William Harper <<entity:")
    assert "characters" in report["text"]  # the passage sentence, and where it is
    checked = api.post("/verify", json={"text": report["text"]}).json()
    citations = [c for claim in checked["claims"] for c in claim["citations"]]
    assert citations and all(c["status"] in ("found", "asserted", "inferred") for c in citations)
    assert "ungrounded_claims" not in checked["flags"]


@pytest.mark.parametrize("question,kind", [
    ("When was the Society for Clinical Minds founded?", "date"),
    ("Where was the Society for Clinical Minds founded?", "place"),
])
def test_answers_of_other_kinds(api, question, kind):
    report = api.post("/answer", json={"question": question, "mode": "extractive"}).json()
    expected = {"date": "1892", "place": "Boston"}[kind]
    assert report["answers"] and report["answers"][0]["label"] == expected
    checked = api.post("/verify", json={"text": report["text"]}).json()
    assert all(c["status"] in ("found", "asserted", "inferred") for claim in checked["claims"] for c in claim["citations"])


def test_no_supported_answer_is_said_not_guessed(api):
    report = api.post("/answer", json={"question": "How many members did the Journal of Psychotherapy Integration "
                                                   "have?", "mode": "extractive"}).json()
    assert report["answers"] == [] and report["text"].startswith("None of the retrieved facts or passages names a number")
    judged = api.post("/answer", json={"question": "Is the Quarterly Review older than the Journal of Psychotherapy "
                                                   "Integration?", "mode": "extractive"}).json()
    assert judged["answers"] == [] and "does not judge" in judged["text"]


def test_a_question_naming_nothing_falls_back_to_bm25_and_says_so(api):
    """BM25's best passage stays first; only the entities of the best passages can lift others, and notes say so."""
    body = api.post("/context", json={"query": "a literary and political periodical"}).json()
    assert body["sources"] and _titles(body["sources"])[0] == "Quarterly Review"
    assert body["sources"][0]["bm25_rank"] == 1 and body["sources"][0]["graph_rank"] is None
    assert any("names no entity" in note and "BM25" in note for note in body["notes"])


def test_a_named_document_keeps_its_own_passages_only(api):
    body = api.post("/context", json={"query": "Who was the first president of the publisher of the Journal of "
                                                "Psychotherapy Integration?"}).json()
    journal = next(s["document"] for s in body["sources"] if s["text"].startswith("Journal of Psychotherapy"))
    narrowed = api.post("/context", json={"query": "Who was the first president of the publisher of the Journal of "
                                                    "Psychotherapy Integration?", "document": journal}).json()
    assert narrowed["sources"] and {s["document"] for s in narrowed["sources"]} == {journal}


def test_a_passage_naming_no_entity_still_answers():
    """Candidates are read from every source's text, whether or not the extractor found a name in it."""
    index = FullText(Path(tempfile.mkdtemp()) / "fulltext.sqlite")
    index.replace("d", "sha256:d", [Chunk("c", "The bridge was opened in 1932 after six years of work.", 0, 55)])
    source = ContextSource(chunk="c", document="d", start=0, end=55, text="", score=1.0)
    found, _ = candidates(index, [source], "When was the bridge opened?", frozenset({"the", "was", "when"}))
    assert [c.text for c in found if c.iri is None][:1] == ["1932"]
    index.close()


def test_k_is_bounded(api):
    assert api.post("/context", json={"query": "journal", "k": 21}).status_code == 422
    assert api.post("/context", json={"query": "journal", "k": 0}).status_code == 422
    assert len(api.post("/context", json={"query": "journal published", "k": 20}).json()["sources"]) <= 20


def test_a_ten_kilobyte_question_stays_within_the_deadline(api):
    question = ("Which journal published the Society for Clinical Minds and psychotherapy integration in Boston? " * 120)[:10_000]
    t = time.perf_counter()
    for path, body in (("/context", {"query": question}), ("/answer", {"question": question, "mode": "extractive"})):
        assert api.post(path, json=body).status_code == 200
    assert time.perf_counter() - t < 10
