"""Clean a document's text and cut it into chunks; offsets point into the original text, ids are content hashes."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass

MAX_CHUNK_CHARS = 1500

# what cleaning removes outright: invisible format characters, control characters, Markdown markup
_INVISIBLE = r"[\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\ufeff\x00-\x08\x0b\x0e-\x1f\x7f]"
_MARKDOWN = (
    r"(?m:^[ \t]{0,3}(?:\#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+(?=\S)|\d{1,3}[.)][ \t]+))"  # heading, quote, list markers
    r"|(?m:^[ \t]{0,3}(?:[-*_][ \t]*){3,}$)"  # horizontal rules
    r"|```[^\n]*|\*\*|__|`"  # code fences, strong emphasis, inline code ticks
    r"|!?\[(?=[^\]\n]*\]\([^)\n]*\))|\]\([^)\n]*\)"  # [text](url) -> text
)
_DROP = re.compile(f"{_INVISIBLE}|{_MARKDOWN}")
_DROP_PLAIN = re.compile(_INVISIBLE)
# whitespace runs that collapse to something else: every run but a single space (which stays inside the exact piece
# around it: one segment per run of words, not per word)
_COLLAPSIBLE = re.compile(r"\s{2,}|[^\S ]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


@dataclass(frozen=True)
class CleanText:
    """Cleaned text plus the map from each of its positions back to the original text."""

    text: str
    _clean_starts: tuple[int, ...]  # segment i covers clean[_clean_starts[i]:...] = original[_orig_starts[i]:...]
    _orig_starts: tuple[int, ...]
    _exact: tuple[bool, ...]  # False where a whitespace run was collapsed to one character
    original_length: int

    def to_original(self, pos: int) -> int:
        """Original offset of clean position `pos` (an end offset maps just past the last kept character)."""
        if pos >= len(self.text):
            return self.original_length if not self.text else self.to_original(len(self.text) - 1) + 1
        i = bisect_right(self._clean_starts, pos) - 1
        delta = pos - self._clean_starts[i]
        return self._orig_starts[i] + (delta if self._exact[i] else 0)

    def span_to_original(self, start: int, end: int) -> tuple[int, int]:
        return self.to_original(start), self.to_original(end - 1) + 1 if end > start else self.to_original(start)


def clean(text: str, *, markdown: bool = False) -> CleanText:
    """Drop invisible characters (and Markdown markup), collapse whitespace; keep a map to the original."""
    drop = _DROP if markdown else _DROP_PLAIN
    pieces: list[str] = []
    clean_starts: list[int] = []
    orig_starts: list[int] = []
    exact: list[bool] = []
    length = 0
    pos = 0

    def keep(segment: str, orig: int, is_exact: bool) -> None:
        nonlocal length
        clean_starts.append(length)
        orig_starts.append(orig)
        exact.append(is_exact)
        pieces.append(segment)
        length += len(segment)

    for m in drop.finditer(text):
        if m.start() > pos:
            # a line's own markup (heading, quote, list item) keeps its line break: two list items never run together
            marker = m.group().lstrip(" \t")[:1]
            _keep_collapsing(text, pos, m.start(), keep, line_break=bool(marker) and marker in "#>-*+_0123456789")
        pos = m.end()
    if pos < len(text):
        _keep_collapsing(text, pos, len(text), keep)
    return CleanText("".join(pieces), tuple(clean_starts), tuple(orig_starts), tuple(exact), len(text))


def cleans_to_nothing(text: str, *, markdown: bool = False) -> bool:
    """True when `clean` would leave no text (only invisible, control and whitespace characters, or markup)."""
    return not (_DROP if markdown else _DROP_PLAIN).sub("", text).strip()


def _keep_collapsing(text: str, start: int, end: int, keep, line_break: bool = False) -> None:
    """Keep text[start:end] with each whitespace run collapsed: a blank line to "\n\n", else to " " (or to "\n"
    for a single line break that ends the range, when `line_break`)."""
    pos = start
    for m in _COLLAPSIBLE.finditer(text, start, end):
        if m.start() > pos:
            keep(text[pos:m.start()], pos, True)
        run = m.group()
        single = "\n" if line_break and m.end() == end and "\n" in run else " "
        keep("\n\n" if run.count("\n") >= 2 else single, m.start(), False)
        pos = m.end()
    if pos < end:
        keep(text[pos:end], pos, True)


@dataclass(frozen=True)
class Chunk:
    """A contiguous piece of a document: its cleaned text, its span in the original text, its content-hash id."""

    id: str
    index: int
    text: str
    start: int  # offset into the original text
    end: int  # exclusive
    content_hash: str
    clean_start: int  # where `text` starts in the cleaned text (to map spans inside the chunk)


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id(doc_id: str, text: str) -> str:
    """Content-hash id; the document id is mixed in so two documents never share a chunk node."""
    return "c" + hashlib.sha256(f"{doc_id}\x00{text}".encode("utf-8")).hexdigest()[:24]


def chunk_text(doc_id: str, cleaned: CleanText, *, max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """Cut at paragraph breaks, then sentence ends, then spaces, so no chunk is over `max_chars`."""
    chunks: list[Chunk] = []
    for start, end in _spans(cleaned.text, max_chars):
        piece = cleaned.text[start:end]
        o_start, o_end = cleaned.span_to_original(start, end)
        chunks.append(Chunk(chunk_id(doc_id, piece), len(chunks), piece, o_start, o_end, content_hash(piece), start))
    return chunks


def _spans(text: str, max_chars: int) -> list[tuple[int, int]]:
    """[start, end) spans of paragraphs packed up to max_chars, whitespace trimmed, long paragraphs split."""
    units: list[tuple[int, int]] = []
    pos = 0
    for m in re.finditer(r"\n\n", text):
        units.extend(_split_long(text, pos, m.start(), max_chars))
        pos = m.end()
    units.extend(_split_long(text, pos, len(text), max_chars))
    spans: list[tuple[int, int]] = []
    for s, e in units:
        if spans and e - spans[-1][0] <= max_chars:
            spans[-1] = (spans[-1][0], e)
        else:
            spans.append((s, e))
    return spans


def _split_long(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    start, end = _strip(text, start, end)
    out: list[tuple[int, int]] = []
    while end - start > max_chars:
        window = text[start:start + max_chars]
        cut = max((m.start() for m in _SENTENCE_END.finditer(window)), default=-1)
        if cut <= 0:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = max_chars
        s, e = _strip(text, start, start + cut)
        if e > s:
            out.append((s, e))
        start, _ = _strip(text, start + cut, end)
    if end > start:
        out.append((start, end))
    return out


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def mention_span(chunk: Chunk, cleaned: CleanText, name: str, start: int | None, end: int | None) -> tuple[int, int] | None:
    """Original-text span of a mention: the extractor's chunk-relative span when it matches, else the first occurrence."""
    if start is not None and end is not None and 0 <= start < end <= len(chunk.text):
        if chunk.text[start:end].casefold() == name.casefold():
            return cleaned.span_to_original(chunk.clean_start + start, chunk.clean_start + end)
    found = chunk.text.casefold().find(name.casefold())
    if found < 0:
        return None
    return cleaned.span_to_original(chunk.clean_start + found, chunk.clean_start + found + len(name))
