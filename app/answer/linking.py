"""Fuzzy matching of text to entity labels (rapidfuzz): a label written instead of an id, and entities named in a question."""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from app.answer.lookup import LabelIndex

LABEL_CUTOFF = 80.0  # token_sort_ratio at or above which a written label counts as naming an entity
LINK_CUTOFF = 88.0  # stricter for question n-grams: many n-grams, each a chance for a spurious match
SHORT_LABEL = 4  # labels this short (RDF, OWL) must match a question token exactly
MAX_NGRAM = 5
MAX_LINK_WORDS = 300  # a 10 KB question is linked on its first 300 words
MIN_MENTION = 3
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#.'-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
SEPARATORS = re.compile(r"[\s_~./:-]+")


def normalize(text: str) -> str:
    return SEPARATORS.sub(" ", text.casefold()).strip()


def label_confidence(score: float) -> float:
    """DESIGN.md: a label match is worth 0.5-0.9, scaled by similarity from the cutoff (0.5) to identical (0.9)."""
    span = 100.0 - LABEL_CUTOFF
    return round(0.5 + 0.4 * max(0.0, min(1.0, (score - LABEL_CUTOFF) / span)), 4)


class LabelMatcher:
    """Matches written names against every entity label and alternative label."""

    def __init__(self, index: LabelIndex) -> None:
        self.index = index
        if index.normalized is None:
            index.normalized = [normalize(label) for label in index.labels]
        self.normalized = index.normalized
        if index.phrases is None:
            phrases: dict[str, dict[tuple[str, ...], set[str]]] = {}  # first word -> label's words -> entity ids
            for label, entity_id in zip(self.normalized, index.ids):
                if len(label) >= MIN_MENTION:
                    words = tuple(label.split(" "))
                    phrases.setdefault(words[0], {}).setdefault(words, set()).add(entity_id)
            index.phrases = phrases
        self.phrases = index.phrases

    def best(self, written: str) -> tuple[str, float] | None:
        """(entity id, similarity 0-100) of the label closest to `written`, or None under the cutoff."""
        text = normalize(written)
        if not text or not self.normalized:
            return None
        hit = process.extractOne(text, self.normalized, scorer=fuzz.token_sort_ratio, score_cutoff=LABEL_CUTOFF)
        if hit is None:
            return None
        _, score, i = hit
        if len(self.normalized[i]) <= SHORT_LABEL and score < 100:
            return None
        return self.index.ids[i], float(score)

    def mentions(self, text: str) -> set[str]:
        """Entities whose label occurs in `text` as whole words (exact after normalization): cheap, for source snippets."""
        words = normalize(" ".join(WORD.findall(text))).split(" ")
        found: set[str] = set()
        for i, word in enumerate(words):
            for label, ids in self.phrases.get(word, {}).items():
                if len(label) == 1 or tuple(words[i:i + len(label)]) == label:
                    found |= ids
        return found

    def link(self, question: str) -> dict[str, float]:
        """Entities named in a question: entity id -> best similarity (0-100) of any n-gram to one of its labels."""
        words = [normalize(w) for w in WORD.findall(question)][:MAX_LINK_WORDS]
        grams = {" ".join(words[i:i + n]) for n in range(1, MAX_NGRAM + 1) for i in range(len(words) - n + 1)}
        grams.discard("")
        if not grams or not self.normalized:
            return {}
        gram_list = sorted(grams)
        found: dict[str, float] = {}
        for gram in gram_list:
            for label_text, score, i in process.extract(gram, self.normalized, scorer=fuzz.ratio,
                                                       score_cutoff=LINK_CUTOFF, limit=5):
                if len(label_text) <= SHORT_LABEL and score < 100:
                    continue
                entity_id = self.index.ids[i]
                found[entity_id] = max(found.get(entity_id, 0.0), float(score))
        return found
