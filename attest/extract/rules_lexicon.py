"""Word lists and ontology-derived phrase tables the offline rule extractor reads (no trained model needed).

Interface (used by attest.extract.rules only):
    first_names(), places(), common_words()     -> lexicons from attest/extract/data/
    is_common(word), word_like(word)            -> a common English word (or its plural); also an inflected or derived one
    distinctive(label)                          -> whether a known label may match in any letter case
    relation_phrases(terms) -> {phrase tokens: [predicate local names]}  from labels, altLabels, local names
    norm_gap(tokens) -> (tuple of content words, negated, hedged)
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from attest.extract.ontology_terms import OntologyTerms

DATA = Path(__file__).resolve().parent / "data"

# words that carry no relation meaning between two entity mentions ("is also part of the" -> "part of")
FILLER = frozenset(
    "is are was were be been being has have had do does did co can could will would may might shall should must "
    "a an the its their his her also now then mainly largely originally first primarily directly still heavily "
    "widely often later initially itself themselves further fully officially currently actively partly".split()
)
RELATIVE = frozenset({"which", "that", "who", "whom"})
NEGATION = frozenset({"not", "never", "no", "n't", "neither", "nor", "cannot", "hardly", "nothing", "none"})
HEDGE = frozenset({"whether", "if", "unclear", "perhaps", "possibly", "allegedly", "reportedly", "rumored", "rumoured", "supposedly", "might", "may", "could"})
COORDINATION = frozenset({",", "and", "or", "as well as", ", and", ", or"})

# type cues written as words next to or inside a name; values are ontology *labels*, normalized through the terms
LEGAL_SUFFIX = {"inc": "company", "corp": "company", "corporation": "company", "ltd": "company", "llc": "company",
                "gmbh": "company", "ag": "company", "plc": "company", "sa": "company", "co": "company"}
ORG_WORDS = {"institute": "research institute", "laboratory": "research laboratory", "lab": "research lab",
             "labs": "research lab", "group": "organization", "association": "organization", "society": "organization",
             "agency": "organization", "council": "organization", "committee": "organization", "alliance": "organization",
             "consortium": "consortium", "foundation": "foundation", "university": "university", "college": "university",
             "school": "university", "academy": "organization", "company": "company", "centre": "research institute",
             "center": "research institute", "research": "research lab"}
PERSON_TITLES = frozenset({"dr", "prof", "professor", "mr", "mrs", "ms", "sir", "dame"})
PERSON_ROLES = frozenset({"researcher", "scientist", "engineer", "professor", "author", "founder", "co-founder", "inventor",
                          "developer", "creator", "ceo", "cto", "director", "student", "programmer", "mathematician",
                          "linguist", "logician", "physicist", "colleague", "colleagues", "lecturer", "architect"})
# "a professor at X", "a researcher for X": a role held at an organization is employment; "a student at X" is study
EMPLOYMENT_ROLES = PERSON_ROLES - {"author", "founder", "co-founder", "inventor", "creator", "colleague", "colleagues", "student"}
# titles and offices written before a name, not part of it ("President Lincoln", "Prime Minister Sheikh Hasina")
TITLES = PERSON_TITLES | frozenset({"president", "prime", "minister", "king", "queen", "prince", "princess", "senator",
                                    "governor", "mayor", "chairman", "bishop", "pope", "emperor", "empress", "ambassador",
                                    "chancellor", "democrat", "republican", "representative", "congressman"})
NAME_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "di", "du", "le", "la", "bin", "al", "del", "dos"})
CALENDAR = frozenset("january february march april may june july august september october november december "
                     "monday tuesday wednesday thursday friday saturday sunday".split())


@lru_cache(maxsize=1)
def first_names() -> frozenset[str]:
    words: set[str] = set()
    for line in (DATA / "first_names.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


@lru_cache(maxsize=1)
def places() -> dict[str, str]:
    """name -> 'country' | 'city' | 'location' (labels of ontology classes)."""
    table: dict[str, str] = {}
    for line in (DATA / "places.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, kind = line.partition("|")
            table[name.strip()] = kind.strip()
    return table


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    words: set[str] = set()
    for line in (DATA / "common_words.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


def is_common(word: str) -> bool:
    """A stop word, a listed common word, or the plural of one ("keys", "boxes", "libraries")."""
    w, common = word.casefold(), common_words()
    return w in STOP_WORDS or w in common or any(
        w.endswith(suffix) and w[:-len(suffix)] + tail in common for suffix, tail in (("s", ""), ("es", ""), ("ies", "y")))


ORDINALS = frozenset("first second third fifth eighth ninth twelfth".split())
NUMBER_WORDS = frozenset("four six seven ten eleven thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty "
                         "thirty forty fifty sixty seventy eighty ninety hundred thousand million".split())
DERIVED = ("tion", "tions", "sion", "sions", "ment", "ments", "ness", "ity", "ities", "ance", "ence", "ism", "isms", "ous",
           "ive", "ives", "ical", "ally", "izes", "ized", "ises", "ised", "izing", "ising", "ing", "ings", "able")


@lru_cache(maxsize=65_536)
def word_like(word: str) -> bool:
    """Reads as an English word, not a name: common, short, inflected from a common word, or derived ("-tion", "-ing")."""
    w = word.casefold()
    if "-" in w:  # key-value, real-time: a compound of words; scikit-learn: not
        return all(word_like(part) for part in w.split("-") if part)
    if any(c.isdigit() for c in w):
        return False
    if len(w) < 3 or is_common(w):
        return True
    if w in ORDINALS or (w.endswith("th") and w[:-2] in NUMBER_WORDS) or (w.endswith("ieth") and w[:-4] + "y" in NUMBER_WORDS):
        return True  # sixth, eleventh, twentieth
    stems = {w[:-2], w[:-1]} if w.endswith("ed") else {w[:-3], w[:-3] + "e"} if w.endswith("ing") else \
        {w[:-2]} if w.endswith("ly") else {w[:-3], w[:-2]} if w.endswith("est") else set()  # largest, oldest
    stems |= {s[:-1] for s in stems if len(s) > 2 and s[-1] == s[-2]}  # stopped -> stop
    return bool(stems & common_words()) or (len(w) >= 7 and w.endswith(DERIVED))


def distinctive(label: str) -> bool:
    """A known label that may match in any letter case: a phrase, or a word of three or more letters not common in English
    ("rdflib", "RDF", "Redis" -- but not "Go", "Rust", "Apple": those match only as written, or lower-case beside a cue)."""
    return len(label.split()) > 1 or (len(label) > 2 and not is_common(label))


def split_camel(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


IRREGULAR = {"builds": {"built"}, "build": {"built"}, "writes": {"wrote", "written"}, "written": {"writes", "wrote", "write"},
             "holds": {"held"}, "leads": {"led"}, "makes": {"made"}, "brings": {"brought"}, "runs": {"ran"},
             "built": {"build", "builds", "building"}}


def _inflections(word: str) -> set[str]:
    """Third-person or past-tense verb -> its other forms (regular English plus a few irregular verbs)."""
    if word in IRREGULAR:
        return IRREGULAR[word] | _regular(word)
    return _regular(word)


def _regular(word: str) -> set[str]:
    if len(word) > 4 and word.endswith("ed"):
        forms: set[str] = set()
        for base in (word[:-2], word[:-1]):  # developed -> develop, introduced -> introduce; the wrong one never occurs
            forms |= {base, base + ("es" if base.endswith(("s", "sh", "ch", "x")) else "s"), (base[:-1] if base.endswith("e") else base) + "ing"}
        return forms
    if len(word) <= 3 or not word.endswith("s") or word.endswith("ss"):
        return set()
    if word.endswith("ies"):
        base = word[:-3] + "y"
        return {base, base[:-1] + "ied", base + "ing"}
    base = word[:-2] if word.endswith(("shes", "ches", "xes")) else word[:-1]
    past = base + "d" if base.endswith("e") else base + "ed"
    ing = base[:-1] + "ing" if base.endswith("e") else base + "ing"
    return {base, past, ing}


def hedges(words: list[str], k: int) -> bool:
    """Whether words[k] is a hedge ("may", "perhaps"): written in lower case, or capitalized where it opens the words
    and is not a month's name before a number ("May 1990"); a capitalized "May" inside a sentence is the month."""
    word = words[k]
    if word.lower() not in HEDGE:
        return False
    if word[:1].isupper():
        return k == 0 and not (word.lower() == "may" and k + 1 < len(words) and words[k + 1][:1].isdigit())
    return True


