"""Extractive answers from passages: the best candidate of the kind the question asks for, not named in the question,
stated by a cited passage sentence; a choice between two named options from comparable statements of both; when
nothing supports an answer, the answer says so."""

from __future__ import annotations

import re
from dataclasses import replace

from attest.answer.asks import NEAR_STEM, Asks, asks
from attest.answer.choices import compose_choice
from attest.answer.citations import entity_marker
from attest.answer.compose import _clean, compose_extractive
from attest.answer.evidence import (DATE, YEAR, Candidate, Sentence, candidates, content_words, entity_labels, fold,
                                   passage_topics)
from attest.answer.fit import Described, describe, fit
from attest.answer.lookup import EntityInfo, GraphLookup
from attest.answer.models import AnswerItem, ContextPath, ContextResponse
from attest.answer.predicates import describing_words
from attest.answer.relation import around, relation_words, says_of_another
from attest.answer.support import subjects, ties
from attest.extract.demonyms import demonyms
from attest.extract.ontology_terms import OntologyTerms, local_name
from attest.store.fulltext import FullText
from attest.vocab import ONT

NOTHING_SAID = Described(set(), set(), set(), False, 0)
ITSELF = 0.5  # a candidate that is what its own passage is about: the question asks something said of it, rarely it
BRIDGED = 1.25  # a sentence of a passage reached through a bridge entity (the second hop of a two-hop question)
ALIGNED = 2.0  # the sentence writes the question's word beside the candidate ("founded by" X)
NEAR_WORDS = 3  # ... within this many words
RELATED = 0.5  # more for each word of the question's relation its sentence writes around the candidate
# "X (15 June 1924 – 24 April 2005)": a life's span, its first date a birth, its second a death
LIFE_SPAN = re.compile(r"\((?:[^()]*;\s*)?(?P<born>[^();]*?\d{4})\s*[–-]\s*(?P<died>[^();]*?\d{4})\)")
BIRTH = frozenset("born birth".split())
DEATH = frozenset("died die dies death".split())
JUDGEMENT = ("This question asks for a judgement (is it so or not); an extractive answer names only the entities and "
             "values the documents state, and does not judge.")


def compose_answer(question: str, context: ContextResponse, index: FullText | None, lookup: GraphLookup,
                   terms: OntologyTerms | None, skip: frozenset[str]) -> tuple[str, list[AnswerItem]]:
    """The answer of the facts (a retrieved path ending at something of the kind asked for, not named in the
    question) or of the passages (the best such candidate in a sentence that shares words with the question),
    whichever scores higher; a choice between two named options from the passages about both; else that nothing
    supports one (or, without passages, what the graph says of the question's entities)."""
    want = asks(question, terms)
    if want.options:
        if index is not None and context.sources:
            return compose_choice(question, want, context, index, lookup, skip)
        return JUDGEMENT, []
    if want.kind == "yesno":
        return JUDGEMENT, []
    named = {e for link in context.links for e in link.entities}
    about = subjects(question, context.links)
    asked = f" {fold(question)} "
    ends = {lookup.ids.iri(p.end) for p in context.paths if p.end}
    details = lookup.details({iri for iri in ends if iri})
    facts = {r.id: r for r in context.relations}
    predicates = {facts[p.relations[-1]].triple[1] for p in context.paths if p.relations and p.relations[-1] in facts}
    texts = lookup.property_texts(predicates) if predicates else {}

    def of_another(path: ContextPath) -> bool:
        """Whether the path's last fact is what the question says of another thing (its relative clause, its far
        words), not what it asks."""
        fact = facts.get(path.relations[-1]) if path.relations else None
        if fact is None or fact.triple[1] not in texts:
            return False
        predicate, text = fact.triple[1], texts[fact.triple[1]]
        words = [describing_words(text, local_name(predicate), inverse) for inverse in (False, True)]
        return says_of_another(question, want, skip, words)

    def keep(path: ContextPath) -> bool:
        if path.start not in about:
            return False  # a fact of a word that says what is asked ("president"), not of what it is asked about
        if of_another(path):
            return False
        if path.end is None:
            value = path.value or ""
            kind = "date" if want.kind == "date" else "number" if want.kind == "number" else "value"
            return fit(want, Candidate(value, None, None, 0.0, kind), [], NOTHING_SAID, terms) == 1.0 and \
                not _named(path.label, asked)
        iri = lookup.ids.iri(path.end)
        info = details.get(iri) if iri else None
        if path.end in named or (info and _named(info.label, asked)):
            return False
        types = _local_types(info)
        if terms is not None and not any(t in terms.types for t in types):
            return want.kind not in ("date", "number")  # typed by no ontology class (a graph of its own): not ruled out
        # a path's end answers only when it is of the kind asked for (a passage sentence may say what it is)
        return fit(want, Candidate(path.label, iri, None, 0.0), types, NOTHING_SAID, terms) == 1.0

    text, answers = compose_extractive(context, keep, describe=False)
    if want.kind == "date" and want.noun == "year":  # "in what year": a date a fact holds answers by its year
        answers = [_year_of(a) for a in answers]
    if want.kind == "place":
        answers = [_place_of(a) for a in answers]
    if index is not None and context.sources:
        found = compose_from_passages(question, want, context, index, lookup, terms, skip)
        # the better supported of the two: a path's score (link, predicate relevance, coverage of the question)
        # against a passage sentence's (passage score times the share of the question's words it holds)
        if found is not None and (not answers or found[1][0].score > answers[0].score):
            return found
    if answers:
        return text, answers
    if index is not None and context.sources:
        what = "an answer" if want.kind == "any" and not want.noun else f"a {want.word}"
        return f"None of the retrieved facts or passages names {what} that answers the question.", []
    return compose_extractive(context, keep)


