"""Extraction validator: confidence, names, ontology types and predicates, injected content and per-chunk caps.

Interface (stable; used by the ingest pipeline after every extractor):

    validator = ExtractionValidator(terms, threshold=0.6, max_entities=20, max_relations=30, max_name_chars=200,
                                    max_value_chars=60)
    result = validator.validate(extraction)     # -> ValidationResult
    result.accepted                             # Extraction: names whitespace-collapsed, types and predicates
                                                #   normalized to ontology local names, relations pointing at
                                                #   accepted entity names exactly, attributes (literal values) on a datatype
                                #   property of the ontology, about an accepted entity, value short and plain
    result.rejected                             # list[Rejection(item, reason)], in the order found; nothing dropped silently:
                                                #   sentences the extractor refused as injection attempts come first
                                                #   (kind "sentence", item = RefusedSentence with its span and drops)

Domain and range of relations are not judged here: the SHACL gate does that and quarantines with a report.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, TypeVar

from attest.extract.models import ExtractedAttribute, ExtractedEntity, ExtractedRelation, Extraction, RefusedSentence
from attest.extract.ontology_terms import OntologyTerms
from attest.extract.sanitize import injection_kinds

# query and markup payloads that have no business in an entity name or description
PAYLOAD = re.compile(
    r"\b(?:SELECT|CONSTRUCT|DESCRIBE|ASK)\b[^{}]{0,200}\{"
    r"|\b(?:INSERT|DELETE)\s+(?:DATA\s*|WHERE\s*)?\{"
    r"|\b(?:DROP|CLEAR|CREATE)\s+(?:SILENT\s+)?(?:ALL|DEFAULT|NAMED|GRAPH)\b"
    r"|\bLOAD\s+(?:SILENT\s+)?<"
    r"|\bPREFIX\s+[\w-]*:\s*<"
    r"|\bSERVICE\s+<"
    r"|<\s*/?\s*(?:script|iframe|object|embed|style|svg|img|a|link|meta|form)\b"
    r"|\bjavascript\s*:"
    r"|\bon(?:error|load|click|mouseover)\s*="
    r"|<https?://[^>\s]*>"
    r"|\}\s*;?\s*(?:#|--)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Rejection:
    """An extracted item the validator refused, and why."""

    item: ExtractedEntity | ExtractedRelation | ExtractedAttribute | RefusedSentence
    reason: str

    @property
    def kind(self) -> str:
        if isinstance(self.item, RefusedSentence):
            return "sentence"
        if isinstance(self.item, ExtractedAttribute):
            return "attribute"
        return "entity" if isinstance(self.item, ExtractedEntity) else "relation"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "item": self.item.model_dump(mode="json"), "reason": self.reason}


@dataclass
class ValidationResult:
    accepted: Extraction
    rejected: list[Rejection] = field(default_factory=list)


def clean_name(name: str) -> str:
    return " ".join(name.split())


@lru_cache(maxsize=65_536)  # names repeat across chunks and documents
def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", clean_name(name)).casefold()


@lru_cache(maxsize=65_536)  # names and descriptions repeat across chunks and documents
def text_problem(what: str, text: str, limit: int) -> str | None:
    if len(text) > limit:
        return f"{what} longer than {limit} characters"
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in text):
        return f"{what} contains control characters"
    if kinds := injection_kinds(text):
        return f"suspicious content in {what} ({', '.join(sorted(kinds))})"
    if PAYLOAD.search(text):
        return f"suspicious content in {what} (query or markup payload)"
    return None


class ExtractionValidator:
    """Checks one chunk's Extraction against the ontology and the safety rules."""

    def __init__(
        self,
        terms: OntologyTerms,
        threshold: float = 0.6,
        max_entities: int = 20,
        max_relations: int = 30,
        max_name_chars: int = 200,
        max_description_chars: int = 1000,
        max_value_chars: int = 60,
    ) -> None:
        self.terms = terms
        self.threshold = threshold
        self.max_entities, self.max_relations = max_entities, max_relations
        self.max_name_chars, self.max_description_chars = max_name_chars, max_description_chars
        self.max_value_chars = max_value_chars

    def validate(self, extraction: Extraction) -> ValidationResult:
        rejected = [Rejection(sentence, f"refused sentence: {sentence.reason}") for sentence in extraction.refused]
        entities = self._entities(extraction.entities, rejected)
        by_key = {name_key(e.name): e.name for e in entities}
        relations = self._relations(extraction.relations, by_key, rejected)
        attributes = self._attributes(extraction.attributes, by_key, rejected)
        return ValidationResult(Extraction(entities=entities, relations=relations, attributes=attributes), rejected)

    # ------------------------------------------------------------------
    def _confidence_problem(self, confidence: float) -> str | None:
        if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
            return f"confidence {confidence} outside [0, 1]"
        if confidence < self.threshold:
            return f"confidence {confidence:g} below threshold {self.threshold:g}"
        return None


    def _entities(self, items: list[ExtractedEntity], rejected: list[Rejection]) -> list[ExtractedEntity]:
        kept: dict[str, ExtractedEntity] = {}
        for entity in items:
            name = clean_name(entity.name)
            type_name = self.terms.normalize_type(entity.type)
            if not name:
                reason = "empty or whitespace-only name"
            elif problem := text_problem("name", name, self.max_name_chars):
                reason = problem
            elif problem := text_problem("description", entity.description, self.max_description_chars):
                reason = problem
            elif problem := self._confidence_problem(entity.confidence):
                reason = problem
            elif type_name is None:
                reason = f"unknown type {entity.type!r}: not an ontology class under ont:Entity"
            else:
                reason = None
            if reason:
                rejected.append(Rejection(entity, reason))
                continue
            candidate = entity.model_copy(update={"name": name, "type": type_name, "description": entity.description.strip()})
            _keep_surest(kept, name_key(name), candidate, rejected,
                         lambda winner: f"duplicate of entity {winner.name!r} ({winner.type}) in the same chunk")
        return _capped(kept, self.max_entities, "entities", rejected)

    def _relations(self, items: list[ExtractedRelation], names: dict[str, str], rejected: list[Rejection]) -> list[ExtractedRelation]:
        kept: dict[tuple[str, str, str], ExtractedRelation] = {}
        for relation in items:
            predicate = self.terms.normalize_predicate(relation.predicate)
            subject, obj = names.get(name_key(relation.subject)), names.get(name_key(relation.object))
            if problem := self._confidence_problem(relation.confidence):
                reason = problem
            elif predicate is None:
                reason = f"unknown predicate {relation.predicate!r}: not an ontology object property between entities"
            elif subject is None:
                reason = f"subject {clean_name(relation.subject)[:80]!r} is not an accepted entity of this chunk"
            elif obj is None:
                reason = f"object {clean_name(relation.object)[:80]!r} is not an accepted entity of this chunk"
            elif subject == obj:
                reason = "subject and object are the same entity"
            else:
                reason = None
            if reason:
                rejected.append(Rejection(relation, reason))
                continue
            assert subject is not None and predicate is not None and obj is not None  # each None set a reason above
            candidate = relation.model_copy(update={"subject": subject, "predicate": predicate, "object": obj})
            _keep_surest(kept, (subject, predicate, obj), candidate, rejected,
                         lambda _: "duplicate relation in the same chunk")
        return _capped(kept, self.max_relations, "relations", rejected)

    def _attributes(self, items: list[ExtractedAttribute], names: dict[str, str],
                    rejected: list[Rejection]) -> list[ExtractedAttribute]:
        """Domain is not judged here either (SHACL and the reasoner see the typed subject); a value is one short line."""
        kept: dict[tuple[str, str, str], ExtractedAttribute] = {}
        for attribute in items:
            predicate = self.terms.normalize_attribute(attribute.predicate)
            subject, value = names.get(name_key(attribute.subject)), clean_name(attribute.value)
            if problem := self._confidence_problem(attribute.confidence):
                reason = problem
            elif predicate is None:
                reason = f"unknown attribute {attribute.predicate!r}: not a datatype property of the ontology"
            elif subject is None:
                reason = f"subject {clean_name(attribute.subject)[:80]!r} is not an accepted entity of this chunk"
            elif not value:
                reason = "empty or whitespace-only value"
            elif problem := text_problem("value", value, self.max_value_chars):
                reason = problem
            else:
                reason = None
            if reason:
                rejected.append(Rejection(attribute, reason))
                continue
            assert subject is not None and predicate is not None  # each None set a reason above
            candidate = attribute.model_copy(update={"subject": subject, "predicate": predicate, "value": value})
            _keep_surest(kept, (subject, predicate, value.casefold()), candidate, rejected,
                         lambda _: "duplicate attribute in the same chunk")
        return _capped(kept, self.max_relations, "attributes", rejected)


Item = TypeVar("Item", ExtractedEntity, ExtractedRelation, ExtractedAttribute)


def _keep_surest(kept: dict[Any, Item], key: Any, candidate: Item, rejected: list[Rejection],
                 duplicate: Callable[[Item], str]) -> None:
    """Keep the surer of two items under one key; the other is rejected, `duplicate(winner)` saying why."""
    if key in kept:
        loser, winner = sorted((kept[key], candidate), key=lambda item: item.confidence)
        kept[key] = winner
        rejected.append(Rejection(loser, duplicate(winner)))
    else:
        kept[key] = candidate


def _capped(kept: dict[Any, Item], cap: int, noun: str, rejected: list[Rejection]) -> list[Item]:
    """The `cap` surest items, in the order they were kept; the rest rejected as over the per-chunk cap."""
    ranked = sorted(kept.values(), key=lambda item: -item.confidence)
    for item in ranked[cap:]:
        rejected.append(Rejection(item, f"over the per-chunk cap of {cap} {noun}"))
    keep = {id(item) for item in ranked[:cap]}
    return [item for item in kept.values() if id(item) in keep]
