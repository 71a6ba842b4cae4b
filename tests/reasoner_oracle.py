"""Test helpers: run owlrl (the oracle) and Attest's engine on the same rdflib-parsed graph and compare closures."""

from __future__ import annotations

import re

import owlrl
import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from app.reasoner.engine import Engine
from app.reasoner.terms import TermDict

_BAD = re.compile(r"[^A-Za-z0-9]")


def to_ox(term):
    """rdflib term -> pyoxigraph term, blank nodes keeping (a sanitized form of) their rdflib id."""
    if isinstance(term, rdflib.URIRef):
        return NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return BlankNode("b" + _BAD.sub("x", str(term)))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return Literal(str(term), language=term.language)
        if term.datatype is not None:
            return Literal(str(term), datatype=NamedNode(str(term.datatype)))
        return Literal(str(term))
    raise TypeError(term)


def ox_triples(graph: rdflib.Graph) -> set[Triple]:
    """The graph's triples as pyoxigraph Triples, dropping generalized ones (literal subject) a store cannot hold."""
    out = set()
    for s, p, o in graph:
        if isinstance(s, rdflib.Literal) or not isinstance(p, rdflib.URIRef):
            continue
        out.add(Triple(to_ox(s), to_ox(p), to_ox(o)))
    return out


def owlrl_closure(graph: rdflib.Graph) -> set[Triple]:
    g = rdflib.Graph()
    for t in graph:
        g.add(t)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(g)
    return ox_triples(g)


def attest_closure(triples: set[Triple]) -> tuple[set[Triple], Engine]:
    terms = TermDict()
    engine = Engine(terms)
    engine.materialize(terms.encode_triples(triples))
    return {terms.decode(t) for t in engine.depth}, engine


def is_documented_difference(t: Triple) -> bool:
    """owlrl output Attest leaves out on purpose (README "Reasoner"): eq-ref reflexive sameAs, and owlrl's
    datatype handling (literal typing, xsd:string / rdf:PlainLiteral bookkeeping) beyond dt-type1."""
    if t.predicate.value.endswith("#sameAs") and t.subject == t.object:
        return True
    return False
