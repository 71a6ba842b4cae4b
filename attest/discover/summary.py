"""A proposal file read back for people: each term's kind, label, domain, range, confidence and evidence."""

from __future__ import annotations

import re
from pathlib import Path

from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat

from attest.errors import RdfSyntaxError
from attest.store.rdfio import parse_quads
from attest.vocab import OWL, RDF, RDFS, SKOS

_HEADER = re.compile(r"^# .* — confidence (\d+(?:\.\d+)?)$")
_IRI_LINE = re.compile(r"^<([^>\s]*)>\s*$")
KINDS = {OWL + "Class": "class", OWL + "ObjectProperty": "object property", OWL + "DatatypeProperty": "datatype property"}


def read_proposal(path: Path) -> dict[str, object]:
    """{"file", "terms": [...]}, or {"file", "error"} when a person's edit broke the Turtle."""
    text = path.read_text(encoding="utf-8")
    try:
        quads = list(parse_quads(text, RdfFormat.TURTLE, source=path.name))
    except RdfSyntaxError as exc:
        return {"file": path.name, "error": exc.message, "terms": []}
    values: dict[str, dict[str, list[str]]] = {}
    for quad in quads:
        if isinstance(quad.subject, NamedNode) and isinstance(quad.object, (NamedNode, BlankNode, Literal)):
            values.setdefault(quad.subject.value, {}).setdefault(quad.predicate.value, []).append(quad.object.value)
    notes = _block_notes(text)
    terms = []
    for iri, by in values.items():
        types = by.get(RDF + "type", [])
        kind = next((KINDS[t] for t in types if t in KINDS), None)
        if kind is None:
            continue
        confidence, evidence = notes.get(iri, (None, []))
        terms.append({"iri": iri, "kind": kind, "label": next(iter(by.get(RDFS + "label", [])), None),
                      "alt_labels": by.get(SKOS + "altLabel", []), "comment": next(iter(by.get(RDFS + "comment", [])), None),
                      "domain": by.get(RDFS + "domain", []), "range": by.get(RDFS + "range", []),
                      "inverse_of": by.get(OWL + "inverseOf", []), "parents": by.get(RDFS + "subPropertyOf", []),
                      "characteristics": sorted(t.removeprefix(OWL) for t in types
                                                if t.startswith(OWL) and t not in KINDS),
                      "confidence": confidence, "evidence": evidence})
    return {"file": path.name, "terms": terms}


def _block_notes(text: str) -> dict[str, tuple[float, list[str]]]:
    """IRI -> (confidence, evidence lines) from the comments the writer puts above each block's subject line."""
    out: dict[str, tuple[float, list[str]]] = {}
    pending: tuple[float, list[str]] | None = None
    current: list[str] | None = None  # the evidence of the block being read, for its statements' comments
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            pending, current = (float(header.group(1)), []), None
        elif pending is not None and line.startswith("# "):
            pending[1].append(line[2:])
        elif pending is not None and (subject := _IRI_LINE.match(line)):
            out[subject.group(1)] = pending
            current, pending = pending[1], None
        elif current is not None and line.startswith("    # "):
            current.append(line[6:])
        elif not line.strip():
            pending = current = None
    return out
