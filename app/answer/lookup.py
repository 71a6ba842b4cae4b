"""Batched graph lookups shared by retrieval and verification: entity labels and details, facts and their status."""

from __future__ import annotations

import hashlib
import time
import weakref
from dataclasses import dataclass, field
from typing import Iterable

from pyoxigraph import Literal, NamedNode

from app.answer import queries as q
from app.answer.memo import Memo
from app.store import GraphStore
from app.vocab import ONT, RDF, RDFS, Iris, is_valid_id

Triple = tuple[str, str, str]  # subject, predicate, object IRIs
Quad = tuple[str, str, str, str]  # subject, predicate, object, graph IRIs
MAX_BATCH = 500  # ids per VALUES block; larger inputs are split into several queries
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
    phrases: dict[str, dict[tuple[str, ...], set[str]]] | None = None  # first word -> label's words -> ids; likewise

    def __contains__(self, entity_id: str) -> bool:
        return entity_id in self.preferred


class GraphLookup:
    """The few SPARQL round trips an answer needs, each batched over many ids or triples; what an entity or a triple
    resolves to is remembered until the store's next write (app/answer/memo.py), so only unseen ones are queried."""

    def __init__(self, store: GraphStore, iris: Iris, *, owner: object | None = None) -> None:
        """`owner`: the long-lived store behind `store` (which may be a per-request view); the label cache hangs on it."""
        self.store, self.iris = store, iris
        self.owner = owner if owner is not None else store
        self._prefix = Literal(iris.entity_prefix)
        self._ids: dict[str, str | None] = {}  # IRI -> entity id, memoized: the same IRIs recur in every row
        self._kinds: dict[str, str | None] = {}
        self.memo = Memo(self.owner)

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
        found = self.memo.many("label", (i for i in entity_ids if is_valid_id(i)), self._read_labels_of)
        return {i: label for i, label in found.items() if label is not None}

    def _read_labels_of(self, entity_ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for batch in _batches(self._nodes(entity_ids)):
            for row in self.store.query(q.with_values(q.LABELS_OF, entities=batch)):
                if self.counts(row["g"].value) is not None:
                    out.setdefault(self.entity_id(row["e"].value), row["label"].value)
        return out

    def details(self, entity_ids: Iterable[str]) -> dict[str, EntityInfo]:
        """Label, types and description of each id that exists (ids failing is_valid_id are skipped); shared, read-only."""
        found = self.memo.many("details", (i for i in entity_ids if i is not None and is_valid_id(i)), self._read_details)
        return {i: info for i, info in found.items() if info is not None}

    def _read_details(self, entity_ids: list[str]) -> dict[str, EntityInfo]:
        out: dict[str, EntityInfo] = {}
        inferred_types: dict[str, list[str]] = {}
        for batch in _batches(self._nodes(entity_ids)):
            query = q.with_values(q.ENTITY_DETAILS, entities=batch)
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
        found = self.memo.many("touching", (i for i in entity_ids if is_valid_id(i)), self._read_touching)
        return self._statuses(quad for quads in found.values() for quad in quads or ())

    def _read_touching(self, entity_ids: list[str]) -> dict[str, list[Quad]]:
        """Each entity's quads: a quad between two of them is both one's and the other's."""
        out: dict[str, set[Quad]] = {i: set() for i in entity_ids}
        for batch in _batches(self._nodes(entity_ids)):
            query = q.with_values(q.FACTS_TOUCHING, entities=batch)
            for row in self.store.query(query, substitutions={"prefix": self._prefix}):
                quad = (row["s"].value, row["p"].value, row["o"].value, row["g"].value)
                if self.counts(quad[3]) is None:
                    continue
                for end in (quad[0], quad[2]):
                    if (entity_id := self.entity_id(end)) in out:
                        out[entity_id].add(quad)
        return {i: sorted(quads) for i, quads in out.items()}

    def facts_from(self, entity_ids: Iterable[str]) -> dict[Triple, FactStatus]:
        """Entity-to-entity facts (ontology predicates) out of the given subjects (resolving hashed relation ids)."""
        found = self.memo.many("from", (i for i in entity_ids if is_valid_id(i)), self._read_from)
        return self._statuses(quad for quads in found.values() for quad in quads or ())

    def _read_from(self, entity_ids: list[str]) -> dict[str, list[Quad]]:
        out: dict[str, list[Quad]] = {i: [] for i in entity_ids}
        for batch in _batches(self._nodes(entity_ids)):
            for row in self.store.query(q.with_values(q.FACTS_FROM, entities=batch)):
                if self.counts(row["g"].value) is not None:
                    out[self.entity_id(row["s"].value)].append(
                        (row["s"].value, row["p"].value, row["o"].value, row["g"].value))
        return out

    def status(self, triples: Iterable[Triple]) -> dict[Triple, FactStatus]:
        """Where each triple is held; a triple held nowhere is absent from the result."""
        found = self.memo.many("status", triples, self._read_graphs)
        return self._statuses((*t, g) for t, graphs in found.items() for g in graphs or ())

    def _read_graphs(self, triples: list[Triple]) -> dict[Triple, list[str]]:
        rows = [(NamedNode(s), NamedNode(p), NamedNode(o)) for s, p, o in triples]
        out: dict[Triple, list[str]] = {}
        for batch in _batches(rows):
            for row in self.store.query(q.with_values(q.TRIPLE_GRAPHS, triples=batch)):
                if self.counts(row["g"].value) is not None:
                    out.setdefault((row["s"].value, row["p"].value, row["o"].value), []).append(row["g"].value)
        return out

    def chunk_spans(self, chunks: list[str]) -> dict[str, tuple[str | None, int | None, int | None]]:
        """(document IRI, start, end) of each chunk IRI, each part None when the chunk does not say."""
        return self.memo.many("span", chunks, self._read_spans)

    def _read_spans(self, chunks: list[str]) -> dict[str, tuple[str | None, int | None, int | None]]:
        out = {}
        for batch in _batches([(NamedNode(c),) for c in chunks]):
            for row in self.store.query(q.with_values(q.CHUNK_SPANS, chunks=batch)):
                doc, start, end = row["doc"], row["start"], row["end"]
                out.setdefault(row["c"].value, (doc.value if doc is not None else None,
                                                int(start.value) if start is not None else None,
                                                int(end.value) if end is not None else None))
        return out

    def property_labels(self, predicates: Iterable[str]) -> dict[str, str]:
        """rdfs:label of each property that has one."""
        found = self.memo.many("property label", predicates, self._read_property_labels)
        return {p: label for p, label in found.items() if label is not None}

    def _read_property_labels(self, predicates: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for batch in _batches([(NamedNode(p),) for p in predicates]):
            for row in self.store.query(q.with_values(q.PROPERTY_LABELS, properties=batch)):
                out.setdefault(row["p"].value, row["label"].value)
        return out

    def _nodes(self, entity_ids: list[str]) -> list[tuple[NamedNode]]:
        """VALUES rows of entity IRIs (callers pass ids that passed is_valid_id)."""
        return [(NamedNode(self.iris.entity(i)),) for i in entity_ids]

    def _statuses(self, quads: Iterable[Quad]) -> dict[Triple, FactStatus]:
        """Status of each triple from the graphs that hold it (system graphs were dropped when the quads were read)."""
        out: dict[Triple, FactStatus] = {}
        for s, p, o, g in quads:
            status = out.setdefault((s, p, o), FactStatus())
            if self.counts(g) == "inferred":
                status.inferred = True
            else:
                status.asserted_in.add(g)
        return out


def _batches(items: list, size: int = MAX_BATCH):
    for i in range(0, len(items), size):
        yield items[i:i + size]
