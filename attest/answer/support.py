"""Whether evidence is tied to what a question is about: passages naming what the question names, passages about an
entity such a passage names (the second hop), and sentences holding most of the question's own words."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from attest.answer.asks import Asks
from attest.answer.evidence import Sentence, content_words, fold, names
from attest.answer.models import ContextLink
from attest.extract.rules_lexicon import is_common

JOINERS = frozenset({"of", "for", "&"})  # the words that join a longer name's words ("Society for Clinical Minds")


@dataclass(frozen=True)
class Ties:
    """What ties evidence to a question: the passages (chunks) tied to it, and its content words less those that only
    say what kind of answer it asks for."""

    chunks: frozenset[str]
    words: frozenset[str]

    def supports(self, sentence: Sentence) -> bool:
        """A sentence of a tied passage, or one that (with its passage's heading) holds most of the question's words:
        more than half, so that the words it shares say more of the question than the words it lacks."""
        if sentence.chunk in self.chunks:
            return True
        held = content_words(f"{sentence.title} {sentence.text}", frozenset()) & self.words
        return 2 * len(held) > len(self.words)


def question_names(question: str) -> list[tuple[int, int, str]]:
    """The names the question writes (capitalized runs, its first word only when no common English word; no name of
    one common word, as "Death" of "Death of Samantha"), as (start, end, folded name)."""
    found = names(Sentence("", None, 0, len(question), question, 0, 0.0, 0.0), 0.0)
    return [(c.at, c.at + len(c.text), fold(c.text)) for c in found
            if fold(c.text) and not (" " not in c.text and is_common(c.text))]


def subjects(question: str, links: list[ContextLink]) -> frozenset[str]:
    """The ids of the entities the question is about: those of the spans that hold a whole name it writes ("Journal of
    Psychotherapy Integration", not "young" of "Jung Joon-young"); when it writes no name, those of every linked span
    ("the telephone"). A common noun beside a name ("the first president of X") says what is asked of X, not what
    the question is about."""
    return _subjects(question_names(question), links)


def _subjects(written: list[tuple[int, int, str]], links: list[ContextLink]) -> frozenset[str]:
    if not written:
        return frozenset(e for link in links for e in link.entities)
    return frozenset(e for link in links for e in link.entities
                     if any(link.start <= start and end <= link.end for start, end, _ in written))


def ties(question: str, want: Asks, links: list[ContextLink], sentences: list[Sentence], topics: dict[str, set[str]],
         id_of: Callable[[str], str | None], skip: frozenset[str]) -> Ties:
    """The passages tied to the question: those that mention (or are about) an entity it is about or write a name it
    writes, then those about an entity one of these mentions or names (reached through that bridge entity)."""
    spans = question_names(question)
    about = _subjects(spans, links)
    written = {name for _, _, name in spans}
    mentioned: dict[str, set[str]] = {}
    texts: dict[str, str] = {}
    headings: dict[str, str] = {}
    for s in sentences:
        mentioned.setdefault(s.chunk, set()).update(s.entities)
        texts[s.chunk] = f"{texts.get(s.chunk, s.title)} {s.text}"
        headings[s.chunk] = s.title.split(" (")[0].strip()  # "Mercury (planet)": what it is about, then which one
    first = {chunk for chunk, entities in mentioned.items()
             if any(id_of(e) in about for e in entities | topics.get(chunk, set()))
             or any(f" {name} " in f" {fold(texts[chunk])} " for name in written)}
    bridges = {e for chunk in first for e in mentioned[chunk]}
    # about a bridge entity by the graph's topics, or by its heading written as a name in a tied passage (the same name
    # may be two entities when the extractor typed its mentions differently)
    second = {chunk for chunk in mentioned if topics.get(chunk, set()) & bridges
              or any(_writes_name(texts[c], headings[chunk]) for c in first if c != chunk)}
    asked = content_words(want.noun or "", frozenset())
    words = content_words(question, skip) - asked
    return Ties(frozenset(first | second), frozenset(words))


def _writes_name(text: str, name: str) -> bool:
    """Whether the text writes the name whole, not as a piece of a longer one ("Psychotherapy" in "Journal of
    Psychotherapy Integration"): no capitalized word (other than a common one opening a sentence, "The"), or a word
    joining one ("of"), right before or after it."""
    if not name:
        return False
    for m in re.finditer(rf"(?<![\w'’-]){re.escape(name)}(?![\w-])(?!['’](?!s\b))", text):  # "Hall's" holds it
        before, after = text[:m.start()].split()[-2:], text[m.end():].split()[:1]
        if before[-1:] and (_capitalized(before[-1]) or before[-1] in JOINERS and before[0][:1].isupper()):
            continue
        if after and (after[0][:1].isupper() or after[0] in JOINERS):
            continue
        return True
    return False


def _capitalized(word: str) -> bool:
    """A capitalized word that could belong to a name: not one ending a sentence or clause ("Minds.") nor a common
    word ("The")."""
    return word[:1].isupper() and word[-1:].isalnum() and not is_common(word)
