"""Whether one name is the acronym of another ("W3C" of "World Wide Web Consortium"): one entity, not two."""

from __future__ import annotations

import re
from functools import lru_cache

_LETTER_COUNT = re.compile(r"([A-Z])([2-9])")  # "W3C": three W's, a common way of writing a repeated initial


def _letters(short: str) -> str | None:
    """The initials an acronym stands for, or None if the name is not written as one (2+ capitals, no spaces)."""
    compact = short.replace(".", "")
    if not re.fullmatch(r"[A-Z][A-Z0-9&]+", compact) or sum(c.isalpha() for c in compact) < 2:
        return None
    expanded = _LETTER_COUNT.sub(lambda m: m.group(1) * int(m.group(2)), compact).replace("&", "")
    return expanded if expanded.isalpha() else None


def _initials(long: str) -> tuple[str, str]:
    """The initials of a name's capitalized words, with and without a leading article ("The")."""
    words = [w for w in re.split(r"[\s\-]+", long) if w]
    caps = "".join(w[0] for w in words if w[0].isupper())
    return caps, (caps[1:] if words and words[0] in ("The", "A", "An") else caps)


@lru_cache(maxsize=65_536)  # names repeat across chunks
def is_acronym(short: str, long: str) -> bool:
    """Whether `short` abbreviates `long` by the initials of its capitalized words, either way round."""
    for a, b in ((short, long), (long, short)):
        letters = _letters(a)
        if letters and " " in b.strip() and letters in _initials(b):
            return True
    return False
