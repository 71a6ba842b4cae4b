"""The closure stamp: add_all (a full run's one pass) gives the stamp that add() triple by triple gives."""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode

from attest.reasoner.stamp import ClosureStamp
from attest.reasoner.terms import TermDict

EX = "http://example.org/"


def test_add_all_equals_add_one_by_one_and_is_order_free():
    terms = TermDict()
    enc = terms.encode
    triples = [(enc(NamedNode(EX + f"s{i}")), enc(NamedNode(EX + "p")), enc(Literal(f"v {i}", language="en")))
               for i in range(50)]
    triples.append((enc(BlankNode("b1")), enc(NamedNode(EX + "q")), enc(NamedNode(EX + "o"))))
    one_by_one, at_once, reversed_ = ClosureStamp(terms), ClosureStamp(terms), ClosureStamp(terms)
    for t in triples:
        one_by_one.add(t)
    at_once.add_all(triples)
    reversed_.add_all(reversed(triples))
    assert at_once.value() == one_by_one.value() == reversed_.value()
    assert at_once.count == len(triples)
    at_once.remove(triples[0])
    fewer = ClosureStamp(terms)
    fewer.add_all(triples[1:])
    assert at_once.value() == fewer.value() != one_by_one.value()
