"""The relation a question asks about, as its own words: how many of them a sentence writes around a candidate, and
whether a fact's predicate is what the question says of something else."""

from __future__ import annotations

import functools
import re

from attest.answer import lexicon
from attest.answer.asks import AUXILIARIES, NEAR_STEM, PREPOSITIONS, PUNCTUATION, WORD, Asks, asking_word, singular
from attest.answer.evidence import Candidate, fold
from attest.answer.predicates import PredicateWords, Term, stem, term_matches
from attest.answer.support import question_names
from attest.answer.words import normalize
from spacy.lang.en.stop_words import STOP_WORDS

RELATIVE = frozenset("who whom whose which that where when".split())  # words that open a clause inside a question
AROUND = 3  # content words each side of a candidate, within its clause, that may state the relation it stands in
FULL = 1.0  # a predicate's own word: a match by spelling or WordNet at full weight (not a related word's)
CLAUSE_END = re.compile(r"[;:()\[\]]|,\s+(?:but|while|which|who|whose|where|when)\b|\s(?:and|or)\s|\.\s")


def relation_words(question: str, want: Asks, skip: frozenset[str]) -> frozenset[str]:
    """The stems (first NEAR_STEM letters, singular) of the question's content words that state a relation: not a
    word of a name it writes (what it asks about), not the noun phrase that says what kind of answer it asks for, not
    a stop word; the AROUND nearest each side of the question word, in its clause. "Who was the first president of the
    association which published the journal?" -> {presi, assoc}."""
    return frozenset(singular(fold(question[a:b]))[:NEAR_STEM] for a, b, role in _roles(question, want, skip)
                     if role == "relation")


@functools.lru_cache(maxsize=256)  # read for the passages' candidates and again for the facts' predicates
def _roles(question: str, want: Asks, skip: frozenset[str]) -> tuple[tuple[int, int, str], ...]:
    """(start, end, role) of each content word outside the names the question writes: "relation" (near the question
    word, in its clause), "asked" (the noun phrase of the kind asked for) or "other" (what describes something else:
    a relative clause, or words farther away)."""
    spans = [(start, end) for start, end, _ in question_names(question)]
    asked = fold(want.noun or "")
    clause, phrase = _clause(question)
    before: list[tuple[int, int]] = []
    after: list[tuple[int, int]] = []
    out: list[tuple[int, int, str]] = []
    for m in WORD.finditer(question):
        start, end = m.start(), m.end()
        word = fold(m.group(0))
        if any(a <= start < b for a, b in spans) or len(word) < 3 or word in skip or word in STOP_WORDS or " " in word:
            continue
        if start in phrase or singular(word) == asked:
            out.append((start, end, "asked"))
        elif start in clause:
            (before if clause[start] < 0 else after).append((start, end))
        else:
            out.append((start, end, "other"))
    # the words nearest the question word: farther ones tend to describe what the question names, not what it asks
    near = set(before[-AROUND:] + after[:AROUND])
    out += [(a, b, "relation" if (a, b) in near else "other") for a, b in before + after]
    return tuple(sorted(out))


def _clause(question: str) -> tuple[dict[int, int], set[int]]:
    """The words of the clause that holds the question word that asks, less the relative clauses inside it, by start
    -> place from the question word; and the starts of the noun phrase after it that says what kind of answer it asks
    for. "What show does a retired player, who missed a season, host?" -> "does a retired player" and "host", "show";
    "... an actress who starred in what for seven years?" -> "who starred in" and "for seven years"."""
    tokens = list(WORD.finditer(question))
    words = [t.group(0).casefold() for t in tokens]
    wh = asking_word(words) if words else None
    if wh is None:
        return {t.start(): 1 for t in tokens}, set()
    clause, stack, ids = 0, [0], []
    for i, w in enumerate(words):
        if w in RELATIVE and i != wh:
            clause += 1
            stack.append(clause)
        elif w in PUNCTUATION and len(stack) > 1:
            stack.pop()
        ids.append(stack[-1])
    end = wh + 1
    if words[wh] in ("which", "what", "name"):  # "which television and movie actor from": the kind asked for
        while end < len(words) and words[end] not in PREPOSITIONS | AUXILIARIES | PUNCTUATION | RELATIVE:
            end += 1
    phrase = {tokens[i].start() for i in range(wh + 1, end)}
    return {t.start(): i - wh for i, t in enumerate(tokens) if ids[i] == ids[wh] and i not in range(wh, end)}, phrase


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
    return len({singular(w)[:NEAR_STEM] for w in window} & words)


def _content(text: str) -> list[str]:
    return [w for w in fold(text).split() if w not in STOP_WORDS]


def says_of_another(question: str, want: Asks, skip: frozenset[str], predicate: list[PredicateWords]) -> bool:
    """Whether a fact's predicate (its words read either way) is what the question says of something else, not what
    it asks: a word the question writes away from the relation it asks and from the kind asked for is the predicate's
    own (a full match, by spelling or WordNet), and no word of that relation or kind is. "Who produced the single that
    the singer born in Kingston was known for?": a place of birth in Kingston names the singer, not the producer."""
    found = {"relation": False, "asked": False, "other": False}
    for role, term in _terms(question, want, skip):
        if not found[role]:
            found[role] = any(max(m) >= FULL for words in predicate for m in term_matches([term], words))
    return found["other"] and not (found["relation"] or found["asked"])


@functools.lru_cache(maxsize=256)  # the same question's words are weighed against every path's last predicate
def _terms(question: str, want: Asks, skip: frozenset[str]) -> tuple[tuple[str, Term], ...]:
    out = []
    for start, end, role in _roles(question, want, skip):
        word = normalize(question[start:end])
        if word and " " not in word:
            out.append((role, Term(stem(word), start, word, lexicon.related(word, general=True))))
    return tuple(out)
