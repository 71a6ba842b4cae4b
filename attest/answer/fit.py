"""Whether a candidate is of the kind a question asks for: by its ontology classes, by what the passages call it
(apposition "Y, an American X", copula "Y is a X", "the X Y"), and by the shape of a name (a known first name, a
known place, "(born ...)", a passage about it that says "he" or "she")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from attest.answer.asks import AUXILIARIES, FUNCTION, Asks, singular
from attest.answer.evidence import MONTHS, Candidate, Sentence, fold
from attest.extract.ontology_terms import OntologyTerms
from attest.extract.rules_lexicon import first_names, is_common, places

CATCH_ALL = frozenset({"Technology", "Entity", "Topic", "Concept"})  # the offline extractor's types of last resort
WEAK = 0.3  # a name of no known kind where an instance of a class is asked: not ruled out, not preferred
OPEN = 0.5  # a value where the question's kind is open ("what ..."), or a name beside "in" where a place is asked
# "Y, an American X" / "Y is a X" / "Y (born 1950) is an X": the words after the article describe Y
DESCRIBED = re.compile(r"^\s*(?:\([^)]*\)\s*)?(?:,[^,;()]{1,40},\s*)?"  # "Y (born 1950)", "Y, founded in 1804,"
                       r"(?:,\s*(?:also\s+)?|\s*(?:is|was|are|were|became)\s+(?:also\s+|now\s+)?)"
                       r"(?:a|an|the|one of the)\s+([^.;:()\"]{1,80})")
BORN = re.compile(r"^\s*\((?:born|b\.|née|\d{1,2} \w+ \d{4}\s*[–-]|\w+ \d{1,2}, \d{4}\s*[–-]|\d{4}\s*[–-])")
PRONOUNS = re.compile(r"\b(?:he|she|his|her|him|himself|herself)\b", re.IGNORECASE)
MONTH = re.compile(rf"\b(?:{MONTHS})\b")
DESCRIPTION_WORDS = 8
BEFORE_WORDS = 2


@dataclass
class Described:
    """What the passages say a candidate is: the words describing it and the words written just before it."""

    words: set[str]
    heads: set[str]  # the head noun of each description ("an American film director" -> director)
    before: set[str]
    born: bool
    pronouns: int  # he / she words in the passage about it


def describe(text: str, sentences: list[Sentence]) -> Described:
    """Every sentence of the passages that names `text`: the description after it and the words before it."""
    words: set[str] = set()
    heads: set[str] = set()
    before: set[str] = set()
    born, pronouns = False, 0
    folded_title = fold(text)
    for s in sentences:
        if fold(s.title.split(" (")[0]) == folded_title:  # the passage about it
            pronouns += len(PRONOUNS.findall(s.text))
        if text not in s.text:
            continue
        at = s.text.find(text)
        while at >= 0:
            after = s.text[at + len(text):]
            m = DESCRIBED.match(after)
            if m:
                phrase: list[str] = []  # the noun phrase that describes it, up to its first function word
                for w in [singular(w) for w in fold(m.group(1)).split()[:DESCRIPTION_WORDS]]:
                    if w in FUNCTION or w in AUXILIARIES or phrase and w.endswith("ed"):
                        break
                    phrase.append(w)
                words |= set(phrase)
                heads |= set(phrase[-1:])
            born = born or bool(BORN.match(after))
            # "the band X", "actress X": the words right before it, within its clause
            clause = re.split(r"[,;:()\[\]\"“”]", s.text[:at])[-1]
            before |= {singular(w) for w in fold(clause).split()[-BEFORE_WORDS:]}
            at = s.text.find(text, at + 1)
    return Described(words, heads, before, born, pronouns)


def fit(want: Asks, c: Candidate, types: list[str], said: Described, terms: OntologyTerms | None,
        named: Callable[[str], bool] = lambda _: False) -> float:
    """1 when the candidate is of the kind asked for, less when it is not ruled out, else 0; `named` says whether
    the question names a text (a description answers only of what the question names)."""
    if c.kind == "description":  # what a thing the question names is: asked by "what is X", "X's profession"
        # "which X" asks for an X: a description answers it only when it says X ("which band" / "a rock band")
        if want.kind != "any" or want.wh == "which" and want.noun and want.noun not in fold(c.text).split():
            return 0.0
        about = c.sentence.title.split(" (")[0] if c.sentence else ""
        return 1.0 if any(x and named(x) for x in (c.subject, about)) else 0.0
    if want.kind == "date":
        if c.kind != "date":
            return 0.0
        if want.noun in ("date", "day") and not MONTH.search(c.text):
            return OPEN  # "on which date": a day, more than a year
        if want.noun == "century" and "century" not in c.text.casefold():
            return OPEN
        return 1.0
    if want.kind == "number":
        if c.kind != "number":
            return 0.0
        if want.unit and c.unit and (singular(c.unit) == want.unit or c.unit.startswith(want.unit[:4])):
            return 1.0
        # a number of something else ("nine seasons" where times are asked) is not what the question counts
        return OPEN if not c.unit or not want.unit else 0.0
    if c.iri and types and terms is not None and not any(t in terms.types for t in types):
        return 1.0  # an entity of no ontology class (a graph loaded under its own vocabulary): not ruled out
    known = [t for t in types if t not in CATCH_ALL and (terms is None or t in terms.types)]
    described = _classes(said.heads, terms)
    if want.kind in ("person", "place", "class"):
        if c.kind in ("date", "number"):
            return 0.0
        cls = want.cls or ("Person" if want.kind == "person" else "Location")
        evidence = known + described
        if any(_is(t, cls, terms) for t in evidence):
            return 1.0
        place = _place(c.text, terms)
        if place is not None:  # a known place; one of no finer kind may be any kind of place
            return 1.0 if _is(place, cls, terms) else OPEN if place == "Location" and _is(cls, "Location", terms) else 0.0
        if any(_is(cls, t, terms) for t in evidence):
            general = OPEN  # said to be of a wider kind ("a location" where a city is asked): not ruled out
        elif evidence:
            return 0.0  # said to be of another kind
        else:
            general = 1.0
        if want.noun and (want.noun in said.words or want.noun in said.before):
            return general
        if want.kind == "person":
            return general * (1.0 if _person(c.text, said) else WEAK if _person_shaped(c.text) else 0.0)
        if want.kind == "place":
            return general * OPEN if said.before & {"in", "at", "near", "from"} or general < 1.0 else 0.0
        return general * WEAK
    # "what ...", "which X" where X names no ontology class
    if want.noun:
        if want.noun in said.words or want.noun in said.before:
            return 1.0
        return OPEN * (OPEN if c.kind in ("date", "number") else 1.0)
    return OPEN if c.kind in ("date", "number") else 1.0


def _classes(words: set[str], terms: OntologyTerms | None) -> list[str]:
    """The ontology classes the head nouns of a candidate's descriptions name ("a German rock band" -> MusicalGroup)."""
    if terms is None:
        return []
    found = []
    for w in words:
        cls = terms.normalize_type(w)
        if cls and cls not in CATCH_ALL:
            found.append(cls)
    return found


def _is(cls: str, want: str, terms: OntologyTerms | None) -> bool:
    return cls == want or (terms is not None and cls in terms.types and terms.is_subtype(cls, want))


def _person(text: str, said: Described) -> bool:
    words = text.split()
    return said.born or said.pronouns >= 2 or (len(words) >= 2 and words[0] in first_names())


def _person_shaped(text: str) -> bool:
    """Two to four capitalized words, none a common English word or a known place: the shape of a person's name."""
    words = text.split()
    return 2 <= len(words) <= 4 and _place(text, None) is None and all(
        w[:1].isupper() and not any(ch.isdigit() for ch in w) and not is_common(w.strip(".,")) for w in words)


def _place(text: str, terms: OntologyTerms | None) -> str | None:
    """The class of a known place ("Australia" -> Country), or of the place a "City, Region" name is in (Location:
    a place in it), else None."""
    table = places()
    if text in table:
        return (terms.normalize_type(table[text]) if terms else None) or "Location"
    if any(part.strip() in table for part in text.split(",")[1:]):
        return "Location"
    return None
