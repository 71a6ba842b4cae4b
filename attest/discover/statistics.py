"""What the data graphs say about their schema, read through bounded queries: predicate shapes, types, clusters."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from attest.discover.sparql import DataQueries
from attest.vocab import ATT, OWL, RDF, RDFS, SH, SKOS, XSD

RDF_TYPE = RDF + "type"
SAMPLE = 2000  # pairs, subjects or objects the per-predicate queries read (the LIMIT in queries/*.rq)
SCHEMA_NAMESPACES = (RDF, RDFS, OWL, SKOS, SH, XSD, ATT)  # predicates already defined elsewhere: never proposed
LINK_SHARE = 0.5  # two predicates describe one kind of subject when most subjects of each carry the other
MIN_CLUSTER = 3  # untyped subjects a cluster needs before it is proposed as a class
MAX_SIGNATURE = 20  # predicates of one subject considered for clustering (its most common ones): bounds the pair count

Progress = Callable[[str], None]


def is_schema(iri: str) -> bool:
    return iri.startswith(SCHEMA_NAMESPACES)


@dataclass
class PredicateStats:
    """One predicate's evidence; every count but `triples` comes from a bounded sample."""

    iri: str
    triples: int
    subjects: int = 0  # distinct subjects sampled
    single_valued: int = 0  # of those, subjects with exactly one value
    pairs: int = 0  # (subject, object) pairs sampled
    mirrors: dict[str, int] = field(default_factory=dict)  # predicate -> sampled pairs it holds reversed
    shared: dict[str, int] = field(default_factory=dict)  # other predicate -> sampled pairs it holds too
    subject_types: dict[str, int] = field(default_factory=dict)  # class -> sampled subjects of that type
    placed_subjects: int = 0  # subjects sampled (a smaller sample) to place the untyped ones in clusters
    untyped_subjects: int = 0  # of those, the ones with no type
    subject_clusters: dict[int, int] = field(default_factory=dict)  # cluster index -> untyped subjects in it
    placed_objects: int = 0  # IRI objects sampled (a smaller sample) to place the untyped ones in clusters
    object_clusters: dict[int, int] = field(default_factory=dict)  # cluster index -> untyped objects in it
    objects: int = 0  # distinct objects sampled
    iri_objects: int = 0
    untyped_objects: int = 0
    object_types: dict[str, int] = field(default_factory=dict)
    datatypes: dict[str, int] = field(default_factory=dict)  # literal objects by datatype

    @property
    def literal_objects(self) -> int:
        return sum(self.datatypes.values())


@dataclass
class Cluster:
    """Untyped subjects that share predicates: a class the data implies but does not name."""

    index: int
    predicates: dict[str, float]  # predicate -> share of the members that carry it (or are values of it)
    members: int  # of the sampled untyped subjects (or objects)
    sampled: int  # untyped subjects (or objects) sampled in all
    side: str = "subjects"  # "objects": IRIs with no predicates of their own, clustered by what leads to them


@dataclass
class GraphStats:
    graphs: list[str]
    total_triples: int
    predicates_seen: int  # distinct predicates outside the schema vocabularies
    predicates: list[PredicateStats]  # the ones analysed, most used first
    classes: dict[str, int]  # class named by rdf:type -> subjects
    clusters: list[Cluster]
    sampled: list[str] = field(default_factory=list)  # what was left out or sampled, in words
    queries: int = 0
    seconds: float = 0.0


