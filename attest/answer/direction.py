"""Which way a question walks a relation: "What does X use" follows X -> uses -> ?, "Who uses X" follows ? -> uses -> X,
from where the entity stands against the relation word and whether the predicate's name is active or passive."""

from __future__ import annotations

import re

from attest.answer import lexicon
from attest.answer.words import WORD, normalize

AGENT, PATIENT, HOLDER = "agent", "patient", "holder"
ACTIVE, PASSIVE = "active", "passive"
DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "its", "his", "her", "their"})
BE = frozenset({"is", "was", "are", "were", "be", "been", "being"})
AUXILIARIES = frozenset({"do", "does", "did", "to", "will", "would", "can", "could", "should", "may", "might"})
AGENT_MARKERS = frozenset({"by", "with"})  # "written by X", "co-wrote films with X"
HOLDER_MARKERS = frozenset({"of", "for"})  # "the director of X"
LINKING = frozenset({"of", "in", "at", "on", "to", "from", "for", "with", "by", "into"})  # a name ending in one links
VERB_FORM = re.compile(r".{2,}(?:s|ed|en)$")


def question_words(question: str) -> list[tuple[str, int, int]]:
    """(folded word, start, end) of each word of the question."""
    return [(normalize(m.group(0)), m.start(), m.end()) for m in WORD.finditer(question)]


def mention_role(words: list[tuple[str, int, int]], mention: tuple[int, int], relation_at: int) -> tuple[str | None, bool]:
    """(role of the entity named at `mention` towards the relation word starting at `relation_at`, whether that word
    is used as a verb): AGENT ("X uses", "does X use", "written by X"), PATIENT ("who uses X", "X was written"),
    HOLDER ("the director of X", "X's director"), or None."""
    at = next((i for i, w in enumerate(words) if w[1] == relation_at), None)
    if at is None:
        return None, False
    relation = words[at][0]
    verb = bool(VERB_FORM.match(relation)) or (at > 0 and words[at - 1][0] in AUXILIARIES)
    start, end = mention
    if start > relation_at:  # the entity after the relation word
        before = [w for w, s, _ in words if words[at][2] <= s < start and w not in DETERMINERS]
        if before and before[-1] in AGENT_MARKERS:
            return AGENT, verb
        if before and before[-1] in HOLDER_MARKERS:
            return HOLDER, False
        return (PATIENT, True) if verb else (None, False)
    before = [w for w, s, _ in words if s < start]
    verb = verb or bool(before and before[-1] in AUXILIARIES)  # "does X use", "did X write"
    between = [w for w, s, _ in words if end <= s < relation_at]
    if between[:1] == ["s"]:  # "X's director"
        return HOLDER, False
    if any(w in BE for w in between):
        return (PATIENT, True) if verb else (None, False)  # "X was directed by"
    return (AGENT, True) if verb else (None, False)


def voice(name: str) -> str | None:
    """PASSIVE for a predicate named like "directed by", ACTIVE for one named by a verb in the third person ("uses",
    "develops", "has genre"), None for a noun ("spouse") or an unclear name ("starred actors")."""
    words = [w for w in normalize(name).split(" ") if w][:8]
    if len(words) >= 2 and words[-1] == "by":
        return PASSIVE
    if words and words[0] in ("has", "have", "owns", "uses"):
        return ACTIVE
    if words and words[0].endswith("s") and not words[0].endswith("ss") and lexicon.mostly_verb(words[0]):
        return ACTIVE
    return None


def expected_forward(role: str | None, as_verb: bool, predicate_voice: str | None) -> bool | None:
    """Whether the entity should be the subject of the relation's fact (True), its object (False), or either (None)."""
    if role == HOLDER:
        return True  # "the director of X": X directed-by ?; "the spouse of X": X spouse ?
    if not as_verb or predicate_voice is None or role is None:
        return None
    agent_is_subject = predicate_voice == ACTIVE
    return agent_is_subject if role == AGENT else not agent_is_subject


def fact_sentence(subject: str, predicate: str, obj: str) -> str:
    """A fact as a reader says it: "PostgreSQL uses LLVM", "PostgreSQL is developed by PGDG" (a passive name), "the
    spouse of Ann is Bob" (a noun)."""
    form = voice(predicate)
    words = normalize(predicate).split(" ")
    if form == ACTIVE:
        return f"{subject} {predicate} {obj}"
    if form == PASSIVE or words[-1] in LINKING:  # "developed by", "part of", "located in"
        return f"{subject} {predicate if words[0] in BE else 'is ' + predicate} {obj}"
    return f"the {predicate} of {subject} is {obj}"
