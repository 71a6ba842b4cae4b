"""Words of a question or a label, as linking and relation matching read them: found, and folded for comparison."""

from __future__ import annotations

import functools
import re
import unicodedata

WORD = re.compile(r"[^\W_]+(?:['’+#.-][^\W_]+)*[+#]*")
FOLD = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=200_000)  # every label is folded again each time the label index is rebuilt
def normalize(text: str) -> str:
    """Case, diacritics, punctuation and underscores folded away: "Émile_Zola's" -> "emile zola s"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return FOLD.sub(" ", "".join(c for c in decomposed if not unicodedata.combining(c))).strip()
