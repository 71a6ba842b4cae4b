"""The rule extractor's EntityRulers applied to a chunk as spaCy applies them in a pipeline, without writing doc.ents.

Interface (used by attest.extract.rules only):
    found = ruled_entities(groups, doc, table)   # [Ruled(start, end, label_, text)] in token order

The rulers' patterns are loaded by spaCy (EntityRuler.add_patterns) and matched by their PhraseMatcher; what
EntityRuler.__call__ then does, one ruler after another (spaCy 3.8: match() keeps the non-empty matches, longest
first, then the earliest; set_annotations() skips a match over a token an earlier ruler's entity holds, or whose
first or last token an accepted match of the same ruler holds, and appends the rest to doc.ents), is done here on
plain tuples: setting and reading doc.ents builds spans and Token objects for the whole doc three times over. One
difference: the rulers of a group are matched together, as one ruler.
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


def ruled_entities(groups: list[list[EntityRuler]], doc: Doc, table: TokenTable) -> list[Ruled]:
    """The entities the rulers set, group after group as pipeline steps; the rulers of one group match as one ruler
    (the known labels matched as written and those matched in any case: a longer known name is not cut by a shorter
    one that another ruler of its group matches inside it, "Web" in "World Wide Web Consortium")."""
    covered: set[int] = set()  # tokens of entities set by the groups before (Token.ent_type is set)
    found: list[tuple[int, int, str]] = []
    strings = doc.vocab.strings
    for group in groups:
        # EntityRuler.match: its token Matcher holds no pattern (ours are phrases), so only the phrase matches
        final = {(start, end, k, match_id) for k, ruler in enumerate(group)
                 for match_id, start, end in ruler.phrase_matcher(doc) if start != end}
        matches = []
        for start, end, k, match_id in final:
            ids = group[k]._ent_ids
            label, known = ids[match_id] if match_id in ids else (strings[match_id], "")
            # longest first, then the earliest; of one span's labels, the earlier ruler's, then the one written as
            # the text is ("Oxigraph" over "oxigraph"), then by name: the same entity whatever the matcher's order
            matches.append((-(end - start), start, k, known != table.text_of(start, end), known, label, end))
        seen: set[int] = set()
        for _, start, _, _, _, label, end in sorted(matches):
            if not covered.isdisjoint(range(start, end)):
                continue  # overwrite is off: a token already in an entity keeps it
            if start not in seen and end - 1 not in seen:
                found.append((start, end, label))
                seen.update(range(start, end))
        covered |= seen
    return [Ruled(start, end, label, table.text_of(start, end)) for start, end, label in sorted(found)]
