"""Names nothing types, in a chunk of general prose: the general module's NamedThing, not the technical default."""

from __future__ import annotations

from collections.abc import Callable

from spacy.tokens import Doc

from attest.extract.mentions import Mention


def general_untyped(doc: Doc, mentions: list[Mention], root: str | None, prose_kind: Callable[[Mention], bool],
                    technical_words: bool) -> None:
    """Give `root` (ont:NamedThing, a name of no known kind) to the names the rule extractor typed only by its
    default guess (Technology; marked in doc.user_data["untyped"] by their first token) and that nothing retyped since,
    in a chunk of general prose: one that names a person, place, body, work or event by evidence of its own, no other
    kind of thing so, and no technical kind in lower case (`technical_words`). Elsewhere the default stands: a
    capitalized name in technical text is most often a technology, while in prose it is anything."""
    untyped = doc.user_data.get("untyped")
    if not untyped or root is None or technical_words:
        return
    strong = [m for m in mentions if m.type is not None and not m.weak]
    if not any(prose_kind(m) for m in strong) or not all(prose_kind(m) for m in strong):
        return
    for m in mentions:
        if m.start in untyped and m.weak and not m.known:
            m.type = root
