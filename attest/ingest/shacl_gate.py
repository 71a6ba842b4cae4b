"""SHACL gate: pyshacl over one document graph (plus the ontology's class hierarchy); offending items are quarantined."""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from pyoxigraph import Literal, NamedNode, Quad, Triple
from pyshacl import Validator
from pyshacl.graph_abstraction import DataGraph
from pyshacl.shapes_graph import ShapesGraph
from rdflib.namespace import RDF as RDFNS, RDFS as RDFSNS, SH as SHNS

from attest.errors import OntologyError
from attest.ingest.rdf_map import REIFIES, att
from attest.ingest.shacl_failures import FailureMemo
from attest.ingest.rdf_terms import to_oxi, to_rdf
from attest.ingest.shacl_memo import DocumentIndex, ShapeMemo
from attest.vocab import ATT, RDF, SH

MAX_PASSES = 3  # removing an item can expose another violation (a relation to a quarantined entity); re-check
DENOTES = NamedNode(ATT + "denotes")
VALID_TIME = frozenset({ATT + "validFrom", ATT + "validTo"})  # a violation on these quarantines the dated fact
_VALIDATION_OPTIONS = {"inference": "none", "inplace": True, "abort_on_first": False, "advanced": False,
                       "allow_infos": False, "allow_warnings": False}


@dataclass
class Finding:
    """One sh:ValidationResult, with the triples it took out of the document."""

    focus: str
    path: str | None
    value: str | None
    message: str
    shape: str | None
    component: str | None
    severity: str
    result_triples: list[tuple] = field(default_factory=list)  # (p, o) of the result node, as pyoxigraph terms
    removed: list[Triple] = field(default_factory=list)
    raw: tuple = field(default=(), repr=False)  # (focus, path, value, shape) as rdflib terms

    def to_dict(self) -> dict[str, object]:
        return {"focus": self.focus, "path": self.path, "value": self.value, "message": self.message,
                "shape": self.shape, "severity": self.severity.rsplit("#", 1)[-1], "triples": len(self.removed)}


@dataclass
class GateResult:
    kept: list[Quad]
    findings: list[Finding]  # violations (items quarantined) and warnings (kept)

    @property
    def quarantined(self) -> list[Finding]:
        return [f for f in self.findings if f.removed]


def read_turtle_dir(directory: Path, off: Collection[str] = ()) -> rdflib.Graph:
    """Every *.ttl file of the folder but those of the modules turned off (ontology_modules_off), as one graph."""
    graph = rdflib.Graph()
    files = [p for p in sorted(directory.glob("*.ttl")) if p.stem not in set(off)]
    if not files:
        raise OntologyError(f"no Turtle files (*.ttl) in {directory}", directory=str(directory))
    for path in files:
        try:
            graph.parse(path, format="turtle")
        except (SyntaxError, ValueError, OSError) as exc:
            raise OntologyError(f"{path}: {exc}", file=str(path)) from exc
    return graph


