"""Helpers for the ingest tests: a minimal real PDF, a pipeline on the offline rule extractor, scripted LLM replies."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from attest.extract.ontology_terms import load_terms
from attest.ingest.pipeline import IngestPipeline
from attest.ingest.session import rule_extractor
from attest.ontology import load_ontology
from attest.vocab import Iris


def make_pdf(text: str) -> bytes:
    """A one-page PDF whose content stream shows `text` (Helvetica), with a correct xref table."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def offline_pipeline(store, settings) -> IngestPipeline:
    load_ontology(store, settings.ontology_dir, Iris(settings.base_iri))
    terms = load_terms(settings.ontology_dir)
    return IngestPipeline(store, settings, rule_extractor(store, settings, terms), terms=terms)


@contextmanager
def corpus_api(root: Path, corpus: dict[str, str]) -> Iterator:
    """A TestClient of an app with no LLM whose store holds `corpus` (file name -> text), ingested offline."""
    from fastapi.testclient import TestClient

    from attest.main import create_app
    from attest.settings import load_settings
    from tests.conftest import REPO

    settings = load_settings(None, data_dir=root / "data", ontology_dir=REPO / "ontology", shapes_dir=REPO / "shapes",
                             queries_dir=REPO / "queries", llm_base_url="http://127.0.0.1:9/v1", llm_max_retries=0,
                             llm_timeout_s=1.0)
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        pipeline = offline_pipeline(client.app.state.resources.store, settings)
        for name, text in corpus.items():
            (root / name).write_text(text, encoding="utf-8")
            assert pipeline.ingest_path(root / name).status == "done"
        yield client


def extractive_answer(api, question: str) -> dict:
    """POST /answer in extractive mode; the report."""
    report = api.post("/answer", json={"question": question, "mode": "extractive"}).json()
    assert report["mode"] == "extractive"
    return report


def llm_pipeline(store, settings) -> IngestPipeline:
    from attest.extract.llm import LlmExtractor

    load_ontology(store, settings.ontology_dir, Iris(settings.base_iri))
    terms = load_terms(settings.ontology_dir)
    return IngestPipeline(store, settings, LlmExtractor(settings, terms), terms=terms)


def chunk_of(request) -> str:
    """The chunk text the LLM extractor put between its delimiters."""
    text = request.messages_text()
    match = re.search(r"<document-(\w+)>\n(.*)\n</document-\1>", text, re.S)
    return match.group(2) if match else ""


def entity(name: str, type_: str, confidence: float = 0.9, description: str = "") -> dict:
    return {"name": name, "type": type_, "confidence": confidence, "description": description}


def relation(s: str, p: str, o: str, confidence: float = 0.9) -> dict:
    return {"subject": s, "predicate": p, "object": o, "confidence": confidence}


def extraction(entities: list[dict], relations: list[dict] | None = None) -> str:
    return json.dumps({"entities": entities, "relations": relations or []})
