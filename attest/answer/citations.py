"""Citation markers in answer text: <<entity:ID>>, <<relation:ID>>, <<relation:S|P|O>> (and {{...}} spellings), parsed into models."""

from __future__ import annotations

import re
from typing import Literal, cast

from pydantic import BaseModel, Field

CitationKind = Literal["entity", "relation"]

# Either delimiter pair. The payload is anything on one line up to the closing delimiter except another opening
# delimiter, so a malformed or hostile payload (`<<entity:x> } DROP ALL #>>`) is still parsed as a marker — and
# then resolved as not found — instead of slipping through as uncited text.
MARKER = re.compile(
    r"<<\s*(?P<k1>entity|relation)\s*:(?P<p1>(?:(?!<<|>>)[^\n]){0,600}?)>>"
    r"|\{\{\s*(?P<k2>entity|relation)\s*:(?P<p2>(?:(?!\{\{|\}\})[^\n]){0,600}?)\}\}",
    re.IGNORECASE | re.ASCII,  # ASCII case only: Unicode case folding took "entıty" (dotless ı) for a marker whose kind then failed validation
)
MARKER_WITH_SPACE = re.compile(r"[ \t]*(?:" + MARKER.pattern + ")", MARKER.flags)
PREFIXED_PREDICATE = re.compile(r"^(?:ont:)", re.IGNORECASE)


class Citation(BaseModel):
    """One marker found in a text."""

    marker: str = Field(description="The marker exactly as written, delimiters included")
    kind: CitationKind = Field(description="entity or relation")
    ref: str = Field(description="The payload after 'kind:', trimmed: an id, a label, or S|P|O")
    start: int = Field(description="Offset of the marker's first character in the text")
    end: int = Field(description="Offset just past the marker's last character")
    parts: tuple[str, str, str] | None = Field(
        default=None, description="For <<relation:S|P|O>>: subject id, predicate local name, object id (each trimmed)")


def parse_citations(text: str) -> list[Citation]:
    """Every marker in `text`, in order of appearance."""
    out: list[Citation] = []
    for m in MARKER.finditer(text):
        kind = (m.group("k1") or m.group("k2")).lower()
        ref = (m.group("p1") if m.group("k1") else m.group("p2")).strip()
        parts = None
        if kind == "relation" and "|" in ref:
            pieces = [p.strip() for p in ref.split("|")]
            if len(pieces) == 3:
                parts = (pieces[0], PREFIXED_PREDICATE.sub("", pieces[1]), pieces[2])
        # MARKER admits only the two kinds (any case); Citation's validation rejects anything else
        out.append(Citation(marker=m.group(0), kind=cast(CitationKind, kind), ref=ref, start=m.start(), end=m.end(),
                            parts=parts))
    return out


def strip_markers(text: str) -> str:
    """The text without its markers (whitespace before a removed marker collapsed)."""
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", MARKER_WITH_SPACE.sub("", text))


def entity_marker(entity_id: str) -> str:
    return f"<<entity:{entity_id}>>"


def relation_marker(relation_id: str) -> str:
    return f"<<relation:{relation_id}>>"
