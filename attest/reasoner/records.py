"""Derivation and violation records as RDF 1.2 triple terms in the derivations graph (the queryable provenance).

Vocabulary (att: = https://w3id.org/attest/vocab#), one record per inferred triple, in Iris.derivations_graph:

    <{base}derivation/{key}>
        att:derives  <<( s p o )>> ;          # the inferred triple (it is also in Iris.inferred_graph)
        att:rule     "prp-trp" ;              # W3C OWL 2 RL rule name (tables 4-9)
        att:depth    2 ;                      # xsd:integer, 1 + deepest premise (asserted = 0), shallowest kept
        att:premise  <<( s1 p1 o1 )>> , ... . # the premise triples of that derivation
    <{base}violation/{key}> a att:Violation ; att:rule "cax-dw" ; att:premise <<( ... )>> , ... .

A derivation is not typed: its att:derives triple already says what it is, and a type would add one
quad in seven to the largest write of a full run. `x rdf:type owl:Thing` (scm-cls makes every class a subclass of
owl:Thing, so cax-sco types every individual) is kept in the closure but neither written to the inferred graph nor
given a record, unless a derivation or violation names it as a premise: it says nothing, and was one inferred triple
(and one record) per entity. {key} is a hash of the triple (or of rule + premises), so a
record is found and replaced without a query.
Example: SELECT ?rule ?depth WHERE { GRAPH ?g { ?d att:derives <<( ex:a ex:p ex:b )>> ; att:rule ?rule ;
att:depth ?depth } }.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from pyoxigraph import Literal, NamedNode, Quad, Triple

from attest.reasoner.engine import Engine, Premises
from attest.reasoner.terms import THING, TYPE, Encoded
from attest.vocab import ATT, RDF, XSD, Iris

VIOLATION = NamedNode(ATT + "Violation")
DERIVES = NamedNode(ATT + "derives")
RULE = NamedNode(ATT + "rule")
DEPTH = NamedNode(ATT + "depth")
PREMISE = NamedNode(ATT + "premise")
A = NamedNode(RDF + "type")
_XSD_INTEGER = NamedNode(XSD + "integer")


def is_thing_type(t: Encoded) -> bool:
    """(x rdf:type owl:Thing): not written unless needed as a premise (module docstring)."""
    return t[2] == THING and t[1] == TYPE


def needed_premises(engine: Engine, triples: Iterable[Encoded] | None = None) -> set[Encoded]:
    """The inferred owl:Thing types that the derivations of `triples` (of every inferred triple when None), written
    or not, and the violations name as premises: written, so that every written record's premises are stored."""
    why = engine.why
    derivations = why.values() if triples is None else (why[t] for t in triples if t in why)
    found = {q for _, premises in derivations for q in premises if q[2] == THING and q[1] == TYPE}
    found.update(q for _, premises in engine.violations for q in premises if is_thing_type(q))
    return {q for q in found if q in why}


def triple_dict(t: Triple) -> dict[str, str]:
    """A triple for JSON: each term in N-Triples form (<iri>, _:b, "literal"^^<datatype>)."""
    return {"s": str(t.subject), "p": str(t.predicate), "o": str(t.object)}


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def triple_key(t: Triple) -> str:
    return _key(f"{t.subject} {t.predicate} {t.object}")


def derivation_iri(iris: Iris, t: Triple) -> NamedNode:
    return NamedNode(f"{iris.base}derivation/{triple_key(t)}")


def violation_iri(iris: Iris, rule: str, premises: Iterable[Triple]) -> NamedNode:
    return NamedNode(f"{iris.base}violation/{_key(rule + ' ' + ' '.join(map(str, premises)))}")


