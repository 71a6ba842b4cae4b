"""Proposed terms with evidence and confidence, built from the graph's statistics by explicit rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode

from attest.discover.names import camel, fallback_name, words_of
from attest.discover.statistics import Cluster, GraphStats, PredicateStats, is_schema
from attest.vocab import OWL, RDF, RDFS, SKOS, XSD

MOST = 0.5  # a domain or range is the class of most (more than half) of the sampled subjects or objects
MIRROR_SHARE = 0.9  # an inverse (or symmetric) pair: nine in ten sampled pairs hold reversed, both ways
WITHIN_SHARE = 0.95  # a sub-property: nearly all its sampled pairs also held by the other, larger predicate
PRIOR = 2  # confidence = share * n / (n + PRIOR): a share seen on a handful of items counts for less
DISCOVERED_PATH = "ontology/discovered#"  # minted class IRIs: {base}ontology/discovered#WithReleaseYear


@dataclass
class Statement:
    """One triple proposed about a term, with why."""

    predicate: str
    value: NamedNode | Literal
    confidence: float
    evidence: str


@dataclass
class ProposedTerm:
    iri: str
    kind: str  # owl:Class, owl:ObjectProperty or owl:DatatypeProperty
    label: str
    label_source: str  # "local name", "IRI digest", "none" (a cluster class) or "review"
    confidence: float  # of the term as a whole
    evidence: list[str] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    alt_labels: list[str] = field(default_factory=list)
    comment: str = ""

    @property
    def is_class(self) -> bool:
        return self.kind == OWL + "Class"


@dataclass
class Proposal:
    terms: list[ProposedTerm]
    stats: GraphStats
    skipped_known: int  # terms the accepted ontology already declares
    notes: list[str] = field(default_factory=list)  # sampling, review outcome


def confidence(share: float, n: int) -> float:
    return round(share * n / (n + PRIOR), 3) if n else 0.0


def propose(stats: GraphStats, known: set[str], base: str) -> Proposal:
    """Terms for the classes in use, the clusters of untyped subjects and every analysed predicate, leaving out
    what the accepted ontology already declares (`known`)."""
    terms: list[ProposedTerm] = []
    cluster_iris = _cluster_iris(stats.clusters, base)
    for cls, n in stats.classes.items():
        if cls not in known and not is_schema(cls):  # owl:Thing, skos:Concept: defined by their vocabularies
            terms.append(_typed_class(cls, n))
    for cluster in stats.clusters:
        if cluster_iris[cluster.index] not in known:  # accepted from an earlier discovery
            terms.append(_cluster_class(cluster, cluster_iris[cluster.index]))
    by_iri = {p.iri: p for p in stats.predicates}
    for p in stats.predicates:
        if p.iri not in known:
            terms.append(_property(p, by_iri, cluster_iris))
    skipped = (sum(1 for c in stats.classes if c in known) + sum(1 for p in stats.predicates if p.iri in known)
               + sum(1 for iri in cluster_iris.values() if iri in known))
    return Proposal(terms, stats, skipped, list(stats.sampled))


def _cluster_iris(clusters: list[Cluster], base: str) -> dict[int, str]:
    out, used = {}, set()
    for cluster in clusters:
        top = max(cluster.predicates, key=lambda p: (cluster.predicates[p], p))
        name = ("With" if cluster.side == "subjects" else "ValueOf") + camel(words_of(top) or fallback_name(top, "property"))
        candidate, k = name, 2
        while candidate in used:
            candidate, k = f"{name}{k}", k + 1
        used.add(candidate)
        out[cluster.index] = f"{base}{DISCOVERED_PATH}{candidate}"
    return out


def _label(iri: str, kind: str) -> tuple[str, str, list[str]]:
    words = words_of(iri)
    if words:
        return words, "local name", []
    return fallback_name(iri, kind), "IRI digest", [f"no usable local name in <{iri}>: named by a digest of the IRI"]


def _typed_class(iri: str, subjects: int) -> ProposedTerm:
    label, source, evidence = _label(iri, "class")
    return ProposedTerm(iri, OWL + "Class", label, source, 1.0,
                        [f"the rdf:type of {subjects:,} subjects", *evidence],
                        [Statement(RDFS + "label", Literal(label, language="en"), 1.0 if source == "local name" else 0.3,
                                   f"from the {source}")])


def _cluster_class(cluster: Cluster, iri: str) -> ProposedTerm:
    """A class for a cluster of untyped subjects (or of values). It gets no rdfs:label: the only words at hand are its
    predicates' ("release year"), and a class called by them would read as what questions about those predicates
    ask for ("what year ..." typed as this class). A comment says what it holds; the review or a person names it."""
    ranked = sorted(cluster.predicates.items(), key=lambda kv: (-kv[1], kv[0]))
    names = [words_of(p) or fallback_name(p, "property") for p, _ in ranked]
    shares = ", ".join(f"{name} {share:.0%}" for name, (_, share) in zip(names, ranked))
    if cluster.side == "subjects":
        found = f"{cluster.members:,} of {cluster.sampled:,} sampled untyped subjects share predicates: {shares}"
        comment = "Untyped subjects that share the predicates " + ", ".join(names[:6]) + "."
    else:
        found = (f"{cluster.members:,} of {cluster.sampled:,} sampled untyped objects with no predicates of their own "
                 f"are values of: {shares}")
        comment = "Untyped values of the predicates " + ", ".join(names[:6]) + "."
    evidence = [found, "no label: name it (the review does); its predicates' words would read as an answer type"]
    cohesion = sum(share for _, share in ranked) / len(ranked)
    return ProposedTerm(iri, OWL + "Class", "", "none", confidence(cohesion, cluster.members), evidence,
                        [Statement(RDFS + "comment", Literal(comment, language="en"), confidence(cohesion, cluster.members),
                                   "the predicates its members share, most shared first")])


def _property(p: PredicateStats, by_iri: dict[str, PredicateStats], cluster_iris: dict[int, str]) -> ProposedTerm:
    literal = p.literal_objects > p.iri_objects
    kind = OWL + ("DatatypeProperty" if literal else "ObjectProperty")
    label, source, evidence = _label(p.iri, "property")
    evidence = [f"{p.triples:,} triples; sampled {p.subjects:,} subjects, {p.objects:,} objects, {p.pairs:,} pairs",
                f"objects: {p.iri_objects:,} IRIs, {p.literal_objects:,} literals", *evidence]
    statements = [Statement(RDFS + "label", Literal(label, language="en"), 1.0 if source == "local name" else 0.3,
                            f"from the {source}")]
    statements += _domain(p, cluster_iris)
    statements += _range(p, literal, cluster_iris)
    if p.subjects and p.single_valued == p.subjects:
        statements.append(Statement(RDF + "type", NamedNode(OWL + "FunctionalProperty"), confidence(1.0, p.subjects),
                                    f"each of {p.subjects:,} sampled subjects has exactly one value"))
    if not literal:
        statements += _mirrors(p, by_iri)
    statements += _super_properties(p, by_iri)
    term_confidence = min(s.confidence for s in statements)
    return ProposedTerm(p.iri, kind, label, source, term_confidence, evidence, statements)


def _domain(p: PredicateStats, cluster_iris: dict[int, str]) -> list[Statement]:
    if not p.subjects:
        return []
    return _class_of_most(RDFS + "domain", p.subjects, p.subject_types, p.placed_subjects, p.subject_clusters,
                          cluster_iris, "subjects")


def _range(p: PredicateStats, literal: bool, cluster_iris: dict[int, str]) -> list[Statement]:
    if literal:
        total = p.literal_objects
        datatype, n = max(p.datatypes.items(), key=lambda kv: (kv[1], kv[0]))
        why = f"{n:,} of {total:,} sampled literal values are {_short(datatype)}"
        if n / total <= MOST:
            return []
        return [Statement(RDFS + "range", NamedNode(datatype), confidence(n / total, total), why)]
    return _class_of_most(RDFS + "range", p.iri_objects, p.object_types, p.placed_objects, p.object_clusters,
                          cluster_iris, "IRI objects")


def _class_of_most(axiom: str, total: int, types: dict[str, int], placed: int, clusters: dict[int, int],
                   cluster_iris: dict[int, str], what: str) -> list[Statement]:
    """`axiom` (rdfs:domain or rdfs:range) to the class, or the cluster of untyped ones, that more than MOST of the
    sampled subjects or objects belong to; nothing when none does."""
    candidates = [(n / total, total, cls, f"{n:,} of {total:,} sampled {what} are typed {_short(cls)}")
                  for cls, n in types.items() if total]
    candidates += [(n / placed, placed, cluster_iris[i],
                    f"{n:,} of {placed:,} sampled {what} are untyped and fall in the cluster {_short(cluster_iris[i])}")
                   for i, n in clusters.items()]
    if not candidates:
        return []
    share, n, cls, why = max(candidates)
    if share <= MOST:
        return []
    return [Statement(axiom, NamedNode(cls), confidence(share, n), why)]


def _mirrors(p: PredicateStats, by_iri: dict[str, PredicateStats]) -> list[Statement]:
    out = []
    for q, n in sorted(p.mirrors.items()):
        share = n / p.pairs if p.pairs else 0.0
        if share < MIRROR_SHARE:
            continue
        if q == p.iri:
            out.append(Statement(RDF + "type", NamedNode(OWL + "SymmetricProperty"), confidence(share, p.pairs),
                                 f"{n:,} of {p.pairs:,} sampled pairs also hold reversed"))
            continue
        other = by_iri.get(q)
        if other is None or not other.pairs:
            continue
        back = other.mirrors.get(p.iri, 0) / other.pairs
        if back >= MIRROR_SHARE:
            out.append(Statement(OWL + "inverseOf", NamedNode(q), confidence(min(share, back), min(p.pairs, other.pairs)),
                                 f"{n:,} of {p.pairs:,} sampled pairs hold reversed as {_short(q)}, and "
                                 f"{other.mirrors.get(p.iri, 0):,} of its {other.pairs:,} hold reversed here"))
    return out


def _super_properties(p: PredicateStats, by_iri: dict[str, PredicateStats]) -> list[Statement]:
    out = []
    for q, n in sorted(p.shared.items()):
        share = n / p.pairs if p.pairs else 0.0
        other = by_iri.get(q)
        if share >= WITHIN_SHARE and other is not None and other.triples > p.triples:
            out.append(Statement(RDFS + "subPropertyOf", NamedNode(q), confidence(share, p.pairs),
                                 f"{n:,} of {p.pairs:,} sampled pairs are also pairs of {_short(q)} "
                                 f"({other.triples:,} triples)"))
    return out


def _short(iri: str) -> str:
    for prefix, namespace in (("xsd:", XSD), ("rdf:", RDF), ("owl:", OWL), ("skos:", SKOS)):
        if iri.startswith(namespace):
            return prefix + iri[len(namespace):]
    return f"<{iri}>"
