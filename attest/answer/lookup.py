"""Batched graph lookups shared by retrieval and verification: labels, details, facts and attributes of any IRI."""

from __future__ import annotations

import hashlib
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, TypedDict, TypeVar

from pyoxigraph import Literal, NamedNode, QuerySolution, RdfFormat, parse

from attest.answer import queries as q
from attest.answer.ids import Ids
from attest.answer.memo import Changes, Memo
from attest.answer.predicates import PropertyText
from attest.answer.validtime import Validity, read_validity
from attest.heap import settle
from attest.store.results import solutions
from attest.ingest import summary
from attest.store import GraphStore
from attest.vocab import ATT, DCT, ONT, OWL, PREFIXES, PROV, RDF, RDFS, SCHEMA, SH, SKOS, XSD, Iris

if TYPE_CHECKING:
    from attest.answer.near_miss import ByLength


Triple = tuple[str, str, str]  # subject IRI, predicate IRI, object IRI or N-Triples literal ("…"^^<…>)
Quad = tuple[str, str, str, str]  # the same and the graph IRI ('' for the default graph)
MAX_BATCH = 500  # IRIs per VALUES block; larger inputs are split into several queries
LABEL_TTL_S = 60.0  # safety net: a label edit that keeps every count is picked up within this time
HUB_DEGREE = 2000  # an IRI touched by more triples than this is a hub: read along wanted predicates only
HUB_ROWS = 200  # rows read per node in a bounded read
SUPPORT_CAP = 100  # documents counted per fact shown
SETTLE_LABELS = 5000  # a label index at least this big is put out of the garbage collector's reach once read
Fingerprint = tuple[tuple[str, ...], int | None]  # (label predicates, write generation) a label index was read at
# store -> (fingerprint, built at, index); weak keys, so a closed store's index goes with it
_LABEL_CACHE: "weakref.WeakKeyDictionary[object, tuple[Fingerprint, float, LabelIndex]]" = weakref.WeakKeyDictionary()
_VOCABULARY_CACHE: "weakref.WeakKeyDictionary[object, tuple[int, Vocabulary]]" = weakref.WeakKeyDictionary()
GENERIC_PREDICATES = frozenset(ONT + n for n in ("relatesTo", "mentions", "mentionedIn"))
DESCRIPTION_PREDICATES = (ONT + "description", DCT + "description", RDFS + "comment", SKOS + "definition",
                          SCHEMA + "description", ATT + "description")
VOCABULARY_NAMESPACES = (RDF, RDFS, OWL, SH, XSD, ATT, ONT, SKOS)  # their IRIs are terms of a schema, not entities
# a predicate of these says nothing about the world (types, labels, provenance): never a fact. Tested here, not in
# the fact queries: a SPARQL FILTER of seven STRSTARTS(STR(?p)) per row was half of a whole-node read's time
SCHEMA_NAMESPACES = (RDF, RDFS, OWL, SH, ATT, PROV, SKOS)


def is_literal(term: str) -> bool:
    """Whether a triple's object (as held in a Triple) is a literal in N-Triples form."""
    return term.startswith('"')


def literal_value(term: str) -> str:
    """The lexical form of a literal held in N-Triples form."""
    value: str = next(iter(parse(f"<urn:x:s> <urn:x:p> {term} .", format=RdfFormat.N_TRIPLES))).object.value
    return value


def relation_id(ids: Ids | Iris, triple: Triple) -> str:
    """Stable id of a fact: `{subject id}~{10 hex of sha256(s p o)}`; resolvable from the subject's facts."""
    digest = hashlib.sha256(" ".join(triple).encode()).hexdigest()[:10]
    subject = ids.of(triple[0]) if isinstance(ids, Ids) else ids.entity_id(triple[0])
    return f"{subject}~{digest}"


def split_relation_id(ref: str) -> tuple[str, str] | None:
    """(subject id, digest) of a relation id, or None when it is not one."""
    subject, sep, digest = ref.rpartition("~")
    if not sep or len(digest) != 10 or not all(c in "0123456789abcdef" for c in digest) or not subject:
        return None
    return subject, digest


