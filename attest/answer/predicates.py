"""How much each predicate is what a question asks about: its label, altLabels, comment and local name against the
question's words, by spelling and by general lexical knowledge (WordNet, `lexicon.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from rapidfuzz import fuzz

from attest.answer import lexicon
from attest.answer.words import WORD, normalize

CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.]+")
MAX_NAME = 60  # longer texts of a property are comments, not names
COMMENT_WEIGHT = 0.3  # a comment's words (examples, other properties named) say less than a property's names
PREFIX_MATCH = 0.8  # "direct" ~ "directorial": one stem begins the other
FUZZY_MATCH = 0.7  # a near spelling ("screnwriter")
FUZZY_CUTOFF = 85
LEXICAL = 1.0  # a WordNet relation counts as much as its weights say (each under 1: weaker than the property's own word)
LEXICAL_MIN = 0.3  # ... and under this it says nothing
MIN_STEM = 5  # "film" is not "filmmaker": one stem begins the other only from five letters
MIN_WORD = 3  # "co" of "co-wrote" says nothing about which relation
REVERSED = 0.5  # a property read backwards by its own words when WordNet names its opposite ("parents" read as "child")
# function words only: spaCy's stop list also holds "used", "part", "made", "name", the very words relations are named by
FUNCTION_WORDS = frozenset("""a an the of in on at by to for from with into onto about as and or but if so than then
is are was were be been being am do does did has have had having this that these those it its they them their there
here what which who whom whose when where why how me my we our you your he she his her i not no also just only very
more most some any all each every other such can could would should will shall may might must""".split())
MAX_SCORED = 4096  # question words whose match is remembered per property and direction
SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "ors", "er", "or", "ies", "es", "ed", "en", "s", "e", "y")



@dataclass
class PropertyText:
    """The words a property is known by: its label, other labels and comments, its inverses' words, and the
    names of the classes it leads from (domain) and to (range)."""

    label: str = ""
    other: list[str] = field(default_factory=list)
    inverse: list[str] = field(default_factory=list)
    domain: list[str] = field(default_factory=list)
    range: list[str] = field(default_factory=list)
    # (local name, read backwards) -> stem weights, filled by predicates.describing_words: a PropertyText is
    # remembered across requests, and every question about a property would otherwise stem its words again
    stems: dict[tuple[str, bool], PredicateWords] = field(default_factory=dict, compare=False, repr=False)


def stem(word: str) -> str:
    """A light English stemmer: "directed", "director", "directors" -> "direct"; "starred", "stars" -> "star"."""
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "starr" -> "star", "writt" -> "writ"
    return word


@dataclass(frozen=True)
class Term:
    """A content word of the question: its stem, where it stands, and the words WordNet relates it to (itself,
    synonyms, derivations, hypernyms)."""

    stem: str
    start: int
    word: str = ""
    related: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class PredicateWords:
    """What a property (read in one direction) is called: stem -> weight for spelling, and the lemmas WordNet relates
    its words to -> weight."""

    stems: dict[str, float]
    related: dict[str, float]
    # question word -> (how well it matches these words by spelling, through WordNet): kept with the PropertyText across
    # requests (most questions share words with earlier ones), at most MAX_SCORED words
    scored: dict[str, tuple[float, float]] = field(default_factory=dict, compare=False, repr=False)


def question_terms(question: str, skip: list[tuple[int, int]]) -> list[Term]:
    """The question's content words outside the spans that named entities (`skip`), stemmed."""
    out = []
    for m in WORD.finditer(question):
        if any(a <= m.start() < b for a, b in skip):
            continue
        for word in normalize(m.group(0)).split(" "):
            if len(word) >= MIN_WORD and word not in FUNCTION_WORDS and not word.isdigit():
                out.append(Term(stem(word), m.start(), word, lexicon.related(word, general=True)))
    return out


def describing_words(text: PropertyText, local_name: str, inverse: bool) -> PredicateWords:
    """The words a property is known by (read backwards: by its declared inverse's words when it has any, else by
    the opposites WordNet gives its nouns, its own words weaker); kept on `text`, whose callers must not change it."""
    known = text.stems.get((local_name, inverse))
    if known is None:
        known = text.stems[(local_name, inverse)] = _describing_words(text, local_name, inverse)
    return known


def _describing_words(text: PropertyText, local_name: str, inverse: bool) -> PredicateWords:
    out = PredicateWords({}, {})

    def add(phrase: str, weight: float) -> None:
        for word in normalize(CAMEL.sub(" ", phrase[:MAX_NAME * 4])).split(" "):
            add_word(word, weight)

    def add_word(word: str, weight: float) -> None:
        if len(word) >= MIN_WORD and word not in FUNCTION_WORDS:
            s = stem(word)
            out.stems[s] = max(out.stems.get(s, 0.0), weight)
            for lemma, w in lexicon.related(word).items():
                out.related[lemma] = max(out.related.get(lemma, 0.0), w * weight)

    if inverse and text.inverse:
        for phrase in text.inverse:
            add(phrase, 1.0)
        return out
    names = [phrase for phrase in text.other if len(phrase) <= MAX_NAME]
    forward = _describing_words(text, local_name, False) if inverse else None
    add(local_name, 1.0)
    add(text.label, 1.0)
    for phrase in names:
        add(phrase, 1.0)
    if not names:  # a comment names other properties and examples: read only when the property has no other names
        for phrase in text.other:
            add(phrase, COMMENT_WEIGHT)
    if forward is not None:  # backwards: "parents" reads as "child" when WordNet knows the opposite
        opposites = {o for words in (local_name, text.label) for w in normalize(CAMEL.sub(" ", words[:MAX_NAME * 4])).split(" ")
                     if len(w) >= MIN_WORD and w not in FUNCTION_WORDS for o in lexicon.noun_opposites(w)}
        if opposites:
            out = PredicateWords({k: v * REVERSED for k, v in forward.stems.items()},
                                 {k: v * REVERSED for k, v in forward.related.items()})
            for word in opposites:
                add_word(word.replace("_", " "), 1.0)
    return out