def read_statistics(queries: DataQueries, *, max_predicates: int, deadline: float, progress: Progress) -> GraphStats:
    """Read the statistics; stops analysing predicates at `deadline` (time.monotonic()) and says so in `sampled`."""
    started = time.monotonic()
    counts = sorted(((row["p"], int(row["n"])) for row in queries.rows("predicate-counts")), key=lambda pn: (-pn[1], pn[0]))
    total = sum(n for _, n in counts)
    data = [(p, n) for p, n in counts if not is_schema(p)]
    progress(f"{total:,} triples, {len(data):,} predicates outside the schema vocabularies")
    sampled: list[str] = []
    if len(data) > max_predicates:
        sampled.append(f"analysed the {max_predicates:,} most used of {len(data):,} predicates; the other "
                       f"{len(data) - max_predicates:,} are not proposed")
    classes = dict(sorted(((row["c"], int(row["n"])) for row in queries.rows("type-counts")), key=lambda cn: (-cn[1], cn[0])))
    if time.monotonic() < deadline:
        places = _subject_and_object_clusters(queries)
    else:
        places = Places([], lambda signature: None, lambda signature: None)
        sampled.append("deadline reached before untyped subjects were clustered")
    clusters = places.clusters
    progress(f"{len(classes):,} classes in use, {len(clusters)} clusters of untyped subjects and objects")
    analysed: list[PredicateStats] = []
    chosen = data[:max_predicates]
    for number, (iri, n) in enumerate(chosen, start=1):
        if time.monotonic() > deadline:
            sampled.append(f"deadline reached: analysed {len(analysed):,} of {len(chosen):,} predicates (the most "
                           f"used first); the other {len(chosen) - len(analysed):,} are not proposed")
            break
        analysed.append(_predicate(queries, iri, n, places))
        if number % max(1, min(50, len(chosen) // 10)) == 0 or number == len(chosen):
            progress(f"predicates analysed: {number:,}/{len(chosen):,}")
    if any(p.triples > SAMPLE for p in analysed):
        sampled.append(f"per predicate, the shares come from its first {SAMPLE:,} subjects, objects and pairs")
    return GraphStats(queries.graphs, total, len(data), analysed, classes, clusters, sampled, queries.count,
                      time.monotonic() - started)


def _predicate(queries: DataQueries, iri: str, triples: int, places: Places) -> PredicateStats:
    stats = PredicateStats(iri, triples, pairs=min(triples, SAMPLE))
    row = queries.rows("subject-values", iri)[0]
    stats.subjects, stats.single_valued = int(row["subjects"] or 0), int(row["single"] or 0)
    stats.mirrors = {r["q"]: int(r["n"]) for r in queries.rows("mirrors", iri)}
    stats.shared = {r["q"]: int(r["n"]) for r in queries.rows("shared-pairs", iri) if not is_schema(r["q"])}
    stats.subject_types = {r["c"]: int(r["n"]) for r in queries.rows("subject-types", iri)}
    if places.clusters:
        members: dict[str, set[str]] = defaultdict(set)
        for r in queries.rows("subject-predicates", iri):
            members[r["s"]].add(r["q"])
        stats.placed_subjects = len(members)
        untyped = [frozenset(q for q in predicates if not is_schema(q)) for predicates in members.values()
                   if RDF_TYPE not in predicates]
        stats.untyped_subjects = len(untyped)
        placed = Counter(places.subject(signature) for signature in untyped)
        stats.subject_clusters = {index: n for index, n in placed.items() if index is not None}
    if places.clusters:
        _place_objects(queries, iri, stats, places)
    forms: dict[str, tuple[str, str | None]] = {}
    object_types: Counter[str] = Counter()
    typed: set[str] = set()
    for r in queries.rows("object-kinds", iri):
        forms[r["o"]] = (r["form"], r["datatype"])
        if r["type"] is not None:
            object_types[r["type"]] += 1
            typed.add(r["o"])
    for value, (form, datatype) in forms.items():
        if form == "literal":
            stats.datatypes[datatype or XSD + "string"] = stats.datatypes.get(datatype or XSD + "string", 0) + 1
        elif form == "iri":
            stats.iri_objects += 1
            stats.untyped_objects += value not in typed
    stats.object_types = dict(object_types)
    stats.objects = stats.iri_objects + stats.literal_objects
    return stats


@dataclass
class Places:
    """The clusters found, and where a subject (by its predicates) or an object (by the predicates that lead to it)
    belongs: a cluster index, or None."""

    clusters: list[Cluster]
    subject: Callable[[frozenset[str]], int | None]
    object: Callable[[frozenset[str]], int | None]


def _subject_and_object_clusters(queries: DataQueries) -> Places:
    subjects: dict[str, set[str]] = defaultdict(set)
    for r in queries.rows("untyped-subjects"):
        if not is_schema(r["q"]):
            subjects[r["s"]].add(r["q"])
    own: set[str] = {r["o"] for r in queries.rows("untyped-object-own") if not is_schema(r["q"])}
    objects: dict[str, set[str]] = defaultdict(set)
    for r in queries.rows("untyped-objects"):
        if r["o"] not in own and not is_schema(r["q"]):
            objects[r["o"]].add(r["q"])
    subject_clusters, place_subject = _clusters(subjects, "subjects", 0)
    object_clusters, place_object = _clusters(objects, "objects", len(subject_clusters))
    return Places(subject_clusters + object_clusters, place_subject, place_object)


def _place_objects(queries: DataQueries, iri: str, stats: PredicateStats, places: Places) -> None:
    """Place the untyped ones among the predicate's first 500 IRI objects: with the subjects when they have
    predicates of their own, else by the predicates that lead to them."""
    leading: dict[str, set[str]] = defaultdict(set)
    for r in queries.rows("object-predicates", iri):
        leading[r["o"]].add(r["q"])
    own: dict[str, set[str]] = defaultdict(set)
    for r in queries.rows("object-own", iri):
        own[r["o"]].add(r["q"])
    stats.placed_objects = len(leading)
    placed: Counter[int | None] = Counter()
    for value, into in leading.items():
        mine = own.get(value, set())
        if RDF_TYPE in mine:
            continue
        outgoing = frozenset(q for q in mine if not is_schema(q))
        placed[places.subject(outgoing) if outgoing else places.object(frozenset(q for q in into if not is_schema(q)))] += 1
    stats.object_clusters = {index: n for index, n in placed.items() if index is not None}


def _clusters(predicates_of: dict[str, set[str]], side: str, first: int) -> tuple[list[Cluster], Callable[[frozenset[str]], int | None]]:
    """Cluster a sample of untyped IRIs by the predicates they share (their own, or the ones leading to them): two
    predicates are linked when most IRIs of each carry the other, a cluster is a connected group of linked
    predicates, and an IRI joins the cluster that holds most of its predicates. Indexes start at `first`."""
    signatures = Counter(frozenset(p) for p in predicates_of.values() if p)
    having: Counter[str] = Counter()
    for signature, n in signatures.items():
        for p in signature:
            having[p] += n
    together: Counter[tuple[str, str]] = Counter()
    for signature, n in signatures.items():
        kept = sorted(signature, key=lambda p: (-having[p], p))[:MAX_SIGNATURE]
        for a in kept:
            for b in kept:
                if a < b:
                    together[(a, b)] += n
    parent = {p: p for p in having}

    def root(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for (a, b), n in together.items():
        if n > LINK_SHARE * having[a] and n > LINK_SHARE * having[b]:
            parent[root(a)] = root(b)
    groups: dict[str, set[str]] = defaultdict(set)
    for p in having:
        groups[root(p)].add(p)
    group_list = sorted(groups.values(), key=lambda g: (-max(having[p] for p in g), min(g)))

    group_of = {p: i for i, group in enumerate(group_list) for p in group}

    def place(signature: frozenset[str]) -> int | None:
        votes = Counter(group_of[p] for p in signature if p in group_of)
        return min(votes, key=lambda i: (-votes[i], i)) if votes else None

    members: dict[int, list[frozenset[str]]] = defaultdict(list)
    for signature, n in signatures.items():
        index = place(signature)
        if index is not None:
            members[index].extend([signature] * n)
    sampled = len(predicates_of)
    clusters: list[Cluster] = []
    kept_index: dict[int, int] = {}
    for index, group in enumerate(group_list):
        found = members.get(index, [])
        if len(found) < MIN_CLUSTER:
            continue
        shares = {p: sum(p in s for s in found) / len(found) for p in sorted(group)}
        kept_index[index] = first + len(clusters)
        clusters.append(Cluster(first + len(clusters), shares, len(found), sampled, side))

    def signature_of(signature: frozenset[str]) -> int | None:
        index = place(signature)
        return kept_index.get(index) if index is not None else None

    return clusters, signature_of
