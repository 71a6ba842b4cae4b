"""Open an ingest pipeline: the LLM extractor when a server answers, else the offline rule extractor; reasoner hook."""

from __future__ import annotations

from dataclasses import dataclass

from attest.extract.models import Extractor
from attest.extract.ontology_terms import OntologyTerms, load_terms
from attest.ingest import summary
from attest.ingest.pipeline import IngestPipeline
from attest.ingest.resolve import EntityIndex
from attest.settings import Settings
from attest.ingest.status import sync_fulltext
from attest.store import GraphStore, fulltext
from attest.vocab import Iris


@dataclass(frozen=True)
class Session:
    pipeline: IngestPipeline
    mode: str  # one line for the user: which extractor runs and why


def rule_extractor(store: GraphStore, settings: Settings, terms: OntologyTerms) -> Extractor:
    """The offline extractor, seeded with the graph's entity labels so known names are recognized."""
    from attest.extract.rules import RuleExtractor

    return RuleExtractor(terms, known_labels(store, Iris(settings.base_iri), terms))


def known_labels(store: GraphStore, iris: Iris, terms: OntologyTerms) -> list[tuple[str, str]]:
    """(label, type) of each typed entity the documents name: from the full-text index beside an embedded store
    (kept in step with every commit, so no document graph is read), else from the document graphs."""
    index = fulltext.for_store(store)
    if index is None:
        entities = EntityIndex.from_store(store, iris, terms).entities.values()
        return sorted((e.label, sorted(e.types)[0]) for e in entities if e.types and e.label)
    known: list[tuple[str, str]] = []
    for iri, (label, types) in index.known_entities().items():
        if typed := sorted(t for t in types if t in terms.types):
            # an unlabelled entity is named by its id, or by its IRI when it was not minted here
            known.append((label or iris.entity_id(iri) or iri, typed[0]))
    return sorted(known)


def choose_extractor(store: GraphStore, settings: Settings, terms: OntologyTerms, *, offline: bool) -> tuple[Extractor, str]:
    from attest.extract.llm import LlmExtractor, llm_available

    if offline:
        return rule_extractor(store, settings, terms), "extractor: offline rule extractor (--offline)"
    if llm_available(settings):
        return LlmExtractor(settings, terms), f"extractor: LLM {settings.llm_model} at {settings.llm_base_url}"
    return (rule_extractor(store, settings, terms),
            f"extractor: offline rule extractor (no LLM answered at {settings.llm_base_url})")


def make_reasoner(store: GraphStore, settings: Settings):
    """The OWL 2 RL reasoner when reasoning after ingest is on (None otherwise)."""
    if not settings.reason_after_ingest:
        return None
    from attest.reasoner import Reasoner  # imported on use: commands that never reason do not load the engine

    return Reasoner(store, Iris(settings.base_iri), settings)


def open_session(store: GraphStore, settings: Settings, *, offline: bool = False, reason: bool = True) -> Session:
    terms = load_terms(settings.ontology_dir, settings.ontology_modules_off)
    summary.ensure(store, Iris(settings.base_iri))
    sync_fulltext(store, Iris(settings.base_iri))
    extractor, mode = choose_extractor(store, settings, terms, offline=offline)
    reasoner = make_reasoner(store, settings) if reason else None
    return Session(IngestPipeline(store, settings, extractor, terms=terms, reasoner=reasoner), mode)


__all__ = ["Session", "choose_extractor", "known_labels", "make_reasoner", "open_session", "rule_extractor"]