class ShaclGate:
    """Shapes parsed once; each document graph is validated together with the ontology's class hierarchy."""

    def __init__(self, shapes: rdflib.Graph, ontology: rdflib.Graph | None = None) -> None:
        self.shapes = shapes
        # sh:class and sh:targetClass follow rdfs:subClassOf in the data graph: the hierarchy is all they need
        self.hierarchy = [(s, RDFSNS.subClassOf, o) for s, o in ontology.subject_objects(RDFSNS.subClassOf)
                          if isinstance(s, rdflib.URIRef) and isinstance(o, rdflib.URIRef)] if ontology is not None else []
        self.subject_targets: dict[rdflib.term.Node, set[str]] = {}
        for shape, p in self.shapes.subject_objects(SHNS.targetSubjectsOf):
            self.subject_targets.setdefault(shape, set()).add(str(p))
        self.relevant = self._relevant_predicates()
        self.memo = ShapeMemo(shapes, self.hierarchy, self.relevant)
        self.failures = FailureMemo(self.memo)
        self._shapes_graph = ShapesGraph(self.shapes)
        _ = self._shapes_graph.shapes  # harvest every shape now, so any subset can be named later (use_shapes)
        self._lock = threading.Lock()  # pyshacl's harvested shapes are shared; validate one graph at a time

    @classmethod
    def from_dirs(cls, shapes_dir: Path, ontology_dir: Path, off: Collection[str] = ()) -> "ShaclGate":
        return cls(read_turtle_dir(shapes_dir, off), read_turtle_dir(ontology_dir, off))

    def _relevant_predicates(self) -> set[str] | None:
        """Predicates any shape can look at; None (= keep everything) for closed shapes, complex paths or SPARQL."""
        if any(True for _ in self.shapes.subject_objects(SHNS.closed)) or \
                any(True for _ in self.shapes.subject_objects(SHNS.sparql)):
            return None
        relevant = {RDF + "type", str(RDFSNS.subClassOf)}
        for p in (SHNS.path, SHNS.targetSubjectsOf, SHNS.targetObjectsOf, SHNS.lessThan, SHNS.lessThanOrEquals,
                  SHNS.equals, SHNS.disjoint):
            for value in self.shapes.objects(None, p):
                if not isinstance(value, rdflib.URIRef):
                    return None
                relevant.add(str(value))
        return relevant

    # validation -------------------------------------------------------------------

    def validate_graph(self, data: rdflib.Graph, focus: list[str] | None = None,
                       shapes: list[str] | None = None) -> tuple[bool, rdflib.Graph]:
        """pyshacl over `data` (modified in place: the class hierarchy is added); returns (conforms, report).

        `focus` limits validation to those nodes (a re-check after quarantining only needs the nodes it touched).
        """
        for t in self.hierarchy:
            data.add(t)
        options = dict(_VALIDATION_OPTIONS, focus_nodes=focus) if focus else dict(_VALIDATION_OPTIONS)
        if shapes:  # with focus nodes too, pyshacl checks exactly these nodes against exactly these shapes
            options["use_shapes"] = shapes
        with self._lock:
            validator = Validator(DataGraph.from_rdflib(data), shacl_graph=self.shapes, options=options)
            validator.shacl_graph = self._shapes_graph  # reuse the harvested shapes instead of re-reading them
            conforms, report, _ = validator.run()
        return bool(conforms), report

    def gate(self, quads: list[Quad]) -> GateResult:
        """Validate, take offending items out, re-validate what is left; kept + findings."""
        kept = list(quads)
        findings: list[Finding] = []
        focus: list[str] | None = None
        doc = None
        for _ in range(MAX_PASSES):
            conforms, report, doc = self._check(kept, focus, doc)
            if conforms:
                break
            assert report is not None  # a check that fails has its report
            new = self.findings(report)
            violations = [f for f in new if f.severity == SH + "Violation"]
            findings.extend(f for f in new if f.severity != SH + "Violation")
            if not violations:
                break
            before = kept
            kept = self._remove(kept, violations)
            findings.extend(violations)
            focus = touched_nodes(before, kept)
            if not focus:
                break
        else:
            conforms, _, _ = self._check(kept, focus, doc)
            if not conforms:  # still failing: keep nothing rather than commit a graph that violates the shapes
                rest = Finding("", None, None, "document still violates the shapes after quarantining items",
                               None, None, SH + "Violation", removed=[Triple(q.subject, q.predicate, q.object) for q in kept])
                findings.append(rest)
                kept = []
        return GateResult(kept, findings)

    def _check(self, quads: list[Quad], focus: list[str] | None,
               previous: DocumentIndex | None) -> tuple[bool, rdflib.Graph | None, DocumentIndex | None]:
        """pyshacl on what needs it: with the memo, only nodes with a new signature; else `focus` (or all).
        Also returns the memo's index of `quads`, which the next pass over the same document reuses."""
        if not self.memo.enabled:
            return *self.validate_graph(to_rdflib(quads, self.relevant), focus), None
        doc = self.memo.index(quads, self._unshaped, previous)
        novel = self.memo.novel(doc)
        if not novel:
            return True, None, doc  # every node passed the shapes before with the same signature
        if not all(isinstance(n, NamedNode) for n in novel):  # blank nodes cannot be named as focus nodes
            return *self.validate_graph(to_rdflib(quads, self.relevant), None), doc
        conforms, report = True, rdflib.Graph(bind_namespaces="none")
        pending: dict[tuple[int, ...], list[NamedNode]] = {}  # shapes still to check -> the nodes to check them on
        unsettled = {n: self.memo.unsettled(doc, n) for n in novel}
        for n, shapes in unsettled.items():
            to_check = []
            for i, keys in shapes.items():
                if self.failures.replay(doc, n, i, keys, report):
                    conforms = False
                else:
                    to_check.append(i)
            if to_check:
                pending.setdefault(tuple(to_check), []).append(n)
        for todo, nodes in pending.items():  # pyshacl checks exactly these nodes against exactly these shapes
            ok, part = self.validate_graph(to_rdflib(self.memo.subgraph(doc, nodes), None), [n.value for n in nodes],
                                           [str(self.memo.top[i].node) for i in todo])
            conforms = conforms and ok
            report += part
            for n in nodes:
                results = self.failures.results_by_shape(part, n)
                if results is None:  # a result not traceable to one shape: remember nothing about this node
                    continue
                for i in todo:
                    if i in results:
                        self.failures.remember(doc, n, i, unsettled[n][i], part, results[i])
                    else:
                        self.memo.remember(unsettled[n][i])
        return conforms, report, doc

    def _unshaped(self, predicate: str) -> bool:
        return predicate == REIFIES.value or (self.relevant is not None and predicate not in self.relevant)

    def findings(self, report: rdflib.Graph) -> list[Finding]:
        out = []
        for result in report.subjects(RDFNS.type, SHNS.ValidationResult):
            get = lambda p: report.value(result, p)  # noqa: E731
            path = get(SHNS.resultPath)
            value = get(SHNS.value)
            shape = get(SHNS.sourceShape)
            messages = sorted(str(m) for m in report.objects(result, SHNS.resultMessage))
            finding = Finding(
                focus=str(get(SHNS.focusNode)), path=str(path) if isinstance(path, rdflib.URIRef) else None,
                value=None if value is None else str(value), message="; ".join(messages) or "shape violated",
                shape=str(shape) if isinstance(shape, rdflib.URIRef) else None,
                component=str(get(SHNS.sourceConstraintComponent) or "") or None,
                severity=str(get(SHNS.resultSeverity) or SH + "Violation"))
            finding.result_triples = [(to_oxi(p), to_oxi(o)) for p, o in report.predicate_objects(result)
                                      if not isinstance(o, rdflib.BNode)]
            finding.raw = (get(SHNS.focusNode), path, value, shape)
            out.append(finding)
        # in the order of what they say, not of the report's blank nodes (named apart in each process): the
        # quarantine items are numbered in this order, and a document gated in a worker must get the same numbers
        return sorted(out, key=lambda f: (f.focus, f.path or "", f.value or "", f.shape or "", f.component or "",
                                          f.severity, f.message))

    def _remove(self, quads: list[Quad], violations: list[Finding]) -> list[Quad]:
        """Drop each violation's item: a triple (property results) or a node with every triple it is in."""
        rows = [(q.subject, q.predicate, q.object) for q in quads]  # each pyoxigraph accessor builds a new object
        by_subject: dict = {}
        by_object: dict = {}
        for i, (s, _, o) in enumerate(rows):
            by_subject.setdefault(s, []).append(i)
            by_object.setdefault(o, []).append(i)
        removed_by: dict[int, Finding] = {}  # row number -> the violation that removes it
        for f in violations:
            focus, path, value, shape = f.raw
            focus_o = to_oxi(focus)
            star = by_subject.get(focus_o, [])
            if isinstance(path, rdflib.URIRef) and value is not None:
                path_iri, value_o = str(path), to_oxi(value)
                doomed = [i for i in star if rows[i][1].value == path_iri and rows[i][2] == value_o]
            elif shape in self.subject_targets and path is None:
                preds = self.subject_targets[shape]
                doomed = [i for i in star if rows[i][1].value in preds]
            else:
                doomed = []
            if not doomed:  # a node result, or e.g. a minCount result (the node is incomplete): the node goes
                doomed = star + by_object.get(focus_o, [])
            if isinstance(path, rdflib.URIRef) and str(path) in VALID_TIME:  # bad dates: the dated fact itself goes
                facts = {rows[i][2] for i in star if rows[i][1] == REIFIES}
                doomed = doomed + [i for i, row in enumerate(rows) if Triple(*row) in facts]
            for i in doomed:
                removed_by.setdefault(i, f)
        # reifiers of removed triples and mentions of removed nodes go with them
        removed_triples: dict[object, Finding] = {Triple(*rows[i]): f for i, f in removed_by.items()}
        dead_nodes: dict[object, Finding] = {}
        for i, (s, p, o) in enumerate(rows):
            if p == REIFIES and o in removed_triples:
                dead_nodes.setdefault(s, removed_triples[o])
            elif p == DENOTES and i in removed_by:
                dead_nodes.setdefault(s, removed_by[i])
        kept = []
        for i, (q, (s, p, o)) in enumerate(zip(quads, rows)):
            owner = removed_by.get(i) or dead_nodes.get(s)
            if owner is None:
                kept.append(q)
            else:
                owner.removed.append(Triple(s, p, o))
        return kept


