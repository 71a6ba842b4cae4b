"""How much of a text reads as English: the share of its words that are English function words (no model needed)."""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

WORD = re.compile(r"[^\W\d_]+")
MIN_WORDS = 20  # texts with fewer lower-case words (a title, a list of names, a table) are not judged
LITTLE_ENGLISH = 0.15  # English prose runs at 0.2-0.6 of its lower-case words; French, German or Spanish under 0.1


def english_share(text: str) -> float:
    """Share of the lower-case words that are English stop words; 1.0 for a text of fewer than MIN_WORDS lower-case
    words (names, list items and table cells are mostly capitalized: they say nothing of the language)."""
    words = [w for w in WORD.findall(text) if w.islower()]
    if len(words) < MIN_WORDS:
        return 1.0
    return sum(w in STOP_WORDS for w in words) / len(words)


def reads_as_english(text: str) -> bool:
    return english_share(text) >= LITTLE_ENGLISH
