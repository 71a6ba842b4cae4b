"""Relation words in other words than the graph's (WordNet), the direction a question walks a relation, three-hop
paths through a hub, and the answer text, over a Turtle graph whose predicates are named by their local names only."""

from __future__ import annotations

import logging
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient

from attest.answer import lexicon
from attest.answer import direction
from attest.answer.direction import fact_sentence
from attest.answer.predicates import PropertyText, describing_words, question_terms, relevance
from attest.main import create_app
from tests.conftest import REPO

needs_wordnet = pytest.mark.skipif(lexicon.wordnet_dir() is None, reason="WordNet (wordnet-base) is not installed")

# predicates named only by their local names, as a user who loads their graph as it is has them
FAMILY = """
@prefix fam: <https://example.org/family/> .
@prefix p: <https://example.org/prop/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .

p:spouse a rdf:Property ; rdfs:label "spouse" .
p:parents a rdf:Property ; rdfs:label "parents" .
p:nationality a rdf:Property ; rdfs:label "nationality" .
p:employer a rdf:Property ; rdfs:label "employer" .
p:headquarters a rdf:Property ; rdfs:label "headquarters" .
p:uses a rdf:Property ; rdfs:label "uses" .
p:developed_by a rdf:Property ; rdfs:label "developed by" .

fam:Ann rdfs:label "Ann Halvorsen" ; p:spouse fam:Bjorn ; p:parents fam:Carl, fam:Dagny ; p:nationality fam:Norway .
fam:Bjorn rdfs:label "Bjorn Lind" ; p:nationality fam:Sweden ; p:employer fam:Bigcorp .
fam:Carl rdfs:label "Carl Halvorsen" ; p:nationality fam:Denmark .
fam:Dagny rdfs:label "Dagny Halvorsen" .
fam:Norway rdfs:label "Norway" .
fam:Sweden rdfs:label "Sweden" .
fam:Denmark rdfs:label "Denmark" .
fam:Bigcorp rdfs:label "Bigcorp" ; p:headquarters fam:Oslo .
fam:Oslo rdfs:label "Oslo" .
fam:Northwind rdfs:label "Northwind Logistics" ; p:uses fam:PostgreSQL .
fam:PostgreSQL rdfs:label "PostgreSQL" ; p:uses fam:LLVM ; p:developed_by fam:PGDG .
fam:LLVM rdfs:label "LLVM" .
fam:PGDG rdfs:label "PostgreSQL Global Development Group" .
"""
HUB_EMPLOYEES = 3_000  # Bigcorp employs them all: the middle of a three-hop path is a hub
LONG_NAME = "x" * 10_000


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("family")
    (tmp / "family.ttl").write_text(FAMILY, encoding="utf-8")
    extra = [f"<https://example.org/family/e{i}> <https://example.org/prop/employer> <https://example.org/family/Bigcorp> .\n"
             f'<https://example.org/family/e{i}> <http://www.w3.org/2000/01/rdf-schema#label> "Employee {i}" .\n'
             for i in range(HUB_EMPLOYEES)]
    # a predicate named with 10,000 characters and one with no name at all
    extra.append(f"<https://example.org/prop/{LONG_NAME}> <http://www.w3.org/2000/01/rdf-schema#label> \"{LONG_NAME}\" .\n"
                 f"<https://example.org/prop/{LONG_NAME}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> .\n"
                 f"<https://example.org/family/Ann> <https://example.org/prop/{LONG_NAME}> <https://example.org/family/Oslo> .\n"
                 "<https://example.org/family/Ann> <https://example.org/prop/> <https://example.org/family/Sweden> .\n")
    (tmp / "extra.nt").write_text("".join(extra), encoding="utf-8")
    config = tmp / "attest.yaml"
    config.write_text(f"data_dir: {tmp / 'data'}\nontology_dir: {REPO / 'ontology'}\nshapes_dir: {REPO / 'shapes'}\n"
                      f"queries_dir: {REPO / 'queries'}\nprefixes:\n  fam: https://example.org/family/\n  p: https://example.org/prop/\n",
                      encoding="utf-8")
    subprocess.run([sys.executable, "-m", "attest.cli", "--config", str(config), "load", str(tmp / "family.ttl"),
                    str(tmp / "extra.nt")], check=True, capture_output=True, cwd=tmp, timeout=300)
    from attest.settings import load_settings

    with TestClient(create_app(load_settings(config)), base_url="http://localhost") as client:
        yield client


