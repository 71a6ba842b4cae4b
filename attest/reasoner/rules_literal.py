"""Datatype rules for nodes that owl:sameAs makes a literal: dt-type2, dt-eq, dt-diff and dt-not-type, folded.

The W3C rules reach these conclusions through generalized triples with a literal subject ("42" rdf:type
xsd:integer, "42" owl:sameAs x), which no RDF store holds. For (x owl:sameAs lit) each fold concludes directly
about x, from premises a store holds:
  dt-type2     (x sameAs lit)                          -> (x rdf:type dt) for every dt whose value space holds lit
  dt-eq        (x sameAs lit1), (y sameAs lit2), same value      -> (x sameAs y), (y sameAs x)
  eq-trans     (x sameAs lit), (y sameAs lit)                    -> (x sameAs y), (y sameAs x)
  dt-diff      (x sameAs lit1), (y sameAs lit2), different value -> (x differentFrom y), (y differentFrom x)
  dt-not-type  (x sameAs lit), (x rdf:type dt), lit's value outside dt's value space -> inconsistent
  eq-diff1     (x sameAs lit1), (x sameAs lit2), different values                   -> inconsistent
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyoxigraph import NamedNode

from attest.reasoner.datatypes import DECIDED_DATATYPES, value_datatypes, value_key, values_differ
from attest.reasoner.terms import DIFF, SAME, TYPE

if TYPE_CHECKING:
    from attest.reasoner.context import RuleContext


def same_as_literal(e: RuleContext, x: int, lit: int) -> None:
    """Fire the folded datatype rules for t = (x owl:sameAs lit), lit a literal."""
    terms, ix, emit = e.terms, e.index, e.emit
    t = (x, SAME, lit)
    literal = terms.terms[lit]
    for dt in value_datatypes(literal):  # dt-type2
        emit(x, TYPE, terms.encode(NamedNode(dt)), "dt-type2", (t,))
    for dt_id in list(ix.objects(x, TYPE)):
        typed_as_datatype(e, x, dt_id)
    value = value_key(literal)
    if value is None:
        return
    for other, subjects in list(ix.op.get(SAME, {}).items()):
        if other not in terms.literals:
            continue
        other_value = value if other == lit else value_key(terms.terms[other])
        if other_value is None:
            continue
        if other_value == value:
            rule, p = ("eq-trans" if other == lit else "dt-eq"), SAME
        elif values_differ(value, other_value):
            rule, p = "dt-diff", DIFF
        else:
            continue
        for y in list(subjects):
            if y != x:
                emit(x, p, y, rule, (t, (y, SAME, other)))
                emit(y, p, x, rule, ((y, SAME, other), t))
            elif p == DIFF:  # eq-diff1: x is the same as two different values
                e.violate("eq-diff1", (t, (x, SAME, other)))


def typed_as_datatype(e: RuleContext, x: int, dt: int) -> None:
    """dt-not-type for t = (x rdf:type dt) when x is owl:sameAs a literal whose value dt's value space lacks."""
    if not _decided(e, dt):
        return
    terms = e.terms
    for lit in e.index.objects(x, SAME):
        if lit in terms.literals:
            held = value_datatypes(terms.terms[lit])
            if held and terms.terms[dt].value not in held:
                e.violate("dt-not-type", ((x, SAME, lit), (x, TYPE, dt)))


def _decided(e: RuleContext, dt: int) -> bool:
    term = e.terms.terms[dt]
    return isinstance(term, NamedNode) and term.value in DECIDED_DATATYPES
