"""Entity resolution with rapidfuzz: reuse an entity of a compatible type, record near misses, never merge across types."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from pyoxigraph import QuerySolutions
from rapidfuzz import fuzz, process

from attest.extract.ontology_terms import OntologyTerms
from attest.ingest.near_keys import NearKeys
from attest.store import GraphStore
from attest.vocab import ATT, ONT, RDF, RDFS, SKOS, Iris, is_valid_id

MERGE_SCORE = 90.0  # at or above: the mention is the existing entity (reuse its IRI, add an altLabel)
CANDIDATE_SCORE = 75.0  # at or above (and below MERGE_SCORE): a near miss, recorded as att:candidateMatch

ENTITY_FACTS = f"""
SELECT ?g ?e ?p ?v WHERE {{
  GRAPH ?g {{ ?e ?p ?v . VALUES ?p {{ <{RDF}type> <{RDFS}label> <{SKOS}altLabel> }} }}
}}
"""
NO_MERGE_RULES = f"""
SELECT ?entity ?label WHERE {{ ?rule a <{ATT}NoMerge> ; <{ATT}entity> ?entity ; <{ATT}mergedLabel> ?label . }}
"""

_SLUG_SYMBOLS = {"+": "-plus", "#": "-sharp", "&": "-and", "@": "-at"}


def label_key(label: str) -> str:
    """What two spellings of one name share: NFKC, case-folded, without spaces, dots, hyphens and underscores."""
    return re.sub(r"[\s._\-'’]+", "", unicodedata.normalize("NFKC", label)).casefold()


def _numbers(key: str) -> list[str]:
    """The numbers in a name: spellings that differ in them are different things (Report 1, Report 41; GPT-3, GPT-4)."""
    return re.findall(r"\d+", key)


@lru_cache(maxsize=1 << 16)  # the same names are slugged for every mention of them (rdf_map, resolution)
def slugify(label: str) -> str:
    """An entity id from a label: ASCII, lower case, hyphenated; stable, so re-ingestion mints the same IRI."""
    text = "".join(_SLUG_SYMBOLS.get(ch, ch) for ch in label)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].strip("-")
    if not slug or not is_valid_id(slug):
        slug = "e-" + hashlib.sha256(label.encode("utf-8")).hexdigest()[:12]
    return slug


@dataclass
class KnownEntity:
    """An entity as the graph knows it: id, canonical label, every spelling (as keys), asserted types."""

    id: str
    iri: str
    label: str
    keys: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Resolution:
    """Where a mention went: an entity IRI, whether it was merged into an existing one, and near misses."""

    iri: str
    id: str
    label: str  # the entity's canonical label
    new: bool
    merged: bool  # the mention's spelling differs from the canonical label (recorded, reversible)
    score: float  # similarity (0-100) of the match; 100 for a new entity
    candidates: tuple[tuple[str, float], ...] = ()  # (iri, score) near misses of compatible types


class EntityIndex:
    """The graph's entities, searchable by spelling; resolution updates it as documents are committed."""

    def __init__(self, iris: Iris, terms: OntologyTerms, *, no_merge: set[tuple[str, str]] | None = None) -> None:
        self.iris = iris
        self.terms = terms
        self.entities: dict[str, KnownEntity] = {}
        self.by_key: dict[str, set[str]] = {}
        self.no_merge = no_merge or set()  # (entity iri, label key) pairs an unmerge forbade
        self._near = NearKeys()  # the keys of by_key, in its order, searchable by a fuzz.ratio bound

    @classmethod
    def from_store(cls, store: GraphStore, iris: Iris, terms: OntologyTerms) -> "EntityIndex":
        rules = {(row["entity"].value, label_key(row["label"].value))
                 for row in cast(QuerySolutions, store.query(NO_MERGE_RULES, default_graph=[iris.resolution_graph]))} \
            if store.has_graph(iris.resolution_graph) else set()
        index = cls(iris, terms, no_merge=rules)
        doc_prefix = iris.document_graph_prefix
        labels: dict[str, str] = {}
        for row in cast(QuerySolutions, store.query(ENTITY_FACTS)):
            if not row["g"].value.startswith(doc_prefix):
                continue
            entity_id = iris.entity_id(row["e"].value)
            if entity_id is None:
                continue
            known = index.entities.get(entity_id)
            if known is None:
                known = index.entities[entity_id] = KnownEntity(entity_id, row["e"].value, "")
            p, v = row["p"].value, row["v"].value
            if p == RDF + "type":
                if v.startswith(ONT) and v[len(ONT):] in terms.types:
                    known.types.add(v[len(ONT):])
            else:
                known.keys.add(label_key(v))
                if p == RDFS + "label" and (entity_id not in labels or v < labels[entity_id]):
                    labels[entity_id] = v  # several documents may label it; take a deterministic one
        for entity_id, known in index.entities.items():
            known.label = labels.get(entity_id) or entity_id
            for key in known.keys:
                index._add_key(key, entity_id)
        return index

    # compatibility --------------------------------------------------------------

    def compatible(self, type_name: str, types: set[str]) -> bool:
        """Types are compatible when each is a subclass of the other or equal; nothing else is ever merged."""
        if not types:
            return False
        return all(t == type_name or self.terms.is_subtype(type_name, t) or self.terms.is_subtype(t, type_name)
                   for t in types)

    def _mergeable(self, entity: KnownEntity, type_name: str, key: str) -> bool:
        return self.compatible(type_name, entity.types) and (entity.iri, key) not in self.no_merge

    # resolution -----------------------------------------------------------------

    def resolve(self, name: str, type_name: str) -> Resolution:
        """Resolve one mention and remember the result, so later mentions find it."""
        key = label_key(name)
        exact = [self.entities[i] for i in sorted(self.by_key.get(key, ())) if self._mergeable(self.entities[i], type_name, key)]
        if exact:
            entity = exact[0]
            return self._reuse(entity, name, key, type_name, 100.0)
        best: tuple[KnownEntity, float, str] | None = None
        near: list[tuple[str, float]] = []
        if key:
            # only the keys that can reach the cutoff are scored: the same matches, in the same order, as all
            choices = self._near.candidates(key, CANDIDATE_SCORE)
            for other_key, score, _ in process.extract(key, choices, scorer=fuzz.ratio, score_cutoff=CANDIDATE_SCORE,
                                                       limit=8):
                for entity_id in sorted(self.by_key.get(other_key, ())):
                    entity = self.entities[entity_id]
                    if not self._mergeable(entity, type_name, key):
                        continue
                    if best is None or score > best[1]:
                        best = (entity, score, other_key)
                    near.append((entity.iri, round(score, 1)))
        if best is not None and best[1] >= MERGE_SCORE and _numbers(key) == _numbers(best[2]):
            return self._reuse(best[0], name, key, type_name, best[1])
        entity = self._new(name, key, type_name)
        seen: dict[str, float] = {}
        for iri, score in near:
            if iri != entity.iri:
                seen[iri] = max(score, seen.get(iri, 0.0))
        return Resolution(entity.iri, entity.id, entity.label, True, False, 100.0, tuple(sorted(seen.items())))

    def _reuse(self, entity: KnownEntity, name: str, key: str, type_name: str, score: float) -> Resolution:
        merged = name.strip() != entity.label
        self._remember(entity, key, type_name)
        return Resolution(entity.iri, entity.id, entity.label, False, merged, round(score, 1))

    def _new(self, name: str, key: str, type_name: str) -> KnownEntity:
        base = slugify(name)
        entity_id = base
        taken = self.entities.get(entity_id)
        if taken is not None:  # same slug, different entity: an incompatible type or an unmerged spelling
            entity_id = f"{base}-{slugify(type_name)}"
            n = 2
            while entity_id in self.entities and not self._mergeable(self.entities[entity_id], type_name, key):
                entity_id = f"{base}-{slugify(type_name)}-{n}"
                n += 1
        entity = self.entities.get(entity_id) or KnownEntity(entity_id, self.iris.entity(entity_id), name.strip())
        self.entities[entity_id] = entity
        self._remember(entity, key, type_name)
        return entity

    def _remember(self, entity: KnownEntity, key: str, type_name: str) -> None:
        entity.types.add(type_name)
        entity.keys.add(key)
        self._add_key(key, entity.id)

    def _add_key(self, key: str, entity_id: str) -> None:
        ids = self.by_key.get(key)
        if ids is None:
            ids = self.by_key[key] = set()
            self._near.add(key)
        ids.add(entity_id)
