"""What a question asks for (a person, a place, a date, a number, an instance of a class, yes or no), read from its
English question words; classes are the ontology's, by label."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from attest.extract.ontology_terms import OntologyTerms

Kind = Literal["person", "place", "date", "number", "class", "yesno", "any"]
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
AUXILIARIES = frozenset("is are was were do does did can could has have had will would should shall may might must".split())
TIME_NOUNS = frozenset("year years date day month century decade era time".split())
# words between "which/what" and the noun they ask about ("which American film", "what kind of")
DETERMINERS = frozenset("the a an kind sort type of".split())


@dataclass(frozen=True)
class Asks:
    """The answer's expected kind; `cls` the ontology class it must be an instance of (person, place, class)."""

    kind: Kind
    cls: str | None = None
    word: str = "answer"  # the kind in words, for "no ... answers the question"
    noun: str | None = None  # "which X" / "what X" where X names no ontology class: an answer its sentence calls an X


def asks(question: str, terms: OntologyTerms | None) -> Asks:
    words = [w.casefold() for w in WORD.findall(question)]
    if not words:
        return Asks("any")
    wh = next((i for i, w in enumerate(words) if w in ("who", "whom", "whose", "where", "when", "which", "what", "how")), None)
    if wh is None:
        return Asks("yesno", word="yes or no") if words[0] in AUXILIARIES else Asks("any")
    w, rest = words[wh], words[wh + 1:]
    if w == "how" and rest[:1] and rest[0] in ("many", "much"):
        return Asks("number", word="number")
    if w == "when":
        return Asks("date", word="date")
    if w in ("who", "whom", "whose"):
        return Asks("person", _class(terms, "person", "Person"), "person")
    if w == "where":
        return Asks("place", _class(terms, "location", "Location"), "place")
    if w in ("which", "what"):
        nouns = [x for x in rest if x not in DETERMINERS][:3]
        if nouns and nouns[0] in TIME_NOUNS:
            return Asks("date", word="date")
        for n in range(min(2, len(nouns)), 0, -1):  # "which football club", then "which club"... first nouns first
            for start in range(len(nouns) - n + 1):
                phrase = " ".join(nouns[start:start + n])
                cls = _class(terms, phrase, None) or _class(terms, _singular(phrase), None)
                if cls:
                    kind: Kind = "person" if _sub(terms, cls, "Person") else "place" if _sub(terms, cls, "Location") else "class"
                    return Asks(kind, cls, phrase)
        if nouns and nouns[0] not in AUXILIARIES:
            return Asks("any", noun=_singular(nouns[0]))
    return Asks("any")


def _class(terms: OntologyTerms | None, written: str, default: str | None) -> str | None:
    found = terms.normalize_type(written) if terms is not None else None
    return found or (default if terms is None or default in terms.types else None)


def _sub(terms: OntologyTerms | None, cls: str, parent: str) -> bool:
    return terms is not None and parent in terms.types and terms.is_subtype(cls, parent)


def _singular(word: str) -> str:
    return word[:-3] + "y" if word.endswith("ies") else word[:-1] if word.endswith("s") and not word.endswith("ss") else word
