"""Types of prose the rule extractor's readings leave wrong: a people's adjective, a name nothing types."""

from __future__ import annotations

from collections.abc import Callable

from spacy.tokens import Doc

from attest.extract import rules_lexicon as lex
from attest.extract.demonyms import demonyms
from attest.extract.mentions import Mention


def general_untyped(doc: Doc, mentions: list[Mention], root: str | None, type_of: Callable[[str], str | None],
                    prose_kind: Callable[[Mention], bool], technical_words: bool) -> None:
    """Retype, once the chunk's relations are read (the relation classifier sees the types it was trained on):

    * a people's adjective ("American", "Norwegian"; attest.extract.demonyms) to its place's class (`type_of` the
      places lexicon's kind: Country, or Location for "European"), whatever
      the sentence made of it ("the American city of X" a City, "an American film directed by" a film, a default
      Technology): one name, one type, so that the graph holds one entity for it and not one per reading;
    * a name the extractor typed only by its default guess (Technology; marked in doc.user_data["untyped"] by its
      first token) and that nothing retyped since, to `root` (ont:NamedThing, a name of no known kind), in a chunk of
      general prose: one that names a person, place, body, work or event by evidence of its own, no other kind of
      thing so, and no technical kind in lower case (`technical_words`). Elsewhere the default stands: a capitalized
      name in technical text is most often a technology, while in prose it is anything.

    Each keeps its confidence: the evidence is no stronger than before, only its reading."""
    untyped = doc.user_data.get("untyped", set())
    adjectives, places = demonyms(), lex.places()
    for m in mentions:
        if not m.known and m.end - m.start == 1 and m.text in adjectives \
                and (kind := type_of(places.get(adjectives[m.text], "country")) or type_of("location")):
            m.type = kind
            untyped.discard(m.start)
    if not untyped or root is None or technical_words:
        return
    strong = [m for m in mentions if m.type is not None and not m.weak]
    if not any(prose_kind(m) for m in strong) or not all(prose_kind(m) for m in strong):
        return
    for m in mentions:
        if m.start in untyped and m.weak and not m.known:
            m.type = root
