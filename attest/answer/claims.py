"""Split a text into claims (sentences), keeping each claim's markers with it, including markers placed after the period."""

from __future__ import annotations

import re
from dataclasses import dataclass

from attest.answer.citations import MARKER

# a sentence ends after . ! ? (closing quotes, brackets and markers right after it belong to it) or at a line break
SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?:[ \t]*\x00)*(?=\s|$)|(?=\n)")  # one NUL per repetition: no backtracking blow-up
ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "dr.", "mr.", "mrs.", "ms.", "prof.", "fig.", "no.", "al."})
ONLY_MARKERS = re.compile(r"^[\s.,;:!?]*$")


@dataclass
class Span:
    start: int
    end: int


def split_claims(text: str) -> list[Span]:
    """Spans of the sentences of `text`; a marker never straddles a boundary and trailing markers join the sentence before."""
    masked = MARKER.sub(lambda m: "\x00" * len(m.group(0)), text)  # markers may contain '.', keep offsets
    spans: list[Span] = []
    start = 0
    for m in SENTENCE_END.finditer(masked):
        words = masked[start:m.end()].split()
        if m.group(0) and words and words[-1].casefold() in ABBREVIATIONS:
            continue
        _add(spans, masked, start, m.end())
        start = m.end()
    _add(spans, masked, start, len(masked))
    return spans


def _add(spans: list[Span], masked: str, start: int, end: int) -> None:
    segment = masked[start:end]
    stripped = segment.strip()
    if not stripped:
        return
    lead = len(segment) - len(segment.lstrip())
    start, end = start + lead, start + lead + len(stripped)
    if spans and ONLY_MARKERS.match(stripped.replace("\x00", "")):
        spans[-1].end = end  # "… RocksDB. <<entity:rocksdb>>" cites the sentence before
        return
    spans.append(Span(start, end))