def compose_from_passages(question: str, want: Asks, context: ContextResponse, index: FullText, lookup: GraphLookup,
                          terms: OntologyTerms | None, skip: frozenset[str]) -> tuple[str, list[AnswerItem]] | None:
    """The best candidate of the kind asked for in the fused passages, quoting its sentence; None when there is none.
    A candidate scores its sentence's score (the passage's fused score times the share of the question's words the
    sentence holds) times how well it fits the kind asked for, less when it is what its own passage is about, more
    in a passage reached through a bridge entity."""
    found, sentences = candidates(index, context.sources, question, skip)
    named = {e for link in context.links for e in link.entities}
    labels = entity_labels(index, context.sources)
    asked = f" {fold(question)} "
    question_words = set(fold(question).split())
    wanted = content_words(question, skip)
    bridged = {s.chunk for s in context.sources[1:] if s.bridges}
    cited = _chunk_entities(sentences)
    topics = passage_topics(index, context.sources)
    tied = ties(question, want, context.links, sentences, topics, lookup.ids.of, skip)
    relation = relation_words(question, want, skip)
    said: dict[str, Described] = {}
    best: dict[str, tuple[float, Candidate, str]] = {}
    for c in found:
        s = c.sentence
        if s is None:  # never: candidates() reads them from sentences
            continue
        entity = c.iri or _entity_at(found, c)
        label = labels[c.iri][0] if c.iri and c.iri in labels and labels[c.iri][0] else c.text
        if c.iri and lookup.ids.of(c.iri) in named:
            continue
        if not tied.supports(s):
            continue  # a sentence tied to nothing the question is about names a guess, not an answer
        if any(_named(x, asked) or _all_named(x, question_words) for x in {c.text, label}):
            continue
        if c.kind == "date" and (year := YEAR.search(c.text)) and year.group(0) in question_words:
            continue  # a date in the year the question names is what it asks from, not what it asks
        cite = entity or (s.entities[0] if s.entities else cited.get(s.chunk))
        if cite is None:
            continue  # nothing to cite it by
        if c.text not in said:
            said[c.text] = describe(c.text, sentences)
        f = fit(want, c, labels[entity][1] if entity in labels else [], said[c.text], terms,
                lambda text: _named(text, asked) or _all_named(text, question_words))
        if not f:
            continue
        score = c.score * f
        if fold(s.title.split(" (")[0]) == fold(c.text) or entity and entity in topics.get(s.chunk, ()):
            score *= ITSELF
        if s.chunk in bridged:
            score *= BRIDGED
        if _beside(want, c) or _life_date(c, question_words) or _role_beside(c, wanted):
            score *= ALIGNED
        score *= 1.0 + RELATED * (around(c, relation) + called(want, said[c.text]))
        key = fold(c.text)
        if key not in best or score > best[key][0]:
            best[key] = (score, c, cite)
    if not best:
        return None
    # among equals the fuller name ("Columbus, Ohio" before "Columbus"), then the first said
    score, top, cite = sorted(best.values(), key=lambda x: (-x[0], -len(x[1].text), _order(x[1])))[0]
    if top.kind == "date" and want.kind == "date":
        top = _as_asked(top, want, sentences)
    if want.kind == "place" and (place := demonyms().get(top.text)):  # "an Australian band": Australia, the place
        top = replace(top, text=place, iri=None)
    s = top.sentence
    assert s is not None
    where = f"{s.document or 'document'}, characters {s.start}-{s.end}"
    quote = _clean(s.text).replace('"', "'")
    ident = lookup.ids.of(cite)  # None only for an IRI without a citable id (str() writes it as before)
    value = top.kind in ("date", "number")
    text = f"{_clean(top.text)} {entity_marker(str(ident))}: \"{quote}\" ({where})."
    answer_id = ident if top.iri and top.iri == cite else None
    item = AnswerItem(id=answer_id, label=top.text, value=top.text if value else None, score=round(score, 4))
    return text[0].upper() + text[1:], [item]


def called(want: Asks, said: Described) -> bool:
    """Whether the passages call a candidate what the question asks for ("Navvulata is a 1998 Telugu comedy film" for
    "which comedy", "the actress X" for "which actress"): counted as one more word of the relation stated of it."""
    return bool(want.noun) and (want.noun in said.words or want.noun in said.before)


