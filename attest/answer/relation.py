"""The relation a question asks about, as its own words, and how many of them a sentence writes around a candidate."""

from __future__ import annotations

import re

from attest.answer.asks import AUXILIARIES, NEAR_STEM, PREPOSITIONS, PUNCTUATION, WORD, Asks, _asking, _singular
from attest.answer.evidence import Candidate, fold
from attest.answer.support import question_names
from spacy.lang.en.stop_words import STOP_WORDS

RELATIVE = frozenset("who whom whose which that where when".split())  # words that open a clause inside a question
AROUND = 3  # content words each side of a candidate, within its clause, that may state the relation it stands in
CLAUSE_END = re.compile(r"[;:()\[\]]|,\s+(?:but|while|which|who|whose|where|when)\b|\s(?:and|or)\s|\.\s")


def relation_words(question: str, want: Asks, skip: frozenset[str]) -> frozenset[str]:
    """The stems (first NEAR_STEM letters, singular) of the question's content words that state a relation: not a
    word of a name it writes (what it asks about), not the noun that says what kind of answer it asks for, not a stop
    word; the AROUND nearest each side of the question word. "Who was the first president of the association which
    published the journal?" -> {presi, assoc}."""
    spans = [(start, end) for start, end, _ in question_names(question)]
    asked = fold(want.noun or "")
    before: list[str] = []
    after: list[str] = []
    for start, end, distance in _clause(question):
        if any(a <= start < b for a, b in spans):
            continue
        word = fold(question[start:end])
        if len(word) < 3 or word in skip or word in STOP_WORDS or " " in word or _singular(word) == asked:
            continue
        (before if distance < 0 else after).append(_singular(word)[:NEAR_STEM])
    # the words nearest the question word: farther ones tend to describe what the question names, not what it asks
    return frozenset(before[-AROUND:] + after[:AROUND])


def _clause(question: str) -> list[tuple[int, int, int]]:
    """(start, end, place from the question word) of each word of the clause that holds the question word that asks,
    less the relative clauses inside it and the noun phrase that says what kind of answer it asks for: "What show does
    a retired player, who missed a season, host?" -> "does a retired player" and "host"; "... an actress who starred
    in what for seven years?" -> "starred in" and "for seven years"."""
    tokens = list(WORD.finditer(question))
    words = [t.group(0).casefold() for t in tokens]
    wh = _asking(words) if words else None
    if wh is None:
        return [(t.start(), t.end(), 1) for t in tokens]
    clause, stack, ids = 0, [0], []
    for i, w in enumerate(words):
        if w in RELATIVE and i != wh:
            clause += 1
            stack.append(clause)
        elif w in PUNCTUATION and len(stack) > 1:
            stack.pop()
        ids.append(stack[-1])
    phrase = wh + 1
    if words[wh] in ("which", "what", "name"):  # "which television and movie actor from": the kind asked for
        while phrase < len(words) and words[phrase] not in PREPOSITIONS | AUXILIARIES | PUNCTUATION | RELATIVE:
            phrase += 1
    return [(t.start(), t.end(), i - wh) for i, t in enumerate(tokens) if ids[i] == ids[wh] and not wh <= i < phrase]


def around(c: Candidate, words: frozenset[str]) -> int:
    """How many of the relation's words the candidate's sentence writes among the AROUND content words each side of it,
    in its clause, not past "and" / "or" (a coordinated phrase speaks of the next thing): "She starred in the sitcom
    'Mad About You' for seven years" -> starred, seven, years."""
    s = c.sentence
    if s is None or not words:
        return 0
    before = CLAUSE_END.split(s.text[:c.at])[-1]
    after = CLAUSE_END.split(s.text[c.at + len(c.text):])[0]
    window = _content(before)[-AROUND:] + _content(after)[:AROUND]
    return len({_singular(w)[:NEAR_STEM] for w in window} & words)


def _content(text: str) -> list[str]:
    return [w for w in fold(text).split() if w not in STOP_WORDS]