@dataclass
class EntityInfo:
    """What the graph says about one IRI."""

    iri: str
    label: str
    types: list[str] = field(default_factory=list)
    description: str = ""


@dataclass
class FactStatus:
    """Where a triple is held: asserted in which graphs ('' = the default graph), inferred or not."""

    asserted_in: set[str] = field(default_factory=set)
    inferred: bool = False

    @property
    def asserted(self) -> bool:
        return bool(self.asserted_in)


class Phrases(TypedDict):
    """LabelMatcher's phrase table of a label index (attest/answer/linking.py)."""

    table: dict[tuple[str, ...], tuple[str, ...]]  # a label's folded words -> IRIs, in index order
    longest: dict[str, int]  # first word -> most words of a label starting with it
    vocabulary: set[str]  # the folded words classes and properties are named by
    related: dict[str, float]  # what WordNet relates the vocabulary's words to


class Dataset(TypedDict):
    """The dataset keywords of GraphStore.query that lookups pass."""

    union_default_graph: bool
    named_graphs: list[str]


@dataclass
class LabelIndex:
    """Every entity's labels: `labels[i]` names the IRI `iris[i]` (preferred labels first)."""

    labels: list[str]
    iris: list[str]
    preferred: dict[str, str]
    vocabulary: list[str] = field(default_factory=list)  # names of classes and properties: relation and type words
    properties: list[str] = field(default_factory=list)  # IRIs declared as properties, in any graph
    ranks: dict[tuple[str, str], int] = field(default_factory=dict)  # (IRI, label) -> best predicate's rank
    normalized: tuple[str, ...] | None = None  # filled once by LabelMatcher, kept with the cached index
    phrases: Phrases | None = None  # likewise: the matcher's phrase table
    by_length: "ByLength | None" = None  # likewise: the normalized labels sorted by length, for near misses

    def __contains__(self, iri: str) -> bool:
        return iri in self.preferred


@dataclass(frozen=True)
class Vocabulary:
    terms: set[str]  # IRIs declared classes or properties: never entities
    properties: list[str]
    names: list[str]  # what the classes and properties are called: relation and type words


