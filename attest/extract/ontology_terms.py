"""Allowed entity types and relation predicates, read from the ontology, with label-aware normalization.

Interface (stable; used by the extractors, the validator and the ingest pipeline):

    terms = load_terms(settings.ontology_dir, settings.ontology_modules_off)  # parse ontology/*.ttl
    terms = terms_from_store(store, iris.ontology_graph)  # or read the store's ontology graph
    terms.types            -> {local name: TypeTerm}       every class rdfs:subClassOf+ ont:Entity
    terms.predicates       -> {local name: PredicateTerm}  object properties between entities
    terms.attributes       -> {local name: PredicateTerm}  datatype properties of entities (literal values: birthDate)
    terms.normalize_type("organisation")  -> "Organization" | None
    terms.normalize_predicate("part of")  -> "partOf" | None
    terms.normalize_attribute("date of birth")  -> "birthDate" | None
    terms.is_subtype("TripleStore", "Technology") -> True

Normalization ignores case, spaces, underscores and hyphens, and knows each term's local name,
rdfs:label and skos:altLabel. A spelling that two terms share as an alternative label (e.g.
"belongs to" for partOf and memberOf) is ambiguous and normalizes to None; a term's own local
name or rdfs:label always wins over another term's altLabel.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pyoxigraph import NamedNode, Store

from attest.errors import OntologyError
from attest.ontology import read_ontology
from attest.vocab import ONT

# ont:Entity itself is the root, not a useful type to extract; its strict subclasses are allowed.
ENTITY_CLASSES = """
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX ont: <https://w3id.org/attest/ontology#>
SELECT ?cls ?parent ?label ?alt ?comment WHERE {
  ?cls rdfs:subClassOf+ ont:Entity .
  FILTER(isIRI(?cls))
  OPTIONAL { ?cls rdfs:subClassOf ?parent . FILTER(isIRI(?parent)) }
  OPTIONAL { ?cls rdfs:label ?label }
  OPTIONAL { ?cls skos:altLabel ?alt }
  OPTIONAL { ?cls rdfs:comment ?comment }
}
"""

OBJECT_PROPERTIES = """
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?prop ?label ?alt ?domain ?range ?comment ?inverse ?transitive WHERE {
  ?prop a owl:ObjectProperty .
  FILTER(isIRI(?prop))
  OPTIONAL { ?prop rdfs:label ?label }
  OPTIONAL { ?prop skos:altLabel ?alt }
  OPTIONAL { ?prop rdfs:domain ?domain . FILTER(isIRI(?domain)) }
  OPTIONAL { ?prop rdfs:range ?range . FILTER(isIRI(?range)) }
  OPTIONAL { ?prop rdfs:comment ?comment }
  OPTIONAL { { ?prop owl:inverseOf ?inverse } UNION { ?inverse owl:inverseOf ?prop } }
  OPTIONAL { ?prop a ?transitive . FILTER(?transitive = owl:TransitiveProperty) }
}
"""

# the same columns as OBJECT_PROPERTIES, so that one reader builds both (a literal has no inverse: none is found)
DATATYPE_PROPERTIES = OBJECT_PROPERTIES.replace("owl:ObjectProperty", "owl:DatatypeProperty")


def squash(text: str) -> str:
    """The comparison key of a spelling: lower case, no spaces, underscores, hyphens or dots."""
    return re.sub(r"[\s_\-.]+", "", text).casefold()


def _strip_ns(written: str) -> str:
    for prefix in (ONT, "ont:"):
        if written.startswith(prefix):
            return written[len(prefix):]
    return written


@lru_cache(maxsize=4096)  # an extractor writes the same few types and predicates in every chunk
def _written_key(written: str) -> str:
    return squash(_strip_ns(written))


def local_name(iri: str) -> str:
    return iri[len(ONT):] if iri.startswith(ONT) else re.split(r"[#/]", iri)[-1]


@dataclass
class TypeTerm:
    """An ontology class an extracted entity may have."""

    name: str
    iri: str
    label: str = ""
    alt_labels: set[str] = field(default_factory=set)
    parents: set[str] = field(default_factory=set)  # local names of direct named superclasses
    comment: str = ""


@dataclass
class PredicateTerm:
    """An ontology object property an extracted relation may use."""

    name: str
    iri: str
    label: str = ""
    alt_labels: set[str] = field(default_factory=set)
    domain: str | None = None  # local name of the declared domain class
    range: str | None = None
    inverse: str | None = None
    comment: str = ""
    transitive: bool = False  # owl:TransitiveProperty: a chain of two such facts derives a third


class OntologyTerms:
    """The ontology's extractable vocabulary and a forgiving lookup from written spellings to local names."""

    def __init__(self, types: dict[str, TypeTerm], predicates: dict[str, PredicateTerm],
                 attributes: dict[str, PredicateTerm] | None = None) -> None:
        if not types or not predicates:
            raise OntologyError("the ontology defines no entity classes under ont:Entity or no object properties between them")
        self.types = types
        self.predicates = predicates
        self.attributes = attributes or {}
        self._type_index = _index(types.values())
        self._predicate_index = _index(predicates.values())
        self._attribute_index = _index(self.attributes.values())
        self._ancestors: dict[str, frozenset[str]] = {}  # the classes do not change once loaded: read once each

    def normalize_type(self, written: str) -> str | None:
        """Local name of the class `written` names (local name, label, altLabel or full IRI), else None."""
        return self._type_index.get(_written_key(written)) if written else None

    def normalize_predicate(self, written: str) -> str | None:
        """Local name of the property `written` names (local name, label, altLabel or full IRI), else None."""
        return self._predicate_index.get(_written_key(written)) if written else None

    def normalize_attribute(self, written: str) -> str | None:
        """Local name of the datatype property `written` names (local name, label, altLabel or IRI), else None."""
        return self._attribute_index.get(_written_key(written)) if written else None

    def ancestors(self, type_name: str) -> frozenset[str]:
        """The type and every named superclass of it (within the entity classes)."""
        if (known := self._ancestors.get(type_name)) is not None:
            return known
        seen: set[str] = set()
        todo = [type_name]
        while todo:
            name = todo.pop()
            if name in seen or name not in self.types:
                continue
            seen.add(name)
            todo.extend(self.types[name].parents)
        frozen = frozenset(seen)
        if type_name in self.types:  # a name of no class is not kept: what callers pass is not bounded
            self._ancestors[type_name] = frozen
        return frozen

    def is_subtype(self, type_name: str, of: str) -> bool:
        return of in self.ancestors(type_name)

    def label_of(self, name: str) -> str:
        term = self.types.get(name) or self.predicates.get(name)
        return (term.label or name) if term else name

    def type_labels(self) -> list[tuple[str, str]]:
        """(spelling, type) for every class label and altLabel: vocabulary for the rule extractor."""
        return [(s, t.name) for t in self.types.values() for s in {t.label, *t.alt_labels} if s]


