"""Which nodes the SHACL gate must hand to pyshacl: per-shape signatures of one-hop shapes, remembered once they pass.

With shapes that only look one hop from the focus node (the project's shapes: paths are single
predicates, values are checked by datatype, range, length, pattern and sh:class), whether a node passes a
shape depends on the node's kind and types, its values on the predicates that shape reads, the types of
the IRIs among those values, and the class hierarchy. That tuple is the node's signature for the shape.
A node whose signatures all passed before passes again, so only nodes with a new signature are
validated, and only their triples (plus the types of what they point at) are given to pyshacl. Shapes
that look further (sh:node, qualified shapes, property pairs across nodes, SPARQL, closed shapes,
targets by node or by object) switch this off and every document is validated whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode, Quad
from pyshacl.constraints.core.string_based_constraints import StringBasedConstraintBase
from pyshacl.rdfutil.compare import compare_literal
from rdflib.namespace import RDF as RDFNS, RDFS as RDFSNS, SH

from attest.ingest.rdf_terms import to_rdf
from attest.vocab import RDF

_TYPE = RDF + "type"
_FAR_REACHING = {SH.targetNode, SH.targetObjectsOf, SH.hasValue, SH["in"], SH.equals, SH.disjoint,
                 SH.qualifiedValueShape, SH.node, SH.closed, SH.sparql, SH.select, SH.ask}
_NESTING = (SH.property, SH["or"], SH["and"], SH["not"], SH.xone, RDFNS.first, RDFNS.rest)
_STRING_CONSTRAINTS = (SH.pattern, SH.minLength, SH.maxLength)
_LENGTHS = (SH.minLength, SH.maxLength)
_BOUNDS = (SH.minInclusive, SH.minExclusive, SH.maxInclusive, SH.maxExclusive)
_PAIRS = (SH.lessThan, SH.lessThanOrEquals)
# parameters that judge each value node on its own: a property shape using only these passes iff each value does
_PER_VALUE = {SH.path, SH["class"], SH.nodeKind, SH.datatype, SH["or"], SH["and"], SH["not"], SH.xone, SH.minLength,
              SH.maxLength, SH.pattern, SH.flags, SH.languageIn, *_BOUNDS, SH.message, SH.name, SH.description,
              SH.severity, SH.order, SH.group, RDFNS.first, RDFNS.rest, RDFNS.type}
# constraints that read a literal's lexical form in a way its outcomes below do not capture: values kept verbatim
# (sh:pattern is captured: its match, with the flags pyshacl honours, is one of the outcomes)
_VERBATIM_LITERAL = (SH.flags,)


@dataclass
class TopShape:
    node: rdflib.term.Node
    classes: set[str]  # sh:targetClass
    subjects_of: set[str]  # sh:targetSubjectsOf
    reads: set[str]  # predicates on its paths (sh:path, sh:lessThan, ...)
    # literal values of these predicates enter signatures as the outcomes of the value tests on them
    # (lengths, range bounds) instead of verbatim: a new content hash or offset passes like the last one did
    tests: dict[str, tuple] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (path, other) of sh:lessThan(OrEquals)
    elementwise: set[str] = field(default_factory=set)  # predicates whose values are judged one by one
    signed: set[str] = field(default_factory=set)  # reads - elementwise: values that enter the node's signature


@dataclass
class DocumentIndex:
    """One document's triples by subject, the types of every node, and each node's signatures."""

    stars: dict = field(default_factory=dict)
    types: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)


class ShapeMemo:
    """Signatures of (shape, node) pairs that passed; decides which nodes pyshacl still has to see."""

    def __init__(self, shapes: rdflib.Graph, hierarchy: list[tuple], relevant: set[str] | None) -> None:
        self.shapes = shapes
        self.passed: set[tuple] = set()
        self._outcomes: dict[tuple, tuple] = {}
        self.enabled = relevant is not None and self._one_hop_only()
        if not self.enabled:
            return
        self.relevant = relevant
        parents: dict[str, set[str]] = {}
        for s, _, o in hierarchy:
            parents.setdefault(str(s), set()).add(str(o))
        self._parents = parents
        self._ancestors: dict[str, frozenset[str]] = {}
        self.top = [self._top(node) for node in self._targeted_shapes()]
        # which top shapes target a class, or the subjects of a predicate: a node meets only those (ids ascending)
        self._by_class: dict[str, list[int]] = {}
        self._by_subject_of: dict[str, list[int]] = {}
        for i, top in enumerate(self.top):
            for c in top.classes:
                self._by_class.setdefault(c, []).append(i)
            for p in top.subjects_of:
                self._by_subject_of.setdefault(p, []).append(i)
        self._targeting: dict[tuple[str, ...], frozenset[str]] = {}  # types -> their classes (memo of _classes)
        owners: dict = {}
        for i, top in enumerate(self.top):
            for part in self._reachable(top.node):
                owners.setdefault(part, set()).add(i)
        self._owner = {part: next(iter(ids)) for part, ids in owners.items() if len(ids) == 1}
        if not all(isinstance(t.node, rdflib.URIRef) for t in self.top):
            self.enabled = False  # blank-node shapes cannot be named to pyshacl (use_shapes)
        self.verbatim = self._verbatim()

    # analysis of the shapes ---------------------------------------------------------------

    def _one_hop_only(self) -> bool:
        used = set(self.shapes.predicates(None, None))
        if used & _FAR_REACHING:
            return False
        implicit = set(self.shapes.subjects(RDFNS.type, RDFSNS.Class)) & (
            set(self.shapes.subjects(RDFNS.type, SH.NodeShape)) | set(self.shapes.subjects(RDFNS.type, SH.PropertyShape)))
        if implicit:
            return False
        for shape in self._targeted_shapes():  # a string constraint on the focus node itself would read its IRI
            if any(self.shapes.value(shape, c) is not None for c in _STRING_CONSTRAINTS):
                return False
        return True

    def _targeted_shapes(self) -> list:
        return sorted({s for s in self.shapes.subjects(SH.targetClass, None)}
                      | {s for s in self.shapes.subjects(SH.targetSubjectsOf, None)}, key=str)

    def _reachable(self, start) -> set:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            for p in _NESTING:
                todo.extend(self.shapes.objects(node, p))
        return seen

    def _top(self, node) -> TopShape:
        reads: set[str] = set()
        for part in self._reachable(node):
            for p in (SH.path, SH.lessThan, SH.lessThanOrEquals):
                reads.update(str(v) for v in self.shapes.objects(part, p))
        top = TopShape(node, {str(c) for c in self.shapes.objects(node, SH.targetClass)},
                       {str(p) for p in self.shapes.objects(node, SH.targetSubjectsOf)}, reads)
        verbatim: set[str] = set()
        for part in self._reachable(node):
            path = self.shapes.value(part, SH.path)
            if path is None:
                continue
            inner = self._reachable(part)
            lengths = tuple(sorted((str(c), cast(rdflib.Literal, v).value)
                                   for n in inner for c in _LENGTHS for v in self.shapes.objects(n, c)))
            bounds = tuple(sorted(((str(c), v) for n in inner for c in _BOUNDS for v in self.shapes.objects(n, c)),
                                 key=lambda cb: (cb[0], str(cb[1]))))
            patterns = tuple(sorted((str(v), _pattern_flags(self.shapes.value(n, SH.flags)))
                                    for n in inner for v in self.shapes.objects(n, SH.pattern)))
            if any(self.shapes.value(n, c) is not None for n in inner for c in _VERBATIM_LITERAL) and \
                    any(not isinstance(v, rdflib.Literal) for n in inner for v in self.shapes.objects(n, SH.flags)):
                verbatim.add(str(path))
            prior = top.tests.get(str(path), ((), (), ()))
            top.tests[str(path)] = (prior[0] + lengths, prior[1] + bounds, prior[2] + patterns)
            top.pairs.extend((str(path), str(o)) for c in _PAIRS for o in self.shapes.objects(part, c))
        for iri in verbatim:
            top.tests.pop(iri, None)
        direct = set(self.shapes.objects(node, SH.property))
        by_path: dict[str, list] = {}
        for part in self._reachable(node):
            path = self.shapes.value(part, SH.path)
            if path is not None:
                by_path.setdefault(str(path), []).append(part)
        paired = {p for pair in top.pairs for p in pair}
        for path, parts in by_path.items():
            if path not in paired and all(part in direct and self._per_value_only(part) for part in parts):
                top.elementwise.add(path)
        top.signed = top.reads - top.elementwise
        return top

    def _per_value_only(self, part) -> bool:
        return all(p in _PER_VALUE or not str(p).startswith(str(SH)) for n in self._reachable(part)
                   for p in self.shapes.predicates(n, None))

    def _verbatim(self) -> set[str]:
        """Predicates whose IRI values some constraint reads as a string (kept as IRIs in signatures)."""
        verbatim = {_TYPE}
        for shape in set(self.shapes.subjects(SH.path, None)):
            parts = self._reachable(shape)
            if any(self.shapes.value(part, c) is not None for part in parts for c in _STRING_CONSTRAINTS):
                verbatim.add(str(self.shapes.value(shape, SH.path)))
        return verbatim

    def _classes(self, types: tuple[str, ...]) -> frozenset[str]:
        out: set[str] = set()
        for t in types:
            anc = self._ancestors.get(t)
            if anc is None:
                seen, todo = set(), [t]
                while todo:
                    c = todo.pop()
                    if c not in seen:
                        seen.add(c)
                        todo.extend(self._parents.get(c, ()))
                anc = self._ancestors[t] = frozenset(seen)
            out |= anc
        return frozenset(out)

    # per document ----------------------------------------------------------------------

    def index(self, quads: list[Quad], skip, previous: DocumentIndex | None = None) -> DocumentIndex:
        """Stars and signatures of every subject in the document (quads whose predicate IRI `skip`s left out).

        `previous`, the index of the same document before items were quarantined, lends the signatures of
        nodes whose triples and whose neighbours' types did not change."""
        doc = DocumentIndex()
        edges: dict = {}  # subject -> [(predicate IRI, object)]: pyoxigraph builds a new object on every accessor
        for q in quads:
            p = q.predicate.value
            if skip(p):
                continue
            s, o = q.subject, q.object
            doc.stars.setdefault(s, []).append(q)
            edges.setdefault(s, []).append((p, o))
            if p == _TYPE:
                doc.types.setdefault(s, []).append(cast(NamedNode | BlankNode, o).value)  # a class, never a triple term
        retyped = set() if previous is None else {
            n for n in previous.types.keys() | doc.types.keys() if previous.types.get(n) != doc.types.get(n)}
        by_class, by_subject_of = self._by_class, self._by_subject_of
        for node, star in edges.items():
            if previous is not None and node in previous.keys and doc.stars[node] == previous.stars.get(node) and \
                    not (retyped and any(o in retyped for _, o in star)):
                doc.keys[node] = previous.keys[node]
                continue
            types = tuple(sorted(doc.types.get(node, ())))
            classes = self._targeting.get(types)
            if classes is None:
                classes = self._targeting[types] = self._classes(types)
            met: set[int] = set()  # the top shapes whose targets the node meets
            for c in classes:
                met.update(by_class.get(c, ()))
            for p, _ in star:
                met.update(by_subject_of.get(p, ()))
            keys: list[tuple[Any, ...]] = []
            for i in sorted(met):
                shape = self.top[i]
                values = tuple(sorted(self._value(p, o, doc.types, shape) for p, o in star if p in shape.signed))
                pairs = tuple(_pair_outcomes(doc.stars[node], p, other) for p, other in shape.pairs)
                keys.append((i, type(node).__name__, types, values, pairs))
                if shape.elementwise:  # each distinct value is its own key: known values in a new mix pass as before
                    keys.extend({(i, "value", self._value(p, o, doc.types, shape)) for p, o in star
                                 if p in shape.elementwise})
            doc.keys[node] = keys
        return doc

    def _value(self, p: str, o, types: dict, shape: TopShape) -> tuple:
        if isinstance(o, Literal):
            tests = shape.tests.get(p)
            if tests is None:
                return p, str(o)
            key = (o, p, id(tests))
            outcomes = self._outcomes.get(key)
            if outcomes is None:  # offsets, confidences and labels repeat across documents
                if len(self._outcomes) > 200_000:
                    self._outcomes.clear()
                outcomes = self._outcomes[key] = (p, "Literal", *_literal_outcomes(o, *tests))
            return outcomes
        return self.iri_value(p, o, types)

    def iri_value(self, p: str, o, types: dict) -> tuple:
        """The signature of a non-literal value: its kind and types (or the IRI itself where a shape reads it)."""
        if p in self.verbatim:
            return p, str(o)
        return p, type(o).__name__, tuple(sorted(types.get(o, ())))

    def novel(self, doc: DocumentIndex) -> list:
        return [n for n, keys in doc.keys.items() if any(k not in self.passed for k in keys)]

    def unsettled(self, doc: DocumentIndex, node) -> dict[int, frozenset]:
        """The node's keys, by the index of the top shape they belong to, for the shapes it has not passed."""
        by_shape: dict[int, set] = {}
        for k in doc.keys[node]:
            by_shape.setdefault(k[0], set()).add(k)
        return {i: frozenset(keys) for i, keys in by_shape.items() if not keys <= self.passed}

    def top_shape_of(self, source) -> int | None:
        """The top shape a result's sh:sourceShape belongs to (None when it is not exactly one)."""
        return self._owner.get(source)

    def subgraph(self, doc: DocumentIndex, nodes: list) -> list[Quad]:
        """The nodes' own triples and the rdf:type triples of everything they point at."""
        out = []
        for n in nodes:
            out.extend(doc.stars[n])
            for q in doc.stars[n]:
                if isinstance(q.object, NamedNode) and q.object not in nodes:
                    out.extend(t for t in doc.stars.get(q.object, ()) if t.predicate.value == _TYPE)
        return list(dict.fromkeys(out))

    def remember(self, keys: frozenset) -> None:
        """Keys of a (shape, node) pair that passed."""
        if len(self.passed) > 500_000:
            self.passed.clear()
        self.passed.update(keys)


