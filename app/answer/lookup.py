"""Batched graph lookups shared by retrieval and verification: entity labels and details, facts and their status."""

from __future__ import annotations

import hashlib
import time
import weakref
from dataclasses import dataclass, field
from typing import Iterable

from pyoxigraph import Literal, NamedNode

from app.answer import queries as q
from app.store import GraphStore
from app.vocab import ONT, RDF, RDFS, Iris, is_valid_id

Triple = tuple[str, str, str]  # subject, predicate, object IRIs
MAX_BATCH = 500  # ids per VALUES block; larger inputs are split into several queries
_PROPERTY_LABELS: "weakref.WeakKeyDictionary[object, tuple[int, dict[str, str | None]]]" = weakref.WeakKeyDictionary()
LABEL_TTL_S = 60.0  # safety net: a label edit that keeps every count is picked up within this time
# store -> (fingerprint, built at, index); weak keys, so a closed store's index goes with it
_LABEL_CACHE: "weakref.WeakKeyDictionary[object, tuple[tuple, float, LabelIndex]]" = weakref.WeakKeyDictionary()
GENERIC_PREDICATES = frozenset(ONT + n for n in ("relatesTo", "mentions", "mentionedIn"))


def relation_id(iris: Iris, triple: Triple) -> str:
    """Stable id of a fact between two entities: `{subject id}~{10 hex of sha256(s p o)}`; resolvable from the subject's facts."""
    digest = hashlib.sha256(" ".join(triple).encode()).hexdigest()[:10]
    return f"{iris.entity_id(triple[0])}~{digest}"


def split_relation_id(ref: str) -> tuple[str, str] | None:
    """(subject id, digest) of a relation id, or None when it is not one."""
    subject, sep, digest = ref.rpartition("~")
    if not sep or len(digest) != 10 or not all(c in "0123456789abcdef" for c in digest) or not is_valid_id(subject):
        return None
    return subject, digest


@dataclass
class EntityInfo:
    """What the graph says about one entity."""

    id: str
    iri: str
    label: str
    alt_labels: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    description: str = ""


@dataclass
class FactStatus:
    """Where a triple is held: asserted in which graphs, inferred or not."""

    asserted_in: set[str] = field(default_factory=set)
    inferred: bool = False

    @property
    def asserted(self) -> bool:
        return bool(self.asserted_in)


@dataclass
class LabelIndex:
    """Every entity's labels: `labels[i]` names `ids[i]` (preferred labels first)."""

    labels: list[str]
    ids: list[str]
    preferred: dict[str, str]
    normalized: list[str] | None = None  # filled once by LabelMatcher, kept with the cached index

    def __contains__(self, entity_id: str) -> bool:
        return entity_id in self.preferred