class RecordWriter:
    """Turns engine state into quads of the inferred and derivations graphs (terms decoded once, cached)."""

    def __init__(self, engine: Engine, iris: Iris, needed: set[Encoded] | None = None) -> None:
        self.engine, self.iris = engine, iris
        self.inferred = NamedNode(iris.inferred_graph)
        self.derivations = NamedNode(iris.derivations_graph)
        self._triples: dict[Encoded, Triple] = {}
        self._depths: dict[int, Literal] = {}
        self._rules: dict[str, Literal] = {}
        self._needed = needed  # see needed(); the Reasoner keeps it across incremental writes

    def needed(self) -> set[Encoded]:
        """The unwritten kind of triple (x rdf:type owl:Thing) that derivations or violations name as a premise (an
        ontology that says something about owl:Thing): those are written after all."""
        if self._needed is None:
            self._needed = needed_premises(self.engine)
        return self._needed

    def written(self, t: Encoded) -> bool:
        """Whether inferred triple t goes into the inferred graph with a record (see the module docstring)."""
        return not is_thing_type(t) or t in self.needed()

    def triple(self, t: Encoded) -> Triple:
        tr = self._triples.get(t)
        if tr is None:
            tr = self._triples[t] = self.engine.terms.decode(t)
        return tr

    def inferred_quads(self, t: Encoded) -> Iterator[Quad]:
        """The inferred triple and its derivation record, or nothing when t is asserted or unknown."""
        e = self.engine
        d = e.depth.get(t)
        if not d or not self.written(t):
            return
        rule, premises = e.why[t]
        tr = self.triple(t)
        g = self.derivations
        node = derivation_iri(self.iris, tr)
        yield Quad(tr.subject, tr.predicate, tr.object, self.inferred)
        yield Quad(node, DERIVES, tr, g)
        yield Quad(node, RULE, self._rule(rule), g)
        yield Quad(node, DEPTH, self._depth(d), g)
        for q in premises:
            yield Quad(node, PREMISE, self.triple(q), g)

    def violation_quads(self, rule: str, premises: Premises) -> Iterator[Quad]:
        trs = [self.triple(q) for q in premises]
        node = violation_iri(self.iris, rule, trs)
        g = self.derivations
        yield Quad(node, A, VIOLATION, g)
        yield Quad(node, RULE, self._rule(rule), g)
        for tr in trs:
            yield Quad(node, PREMISE, tr, g)

    def all_quads(self) -> Iterator[Quad]:
        for t in self.engine.inferred():
            yield from self.inferred_quads(t)
        for rule, premises in self.engine.violations:
            yield from self.violation_quads(rule, premises)

    def split(self, triples: Iterable[Encoded]) -> tuple[list[str], list[str]]:
        """Records of the inferred `triples` as N-Quads lines: those without blank nodes, for the bulk loader, and
        those with (for `parse`, which keeps blank node labels; the bulk loader relabels them, which would cut
        the records off the graph)."""
        e = self.engine
        blanks, nt, depth, why = e.terms.blanks, e.terms.nt, e.depth, e.why
        g_inf, g_der = f"<{self.iris.inferred_graph}>", f"<{self.iris.derivations_graph}>"
        head = f"<{self.iris.base}derivation/"
        der, rule_p, depth_p, prem_p = f"{DERIVES}", f"{RULE}", f"{DEPTH}", f"{PREMISE}"
        plain: list[str] = []
        with_blanks: list[str] = []
        for t in triples:
            d = depth.get(t)
            if not d or not self.written(t):
                continue
            rule, premises = why[t]
            lines = plain
            if blanks and (any(x in blanks for x in t) or any(x in blanks for q in premises for x in q)):
                lines = with_blanks
            ts = f"{nt(t[0])} {nt(t[1])} {nt(t[2])}"
            node = f"{head}{_key(ts)}>"
            lines.append(f"{ts} {g_inf} .\n{node} {der} <<( {ts} )>> {g_der} .\n"
                         f'{node} {rule_p} "{rule}" {g_der} .\n{node} {depth_p} "{d}"^^{_XSD_INTEGER} {g_der} .\n')
            for q in premises:
                lines.append(f"{node} {prem_p} <<( {nt(q[0])} {nt(q[1])} {nt(q[2])} )>> {g_der} .\n")
        return plain, with_blanks

    def derivation_node(self, tr: Triple) -> NamedNode:
        return derivation_iri(self.iris, tr)

    def violation_dict(self, rule: str, premises: Premises) -> dict:
        return {"rule": rule, "premises": [triple_dict(self.triple(q)) for q in premises]}

    def _rule(self, rule: str) -> Literal:
        lit = self._rules.get(rule)
        if lit is None:
            lit = self._rules[rule] = Literal(rule)
        return lit

    def _depth(self, d: int) -> Literal:
        lit = self._depths.get(d)
        if lit is None:
            lit = self._depths[d] = Literal(str(d), datatype=_XSD_INTEGER)
        return lit