def touched_nodes(before: list[Quad], after: list[Quad]) -> list[str]:
    """IRIs of the nodes that lost a triple, or point at a node that lost one: all a re-check has to look at."""
    gone = set(before) - set(after)
    lost = {q.subject for q in gone} | {q.object for q in gone if isinstance(q.object, NamedNode)}
    touched = {n for n in lost if isinstance(n, NamedNode)}
    touched |= {q.subject for q in after if q.object in lost and isinstance(q.subject, NamedNode)}
    kept_subjects = {q.subject for q in after}
    return sorted(n.value for n in touched if n in kept_subjects)


def to_rdflib(quads: list[Quad], relevant: set[str] | None) -> rdflib.Graph:
    """The document's triples as an rdflib graph; reifier triples (RDF 1.2 triple terms) and unshaped predicates left out."""
    graph = rdflib.Graph(bind_namespaces="none")  # binding rdflib's default prefixes costs more than validating
    add = graph.add
    for q in quads:
        if q.predicate == REIFIES or (relevant is not None and q.predicate.value not in relevant):
            continue
        add((to_rdf(q.subject), to_rdf(q.predicate), to_rdf(q.object)))
    return graph


def quarantine_quads(base: str, doc_id: str, doc_iri: str, findings: list[Finding], graph: str) -> list[Quad]:
    """Quarantine records and the document's sh:ValidationReport, all under {base}quarantine/{doc_id}/."""
    g = NamedNode(graph)
    prefix = f"{base}quarantine/{doc_id}/"
    report = NamedNode(prefix + "report")
    out = [Quad(report, NamedNode(RDF + "type"), NamedNode(SH + "ValidationReport"), g),
           Quad(report, NamedNode(SH + "conforms"), Literal(False), g),
           Quad(report, att("fromDocument"), NamedNode(doc_iri), g)]
    for n, f in enumerate(findings, 1):
        result = NamedNode(f"{prefix}result/{n}")
        out.append(Quad(report, NamedNode(SH + "result"), result, g))
        out.append(Quad(result, att("fromDocument"), NamedNode(doc_iri), g))
        out.extend(Quad(result, p, o, g) for p, o in f.result_triples)
        if not f.removed:
            continue
        item = NamedNode(f"{prefix}item/{n}")
        out.append(Quad(item, NamedNode(RDF + "type"), att("QuarantinedItem"), g))
        out.append(Quad(item, att("fromDocument"), NamedNode(doc_iri), g))
        out.append(Quad(item, att("reason"), Literal(f.message), g))
        out.append(Quad(item, att("validationResult"), result, g))
        if f.focus:
            out.append(Quad(item, att("focusNode"), to_oxi(rdflib.URIRef(f.focus)) if "://" in f.focus else Literal(f.focus), g))
        out.extend(Quad(item, att("quarantinedTriple"), t, g) for t in f.removed)
    return out

