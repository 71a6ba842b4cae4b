"""Words for a term from its IRI: the local name split at case changes, underscores and dashes, percent-decoded."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import unquote

SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-.~+\s]+")
MAX_WORDS = 8


def local_name(iri: str) -> str:
    """The part after the last '#', '/' or ':' (trailing separators skipped), percent-decoded."""
    trimmed = iri.rstrip("/#:")
    cut = max(trimmed.rfind("#"), trimmed.rfind("/"), trimmed.rfind(":"))
    return unquote(trimmed[cut + 1:])


def words_of(iri: str) -> str:
    """"directed_by" -> "directed by", "hasImdbRating" -> "has imdb rating"; "" when the local name has
    fewer than two letters."""
    parts = [w for w in SPLIT.split(local_name(iri)) if w]
    # a word has more letters than digits: "mp3" is a word, the groups of a UUID or a hash ("6f1c2f0e") are not
    words = [w.lower() if not w.isupper() or len(w) == 1 else w for w in parts
             if sum(c.isalpha() for c in w) > sum(c.isdigit() for c in w)]
    if sum(c.isalpha() for w in words for c in w) < 2:
        return ""  # "p1", "123", a uuid: nothing a person would call it
    return " ".join(words[:MAX_WORDS])


def fallback_name(iri: str, kind: str) -> str:
    """A name for a term whose IRI has no usable local name: its kind and a short digest of the IRI."""
    return f"{kind} {hashlib.sha256(iri.encode()).hexdigest()[:6]}"


def camel(words: str) -> str:
    """"release year" -> "ReleaseYear" (for minted class names)."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", words) if w) or "Thing"
