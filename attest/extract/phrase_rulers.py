"""The rule extractor's EntityRulers applied to a chunk as spaCy applies them in a pipeline, without writing doc.ents.

Interface (used by attest.extract.rules only):
    found = ruled_entities(rulers, doc, table)   # [Ruled(start, end, label_, text)] in token order

The rulers' patterns are loaded by spaCy (EntityRuler.add_patterns) and matched by their PhraseMatcher; what
EntityRuler.__call__ then does, one ruler after another (spaCy 3.8: match() keeps the non-empty matches, longest
first, then the earliest; set_annotations() skips a match over a token an earlier ruler's entity holds, or whose
first or last token an accepted match of the same ruler holds, and appends the rest to doc.ents), is done here on
plain tuples: setting and reading doc.ents builds spans and Token objects for the whole doc three times over.
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.pipeline import EntityRuler
from spacy.tokens import Doc

from attest.extract.token_table import TokenTable


class Ruled(NamedTuple):
    """An entity a ruler set: what the code read from its doc.ents Span."""

    start: int
    end: int
    label_: str
    text: str


def ruled_entities(rulers: list[EntityRuler], doc: Doc, table: TokenTable) -> list[Ruled]:
    covered: set[int] = set()  # tokens of entities set by the rulers before (Token.ent_type is set)
    found: list[tuple[int, int, str]] = []
    strings = doc.vocab.strings
    for ruler in rulers:
        # EntityRuler.match: its token Matcher holds no pattern (ours are phrases), so only the phrase matches
        final = set([(m_id, start, end) for m_id, start, end in ruler.phrase_matcher(doc) if start != end])
        matches = sorted(final, key=lambda m: (m[2] - m[1], -m[1]), reverse=True)
        seen: set[int] = set()
        for match_id, start, end in matches:
            if not covered.isdisjoint(range(start, end)):
                continue  # overwrite is off: a token already in an entity keeps it
            if start not in seen and end - 1 not in seen:
                label = ruler._ent_ids[match_id][0] if match_id in ruler._ent_ids else strings[match_id]
                found.append((start, end, label))
                seen.update(range(start, end))
        covered |= seen
    return [Ruled(start, end, label, table.text_of(start, end)) for start, end, label in sorted(found)]
