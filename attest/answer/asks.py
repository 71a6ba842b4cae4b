"""What a question asks for (a person, a place, a date, a number, an instance of a class, yes or no, one of two named
options), read from its English grammar; classes are the ontology's, by label."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from spacy.lang.en.stop_words import STOP_WORDS

from attest.extract.ontology_terms import OntologyTerms

Kind = Literal["person", "place", "date", "number", "class", "yesno", "choice", "any"]
Order = Literal["earliest", "latest", "most", "least", "stated", "same"]
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[,;:]")
PUNCTUATION = frozenset(",;:")
PREPOSITIONS = frozenset("in on at to by for from of with under over during since until after before about into "
                         "through between among besides".split())
# the words that end a noun phrase: prepositions, conjunctions, pronouns, determiners, auxiliaries
FUNCTION = PREPOSITIONS | frozenset("and or but that who whom whose which what where when how he she it they we you i his "
                                    "her its their our your this these those the a an some any each every both "
                                    "not than as".split())
ARTICLES = frozenset("the a an".split())
WH = ("who", "whom", "whose", "where", "when", "which", "what", "how")
AUXILIARIES = frozenset("is are was were do does did can could has have had will would should shall may might must".split())
TIME_NOUNS = frozenset("year years date day month century decade era time".split())
# words between "which/what" and the noun they ask about ("which American film", "what kind of")
DETERMINERS = frozenset("the a an kind sort type of".split())
MAX_NOUN_WORDS = 4
NEAR_STEM = 5  # "founded" and "founder", "directed" and "director": the same first letters  # "what college preparatory boys' school": the head noun is the last of at most these
# the comparative and superlative forms of English order words: which option comes first, or has more
EARLIEST = frozenset("first earlier earliest older oldest before sooner".split())
LATEST = frozenset("later latest last younger youngest newer newest after recent".split())
MOST = frozenset("more most larger largest bigger biggest higher highest taller tallest longer longest greater greatest "
                 "heavier heaviest wider widest deeper deepest".split())
LEAST = frozenset("less least fewer fewest smaller smallest lower lowest shorter shortest lighter lightest".split())
OPTION_WORD = r"[A-Z0-9][\w'’.&-]*"
OPTION = re.compile(rf"{OPTION_WORD}(?:\s+(?:of|the|de|von|van|and|&|of the)?\s*{OPTION_WORD})*")


@dataclass(frozen=True)
class Asks:
    """The answer's expected kind; `cls` the ontology class it must be an instance of (person, place, class)."""

    kind: Kind
    cls: str | None = None
    word: str = "answer"  # the kind in words, for "no ... answers the question"
    noun: str | None = None  # "which X" / "what X" where X names no ontology class: an answer its sentence calls an X
    unit: str | None = None  # "how many X": the unit the number counts
    options: tuple[str, ...] = ()  # a choice ("X or Y?") or a judgement of two ("Are X and Y both ...?")
    order: Order | None = None  # a choice: which option wins (the earliest date, the largest number, or the one stated)
    near: tuple[str, ...] = ()  # the words the question writes beside what it asks ("founded by who", "Who directed")
    wh: str = ""  # the question word that asks


def asks(question: str, terms: OntologyTerms | None) -> Asks:
    words = [w.casefold() for w in WORD.findall(question)]
    if not words:
        return Asks("any")
    choice = _choice(question, words)
    if choice is not None:
        return choice
    wh = asking_word(words)
    if wh is None:  # "Is it ...?", also after a sentence that sets it up ("X has an OBE. Does Y also have one?")
        last = [w.casefold() for w in WORD.findall(re.split(r"[.!?]\s+", question.strip())[-1])]
        return Asks("yesno", word="yes or no") if words[0] in AUXILIARIES or last[:1] and last[0] in AUXILIARIES \
            else Asks("any")
    return replace(_kind(words, wh, terms), near=_beside(words, wh), wh=words[wh])


