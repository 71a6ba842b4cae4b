"""Extractive answers from passages: the best candidate of the kind the question asks for, not named in the question,
stated by a cited passage sentence; when none is, the answer says so."""

from __future__ import annotations

from attest.answer.asks import Asks, asks
from attest.answer.citations import entity_marker
from attest.answer.compose import _clean, compose_extractive
from attest.answer.evidence import Candidate, Sentence, candidates, fold, is_date
from attest.answer.lookup import EntityInfo, GraphLookup
from attest.answer.models import AnswerItem, ContextPath, ContextResponse
from attest.extract.ontology_terms import OntologyTerms
from attest.store.fulltext import FullText
from attest.vocab import ONT

VALUE_KINDS = frozenset({"date", "number"})
OTHER_KIND = 0.5  # a value where an entity is asked for, or the reverse, when nothing else is found ("what ...")


def compose_answer(question: str, context: ContextResponse, index: FullText | None, lookup: GraphLookup,
                   terms: OntologyTerms | None, skip: frozenset[str]) -> tuple[str, list[AnswerItem]]:
    """The answer of the facts (a retrieved path ending at something of the kind asked for, not named in the
    question) or of the passages (the best such candidate in a sentence that shares words with the question),
    whichever scores higher; else what the graph says of the question's entities, or that nothing supports one."""
    want = asks(question, terms)
    if want.kind == "yesno":
        return ("This question asks for a judgement (is it so or not); an extractive answer names only the entities and "
                "values the documents state, and does not judge."), []
    named = {e for link in context.links for e in link.entities}
    asked = f" {fold(question)} "
    ends = {lookup.ids.iri(p.end) for p in context.paths if p.end}
    details = lookup.details({iri for iri in ends if iri})

    def keep(path: ContextPath) -> bool:
        if path.end is None:
            return _fit(want, Candidate(path.value or "", None, None, 0.0), [], terms) > 0 and \
                not _named(path.label, asked)
        iri = lookup.ids.iri(path.end)
        info = details.get(iri) if iri else None
        if path.end in named or (info and _named(info.label, asked)):
            return False
        return _fit(want, Candidate(path.label, iri, None, 0.0), _local_types(info), terms) > 0

    text, answers = compose_extractive(context, keep, describe=False)
    if index is not None and context.sources:
        found = compose_from_passages(question, want, context, index, lookup, terms, skip)
        # the better supported of the two: a path's score (link, predicate relevance, coverage of the question)
        # against a passage sentence's (passage score times the share of the question's words it holds)
        if found is not None and (not answers or found[1][0].score > answers[0].score):
            return found
    if answers:
        return text, answers
    if index is not None and context.sources:
        what = "an answer" if want.kind == "any" else f"a {want.word}"
        return f"None of the retrieved facts or passages names {what} that answers the question.", []
    return compose_extractive(context, keep)


def compose_from_passages(question: str, want: Asks, context: ContextResponse, index: FullText, lookup: GraphLookup,
                          terms: OntologyTerms | None, skip: frozenset[str]) -> tuple[str, list[AnswerItem]] | None:
    """The best candidate of the kind asked for in the fused passages, quoting its sentence; None when there is none."""
    found, _ = candidates(index, context.sources, question, skip)
    named = {e for link in context.links for e in link.entities}
    details = lookup.details({c.iri for c in found if c.iri})
    asked = f" {fold(question)} "
    best: dict[str, tuple[float, Candidate, Sentence]] = {}
    for c in found:
        if c.sentence is None:  # never: candidates() reads them from sentences
            continue
        label = details[c.iri].label if c.iri and c.iri in details else c.text
        if c.iri and lookup.ids.of(c.iri) in named:
            continue
        if any(_named(x, asked) for x in {c.text, label}):
            continue
        fit = _fit(want, c, _local_types(details.get(c.iri)) if c.iri else [], terms)
        if not fit:
            continue
        key = c.iri or f"value:{fold(c.text)}"
        score = c.score * fit
        if key not in best or score > best[key][0]:
            best[key] = (score, c, c.sentence)
    if not best:
        return None
    ranked = sorted(best.values(), key=lambda x: (-x[0], x[2].passage, x[2].start))
    score, top, s = ranked[0]
    where = f"{s.document or 'document'}, characters {s.start}-{s.end}"
    quote = _clean(s.text).replace('"', "'")
    if top.iri:
        ident = lookup.ids.of(top.iri)  # None only for an IRI without a citable id (str() writes it as before)
        label = details[top.iri].label if top.iri in details else top.text
        text = f"{_clean(label)} {entity_marker(str(ident))}: \"{quote}\" ({where})."
        item = AnswerItem(id=ident, label=label, score=round(score, 4))
    else:
        subject = _sentence_entity(found, s)
        cite = f" {entity_marker(str(lookup.ids.of(subject)))}" if subject else ""
        text = f"{_clean(top.text)}: \"{quote}\" ({where}){cite}."
        item = AnswerItem(label=top.text, value=top.text, score=round(score, 4))
    return text[0].upper() + text[1:], [item]


def _named(text: str, asked: str) -> bool:
    """Whether the (folded, space-padded) question names it, as whole words. (Half of its words is too much: an
    answer's label may carry a title or a family name the question also uses, as "Queensland Senator ...".)"""
    folded = fold(text)
    return bool(folded) and f" {folded} " in asked


def _local_types(info: EntityInfo | None) -> list[str]:
    """The entity's classes in the ontology's namespace, by local name."""
    return [t[len(ONT):] for t in info.types if t.startswith(ONT)] if info else []


def _fit(want: Asks, c: Candidate, types: list[str], terms: OntologyTerms | None) -> float:
    """1 when the candidate is of the kind asked for, less when the question's kind is open, else 0."""
    if want.kind in VALUE_KINDS:
        if c.iri:
            return 0.0
        return 1.0 if (want.kind == "date") == is_date(c.text) else 0.0
    if want.kind == "any":
        if want.noun and c.sentence is not None:  # "which band": a sentence that calls it a band fits best
            said = f" {fold(c.sentence.text)} "
            return (1.0 if c.iri else OTHER_KIND) * (1.0 if f" {want.noun} " in said or f" {want.noun}s " in said
                                                     else OTHER_KIND)
        return 1.0 if c.iri else OTHER_KIND
    if not c.iri or want.cls is None:
        return 0.0
    known = [t for t in types if terms is not None and t in terms.types]
    # typed by no ontology class (a graph loaded under its own vocabulary): it cannot be ruled out
    if not known or terms is None:
        return 1.0
    return 1.0 if any(terms.is_subtype(t, want.cls) for t in known) else 0.0


def _sentence_entity(found: list[Candidate], sentence: Sentence) -> str | None:
    """The first entity the sentence mentions (what the value is said of), else None."""
    return next((c.iri for c in found if c.iri and c.sentence is sentence), None)