def _year_of(answer: AnswerItem) -> AnswerItem:
    """A value answer that is a fuller date ("3 March 1901") as its year; any other answer as it is."""
    year = YEAR.search(answer.value or "") if answer.value is not None else None
    if year is None or year.group(0) == answer.value:
        return answer
    return answer.model_copy(update={"value": year.group(0), "label": year.group(0)})


def _place_of(answer: AnswerItem) -> AnswerItem:
    """A people's adjective that answers "where" or "which country" ("citizen of ... Australian"): the place it names."""
    place = demonyms().get(answer.label)
    return answer.model_copy(update={"label": place}) if place else answer


def _beside(want: Asks, c: Candidate) -> bool:
    """Whether the sentence writes the question's word beside the candidate as the question writes it beside what it
    asks ("founded by who" / "founded by Betty Cohen", "formed in what year" / "formed in 1993")."""
    s = c.sentence
    if not want.near or s is None:
        return False
    window = fold(s.text[:c.at]).split()[-NEAR_WORDS:] + fold(s.text[c.at + len(c.text):]).split()[:NEAR_WORDS]
    stems = {w[:NEAR_STEM] for w in window}
    return any(w in stems for w in want.near)


def _role_beside(c: Candidate, wanted: set[str]) -> bool:
    """Whether a role the sentence names follows a verb the question uses ("What position did he play?" / "plays as
    a striker")."""
    s = c.sentence
    if c.kind != "description" or s is None:
        return False
    verbs = [w for w in s.text[:c.at].split()[-NEAR_WORDS:] if w[:1].islower()]  # not the subject's name
    return bool(content_words(" ".join(verbs), frozenset()) & wanted)


def _life_date(c: Candidate, question_words: set[str]) -> bool:
    """Whether a date is the birth (or death) in a life's span written after a name, "X (15 June 1924 – 24 April
    2005)", and the question asks when someone was born (or died)."""
    s = c.sentence
    if c.kind != "date" or s is None:
        return False
    for m in LIFE_SPAN.finditer(s.text):
        if question_words & BIRTH and m.start("born") <= c.at < m.end("born"):
            return True
        if question_words & DEATH and m.start("died") <= c.at < m.end("died"):
            return True
    return False


def _as_asked(top: Candidate, want: Asks, sentences: list[Sentence]) -> Candidate:
    """A date as precise as the question asks: "what year" the year of a fuller date; "when" or "what date" the fuller
    date the passages state in a year named alone (when they state exactly one in that year), with its sentence."""
    year = YEAR.search(top.text)
    if year is None:
        return top
    if want.noun == "year":
        return Candidate(year.group(0), None, top.sentence, top.score, "date", top.at + year.start())
    if want.noun not in (None, "date", "day") or top.text != year.group(0):
        return top
    fuller: dict[str, Candidate] = {}
    for s in sentences:
        for d in DATE.finditer(s.text):
            if d.group(0) != year.group(0) and YEAR.search(d.group(0)) and year.group(0) in d.group(0).split()[-1:]:
                fuller.setdefault(d.group(0), Candidate(d.group(0), None, s, top.score, "date", d.start()))
    return next(iter(fuller.values())) if len(fuller) == 1 else top


def _order(c: Candidate) -> tuple[int, int]:
    s = c.sentence
    return (s.passage, s.start + c.at) if s else (0, 0)


def _entity_at(found: list[Candidate], c: Candidate) -> str | None:
    """The entity a mention names inside the candidate's words in its sentence (a name the extractor also found)."""
    for m in found:
        if m.iri and m.sentence is c.sentence and c.at <= m.at < c.at + len(c.text) and m.text in c.text:
            return m.iri
    return None


def _chunk_entities(sentences: list[Sentence]) -> dict[str, str]:
    """Chunk -> the first entity it mentions (what a sentence naming none speaks of: its passage's subject)."""
    out: dict[str, str] = {}
    for s in sentences:
        if s.entities and s.chunk not in out:
            out[s.chunk] = s.entities[0]
    return out


def _named(text: str, asked: str) -> bool:
    """Whether the (folded, space-padded) question names it, as whole words. (Half of its words is too much: an
    answer's label may carry a title or a family name the question also uses, as "Queensland Senator ...".)"""
    folded = fold(text)
    return bool(folded) and f" {folded} " in asked


def _all_named(text: str, words: set[str]) -> bool:
    """Whether every word of a name of two or more words is in the question ("Kerry Saxby-Junna" and
    "Saxby-Junna, Kerry")."""
    folded = fold(text).split()
    return len(folded) > 1 and all(w in words for w in folded)


def _local_types(info: EntityInfo | None) -> list[str]:
    """The entity's classes in the ontology's namespace, by local name."""
    return [t[len(ONT):] for t in info.types if t.startswith(ONT)] if info else []