def context(api, query, **body):
    response = api.post("/context", json={"query": query, **body})
    assert response.status_code == 200, response.text
    return response.json()


def answer(api, question, **body):
    response = api.post("/answer", json={"question": question, "mode": "extractive", **body})
    assert response.status_code == 200, response.text
    report = response.json()
    cited = [c for claim in report["claims"] for c in claim["citations"]]
    assert cited and all(c["status"] in ("found", "asserted") for c in cited), cited  # every citation verifies
    return report


def score(question: str, label: str, inverse: bool = False) -> float:
    return relevance(question_terms(question, []), describing_words(PropertyText(label=label), label, inverse))[0]


# --- lexical relevance (unit) --------------------------------------------------------------------------------------

@needs_wordnet
@pytest.mark.parametrize(("question", "right", "wrong"), [
    ("who is the couple of", "spouse", "nationality"),
    ("what is the nation of", "nationality", "spouse"),
    ("who is the father of", "parents", "spouse"),
    ("who is the mother of", "parents", "employer"),
    ("who wrote", "writer", "actor"),
    ("who acted in", "actor", "writer"),
])
def test_a_relation_word_meets_the_predicate_it_means_through_wordnet(question, right, wrong):
    assert score(question, right) >= 0.5 > score(question, wrong)


@needs_wordnet
def test_a_predicate_read_backwards_is_named_by_its_opposite():
    assert score("who are the children of", "parents", inverse=True) > score("who are the children of", "parents")
    assert score("who are the parents of", "parents") > score("who are the parents of", "parents", inverse=True)


