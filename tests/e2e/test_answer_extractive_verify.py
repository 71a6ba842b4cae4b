"""End to end: a Markdown corpus ingested offline, then /answer in extractive mode names the answer of each kind (a
person, a date, a number with its unit, a place, one of two options) and every citation of its text verifies through
/verify; a question nothing supports names nothing."""

from __future__ import annotations

import pytest

from tests.ingest_support import corpus_api
from tests.unit.test_answer_extractive import CORPUS


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with corpus_api(tmp_path_factory.mktemp("extractive-e2e"), CORPUS) as client:
        yield client


@pytest.mark.parametrize("question,expected", [
    ("Who designed the Harbor Bridge?", "Helen Quist"),
    ("When was the Harbor Bridge opened?", "12 May 1931"),
    ("How many vehicles does the Harbor Bridge carry per day?", "6,200"),
    ("What was the population of Port Elling at the 2011 census?", "4,870"),
    ("Which band was formed first, The Quiet Owls or Glass Lanterns?", "The Quiet Owls"),
])
def test_the_answer_is_named_and_every_citation_verifies(api, question, expected):
    report = api.post("/answer", json={"question": question, "mode": "extractive"}).json()
    first = report["answers"][0]
    assert (first.get("value") or first["label"]) == expected
    assert report["text"].startswith(expected)
    checked = api.post("/verify", json={"text": report["text"]}).json()
    citations = [c for claim in checked["claims"] for c in claim["citations"]]
    assert citations and all(c["status"] == "found" for c in citations)
    assert checked["flags"] == [] and checked["confidence"] == 1.0  # every claim cited, nothing removed


def test_nothing_supported_names_nothing(api):
    report = api.post("/answer", json={"question": "How many members does Glass Lanterns have?",
                                       "mode": "extractive"}).json()
    assert report["answers"] == [] and "None of the retrieved facts or passages names a number" in report["text"]