def _index(terms) -> dict[str, str | None]:
    """squashed spelling -> local name; strong spellings (local name, label) beat altLabels; clashes -> None."""
    strong: dict[str, str | None] = {}
    weak: dict[str, str | None] = {}
    for term in terms:
        for spelling in (term.name, term.label):
            if spelling:
                key = squash(spelling)
                strong[key] = term.name if strong.get(key, term.name) == term.name else None
        for spelling in term.alt_labels:
            key = squash(spelling)
            weak[key] = term.name if weak.get(key, term.name) == term.name else None
    index = {k: v for k, v in weak.items() if k not in strong}
    index.update(strong)
    return index


def _value(solution, var: str) -> str | None:
    term = solution[var]
    return term.value if term is not None else None


def _bound(solution, var: str) -> str:
    """The value of a variable the query's graph pattern always binds."""
    value = _value(solution, var)
    assert value is not None, f"?{var} is outside any OPTIONAL: always bound"
    return value


def _terms_from_solutions(class_rows, property_rows, attribute_rows=()) -> OntologyTerms:
    types: dict[str, TypeTerm] = {}
    for row in class_rows:
        iri = _bound(row, "cls")
        if not iri.startswith(ONT):
            continue
        term = types.setdefault(local_name(iri), TypeTerm(local_name(iri), iri))
        if (parent := _value(row, "parent")) and parent.startswith(ONT) and parent != iri:
            term.parents.add(local_name(parent))
        if label := _value(row, "label"):
            term.label = label
        if alt := _value(row, "alt"):
            term.alt_labels.add(alt)
        if comment := _value(row, "comment"):
            term.comment = comment
    entity_like = set(types) | {"Entity"}
    predicates = _properties(property_rows, entity_like, literal=False)
    attributes = _properties(attribute_rows, entity_like, literal=True)
    attributes.pop("description", None)  # an entity's description is its own field (ExtractedEntity.description)
    return OntologyTerms(types, predicates, attributes)


def _properties(rows, entity_like: set[str], literal: bool) -> dict[str, PredicateTerm]:
    """Object properties between entities, or (literal) datatype properties whose domain is an entity class."""
    predicates: dict[str, PredicateTerm] = {}
    excluded: set[str] = set()
    for row in rows:
        iri = _bound(row, "prop")
        if not iri.startswith(ONT):
            continue
        name = local_name(iri)
        domain, range_ = _value(row, "domain"), _value(row, "range")
        # a relation the extractors emit links two entities; properties to documents (sectionOf) are not theirs
        if (domain and local_name(domain) not in entity_like) or (
                not literal and range_ and local_name(range_) not in entity_like):
            excluded.add(name)
            continue
        predicate = predicates.setdefault(name, PredicateTerm(name, iri))
        if label := _value(row, "label"):
            predicate.label = label
        if alt := _value(row, "alt"):
            predicate.alt_labels.add(alt)
        if domain:
            predicate.domain = local_name(domain)
        if range_:
            predicate.range = local_name(range_)
        if inverse := _value(row, "inverse"):
            predicate.inverse = local_name(inverse)
        if _value(row, "transitive"):
            predicate.transitive = True
        if comment := _value(row, "comment"):
            predicate.comment = comment
    for name in excluded:
        predicates.pop(name, None)
    return predicates


def load_terms(ontology_dir: Path, off: Collection[str] = ()) -> OntologyTerms:
    """Read the vocabulary from the ontology's Turtle files; raises OntologyError on syntax errors."""
    graph = "urn:attest:ontology"
    quads, errors = read_ontology(Path(ontology_dir), graph, off)
    if errors:
        raise OntologyError("ontology has syntax errors:\n" + "\n".join(e.message for e in errors))
    store = Store()
    store.extend(quads)
    named = NamedNode(graph)
    return _terms_from_solutions(
        store.query(ENTITY_CLASSES, default_graph=named), store.query(OBJECT_PROPERTIES, default_graph=named),
        store.query(DATATYPE_PROPERTIES, default_graph=named),
    )


def terms_from_store(store, ontology_graph: str) -> OntologyTerms:
    """Read the vocabulary from the ontology graph of a GraphStore (the live, reloadable ontology)."""
    return _terms_from_solutions(
        store.query(ENTITY_CLASSES, default_graph=[ontology_graph]),
        store.query(OBJECT_PROPERTIES, default_graph=[ontology_graph]),
        store.query(DATATYPE_PROPERTIES, default_graph=[ontology_graph]),
    )
