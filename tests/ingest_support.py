"""Helpers for the ingest tests: a minimal real PDF, a pipeline on the offline rule extractor, scripted LLM replies."""

from __future__ import annotations

import json
import re

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
