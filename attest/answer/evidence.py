"""Answer candidates from the retrieved passages: the entities their sentences mention, and the dates and numbers they
state, each with the sentence that says it, its place in the document and how much of the question it shares."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from attest.answer.claims import split_claims
from attest.answer.models import ContextSource
from attest.store.fulltext import FullText

CONTENT = re.compile(r"\w{3,}", re.UNICODE)
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE = re.compile(rf"\b(?:(?:\d{{1,2}}\s+)?(?:{MONTHS})(?:\s+\d{{1,2}})?,?\s+)?(?:1\d{{3}}|20\d{{2}})\b(?:s\b)?")
NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
                "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
                "million|billion")
NUMBER = re.compile(rf"\b(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)(?:\s+(?:million|billion|thousand))?\b|\b(?:{NUMBER_WORDS})\b",
                    re.IGNORECASE)


@dataclass
class Sentence:
    """One sentence of a retrieved passage; start and end are offsets in its document."""

    chunk: str
    document: str | None
    start: int
    end: int
    text: str
    passage: int  # the passage's rank in `sources`, 0 first
    weight: float  # the passage's fused score
    overlap: float  # the share of the question's content words it holds


@dataclass
class Candidate:
    """A possible answer: an entity (iri) or a value (a date or number), and the sentence that states it."""

    text: str
    iri: str | None
    sentence: Sentence | None  # None for the end of a retrieved path, weighed by the same test
    score: float


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return " ".join(re.sub(r"[^\w\s]", " ", "".join(c for c in text if not unicodedata.combining(c)).casefold()).split())


def content_words(text: str, skip: frozenset[str]) -> set[str]:
    return {_stem(w) for w in CONTENT.findall(fold(text)) if w not in skip}


def _stem(word: str) -> str:
    """A crude English stem, enough to match 'directed' with 'director' by their first letters."""
    return word[:6]


def candidates(index: FullText, sources: list[ContextSource], question: str, skip: frozenset[str]) -> tuple[list[Candidate], list[Sentence]]:
    """Every entity mention, date and number in the sentences of the sources, scored by passage and sentence."""
    wanted = content_words(question, skip)
    texts = _texts(index, sources)
    mentions = _mentions(index, [s.chunk for s in sources], texts)
    out, sentences = [], []
    for rank, source in enumerate(sources):
        found = texts.get(source.chunk)
        if found is None:
            continue
        text, offset = found
        spans = mentions.get(source.chunk, [])
        for span in split_claims(text):  # the answer path's own sentence splitter (abbreviations kept whole)
            body = text[span.start:span.end]
            shared = content_words(body, skip) & wanted
            sentence = Sentence(source.chunk, source.document, offset + span.start, offset + span.end, body, rank,
                                source.score, len(shared) / len(wanted) if wanted else 0.0)
            sentences.append(sentence)
            score = source.score * sentence.overlap  # a sentence that shares nothing with the question supports nothing
            if score <= 0:
                continue
            lo, hi = span.start, span.end
            for entity, surface in spans:
                if surface and surface in text[lo:hi]:
                    out.append(Candidate(surface, entity, sentence, score))
            for pattern in (DATE, NUMBER):
                for v in pattern.finditer(text[lo:hi]):
                    out.append(Candidate(v.group(0), None, sentence, score))
    return out, sentences


def is_date(text: str) -> bool:
    return DATE.fullmatch(text) is not None


def _texts(index: FullText, sources: list[ContextSource]) -> dict[str, tuple[str, int]]:
    """Chunk IRI -> (its whole text, its offset in its document), read through its document's rows."""
    docs = sorted({s.document for s in sources if s.document})
    if not docs:
        return {}
    marks = ",".join("?" * len(docs))
    rows = index.read("SELECT chunk, start, text FROM chunks WHERE rowid IN "
                      f"(SELECT row FROM chunk_rows WHERE document IN ({marks}))", tuple(docs))
    wanted = {s.chunk for s in sources}
    return {c: (t, s or 0) for c, s, t in rows if c in wanted}


def _mentions(index: FullText, chunks: list[str], texts: dict[str, tuple[str, int]]) -> dict[str, list[tuple[str, str]]]:
    """Chunk IRI -> (entity IRI, the words that name it in the chunk) for each entity it mentions."""
    if not chunks:
        return {}
    marks = ",".join("?" * len(chunks))
    out: dict[str, list[tuple[str, str]]] = {}
    for chunk, entity, start, end in index.read(f"SELECT chunk, entity, start, end FROM mentions WHERE chunk IN ({marks})",
                                                tuple(chunks)):
        text, offset = texts.get(chunk, ("", 0))
        surface = text[start - offset:end - offset] if start is not None and end is not None else ""
        out.setdefault(chunk, []).append((entity, surface))
    return out