def relevance(terms: list[Term], words: PredicateWords, lexical: frozenset[int] | None = None) -> tuple[float, frozenset[int]]:
    """(0-1, the indexes of the question terms it matched): the best match of a question word to the property's words,
    by spelling or, a little weaker, through WordNet ("couple" ~ "spouse", "father" -> "parents"); `lexical`: the
    terms that may match through WordNet (None: all)."""
    return relevance_of(term_matches(terms, words), lexical)


def term_matches(terms: list[Term], words: PredicateWords) -> list[tuple[float, float]]:
    """Each question term's (match by spelling, match through WordNet) to the property's words."""
    return [_term_match(term, words) for term in terms]


def relevance_of(matches: list[tuple[float, float]], lexical: frozenset[int] | None = None,
                 shares: Sequence[float] | None = None) -> tuple[float, frozenset[int]]:
    """`relevance` from the terms' matches (`term_matches`): one property weighed for several `lexical` sets;
    `shares`: each term's weight (`word_shares`), None for all 1."""
    best, matched = 0.0, set()
    for i, (spelled, related) in enumerate(matches):
        score = max(spelled, related if lexical is None or i in lexical else 0.0)
        if shares is not None:
            score *= shares[i]
        if score > 0:
            matched.add(i)
            best = max(best, score)
    return best, frozenset(matched)


def word_shares(matches: Iterable[list[tuple[float, float]]], spelled: float) -> list[float]:
    """Each question term's weight, 1 / how many properties name it: `matches` holds each property's `term_matches`
    (its own names, read forwards), and a property names a term whose spelling matches at least `spelled`. "date"
    that birthDate, deathDate and publicationDate all name says a third as much of any one of them as "premiered"
    would of the one it names."""
    counts: list[int] = []
    for per_term in matches:
        if not counts:
            counts = [0] * len(per_term)
        for i, (spelt, _) in enumerate(per_term):
            counts[i] += spelt >= spelled
    return [1.0 / max(n, 1) for n in counts]


def _term_match(term: Term, words: PredicateWords) -> tuple[float, float]:
    """(the best match of a question word to the property's words by spelling, through WordNet), 0 where none;
    remembered on `words` by the word, which its stem and related words are read from."""
    known = words.scored.get(term.word) if term.word else None
    if known is not None:
        return known
    related = lexicon.similarity(term.related, words.related) * LEXICAL if term.related and words.related else 0.0
    if related < LEXICAL_MIN:
        related = 0.0
    spelled = 0.0
    for word, weight in words.stems.items():
        if word == term.stem:
            s = 1.0
        elif min(len(word), len(term.stem)) >= MIN_STEM and (word.startswith(term.stem) or term.stem.startswith(word)):
            s = PREFIX_MATCH
        elif len(word) >= 5 and fuzz.ratio(word, term.stem) >= FUZZY_CUTOFF:
            s = FUZZY_MATCH
        else:
            continue
        spelled = max(spelled, s * weight)
    if term.word:
        if len(words.scored) >= MAX_SCORED:
            words.scored.clear()
        words.scored[term.word] = (spelled, related)
    return spelled, related


WH_WORDS = frozenset({"which", "what", "who", "whom", "whose", "when", "where"})
ASKS_BY_NOUN = frozenset({"which", "what", "whose"})
FOCUS_WORDS = 2  # content words after "which" / "what" that may name what is asked for ("which movies", "what genres")


def asks_for_person(question: str, skip: list[tuple[int, int]]) -> bool | None:
    """Whether the question asks for someone ("who", "which person", "which director": a kind of person to WordNet),
    for something else ("which films", "what genres"), or neither is said (None)."""
    words = _focus_words(question, skip)[:1]  # the noun right after "which" / "what" names what is asked for
    if not words or words == ["when"] or words == ["where"]:
        return None
    return words[0] in ("who", "whom") or lexicon.is_kind_of(words[0], "person")


def _focus_words(question: str, skip: list[tuple[int, int]]) -> list[str]:
    words = [(normalize(m.group(0)), m.start()) for m in WORD.finditer(question)]
    for i, (word, _) in enumerate(words):
        if word not in WH_WORDS:
            continue
        if word not in ASKS_BY_NOUN:
            return [word]
        following = [w for w, start in words[i + 1:] if w not in FUNCTION_WORDS and not any(a <= start < b for a, b in skip)]
        return following[:FOCUS_WORDS]
    return []


def focus_stems(question: str, skip: list[tuple[int, int]]) -> frozenset[str]:
    """What the question asks for: "who" itself, or the first content words after "which" / "what"."""
    words = [(normalize(m.group(0)), m.start()) for m in WORD.finditer(question)]
    out: set[str] = set()
    for i, (word, _) in enumerate(words):
        if word not in WH_WORDS:
            continue
        out.add(word)
        if word not in ASKS_BY_NOUN:
            break  # "who", "when", "where" ask by themselves
        following = [w for w, start in words[i + 1:] if w not in FUNCTION_WORDS and not any(a <= start < b for a, b in skip)]
        out.update(stem(w) for w in following[:FOCUS_WORDS])
        break
    return frozenset(out)


def class_words(names: list[str]) -> frozenset[str]:
    """Stems of a class's labels ("film", "movies" -> "film", "mov"); question words such as "who" kept whole."""
    return frozenset(w if w in WH_WORDS else stem(w) for name in names for w in normalize(name).split(" ") if w)