def norm_gap(words: list[str]) -> tuple[tuple[str, ...], bool, bool]:
    """Content words of the text between two mentions, whether it is negated, whether it is hedged."""
    lowered = [w.lower() for w in words]
    negated = any(w in NEGATION for w in lowered)
    hedged = any(hedges(words, k) for k in range(len(words)))
    content = tuple(w for w in lowered if w not in FILLER and w not in RELATIVE and w not in NEGATION and w not in {",", "-"})
    return content, negated, hedged


def relation_phrases(terms: OntologyTerms) -> dict[tuple[str, ...], list[str]]:
    """Every written form of every predicate, as filler-free token tuples; a phrase may name several predicates."""
    table: dict[tuple[str, ...], list[str]] = {}
    for term in terms.predicates.values():
        spellings = {term.label, *term.alt_labels, split_camel(term.name)} - {""}
        forms: set[tuple[str, ...]] = set()
        for spelling in spellings:
            words = re.findall(r"[\w'-]+", spelling.lower())
            if not words:
                continue
            forms.add(norm_gap(words)[0])
            for variant in _inflections(words[0]):
                forms.add(norm_gap([variant, *words[1:]])[0])
            if words[-1] == "by" and len(words) >= 2:
                forms.add(norm_gap([*words[:-1], "at"])[0])  # "developed at <organization>" reads as "developed by"
        for form in forms:
            if form and term.name not in table.setdefault(form, []):
                table[form].append(term.name)
    return table