class GraphLookup:
    """The few SPARQL round trips an answer needs, each batched over many IRIs or triples; what an IRI or a triple
    resolves to is remembered until the store's next write (attest/answer/memo.py), so only unseen ones are queried.

    An entity is any IRI with a value of one of `label_predicates` in a graph that holds facts (not the ontology,
    derivations, quarantine or status graphs), except vocabulary terms and Attest's own records. A fact is a
    triple between two IRIs with any predicate outside the schema and system vocabularies; a triple whose
    object is a literal (a year, a rating) is an attribute, shown and cited like a fact.
    """

    def __init__(self, store: GraphStore, iris: Iris, *, ids: Ids | None = None,
                 label_predicates: Iterable[str] | None = None, owner: object | None = None) -> None:
        """`owner`: the long-lived store behind `store` (which may be a per-request view); the caches hang on it."""
        self.store, self.iris = store, iris
        self.ids = ids or Ids(iris, PREFIXES)
        self.owner = owner if owner is not None else store
        self.label_predicates = list(label_predicates or (RDFS + "label", SKOS + "altLabel"))
        self._label_nodes = [(NamedNode(p),) for p in self.label_predicates]
        self._inferred = [(NamedNode(iris.inferred_graph),)]  # the fact reads' VALUES ?inferred (queries.NOT_TWIN)
        self._not_facts = frozenset(self.label_predicates) | frozenset(DESCRIPTION_PREDICATES)
        self._fact_predicates: dict[str, bool] = {}
        self._kinds: dict[str, str | None] = {}
        self._dataset: Dataset | None = None
        self._nodes: dict[str, bool] = {}
        self.memo = Memo(self.owner)

    def entity_id(self, iri: str) -> str | None:
        return self.ids.of(iri)

    @property
    def dataset(self) -> Dataset:
        """The graphs lookups read: while the fact summary is current, it stands for every document graph (one
        copy of each fact instead of one per document that states it); else every graph."""
        if self._dataset is None:
            dataset = self.memo.many("dataset", ["facts"], lambda _: {"facts": self._read_dataset()})["facts"]
            assert dataset is not None  # the fetch gives the one key it is asked for
            self._dataset = dataset
        return self._dataset

    def _read_dataset(self) -> Dataset:
        included = summary.included_graphs(self.store, self.iris)
        if included is not None:  # one small read: the graph list is kept with the summary
            graphs = [self.iris.facts_graph, self.iris.inferred_graph, *included]
        else:  # an out-of-date summary is not read at all
            graphs = [g for g in self.store.graphs() if g != self.iris.facts_graph] or [self.iris.facts_graph]
        return {"union_default_graph": False, "named_graphs": graphs}

    def counts(self, graph: str) -> str | None:
        """'asserted', 'inferred' or None (system graphs whose content is not a fact: ontology, derivations, quarantine)."""
        kind = self._kinds.get(graph, "")
        if kind == "":
            if graph == self.iris.inferred_graph:
                kind = "inferred"
            elif graph and (self.iris.is_system_graph(graph) or graph.startswith(self.iris.staging_graph_prefix)):
                kind = None
            else:
                kind = "asserted"
            self._kinds[graph] = kind
        return kind

    def is_node(self, iri: str) -> bool:
        """Whether an IRI can stand in a fact: it has a citable id and names no schema term."""
        node = self._nodes.get(iri)
        if node is None:  # memoized: the same IRIs recur in every row of a hop
            node = self._nodes[iri] = not iri.startswith(VOCABULARY_NAMESPACES) and self.ids.of(iri) is not None
        return node

    # labels -------------------------------------------------------------------------

    def label_index(self) -> LabelIndex:
        """Every entity label, cached per store: keyed by the generation of its last write that may change facts
        when it counts writes (exact, free), else rebuilt after LABEL_TTL_S. After writes whose scope the store
        journals, only the labels of the IRIs they changed facts about are read again."""
        generation = getattr(self.owner, "facts_generation", getattr(self.owner, "generation", None))
        fingerprint = (tuple(self.label_predicates), generation if isinstance(generation, int) else None)
        cached = _LABEL_CACHE.get(self.owner)
        if cached and time.monotonic() - cached[1] < LABEL_TTL_S:
            (predicates, built_at), built, index = cached
            if (predicates, built_at) == fingerprint:
                return index
            changed = self._changed_since(built_at, fingerprint[1]) if predicates == fingerprint[0] else None
            if changed is not None:  # the full read's time is kept: the safety net still comes round
                index = self._patched_labels(index, changed)
                _LABEL_CACHE[self.owner] = (fingerprint, built, index)
                return index
        index = self._read_labels()
        _LABEL_CACHE[self.owner] = (fingerprint, time.monotonic(), index)
        if len(index.labels) >= SETTLE_LABELS:
            settle()
        return index

    def _changed_since(self, since: int | None, until: int | None) -> set[str] | None:
        changes: Changes | None = getattr(self.owner, "facts_changed_about", None)
        if since is None or until is None or until < since or changes is None:
            return None
        return changes(since, until)

    def _vocabulary(self) -> "Vocabulary":
        """The classes and properties and their names, kept until a write that may declare others (one without a
        declared fact scope: an ontology reload, a client's update or upload)."""
        generation = getattr(self.owner, "schema_generation", None)
        cached = _VOCABULARY_CACHE.get(self.owner)
        if isinstance(generation, int) and cached and cached[0] == generation:
            return cached[1]
        terms = [(row["x"].value, row["t"].value) for row in solutions(self.store.query(q.VOCABULARY_TERMS))]
        vocabulary = Vocabulary(
            terms={x for x, _ in terms},
            properties=sorted({x for x, t in terms if t not in (RDFS + "Class", OWL + "Class") and isinstance(x, str)}),
            names=[row["text"].value for row in solutions(self.store.query(q.VOCABULARY_NAMES))])
        if isinstance(generation, int):
            _VOCABULARY_CACHE[self.owner] = (generation, vocabulary)
        return vocabulary

    def _read_labels(self) -> LabelIndex:
        query = q.with_values(q.ENTITY_LABELS, predicates=self._label_nodes)
        return self._label_index_of(self._label_ranks(solutions(self.store.query(query, **self.dataset))))

    def _patched_labels(self, index: LabelIndex, changed: set[str]) -> LabelIndex:
        """`index` with the labels of the `changed` IRIs read again (none changed: `index` itself)."""
        if not changed:
            return index
        ranks = {key: r for key, r in index.ranks.items() if key[0] not in changed}
        for batch in _batches(_pairs(changed, self.label_predicates)):
            rows = solutions(self.store.query(q.with_values(q.LABELS_OF, pairs=batch), **self.dataset))
            for key, r in self._label_ranks(rows).items():
                ranks[key] = min(r, ranks.get(key, r))
        return self._label_index_of(ranks)

    def _label_ranks(self, rows: Iterable[QuerySolution]) -> dict[tuple[str, str], int]:
        """(IRI, label) -> rank of the best predicate giving it, for the entities among label rows (?e ?p ?label ?g)."""
        rank = {p: i for i, p in enumerate(self.label_predicates)}
        vocabulary = self._vocabulary().terms
        found: dict[tuple[str, str], int] = {}
        for row in rows:
            iri = row["e"].value
            g = row["g"]
            if self.counts(g.value if g is not None else "") != "asserted" or iri in vocabulary or not self.is_node(iri):
                continue
            label, r = row["label"].value, rank[row["p"].value]
            if label.strip() and ((iri, label) not in found or r < found[(iri, label)]):
                found[(iri, label)] = r
        return found

    def _label_index_of(self, ranks: dict[tuple[str, str], int]) -> LabelIndex:
        best: dict[str, tuple[int, str]] = {}
        for (iri, label), r in ranks.items():
            if iri not in best or (r, label) < best[iri]:
                best[iri] = (r, label)
        preferred = {iri: label for iri, (_, label) in best.items()}
        ordered = sorted(ranks, key=lambda k: (k[1] != preferred[k[0]], ranks[k], k))
        schema = self._vocabulary()
        return LabelIndex([label for _, label in ordered], [iri for iri, _ in ordered], preferred, schema.names,
                          schema.properties, ranks)

    def labels_of(self, iris: Iterable[str]) -> dict[str, str]:
        """IRI -> preferred label for each IRI that a fact graph labels (the light check /verify needs)."""
        found = self.memo.many("label", iris, self._read_labels_of)
        return {i: label for i, label in found.items() if label is not None}

    def _read_labels_of(self, iris: list[str]) -> dict[str, str]:
        rank = {p: i for i, p in enumerate(self.label_predicates)}
        best: dict[str, tuple[int, str]] = {}
        for batch in _batches(_pairs(iris, self.label_predicates)):
            for row in solutions(self.store.query(q.with_values(q.LABELS_OF, pairs=batch), **self.dataset)):
                g = row["g"]
                if self.counts(g.value if g is not None else "") is None:
                    continue
                key = (rank[row["p"].value], row["label"].value)
                iri = row["e"].value
                if iri not in best or key < best[iri]:
                    best[iri] = key
        return {iri: label for iri, (_, label) in best.items()}

    def details(self, iris: Iterable[str]) -> dict[str, EntityInfo]:
        """Label, types and description of each IRI (the label falls back to its id); shared, read-only."""
        found = self.memo.many("details", iris, self._read_details)
        return {i: info for i, info in found.items() if info is not None}

    def _read_details(self, iris: list[str]) -> dict[str, EntityInfo]:
        rank = {p: i for i, p in enumerate(self.label_predicates)}
        wanted = [RDF + "type", *self.label_predicates, *DESCRIPTION_PREDICATES]
        labels: dict[str, tuple[int, str]] = {}
        types: dict[str, set[str]] = {}
        inferred_types: dict[str, set[str]] = {}
        descriptions: dict[str, str] = {}
        for batch in _batches(_pairs(iris, wanted)):
            for row in solutions(self.store.query(q.with_values(q.ENTITY_DETAILS, pairs=batch), **self.dataset)):
                g = row["g"]
                kind = self.counts(g.value if g is not None else "")
                if kind is None:
                    continue
                iri, p, v = row["e"].value, row["p"].value, row["v"]
                if p == RDF + "type":
                    if isinstance(v, NamedNode):
                        (types if kind == "asserted" else inferred_types).setdefault(iri, set()).add(v.value)
                elif not isinstance(v, Literal):
                    continue
                elif p in rank:
                    key = (rank[p], v.value)
                    if iri not in labels or key < labels[iri]:
                        labels[iri] = key
                else:
                    descriptions.setdefault(iri, v.value)
        out = {}
        for iri in set(labels) | set(types) | set(inferred_types) | set(descriptions):
            label = labels[iri][1] if iri in labels else (self.ids.of(iri) or iri)
            out[iri] = EntityInfo(iri, label, sorted(types.get(iri) or inferred_types.get(iri, set())),
                                  descriptions.get(iri, ""))
        return out

    # facts ---------------------------------------------------------------------------

    def validity(self, triples: Iterable[Triple]) -> dict[Triple, Validity]:
        """The valid time of the facts that have one (graph/validity): dated facts and changing ones."""
        found = self.memo.many("validity", triples, lambda ts: read_validity(self.store, self.iris.validity_graph, ts))
        return {t: v for t, v in found.items() if v is not None}

    def degrees(self, iris: Iterable[str]) -> dict[str, int]:
        """How many triples touch each IRI, in any graph (a cheap count: decides which IRIs are hubs)."""
        return {i: sum(counts.values()) for i, counts in self.predicate_counts(iris).items()}

    def predicate_counts(self, iris: Iterable[str]) -> dict[str, dict[str, int]]:
        """How many triples touch each IRI by predicate, in any graph, schema predicates included (a cheap count: no
        triple is decoded); shared, read-only."""
        found = self.memo.many("predicate counts", iris, self._read_predicate_counts)
        return {i: counts or {} for i, counts in found.items()}

    def _read_predicate_counts(self, iris: list[str]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for batch in _batches(_nodes(iris)):
            for row in solutions(self.store.query(q.with_values(q.PREDICATE_COUNTS, entities=batch), **self.dataset)):
                out.setdefault(row["x"].value, {})[row["p"].value] = int(row["n"].value)
        return out

    def facts_touching(self, iris: Iterable[str]) -> dict[Triple, FactStatus]:
        """Facts in or out of the given IRIs and their attributes, with their status."""
        found = self.memo.many("touching", iris, self._read_touching)
        return self._statuses(quad for quads in found.values() for quad in quads or ())

    def _read_touching(self, iris: list[str]) -> dict[str, tuple[Quad, ...]]:
        """Each IRI's quads: a quad between two of them is both one's and the other's (remembered as tuples of strings,
        which the garbage collector stops tracking: a full collection does not walk them)."""
        out: dict[str, set[Quad]] = {i: set() for i in iris}
        for batch in _batches(_nodes(iris)):
            for quad in self._fact_quads(q.with_values(q.FACTS_TOUCHING, entities=batch, inferred=self._inferred)):
                for end in (quad[0], quad[2]):
                    if end in out:
                        out[end].add(quad)
        return {i: tuple(sorted(quads)) for i, quads in out.items()}

    def hub_facts(self, hubs: list[str], predicates: Iterable[str], limit: int = HUB_ROWS) -> dict[Triple, FactStatus]:
        """At most `limit` facts per node (counted over all of them) along the given predicates, or any when none
        is given (not remembered: for a hub they are a sample)."""
        if not hubs:
            return {}
        along = sorted(set(predicates))
        wanted = [(NamedNode(p),) for p in along]
        nodes = _nodes(hubs)
        query = (q.with_values(q.HUB_FACTS, entities=nodes, wanted=wanted) if wanted
                 else q.with_values(q.SAMPLE_TOUCHING, entities=nodes))
        bound = str(int(limit) * len(hubs))
        quads = list(self._fact_quads(query + bound))
        if wanted and len(quads) >= int(bound):  # the bound was reached: the facts leaving each node get their own
            out = [q.with_values(q.HUB_FACTS_OUT, pairs=_pairs([hub], along)) + f"{int(limit)} }}"
                   for hub in hubs]
            quads += self._fact_quads(q.PREFIXES + "SELECT ?s ?p ?o ?g WHERE { " + " UNION ".join(out) + " }")
        return self._statuses(quads)

    def facts_from(self, iris: Iterable[str]) -> dict[Triple, FactStatus]:
        """Facts and attributes out of the given subjects (resolving hashed relation ids)."""
        found = self.memo.many("from", iris, self._read_from)
        return self._statuses(quad for quads in found.values() for quad in quads or ())

    def _read_from(self, iris: list[str]) -> dict[str, tuple[Quad, ...]]:
        out: dict[str, list[Quad]] = {i: [] for i in iris}
        for batch in _batches(_nodes(iris)):
            for quad in self._fact_quads(q.with_values(q.FACTS_FROM, entities=batch)):
                out[quad[0]].append(quad)
        return {i: tuple(quads) for i, quads in out.items()}  # as in _read_touching

    def _fact_quads(self, query: str) -> Iterable[Quad]:
        """The rows of a fact query that are facts: in a fact graph, between nodes, with a predicate that says something."""
        return self._facts_of(solutions(self.store.query(query, **self.dataset)))

    def _facts_of(self, rows: Iterable[QuerySolution]) -> Iterator[Quad]:
        for row in rows:
            g, s, p, o = row["g"], row["s"].value, row["p"].value, row["o"]
            g = g.value if g is not None else ""
            if not self._says_something(p) or self.counts(g) is None or not self.is_node(s):
                continue
            if isinstance(o, NamedNode):
                if not self.is_node(o.value):
                    continue
                yield s, p, o.value, g
            elif isinstance(o, Literal):
                yield s, p, str(o), g

    def _says_something(self, predicate: str) -> bool:
        """Whether a predicate can make a fact: not a label, description or schema term (memoized per predicate)."""
        says = self._fact_predicates.get(predicate)
        if says is None:
            says = self._fact_predicates[predicate] = (predicate not in self._not_facts
                                                       and not predicate.startswith(SCHEMA_NAMESPACES))
        return says

    def status(self, triples: Iterable[Triple]) -> dict[Triple, FactStatus]:
        """Where each triple between IRIs is held; a triple held nowhere is absent from the result."""
        found = self.memo.many("status", (t for t in triples if not is_literal(t[2])), self._read_graphs)
        return self._statuses((*t, g) for t, graphs in found.items() for g in graphs or ())

    def _read_graphs(self, triples: list[Triple]) -> dict[Triple, list[str]]:
        rows = [(NamedNode(s), NamedNode(p), NamedNode(o)) for s, p, o in triples]
        out: dict[Triple, list[str]] = {}
        for batch in _batches(rows):
            for row in solutions(self.store.query(q.with_values(q.TRIPLE_GRAPHS, triples=batch), **self.dataset)):
                g = row["g"].value if row["g"] is not None else ""
                if self.counts(g) is not None:
                    out.setdefault((row["s"].value, row["p"].value, row["o"].value), []).append(g)
        return out

    def documents(self, triples: Iterable[Triple]) -> dict[Triple, list[str]]:
        """The document graphs that assert each triple, at most SUPPORT_CAP + 1 of them by triple (a fact stated
        by thousands of documents is not read thousands of times to be shown), sorted."""
        found = self.memo.many("documents", (t for t in triples if not is_literal(t[2])), self._read_documents)
        return {t: v for t, v in found.items() if v}

    def _read_documents(self, triples: list[Triple]) -> dict[Triple, list[str]]:
        prefix = str(Literal(self.iris.document_graph_prefix))
        out: dict[Triple, list[str]] = {}
        for batch in _batches(triples, 50):
            branches = [q.TRIPLE_DOCUMENTS % {"i": i, "triple": " ".join(str(NamedNode(x)) for x in t), "prefix": prefix,
                                              "limit": SUPPORT_CAP + 1} for i, t in enumerate(batch)]
            for row in solutions(self.store.query("SELECT ?i ?g WHERE { " + " UNION ".join(branches) + " }")):
                out.setdefault(batch[int(row["i"].value)], []).append(row["g"].value)
        return {t: sorted(graphs) for t, graphs in out.items()}

    def graph_triples(self, graph: str) -> set[Triple]:
        """Every triple of one graph, as Triples (a document's facts, for answers about that document only)."""
        found = self.memo.many("graph", [graph], lambda gs: {g: self._read_graph(g) for g in gs})
        return found[graph] or set()

    def _read_graph(self, graph: str) -> set[Triple]:
        return {(q_.subject.value, q_.predicate.value, q_.object.value if isinstance(q_.object, NamedNode) else str(q_.object))
                for q_ in self.store.quads(graph) if isinstance(q_.subject, NamedNode)}

    # chunks and properties ---------------------------------------------------------------

    def chunk_spans(self, chunks: list[str]) -> dict[str, tuple[str | None, int | None, int | None] | None]:
        """(document IRI, start, end) of each chunk IRI, each part None when the chunk does not say; None for a
        chunk the store does not hold."""
        return self.memo.many("span", chunks, self._read_spans)

    def _read_spans(self, chunks: list[str]) -> dict[str, tuple[str | None, int | None, int | None]]:
        out: dict[str, tuple[str | None, int | None, int | None]] = {}
        for batch in _batches(_nodes(chunks)):
            for row in solutions(self.store.query(q.with_values(q.CHUNK_SPANS, chunks=batch))):
                doc, start, end = row["doc"], row["start"], row["end"]
                out.setdefault(row["c"].value, (doc.value if doc is not None else None,
                                                int(start.value) if start is not None else None,
                                                int(end.value) if end is not None else None))
        return out

    def properties_in_use(self, predicates: Iterable[str]) -> list[str]:
        """Those of `predicates` that state at least one triple, in the order given."""
        found = self.memo.many("property in use", predicates, self._read_properties_in_use)
        return [p for p, used in found.items() if used]

    def _read_properties_in_use(self, predicates: list[str]) -> dict[str, bool]:
        used = dict.fromkeys(predicates, False)
        for batch in _batches(_nodes(predicates)):
            for row in solutions(self.store.query(q.with_values(q.PROPERTIES_IN_USE, properties=batch))):
                used[row["p"].value] = True
        return used

    def property_texts(self, predicates: Iterable[str]) -> dict[str, PropertyText]:
        """What each property is called: labels, alternative labels and comments, its own and its inverses'."""
        found = self.memo.many("property text", predicates, self._read_property_texts)
        return {p: text or PropertyText() for p, text in found.items()}

    def _read_property_texts(self, predicates: list[str]) -> dict[str, PropertyText]:
        # a property the graph names nowhere is remembered too, by its own empty text: what is known of its words (its
        # local name's, attest.answer.predicates.describing_words) is kept on it across requests, as on any other
        out: dict[str, PropertyText] = {p: PropertyText() for p in predicates}
        for batch in _batches(_nodes(predicates)):
            for row in solutions(self.store.query(q.with_values(q.PROPERTY_TEXT, properties=batch))):
                text = out.setdefault(row["p"].value, PropertyText())
                value = row["text"].value
                if row["inverse"] is not None:
                    text.inverse.append(value)
                elif row["k"].value == RDFS + "label" and not text.label:
                    text.label = value
                else:
                    text.other.append(value)
            for row in solutions(self.store.query(q.with_values(q.PROPERTY_CLASSES, properties=batch))):
                text = out.setdefault(row["p"].value, PropertyText())
                (text.domain if row["side"].value == "domain" else text.range).append(row["text"].value)
        return out

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


def _pairs(iris: Iterable[str], predicates: list[str]) -> list[tuple[NamedNode, NamedNode]]:
    """VALUES rows pairing each IRI with each predicate."""
    nodes = [NamedNode(p) for p in predicates]
    return [(NamedNode(i), p) for i in iris for p in nodes]


def _nodes(iris: Iterable[str]) -> list[tuple[NamedNode]]:
    return [(NamedNode(i),) for i in iris]


T = TypeVar("T")


def _batches(items: list[T], size: int = MAX_BATCH) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