def _beside(words: list[str], wh: int) -> tuple[str, ...]:
    """The content word written just before the question word asked in place ("founded by who", "based in what
    state"), or just after the one that opens the question and its auxiliary ("Who directed ...")."""
    if wh > 0:
        clause = words[max(0, wh - 3):wh]
        clause = clause[max((i + 1 for i, w in enumerate(clause) if w in PUNCTUATION), default=0):]
        before = [w for w in clause if w not in FUNCTION and w not in AUXILIARIES]
        if before:
            return (singular(before[-1])[:NEAR_STEM],)
    start = wh + 1
    if words[wh] in ("which", "what"):  # past the noun asked for: "Which city was ..."
        while start < len(words) and words[start] in DETERMINERS:
            start += 1
        start += len(_noun_phrase(words[start:]))
    after = [w for w in words[start:start + 3] if w not in FUNCTION and w not in AUXILIARIES and w not in PUNCTUATION
             and w not in WH and w not in ("many", "much")]
    return tuple(singular(w)[:NEAR_STEM] for w in after[:1])


def _kind(words: list[str], wh: int, terms: OntologyTerms | None) -> Asks:
    w, rest = ("which", words[1:]) if words[wh] in ("name", "list") else (words[wh], words[wh + 1:])
    if w == "how" and rest[:1] and rest[0] in ("many", "much"):
        unit = next((singular(x) for x in rest[1:2] if x not in STOP_WORDS), None)
        return Asks("number", word="number", unit=unit)
    if w == "when":
        return Asks("date", word="date")
    if w in ("who", "whom", "whose"):
        return Asks("person", _class(terms, "person", "Person"), "person")
    if w == "where":
        return Asks("place", _class(terms, "location", "Location"), "place")
    if w in ("which", "what"):
        phrase = _noun_phrase(rest)
        if not phrase and rest[:1] and rest[0] in AUXILIARIES and rest[1:2] and rest[1] in ARTICLES and \
                rest[2 + len(_noun_phrase(rest[1:])):][:1] == ["of"]:
            phrase = _noun_phrase(rest[1:])  # "what is the X of ...": an X
            after = 2 + len(phrase)
            if phrase[-1:] == ["name"] and rest[after:after + 1] == ["of"]:
                phrase = _noun_phrase(rest[after + 1:])  # "the name of the pop band": a band
        if phrase and phrase[-1] in TIME_NOUNS:
            return Asks("date", word="date", noun=singular(phrase[-1]))
        for n in range(min(2, len(phrase)), 0, -1):  # "which football club", then "which club"; the head noun first
            for start in range(len(phrase) - n, -1, -1):
                cls = _class(terms, " ".join(phrase[start:start + n]), None) or \
                    _class(terms, singular(" ".join(phrase[start:start + n])), None)
                if cls:
                    kind: Kind = "person" if _sub(terms, cls, "Person") else "place" if _sub(terms, cls, "Location") else "class"
                    return Asks(kind, cls, " ".join(phrase[start:start + n]), noun=singular(phrase[-1]))
        if phrase:
            return Asks("any", word=singular(phrase[-1]), noun=singular(phrase[-1]))
    return Asks("any")


def asking_word(words: list[str]) -> int | None:
    """The index of the question word that asks. One that opens the question (or follows the preposition that opens
    it: "In what year", "To which country"); else "what" or "how many" anywhere (never relative); else one asked in
    place at the end ("... created by who?", "... in which California city?"); else the last one. An earlier
    who / which / where after a noun is relative ("the actor who starred", "the city where she was born")."""
    found = [i for i, w in enumerate(words) if w in WH]
    if not found:
        return 0 if words[0] in ("name", "list") else None  # "Name the X ...": which X
    if found[0] == 0 or found[0] == 1 and words[0] in PREPOSITIONS:
        return found[0]
    if words[0] in ("name", "list"):
        return 0
    for i in found:
        if words[i] == "what" or words[i] == "how" and words[i + 1:i + 2] in (["many"], ["much"]):
            return i
    end = len(words) - 1 - (words[-1] in PUNCTUATION)
    for i in found:
        if i == end or words[i] in ("which", "whose") and end - i <= MAX_NOUN_WORDS and \
                not any(w in PUNCTUATION or w in FUNCTION for w in words[i + 1:end + 1]):
            return i
    return found[-1]


