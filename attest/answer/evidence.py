"""Answer candidates from the retrieved passages: the entities their sentences mention, the names written in them
(capitalized runs), and the dates and numbers they state, each with the sentence that says it, its place in the
document and how much of the question it shares."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field

from attest.answer.claims import split_claims
from attest.answer.models import ContextSource
from attest.extract.rules_lexicon import NAME_PARTICLES, is_common
from attest.store.fulltext import FullText
from spacy.lang.en.stop_words import STOP_WORDS

CONTENT = re.compile(r"\w{3,}", re.UNICODE)
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|"
            "fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first")
DAY_MONTH_YEAR = rf"(?:\d{{1,2}}\s+)?(?:{MONTHS})(?:\s+\d{{1,2}}(?:\s+and\s+\d{{1,2}})?)?,?\s+"
DATE = re.compile(rf"\b(?:{DAY_MONTH_YEAR})?(?:1\d{{3}}|20\d{{2}})\b(?:s\b)?"
                  rf"|\b(?:(?:early|mid|late)[- ])?(?:\d{{1,2}}(?:st|nd|rd|th)|(?:{ORDINALS}))[- ]century\b",
                  re.IGNORECASE)
YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")
NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
                "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
                "million|billion|once|twice")
SCALE = r"(?:\s+(?:hundred|thousand|million|billion|trillion))?"
# a number, its scale, and the unit written after it ("150 million records", "6,960", "30 m", "twice")
NUMBER = re.compile(rf"(?<![\w.,])(?P<n>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|(?:{NUMBER_WORDS})(?:-time)?)"
                    rf"(?P<scale>{SCALE})(?:\s+(?P<unit>[a-z][a-z-]*))?\b")  # number words in lower case: "Two Dollar Radio" is a name
# a name: capitalized words, joined by particles ("of", "von", "de") and "&"; initials and hyphens inside
NAME_WORD = r"(?:[A-Z][\w'’-]*\.?|[A-Z]\.)"
NAME = re.compile(rf"(?<![\w'’-]){NAME_WORD}(?:\s+(?:(?:of|of the|the|&|{'|'.join(sorted(NAME_PARTICLES))})\s+)?"
                  rf"(?:{NAME_WORD}|\d+\b))*(?<!\.)(?![\w'’-])")
SENTENCE_CONNECTORS = frozenset({"of", "the", "&", *NAME_PARTICLES})
DEMONYM = ("an", "ian", "ese", "ish")  # the endings of English nationality adjectives
TOP_PASSAGES = 5
# "Y is a X" / "Y was an X": a sentence that says what its subject is (a parenthesis after the subject skipped)
COPULA = re.compile(r"^(?P<subject>[^,;]{1,80}?(?:\s*\([^)]*\))?)\s+(?:is|was|are|were)\s+(?:also\s+)?(?:a|an)\s+"
                    r"(?P<what>[^.;:()\"]{1,80})")
# the role a sentence names ("who plays as a striker", "served as the chairman", "best known as the lead vocalist");
# the subject when the sentence opens with it
ROLE = re.compile(r"^(?:(?P<subject>[^,;]{1,80}?)\s+(?=(?:is|was|are|were)\s))?.*?\b(?:(?:plays|played|playing|serves|served|"
                  r"serving|works|worked|working|performs|performed)\s+as|known\s+as)\s+(?:a|an|the)\s+"
                  r"(?P<what>[^.;:()\"]{1,80})")
DESCRIPTION_STOP = frozenset("of in on at by for from with who which that whose and or to as known best is was".split())  # candidates are read from the first passages of `sources`


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
    overlap: float  # the share of the question's content words it holds (the second hop's words counted twice)
    title: str = ""  # the passage's first line (its heading: what it is about)
    entities: list[str] = field(default_factory=list)  # entities the sentence mentions, in order


@dataclass
class Candidate:
    """A possible answer: an entity (iri), a name written in a sentence, or a value (a date or number), and the
    sentence that states it; `at` is its offset in the sentence."""

    text: str
    iri: str | None
    sentence: Sentence | None  # None for the end of a retrieved path, weighed by the same test
    score: float
    kind: str = "entity"  # entity (a mention the extractor linked), name, date or number
    at: int = 0
    unit: str = ""  # for a number: the word written after it
    subject: str = ""  # for a description ("Y is a X"): Y, what it describes


@functools.lru_cache(maxsize=65_536)  # the same sentences and names are folded again for every candidate
def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return " ".join(re.sub(r"[^\w\s]", " ", "".join(c for c in text if not unicodedata.combining(c)).casefold()).split())


def content_words(text: str, skip: frozenset[str]) -> set[str]:
    return {_stem(w) for w in CONTENT.findall(fold(text)) if w not in skip}


def _stem(word: str) -> str:
    """A crude English stem, enough to match 'directed' with 'director' by their first letters."""
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]  # "games" and "game"
    return word[:6]


def candidates(index: FullText, sources: list[ContextSource], question: str, skip: frozenset[str],
               depth: int = TOP_PASSAGES) -> tuple[list[Candidate], list[Sentence]]:
    """Every entity mention, name, date and number in the sentences of the first sources, scored by passage and
    by how much of the question the sentence holds; the words the first passage leaves out count twice (the
    second hop's sentence is the one that says what the first passage does not)."""
    sources = sources[:depth]
    wanted = content_words(question, skip)
    texts = _texts(index, sources)
    mentions = _mentions(index, [s.chunk for s in sources], texts)
    first = texts.get(sources[0].chunk) if sources else None
    rest = wanted - content_words(first[0], skip) if first else set()
    out, sentences = [], []
    for rank, source in enumerate(sources):
        found = texts.get(source.chunk)
        if found is None:
            continue
        text, offset = found
        title = text.split("\n", 1)[0].strip() if "\n" in text.strip() else ""  # its heading, when it has one
        spans = mentions.get(source.chunk, [])
        about = content_words(title, skip)
        for span in split_claims(text):  # the answer path's own sentence splitter (abbreviations kept whole)
            body = text[span.start:span.end]
            # the words that name what the passage is about only say the sentence is about it, not what it says
            shared = content_words(body, skip) - about
            overlap = (len(shared & wanted) + len(shared & rest)) / (len(wanted) + len(rest)) if wanted else 0.0
            inside = [(e, s, a - offset) for e, s, a in spans if span.start <= a - offset < span.end]
            sentence = Sentence(source.chunk, source.document, offset + span.start, offset + span.end, body, rank,
                                source.score, overlap, title, [e for e, _, _ in inside])
            sentences.append(sentence)
            score = source.score * overlap  # a sentence that shares nothing with the question supports nothing
            if score <= 0:
                continue
            for entity, surface, at in inside:
                if _whole_words(text, at, surface) and not (" " not in surface and _adjective(text, at, surface)):
                    out.append(Candidate(surface, entity, sentence, score, "entity", at - span.start))
            out += values(sentence, score)
            out += names(sentence, score)
            out += descriptions(sentence, score)
    return out, sentences


def values(sentence: Sentence, score: float) -> list[Candidate]:
    """The dates and the numbers (with their unit) a sentence states; a number inside a date is not read twice."""
    out = []
    dates = list(DATE.finditer(sentence.text))
    for d in dates:
        out.append(Candidate(d.group(0), None, sentence, score, "date", d.start()))
    for n in NUMBER.finditer(sentence.text):
        if any(d.start() <= n.start() < d.end() for d in dates):
            continue
        number = (n.group("n") + (n.group("scale") or "")).strip()
        unit = "time" if number.endswith("-time") else (n.group("unit") or "").casefold()  # "a two-time champion"
        if unit in STOP_WORDS:
            unit = ""  # "33 and ...": no unit written
        out.append(Candidate(number, None, sentence, score, "number", n.start(), unit))
    return out


def descriptions(sentence: Sentence, score: float) -> list[Candidate]:
    """What a sentence says its subject is: "Amy Johnson was a pioneering English aviator" -> "pioneering English
    aviator" (said of "Amy Johnson"), and the role it names: "... who plays as a striker" -> "striker", "He is best
    known as the lead vocalist of ..." -> "lead vocalist"; each the noun phrase after the article, up to its first
    function word."""
    out: list[Candidate] = []
    m = COPULA.search(sentence.text)
    subject = re.sub(r"\s*\([^)]*\)", "", m.group("subject")).strip() if m else ""
    found = [m] if m else []
    for r in ROLE.finditer(sentence.text):
        if m is None or r.start("what") != m.start("what"):
            found.append(r)
            if not subject and r.group("subject"):
                subject = re.sub(r"\s*\([^)]*\)", "", r.group("subject")).strip()
    for match in found:
        words: list[str] = []
        for w in match.group("what").split():
            bare = w.strip(",").casefold()
            if bare in DESCRIPTION_STOP or words and bare.endswith("ed"):
                break
            words.append(w.strip(","))
            if w.endswith(","):
                break
        if words:
            out.append(Candidate(" ".join(words), None, sentence, score, "description", match.start("what"),
                                 subject=subject))
    return out


def names(sentence: Sentence, score: float) -> list[Candidate]:
    """Runs of capitalized words ("Two Dollar Radio", "Carl Philipp Emanuel Bach"); a sentence's first word only
    when it is no common English word; "X, Y" as one name when both are names of one word group ("Columbus, Ohio")."""
    out: list[Candidate] = []
    text = sentence.text
    dates = [(d.start(), d.end()) for d in DATE.finditer(text)]
    for m in NAME.finditer(text):
        start, words = m.start(), m.group(0).split()
        while words and (words[-1].casefold() in SENTENCE_CONNECTORS):
            words.pop()
        if words and words[-1].endswith(("'s", "’s")):  # "Aristotle's works": the name, not its possessive
            words[-1] = words[-1][:-2]
        if words and start == _first_word(text) and _sentence_word(words):
            start += len(words[0]) + 1  # "The", "In": a sentence's capitalized first word
            words = words[1:]
        while words and words[0].casefold() in SENTENCE_CONNECTORS and not words[0][0].isupper():
            start += len(words[0]) + 1
            words = words[1:]
        if not words or (len(words) == 1 and (is_common(words[0].rstrip(".")) or len(words[0]) < 2)):
            continue
        if any(a <= start < b for a, b in dates):
            continue  # "March 2": a date, read as one
        if len(words) == 1 and _adjective(text, start, words[0]):
            continue
        name = " ".join(words)
        out.append(Candidate(name, None, sentence, score, "name", start))
        if " of " in name and not name.startswith(("University", "College")):
            head = name.split(" of ", 1)[0]  # "Scott Stevens of Los Angeles": a name, and where he is of
            out.append(Candidate(head, None, sentence, score, "name", start))
    joined = []
    for a, b in zip(out, out[1:]):  # "Columbus, Ohio": a place and the larger place it is in
        between = text[a.at + len(a.text):b.at]
        if between == ", " and len(b.text.split()) <= 2:
            joined.append(Candidate(f"{a.text}, {b.text}", None, sentence, score, "name", a.at))
    return out + joined


def _whole_words(text: str, start: int, surface: str) -> bool:
    """Whether a mention's span covers whole words, no blank or punctuation at its ends (a span the text has moved
    under is not read)."""
    return bool(surface) and surface == surface.strip(" ,.;:") and (start == 0 or not text[start - 1].isalnum()) and \
        (start + len(surface) >= len(text) or not text[start + len(surface)].isalnum())


def _adjective(text: str, start: int, word: str) -> bool:
    """A capitalized word used as an adjective: between an article and a lower-case word ("an American actress"), or
    of a nationality's shape before a lower-case word ("British publications")."""
    before = text[:start].split()[-1:]
    after = text[start + len(word):].split()[:1]
    if not after or not after[0][:1].islower() or after[0].casefold() in STOP_WORDS:
        return False
    return before[:1] in (["a"], ["an"], ["the"], ["A"], ["An"], ["The"]) or word.endswith(DEMONYM)


def _sentence_word(words: list[str]) -> bool:
    """Whether a sentence's capitalized first word is an ordinary word, not part of the name after it ("In Boston",
    but "The Exies", "Two Dollar Radio")."""
    first = words[0].rstrip(".").casefold()
    if len(words) == 1:
        return is_common(first)
    return first in STOP_WORDS and first != "the" and first not in NUMBER_WORDS.split("|")


def _first_word(text: str) -> int:
    return len(text) - len(text.lstrip(" \"'(“‘"))


def is_date(text: str) -> bool:
    return DATE.fullmatch(text) is not None


def year_of(text: str) -> int | None:
    """The year a date names (the first), else None; a century counts as its first year."""
    m = YEAR.search(text)
    if m:
        return int(m.group(1))
    century = re.search(rf"(\d{{1,2}})(?:st|nd|rd|th)|({ORDINALS})", text, re.IGNORECASE)
    if century and "century" in text.casefold():
        n = int(century.group(1)) if century.group(1) else ORDINALS.split("|").index(century.group(2).casefold()) + 1
        return (n - 1) * 100
    return None


def entity_labels(index: FullText, sources: list[ContextSource]) -> dict[str, tuple[str, list[str]]]:
    """Entity IRI -> (its label, its ontology classes by local name) as the sources' documents give them (the
    index's copy of each document graph's labels: one indexed read, not a graph query)."""
    docs = sorted({s.document for s in sources[:TOP_PASSAGES] if s.document})
    if not docs:
        return {}
    out: dict[str, tuple[str, list[str]]] = {}
    for entity, label, kind in index.read(f"SELECT entity, label, type FROM labels WHERE document IN "
                                          f"({','.join('?' * len(docs))})", tuple(docs)):
        name, types = out.get(entity, ("", []))
        out[entity] = (name or label, types + [kind] if kind and kind not in types else types)
    return out


def passage_topics(index: FullText, sources: list[ContextSource]) -> dict[str, set[str]]:
    """Chunk IRI -> the entities its document is about (the index's `topics`: its title's or first mention's)."""
    chunks = [s.chunk for s in sources[:TOP_PASSAGES]]
    out: dict[str, set[str]] = {}
    if chunks:
        for chunk, entity in index.read(f"SELECT chunk, entity FROM topics WHERE chunk IN ({','.join('?' * len(chunks))})",
                                        tuple(chunks)):
            out.setdefault(chunk, set()).add(entity)
    return out


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


def _mentions(index: FullText, chunks: list[str], texts: dict[str, tuple[str, int]]) -> dict[str, list[tuple[str, str, int]]]:
    """Chunk IRI -> (entity IRI, the words that name it in the chunk, their offset in the document) for each entity
    it mentions at a known place, in the order of the text."""
    if not chunks:
        return {}
    marks = ",".join("?" * len(chunks))
    out: dict[str, list[tuple[str, str, int]]] = {}
    for chunk, entity, start, end in index.read(f"SELECT chunk, entity, start, end FROM mentions WHERE chunk IN ({marks})",
                                                tuple(chunks)):
        if start is None or end is None:
            continue
        text, offset = texts.get(chunk, ("", 0))
        out.setdefault(chunk, []).append((entity, text[start - offset:end - offset], start))
    for found in out.values():
        found.sort(key=lambda m: m[2])
    return out