def test_without_wordnet_matching_falls_back_to_spelling_with_one_log_line(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("ATTEST_WORDNET_DIR", str(tmp_path))  # an empty folder: no WordNet there
    lexicon.reset()
    try:
        with caplog.at_level(logging.WARNING, logger="attest.answer.lexicon"):
            assert score("who is the couple of", "spouse") == 0.0
            assert score("who is the spouse of", "spouse") == 1.0  # spelling still matches
            assert score("who is the mother of", "parents") == 0.0
        assert len([r for r in caplog.records if "WordNet not found" in r.getMessage()]) == 1
    finally:
        monkeypatch.delenv("ATTEST_WORDNET_DIR")
        lexicon.reset()


def test_a_huge_or_empty_predicate_name_does_not_break_scoring():
    lexicon.wordnet()  # loaded before the clock starts
    started = time.perf_counter()
    assert score("who is the couple of", LONG_NAME) == 0.0
    assert score("who is the couple of", "") == 0.0
    assert relevance(question_terms("who is the couple of", []), describing_words(PropertyText(), "", True))[0] == 0.0
    assert time.perf_counter() - started < 2.0


@needs_wordnet
def test_the_wording_says_which_way_a_relation_is_walked():
    def expected(question: str, entity: str, relation_word: str, predicate: str) -> bool | None:
        words = direction.question_words(question)
        start = question.index(entity)
        role, as_verb = direction.mention_role(words, (start, start + len(entity)), question.index(relation_word))
        return direction.expected_forward(role, as_verb, direction.voice(predicate))

    assert expected("What does PostgreSQL use?", "PostgreSQL", "use", "uses") is True
    assert expected("Who uses PostgreSQL?", "PostgreSQL", "uses", "uses") is False
    assert expected("Who developed PostgreSQL?", "PostgreSQL", "developed", "developed by") is True
    assert expected("Which films were directed by Lang?", "Lang", "directed", "directed by") is False
    assert expected("Who is the spouse of Ann?", "Ann", "spouse", "spouse") is True
    assert expected("Which films starred Dietrich?", "Dietrich", "starred", "starred actors") is None  # unclear name


def test_facts_read_as_sentences():
    assert fact_sentence("PostgreSQL", "uses", "LLVM") == "PostgreSQL uses LLVM"
    assert fact_sentence("PostgreSQL", "developed by", "PGDG") == "PostgreSQL is developed by PGDG"
    assert fact_sentence("Ann", "spouse", "Bjorn") == "the spouse of Ann is Bjorn"
    assert fact_sentence("Oslo", "part of", "Norway") == "Oslo is part of Norway"
    assert fact_sentence("Oslo", "is located in", "Norway") == "Oslo is located in Norway"


# --- end to end: `attest load`, /context, /answer ------------------------------------------------------------------

@needs_wordnet
@pytest.mark.parametrize(("question", "end"), [
    ("Who is the couple of Ann Halvorsen?", "fam:Bjorn"),
    ("Who is the other half of Ann Halvorsen?", "fam:Bjorn"),
    ("What is the nation of the couple of Ann Halvorsen?", "fam:Sweden"),
    ("What is the nation of the father of Ann Halvorsen?", "fam:Denmark"),
])
def test_questions_in_other_words_reach_the_right_end(api, question, end):
    body = context(api, question, max_hops=2, limit=20)
    assert body["paths"][0]["end"] == end, body["paths"][:3]
    report = answer(api, question, max_hops=2)
    assert report["answers"][0]["id"] == end


@needs_wordnet
def test_a_relation_read_backwards_by_its_opposite_reaches_the_children(api):
    for question in ("Who are the children of Carl Halvorsen?", "Who is the daughter of Carl Halvorsen?"):
        assert context(api, question, max_hops=1)["paths"][0]["end"] == "fam:Ann"


def test_direction_follows_the_wording(api):
    assert context(api, "What does PostgreSQL use?", max_hops=1)["paths"][0]["end"] == "fam:LLVM"
    assert context(api, "Who uses PostgreSQL?", max_hops=1)["paths"][0]["end"] == "fam:Northwind"
    report = answer(api, "Who developed PostgreSQL?", max_hops=1)
    assert report["answers"][0]["id"] == "fam:PGDG"
    assert report["text"].startswith("PostgreSQL is developed by PostgreSQL Global Development Group <<relation:")
    assert "<<entity:" not in report["text"]  # no label repeated beside its chip


@needs_wordnet
def test_a_three_hop_path_through_a_hub_is_found(api):
    question = "Where are the headquarters of the employer of the couple of Ann Halvorsen?"
    body = context(api, question, max_hops=3, limit=20)
    assert body["paths"][0]["end"] == "fam:Oslo" and len(body["paths"][0]["relations"]) == 3
    assert answer(api, question, max_hops=3)["answers"][0]["id"] == "fam:Oslo"


def test_a_question_of_relation_words_only_gets_an_empty_context_that_says_so(api):
    body = context(api, "who is the father of the spouse of", max_hops=2)
    assert body["entities"] == [] and body["paths"] == [] and body["relations"] == []
    assert body["context"].startswith("NOTHING FOUND")
    report = api.post("/answer", json={"question": "who is the father of the spouse of", "mode": "extractive"}).json()
    assert report["text"] == "The knowledge graph holds nothing that matches the question." and report["answers"] == []


def test_huge_and_nameless_predicates_in_the_graph_do_not_break_retrieval(api):
    body = context(api, "What is the nationality of Ann Halvorsen?", max_hops=1)
    assert body["paths"][0]["end"] == "fam:Norway"