def _noun_phrase(rest: list[str]) -> list[str]:
    """The words after "which" / "what" up to the first function word: the noun asked for is the last of them
    ("which Bollywood actress", "what crime family", "in what year did ...")."""
    out: list[str] = []
    for x in rest:
        if x in DETERMINERS and not out:
            continue
        if x in FUNCTION or x in AUXILIARIES or x in PUNCTUATION or len(out) == MAX_NOUN_WORDS:
            break
        out.append(x)
    following = rest[len(out) + rest[:len(out) + 1].count("the"):][:1]
    # the last word read as a verb: a past participle after a noun ("what song debuted in"), or a word followed by
    # a determiner or pronoun, as a verb is and a noun is not ("what recurring character makes his first ...")
    if len(out) > 1 and (out[-1].endswith("ed") or following and following[0] in FUNCTION - PREPOSITIONS - {"and", "or"}):
        out.pop()
    # a subject and its verb agree before a preposition: "which rivers flow through", "which river flows through"
    elif len(out) > 1 and following and following[0] in PREPOSITIONS and \
            _plural(out[-2]) != _plural(out[-1]) and not out[-1].endswith("ss"):
        out.pop()
    return out


def _choice(question: str, words: list[str]) -> Asks | None:
    """ "X or Y?" (the answer is one of them), and "Are X and Y both ...?" (yes or no, said of both); None otherwise."""
    body = question.strip().rstrip("?. ").strip()
    if " or " in body:
        left, right = body.rsplit(" or ", 1)
        a, b = _last_option(left), _first_option(right)
        if a and b:
            order: Order = ("earliest" if EARLIEST & set(words) else "latest" if LATEST & set(words) else
                            "most" if MOST & set(words) else "least" if LEAST & set(words) else "stated")
            return Asks("choice", word="choice", options=(a, b), order=order)
    rest = body.split(None, 1)[1] if len(body.split()) > 1 else ""
    if words[0] in AUXILIARIES and "same" in words:
        # "Are X and Y (situated in / members of) the same N?": yes or no, by the N the passages give each
        m = re.match(rf"(?:both\s+)?(?:the\s+)?({OPTION.pattern})\s+and\s+(?:the\s+)?({OPTION.pattern})\b.*?"
                     r"\bthe\s+same\s+([a-z]+)", rest)
        if m:
            return Asks("yesno", word="yes or no", noun=singular(m.group(3)), options=(_trim(m.group(1)), _trim(m.group(2))),
                        order="same")
    if words[0] in AUXILIARIES and "both" in words:
        # "Are X and Y both ...?" (Y runs up to "both"), or "Are both X and Y ...?" (Y is the name after "and")
        m = re.match(r"(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+?)\s+both\b", rest) or \
            re.match(rf"both\s+(?:\w+\s*,\s*)?(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?({OPTION.pattern})", rest)
        if m:
            return Asks("yesno", word="yes or no", options=(_trim(m.group(1)), _trim(m.group(2))), order="stated")
    return None


def _last_option(text: str) -> str | None:
    """The option written last in `text` (a name, else its last word): "Which came first, the Exies" -> "Exies"."""
    tail = re.split(r"[,:;]", text)[-1]
    found = [m for m in OPTION.finditer(tail) if m.end() == len(tail.rstrip())]
    if found:
        return _trim(found[-1].group(0))
    last = tail.split()[-1:] if tail.split() else []
    return last[0] if last and last[0].casefold() not in STOP_WORDS else None


def _first_option(text: str) -> str | None:
    head = text.strip()
    head = re.sub(r"^(?:the|a|an)\s+", "", head, flags=re.IGNORECASE)
    m = OPTION.search(" ".join(head.split()[:6]))
    if m:
        return _trim(m.group(0))
    first = head.split()[:1]
    return first[0] if first and first[0].casefold() not in STOP_WORDS else None


def _trim(option: str) -> str:
    words = option.split()
    while words and words[-1].casefold() in ("of", "the", "and", "&", "de", "von", "van"):
        words.pop()
    return " ".join(words)


def _class(terms: OntologyTerms | None, written: str, default: str | None) -> str | None:
    found = terms.normalize_type(written) if terms is not None else None
    return found or (default if terms is None or default in terms.types else None)


def _sub(terms: OntologyTerms | None, cls: str, parent: str) -> bool:
    return terms is not None and parent in terms.types and terms.is_subtype(cls, parent)


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith("ss")


def singular(word: str) -> str:
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-3] + "y" if word.endswith("ies") else word[:-1] if word.endswith("s") and not word.endswith("ss") else word