def _pattern_flags(flags) -> int:
    """The re flags pyshacl compiles an sh:pattern with: of sh:flags it honours only i and m."""
    text = str(flags).lower() if flags is not None else ""
    return (re.I if "i" in text else 0) | (re.M if "m" in text else 0)


def _literal_outcomes(o: Literal, lengths: tuple, bounds: tuple, patterns: tuple = ()) -> tuple:
    """What pyshacl's checks of a literal depend on: datatype, language, well-formedness, the Python type of
    its value (sh:datatype), its length against each sh:min/maxLength, its order against each range bound,
    whether each sh:pattern matches it (as pyshacl tests it: a search of its string form)."""
    v = cast(rdflib.Literal, to_rdf(o))
    text = StringBasedConstraintBase.value_node_to_string(v)
    outcomes: list[tuple] = [(c, n, len(text) >= n if c.endswith("minLength") else len(text) <= n) for c, n in lengths]
    outcomes.extend(("pattern", pattern, flags, re.compile(pattern, flags).search(text) is not None)
                    for pattern, flags in patterns)
    for c, bound in bounds:
        try:
            outcomes.append((c, str(bound), compare_literal(v, bound)))
        except (TypeError, NotImplementedError):
            outcomes.append((c, str(bound), "incomparable"))
    return (str(v.datatype), v.language, getattr(v, "ill_typed", None), type(v.value).__name__, tuple(outcomes))


def _pair_outcomes(star: list[Quad], path: str, other: str) -> tuple:
    """sh:lessThan / sh:lessThanOrEquals outcome of every (value, other value) pair, as pyshacl compares them."""

    def comparable(term):
        v = to_rdf(term)
        if isinstance(v, rdflib.URIRef):
            return "str", str(v)
        if isinstance(v, rdflib.Literal) and isinstance(v.value, str):
            return "str", v.value
        return type(v).__name__, v

    left = [comparable(q.object) for q in star if q.predicate.value == path]
    right = [comparable(q.object) for q in star if q.predicate.value == other]
    out: list[tuple[Any, Any] | str] = []
    for lk, lv in left:
        for rk, rv in right:
            if lk == "BNode" or rk == "BNode" or (lk == "str") != (rk == "str"):
                out.append((lk, rk))
                continue
            try:
                out.append((lv < rv, lv <= rv))
            except TypeError:
                out.append("incomparable")
    return tuple(sorted(out, key=repr))
