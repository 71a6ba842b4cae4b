"""Question words against many properties' words at once: `term_matches` of each, from one pass per new word."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

from rapidfuzz import fuzz

from attest.answer import lexicon
from attest.answer.predicates import (
    FUZZY_CUTOFF, FUZZY_MATCH, LEXICAL, LEXICAL_MIN, MAX_SCORED, MIN_STEM, PREFIX_MATCH, PredicateWords, Term,
)

KEPT = 8  # indexes kept, most recently used first (one per set of properties: a store's, until its schema changes)
Postings = dict[str, list[tuple[int, float]]]  # a word -> (which of the PredicateWords, its weight there)


class WordsIndex:
    """Inverted lists over a sequence of PredicateWords: each lemma, collocation's last word and stem -> where it is."""

    def __init__(self, many: Sequence[PredicateWords]) -> None:
        self.many = list(many)  # held, so that the ids keying the index are not reused while it is kept
        self.related: Postings = {}
        self.tails: Postings = {}
        self.stems: Postings = {}
        for i, words in enumerate(self.many):
            for lemma, weight in words.related.items():
                self.related.setdefault(lemma, []).append((i, weight))
                if "_" in lemma:
                    self.tails.setdefault(lemma.rsplit("_", 1)[1], []).append((i, weight))
            for stem, weight in words.stems.items():
                self.stems.setdefault(stem, []).append((i, weight))

    def matches(self, term: Term) -> list[tuple[float, float]]:
        """`predicates._term_match(term, words)` for each of the PredicateWords, in order."""
        n = len(self.many)
        related = [0.0] * n
        if term.related:
            for lemma, weight in term.related.items():  # lexicon.similarity: the best product over shared lemmas
                for i, other in self.related.get(lemma, ()):
                    if weight * other > related[i]:
                        related[i] = weight * other
            heads = [lemma for lemma, weight in term.related.items() if weight == 1.0]
            collocations = [0.0] * n  # ... or, where that stays under COLLOCATION_HEAD, a collocation ending in the word
            for head in heads:
                for i, weight in self.tails.get(head, ()):
                    collocations[i] = max(collocations[i], lexicon.COLLOCATION_HEAD * weight)
            for i in range(n):
                if related[i] < lexicon.COLLOCATION_HEAD:
                    related[i] = max(related[i], collocations[i])
                related[i] *= LEXICAL
                if related[i] < LEXICAL_MIN:
                    related[i] = 0.0
        spelled = [0.0] * n
        for word, places in self.stems.items():
            score = _spelling(word, term.stem)
            if score:
                for i, weight in places:
                    spelled[i] = max(spelled[i], score * weight)
        return list(zip(spelled, related))


def term_matches_many(terms: list[Term], many: Sequence[PredicateWords]) -> list[list[tuple[float, float]]]:
    """`[predicates.term_matches(terms, words) for words in many]`: a word every one of them has met is read from their
    memo; another is matched against all at once through an inverted index (kept for the same sequence), and the
    result remembered on each, as `term_matches` does."""
    out: list[list[tuple[float, float]]] = [[] for _ in many]
    index: WordsIndex | None = None
    for term in terms:
        known = [words.scored.get(term.word) for words in many] if term.word else [None]
        if all(k is not None for k in known) and many:
            for row, k in zip(out, known):
                assert k is not None  # checked just above
                row.append(k)
            continue
        index = index or _index_of(many)
        found = index.matches(term)
        for row, words, match in zip(out, many, found):
            row.append(match)
            if term.word:
                if len(words.scored) >= MAX_SCORED:
                    words.scored.clear()
                words.scored[term.word] = match
    return out


def _spelling(word: str, stem: str) -> float:
    """How well a property's stem matches a question word's by spelling (predicates._term_match's rule), 0 for not."""
    if word == stem:
        return 1.0
    if min(len(word), len(stem)) >= MIN_STEM and (word.startswith(stem) or stem.startswith(word)):
        return PREFIX_MATCH
    if len(word) >= 5 and fuzz.ratio(word, stem) >= FUZZY_CUTOFF:
        return FUZZY_MATCH
    return 0.0


_INDEXES: OrderedDict[tuple[int, ...], WordsIndex] = OrderedDict()
_lock = threading.Lock()


def _index_of(many: Sequence[PredicateWords]) -> WordsIndex:
    key = tuple(id(words) for words in many)
    with _lock:
        index = _INDEXES.get(key)
        if index is not None:
            _INDEXES.move_to_end(key)
            return index
    index = WordsIndex(many)
    with _lock:
        _INDEXES[key] = index
        while len(_INDEXES) > KEPT:
            _INDEXES.popitem(last=False)
    return index