class GraphLookup:
    """The few SPARQL round trips an answer needs, each batched over many ids or triples."""

    def __init__(self, store: GraphStore, iris: Iris, *, owner: object | None = None) -> None:
        """`owner`: the long-lived store behind `store` (which may be a per-request view); the label cache hangs on it."""
        self.store, self.iris = store, iris
        self.owner = owner if owner is not None else store
        self._prefix = Literal(iris.entity_prefix)
        self._ids: dict[str, str | None] = {}  # IRI -> entity id, memoized: the same IRIs recur in every row
        self._kinds: dict[str, str | None] = {}

    def entity_id(self, iri: str) -> str | None:
        entity_id = self._ids.get(iri, "")
        if entity_id == "":
            entity_id = self._ids[iri] = self.iris.entity_id(iri)
        return entity_id

    def counts(self, graph: str) -> str | None:
        """'asserted', 'inferred' or None (system graphs whose content is not a fact: ontology, derivations, quarantine)."""
        kind = self._kinds.get(graph, "")
        if kind == "":
            if graph == self.iris.inferred_graph:
                kind = "inferred"
            elif self.iris.is_system_graph(graph) or graph.startswith(self.iris.staging_graph_prefix):
                kind = None
            else:
                kind = "asserted"
            self._kinds[graph] = kind
        return kind

    def label_index(self) -> LabelIndex:
        """Every entity label, cached per store: keyed by its write generation when it counts writes (exact, free),
        else by label counts (one cheap query) with a TTL as the safety net."""
        generation = getattr(self.owner, "generation", None)
        if isinstance(generation, int):
            fingerprint: tuple = ("generation", generation)
        else:
            row = next(iter(self.store.query(q.LABEL_COUNTS)))
            fingerprint = tuple(row[v].value for v in ("n", "entities", "labels", "graphs"))
        cached = _LABEL_CACHE.get(self.owner)
        if cached and cached[0] == fingerprint and time.monotonic() - cached[1] < LABEL_TTL_S:
            return cached[2]
        index = self._read_labels()
        _LABEL_CACHE[self.owner] = (fingerprint, time.monotonic(), index)
        return index

    def _read_labels(self) -> LabelIndex:
        labels: list[str] = []
        ids: list[str] = []
        preferred: dict[str, str] = {}
        alts: list[tuple[str, str]] = []
        prefix = self.iris.entity_prefix
        for row in self.store.query(q.ENTITY_LABELS):
            iri = row["e"].value
            if not iri.startswith(prefix) or self.counts(row["g"].value) != "asserted":
                continue
            entity_id = self.entity_id(iri)
            if entity_id is None:
                continue
            label = row["label"].value
            if row["alt"] is None:
                preferred.setdefault(entity_id, label)
                labels.append(label)
                ids.append(entity_id)
            else:
                alts.append((label, entity_id))
        for label, entity_id in alts:
            preferred.setdefault(entity_id, label)
            labels.append(label)
            ids.append(entity_id)
        return LabelIndex(labels, ids, preferred)

    def labels_of(self, entity_ids: Iterable[str]) -> dict[str, str]:
        """Entity id -> preferred label for each id that exists (the light check /verify needs)."""
        nodes = [NamedNode(self.iris.entity(i)) for i in dict.fromkeys(entity_ids) if is_valid_id(i)]
        out: dict[str, str] = {}
        for batch in _batches(nodes):
            for row in self.store.query(q.with_values(q.LABELS_OF, entities=[(n,) for n in batch])):
                if self.counts(row["g"].value) is not None:
                    out.setdefault(self.entity_id(row["e"].value), row["label"].value)
        return out

    def details(self, entity_ids: Iterable[str]) -> dict[str, EntityInfo]:
        """Label, types and description of each id that exists (ids failing is_valid_id are skipped)."""
        nodes = [NamedNode(self.iris.entity(i)) for i in dict.fromkeys(entity_ids) if is_valid_id(i)]
        out: dict[str, EntityInfo] = {}
        inferred_types: dict[str, list[str]] = {}
        for batch in _batches(nodes):
            query = q.with_values(q.ENTITY_DETAILS, entities=[(n,) for n in batch])
            for row in self.store.query(query, substitutions={"inferred": NamedNode(self.iris.inferred_graph)}):
                kind = self.counts(row["g"].value)
                if kind is None:
                    continue
                iri = row["e"].value
                entity_id = self.entity_id(iri)
                info = out.setdefault(entity_id, EntityInfo(entity_id, iri, ""))
                p, v = row["p"].value, row["v"].value
                if p == RDF + "type":
                    if v.startswith(ONT):  # asserted types are the specific ones; inferred superclasses only as a fallback
                        (info.types if kind == "asserted" else inferred_types.setdefault(entity_id, [])).append(v)
                elif p == RDFS + "label":
                    info.label = info.label or v
                elif not info.description:
                    info.description = v
        for info in out.values():
            info.label = info.label or info.id
            info.types = sorted(set(info.types or inferred_types.get(info.id, [])))
        return out

    def facts_touching(self, entity_ids: Iterable[str]) -> dict[Triple, FactStatus]:
        """Entity-to-entity facts (ontology predicates) in or out of the given entities, with their status."""
        ids = list(entity_ids)
        facts = self._facts(q.FACTS_OUT, ids, {"prefix": self._prefix})
        for triple, status in self._facts(q.FACTS_IN, ids, {"prefix": self._prefix}).items():
            known = facts.setdefault(triple, status)
            if known is not status:
                known.asserted_in |= status.asserted_in
                known.inferred = known.inferred or status.inferred
        return facts

    def facts_from(self, entity_ids: Iterable[str]) -> dict[Triple, FactStatus]:
        return self._facts(q.FACTS_FROM, entity_ids, None)

    def status(self, triples: Iterable[Triple]) -> dict[Triple, FactStatus]:
        """Where each triple is held; a triple held nowhere is absent from the result."""
        rows = [(NamedNode(s), NamedNode(p), NamedNode(o)) for s, p, o in dict.fromkeys(triples)]
        out: dict[Triple, FactStatus] = {}
        for batch in _batches(rows):
            for row in self.store.query(q.with_values(q.TRIPLE_GRAPHS, triples=batch)):
                self._record(out, (row["s"].value, row["p"].value, row["o"].value), row["g"].value)
        return out

    def property_labels(self, predicates: Iterable[str]) -> dict[str, str]:
        """rdfs:label of each property; remembered per store write generation (the ontology seldom changes)."""
        generation = getattr(self.owner, "generation", None)
        cache = _PROPERTY_LABELS.get(self.owner) if isinstance(generation, int) else None
        if cache is None or cache[0] != generation:
            cache = (generation, {})
            if isinstance(generation, int):
                _PROPERTY_LABELS[self.owner] = cache
        wanted = list(dict.fromkeys(predicates))
        missing = [(NamedNode(p),) for p in wanted if p not in cache[1]]
        if missing:
            for p, in missing:
                cache[1][p.value] = None
            for row in self.store.query(q.with_values(q.PROPERTY_LABELS, properties=missing)):
                if cache[1].get(row["p"].value) is None:
                    cache[1][row["p"].value] = row["label"].value
        return {p: cache[1][p] for p in wanted if cache[1].get(p)}

    def _facts(self, query: str, entity_ids: Iterable[str], subs) -> dict[Triple, FactStatus]:
        nodes = [NamedNode(self.iris.entity(i)) for i in dict.fromkeys(entity_ids) if is_valid_id(i)]
        out: dict[Triple, FactStatus] = {}
        for batch in _batches(nodes):
            for row in self.store.query(q.with_values(query, entities=[(n,) for n in batch]), substitutions=subs):
                self._record(out, (row["s"].value, row["p"].value, row["o"].value), row["g"].value)
        return out

    def _record(self, out: dict[Triple, FactStatus], triple: Triple, graph: str) -> None:
        kind = self.counts(graph)
        if kind is None:
            return
        status = out.setdefault(triple, FactStatus())
        if kind == "inferred":
            status.inferred = True
        else:
            status.asserted_in.add(graph)


def _batches(items: list, size: int = MAX_BATCH):
    for i in range(0, len(items), size):
        yield items[i:i + size]
