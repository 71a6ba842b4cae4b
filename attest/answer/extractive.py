"""Extractive answers from passages: the best candidate of the kind the question asks for, not named in the question,
stated by a cited passage sentence; when none is, the answer says so."""

from __future__ import annotations

from attest.answer.asks import Asks, asks
from attest.answer.citations import entity_marker, relation_marker
from attest.answer.compose import _clean
from attest.answer.evidence import Candidate, candidates, fold, is_date
from attest.answer.lookup import GraphLookup
from attest.answer.models import AnswerItem, ContextResponse
from attest.extract.ontology_terms import OntologyTerms
from attest.store.fulltext import FullText

VALUE_KINDS = frozenset({"date", "number"})
OTHER_KIND = 0.5  # a value where an entity is asked for, or the reverse, when nothing else is found ("what ...")


def compose_from_passages(question: str, context: ContextResponse, index: FullText, lookup: GraphLookup,
                          terms: OntologyTerms | None, skip: frozenset[str]) -> tuple[str, list[AnswerItem]]:
    want = asks(question, terms)
    if want.kind == "yesno":
        return ("This question asks for a judgement (is it so or not); an extractive answer names only the entities and "
                "values the documents state, and does not judge."), []
    found, _ = candidates(index, context.sources, question, skip)
    named = {e for link in context.links for e in link.entities}
    details = lookup.details({c.iri for c in found if c.iri})
    asked = f" {fold(question)} "
    best: dict[str, tuple[float, Candidate]] = {}
    for c in found:
        label = details[c.iri].label if c.iri and c.iri in details else c.text
        if c.iri and lookup.ids.of(c.iri) in named:
            continue
        if any(f" {fold(x)} " in asked for x in {c.text, label} if fold(x)):
            continue  # named in the question
        fit = _fit(want, c, [t.rsplit("#", 1)[-1].rsplit("/", 1)[-1] for t in details[c.iri].types]
                   if c.iri and c.iri in details else [], terms)
        if not fit:
            continue
        key = c.iri or f"value:{fold(c.text)}"
        score = c.score * fit
        if key not in best or score > best[key][0]:
            best[key] = (score, c)
    if not best:
        return f"None of the retrieved passages names a {want.word} that answers the question.", []
    ranked = sorted(best.values(), key=lambda x: (-x[0], x[1].sentence.passage, x[1].sentence.start))
    score, top = ranked[0]
    s = top.sentence
    where = f"{s.document or 'document'}, characters {s.start}-{s.end}"
    quote = _clean(s.text).replace('"', "'")
    by_end = {p.end: p for p in context.paths if p.end}
    if top.iri:
        ident = lookup.ids.of(top.iri)
        label = details[top.iri].label if top.iri in details else top.text
        facts = ""
        if (path := by_end.get(ident)) is not None:
            by_id = {r.id: r for r in context.relations}
            facts = "; " + ", ".join(f"{_clean(by_id[r].text)} {relation_marker(r)}" for r in path.relations if r in by_id)
        text = f"{_clean(label)} {entity_marker(ident)}: \"{quote}\" ({where}){facts}."
        item = AnswerItem(id=ident, label=label, score=round(score, 4))
    else:
        subject = _sentence_entity(found, s)
        cite = f" {entity_marker(lookup.ids.of(subject))}" if subject else ""
        text = f"{_clean(top.text)}: \"{quote}\" ({where}){cite}."
        item = AnswerItem(label=top.text, value=top.text, score=round(score, 4))
    return text[0].upper() + text[1:], [item]


def _fit(want: Asks, c: Candidate, types: list[str], terms: OntologyTerms | None) -> float:
    """1 when the candidate is of the kind asked for, OTHER_KIND when the question's kind is open, else 0."""
    if want.kind in VALUE_KINDS:
        if c.iri:
            return 0.0
        return 1.0 if (want.kind == "date") == is_date(c.text) else 0.0
    if want.kind == "any":
        return 1.0 if c.iri else OTHER_KIND
    if not c.iri or want.cls is None:
        return 0.0
    return 1.0 if terms is not None and any(t in terms.types and terms.is_subtype(t, want.cls) for t in types) else 0.0


def _sentence_entity(found: list[Candidate], sentence) -> str | None:
    """The first entity the sentence mentions (what the value is said of), else None."""
    return next((c.iri for c in found if c.iri and c.sentence is sentence), None)
