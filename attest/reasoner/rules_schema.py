"""OWL 2 RL rules triggered by a schema triple: the scm-* table 9, eq-* on owl:sameAs, and the joins a new axiom opens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attest.reasoner.index import LIST_PREDICATES
from attest.reasoner.rules_class import check_all_disjoint, restriction_by_type
from attest.reasoner.rules_data import has_key, property_chain, restriction_by_property
from attest.reasoner.rules_literal import same_as_literal
from attest.reasoner.terms import (
    ASSERTPROP, AVF, CHAIN, COMPLEMENT, DIFF, DISTINCTMEMBERS, DOMAIN, DW, EQC, EQP, FIRST, HASKEY, HASVALUE,
    INTERSECTION, INV, MAXC, MAXQC, MEMBERS, ONCLASS, ONEOF, ONPROP, PDW, RANGE, REST, SAME, SCO, SOURCE, SPO, SVF,
    TARGETIND, TARGETVAL, TYPE, UNION,
)

if TYPE_CHECKING:
    from attest.reasoner.context import RuleContext

RESTRICTION_PREDICATES = frozenset({ONPROP, SVF, AVF, HASVALUE, MAXC, MAXQC, ONCLASS})


def fire_schema(e: RuleContext, s: int, p: int, o: int) -> None:
    handler = HANDLERS.get(p)
    if handler is not None:
        handler(e, s, p, o)


def _sub_class(e: RuleContext, c1: int, _: int, c2: int) -> None:
    ix, emit = e.index, e.emit
    t = (c1, SCO, c2)
    for x in ix.subjects(TYPE, c1):  # cax-sco
        emit(x, TYPE, c2, "cax-sco", (t, (x, TYPE, c1)))
    for c3 in ix.objects(c2, SCO):  # scm-sco
        emit(c1, SCO, c3, "scm-sco", (t, (c2, SCO, c3)))
    for c0 in ix.subjects(SCO, c1):  # scm-sco
        emit(c0, SCO, c2, "scm-sco", ((c0, SCO, c1), t))
    if ix.has(c2, SCO, c1):  # scm-eqc2
        emit(c1, EQC, c2, "scm-eqc2", (t, (c2, SCO, c1)))
        emit(c2, EQC, c1, "scm-eqc2", ((c2, SCO, c1), t))
    for q in ix.subjects(DOMAIN, c1):  # scm-dom1
        emit(q, DOMAIN, c2, "scm-dom1", ((q, DOMAIN, c1), t))
    for q in ix.subjects(RANGE, c1):  # scm-rng1
        emit(q, RANGE, c2, "scm-rng1", ((q, RANGE, c1), t))
    for kind, rule in ((SVF, "scm-svf1"), (AVF, "scm-avf1")):
        for x1 in ix.subjects(kind, c1):
            for x2 in ix.subjects(kind, c2):
                for q in ix.objects(x1, ONPROP):
                    if ix.has(x2, ONPROP, q):
                        emit(x1, SCO, x2, rule, ((x1, kind, c1), (x1, ONPROP, q), (x2, kind, c2), (x2, ONPROP, q), t))


def _equivalent_class(e: RuleContext, c1: int, _: int, c2: int) -> None:
    ix, emit = e.index, e.emit
    t = (c1, EQC, c2)
    for x in ix.subjects(TYPE, c1):  # cax-eqc1
        emit(x, TYPE, c2, "cax-eqc1", (t, (x, TYPE, c1)))
    for x in ix.subjects(TYPE, c2):  # cax-eqc2
        emit(x, TYPE, c1, "cax-eqc2", (t, (x, TYPE, c2)))
    emit(c1, SCO, c2, "scm-eqc1", (t,))
    emit(c2, SCO, c1, "scm-eqc1", (t,))


def _disjoint(e: RuleContext, c1: int, p: int, c2: int) -> None:
    ix = e.index  # cax-dw, cls-com
    for x in ix.subjects(TYPE, c1) & ix.subjects(TYPE, c2):
        e.violate("cax-dw" if p == DW else "cls-com", ((c1, p, c2), (x, TYPE, c1), (x, TYPE, c2)))


def _sub_property(e: RuleContext, p1: int, _: int, p2: int) -> None:
    ix, emit = e.index, e.emit
    t = (p1, SPO, p2)
    for x, y in ix.pairs(p1):  # prp-spo1
        emit(x, p2, y, "prp-spo1", (t, (x, p1, y)))
    for p3 in ix.objects(p2, SPO):  # scm-spo
        emit(p1, SPO, p3, "scm-spo", (t, (p2, SPO, p3)))
    for p0 in ix.subjects(SPO, p1):  # scm-spo
        emit(p0, SPO, p2, "scm-spo", ((p0, SPO, p1), t))
    if ix.has(p2, SPO, p1):  # scm-eqp2
        emit(p1, EQP, p2, "scm-eqp2", (t, (p2, SPO, p1)))
        emit(p2, EQP, p1, "scm-eqp2", ((p2, SPO, p1), t))
    for c in ix.objects(p2, DOMAIN):  # scm-dom2
        emit(p1, DOMAIN, c, "scm-dom2", ((p2, DOMAIN, c), t))
    for c in ix.objects(p2, RANGE):  # scm-rng2
        emit(p1, RANGE, c, "scm-rng2", ((p2, RANGE, c), t))
    for x1 in ix.subjects(ONPROP, p1):  # scm-svf2, scm-avf2, scm-hv
        for x2 in ix.subjects(ONPROP, p2):
            _restriction_pair(e, x1, p1, x2, p2, t)


def _restriction_pair(e: RuleContext, x1: int, p1: int, x2: int, p2: int, spo: tuple[int, int, int]) -> None:
    """x1 on p1, x2 on p2, p1 subPropertyOf p2, same filler: scm-svf2, scm-avf2, scm-hv."""
    ix = e.index
    for kind, rule in ((SVF, "scm-svf2"), (AVF, "scm-avf2"), (HASVALUE, "scm-hv")):
        for y in ix.objects(x1, kind):
            if ix.has(x2, kind, y):
                prem = ((x1, kind, y), (x1, ONPROP, p1), (x2, kind, y), (x2, ONPROP, p2), spo)
                if kind == AVF:
                    e.emit(x2, SCO, x1, rule, prem)
                else:
                    e.emit(x1, SCO, x2, rule, prem)


def _equivalent_property(e: RuleContext, p1: int, _: int, p2: int) -> None:
    ix, emit = e.index, e.emit
    t = (p1, EQP, p2)
    for x, y in ix.pairs(p1):  # prp-eqp1
        emit(x, p2, y, "prp-eqp1", (t, (x, p1, y)))
    for x, y in ix.pairs(p2):  # prp-eqp2
        emit(x, p1, y, "prp-eqp2", (t, (x, p2, y)))
    emit(p1, SPO, p2, "scm-eqp1", (t,))
    emit(p2, SPO, p1, "scm-eqp1", (t,))


def _inverse(e: RuleContext, p1: int, _: int, p2: int) -> None:
    ix, emit = e.index, e.emit
    t = (p1, INV, p2)
    for x, y in ix.pairs(p1):  # prp-inv1
        emit(y, p2, x, "prp-inv1", (t, (x, p1, y)))
    for x, y in ix.pairs(p2):  # prp-inv2
        emit(y, p1, x, "prp-inv2", (t, (x, p2, y)))


def _domain_range(e: RuleContext, q: int, p: int, c: int) -> None:
    ix, emit = e.index, e.emit
    t = (q, p, c)
    dom = p == DOMAIN
    for x, y in ix.pairs(q):  # prp-dom, prp-rng
        emit(x if dom else y, TYPE, c, "prp-dom" if dom else "prp-rng", (t, (x, q, y)))
    for c2 in ix.objects(c, SCO):  # scm-dom1, scm-rng1
        emit(q, p, c2, "scm-dom1" if dom else "scm-rng1", (t, (c, SCO, c2)))
    for q1 in ix.subjects(SPO, q):  # scm-dom2, scm-rng2
        emit(q1, p, c, "scm-dom2" if dom else "scm-rng2", (t, (q1, SPO, q)))


def _property_disjoint(e: RuleContext, p1: int, _: int, p2: int) -> None:
    ix = e.index  # prp-pdw
    for x, y in ix.pairs(p1):
        if ix.has(x, p2, y):
            e.violate("prp-pdw", ((p1, PDW, p2), (x, p1, y), (x, p2, y)))


def _same_as(e: RuleContext, x: int, _: int, y: int) -> None:
    ix, emit = e.index, e.emit
    t = (x, SAME, y)
    if x == y:
        return
    if y in e.terms.literals:
        same_as_literal(e, x, y)
    emit(y, SAME, x, "eq-sym", (t,))  # eq-sym
    for z in ix.objects(y, SAME):  # eq-trans
        emit(x, SAME, z, "eq-trans", (t, (y, SAME, z)))
    for w in ix.subjects(SAME, x):  # eq-trans
        emit(w, SAME, y, "eq-trans", ((w, SAME, x), t))
    for p, by_s in list(ix.sp.items()):  # eq-rep-s
        for o in by_s.get(x, ()):
            emit(y, p, o, "eq-rep-s", (t, (x, p, o)))
    for s, o in ix.pairs(x):  # eq-rep-p
        emit(s, y, o, "eq-rep-p", (t, (s, x, o)))
    for p, by_o in list(ix.op.items()):  # eq-rep-o
        for s in by_o.get(x, ()):
            emit(s, p, y, "eq-rep-o", (t, (s, p, x)))
    if ix.has(x, DIFF, y):  # eq-diff1
        e.violate("eq-diff1", (t, (x, DIFF, y)))
    if ix.has(y, DIFF, x):
        e.violate("eq-diff1", (t, (y, DIFF, x)))
    for pred in (MEMBERS, DISTINCTMEMBERS):  # eq-diff2, eq-diff3
        for owner, _, items in ix.members_of(pred, x):
            if y in items:
                check_all_disjoint(e, owner)


def _different(e: RuleContext, x: int, _: int, y: int) -> None:
    if x == y:  # eq-diff1 with the reflexive (x sameAs x) of eq-ref, which is not materialized
        e.violate("eq-diff1", ((x, DIFF, x),))
    else:  # eq-diff1
        for same in ((x, SAME, y), (y, SAME, x)):
            if e.index.has(*same):
                e.violate("eq-diff1", (same, (x, DIFF, y)))


def _restriction(e: RuleContext, x: int, _: int, __: int) -> None:
    """A new restriction axiom about x: rerun x's cls-* joins and the scm-* rules comparing restrictions."""
    ix = e.index
    props = ix.objects(x, ONPROP)
    for p in props:
        for u, v in ix.pairs(p):
            restriction_by_property(e, x, u, p, v)
        for x2 in ix.subjects(ONPROP, p):  # scm-svf1, scm-avf1 (same property)
            for kind, rule in ((SVF, "scm-svf1"), (AVF, "scm-avf1")):
                for a, b in ((x, x2), (x2, x)):
                    for y1 in ix.objects(a, kind):
                        for y2 in ix.objects(b, kind):
                            if ix.has(y1, SCO, y2):
                                e.emit(a, SCO, b, rule,
                                       ((a, kind, y1), (a, ONPROP, p), (b, kind, y2), (b, ONPROP, p), (y1, SCO, y2)))
        for p2 in ix.objects(p, SPO):  # scm-svf2, scm-avf2, scm-hv with x on the sub-property
            for x2 in ix.subjects(ONPROP, p2):
                _restriction_pair(e, x, p, x2, p2, (p, SPO, p2))
        for p0 in ix.subjects(SPO, p):  # ... and with x on the super-property
            for x0 in ix.subjects(ONPROP, p0):
                _restriction_pair(e, x0, p0, x, p, (p0, SPO, p))
    if props:
        for u in list(ix.subjects(TYPE, x)):
            restriction_by_type(e, u, x, props)


def _list_owner(e: RuleContext, c: int, p: int, head: int) -> None:
    ix, emit = e.index, e.emit
    items = ix.rdf_list(head)
    if items is None:
        return
    t = (c, p, head)
    if p == INTERSECTION:
        for m in items:  # scm-int
            emit(c, SCO, m, "scm-int", (t,))
        for x in ix.subjects(TYPE, c):  # cls-int2
            for m in items:
                emit(x, TYPE, m, "cls-int2", (t, (x, TYPE, c)))
        if items:  # cls-int1
            for x in list(ix.subjects(TYPE, items[0])):
                if all(ix.has(x, TYPE, m) for m in items):
                    emit(x, TYPE, c, "cls-int1", (t,) + tuple((x, TYPE, m) for m in items))
    elif p == UNION:
        for m in items:
            emit(m, SCO, c, "scm-uni", (t,))  # scm-uni
            for x in ix.subjects(TYPE, m):  # cls-uni
                emit(x, TYPE, c, "cls-uni", (t, (x, TYPE, m)))
    elif p == ONEOF:
        for y in items:  # cls-oneof
            emit(y, TYPE, c, "cls-oneof", (t,))
    elif p == CHAIN and items:  # prp-spo2
        for x, y in ix.pairs(items[0]):
            property_chain(e, x, items[0], y, c, head, items, first_only=True)
    elif p == HASKEY:  # prp-key
        for x in list(ix.subjects(TYPE, c)):
            has_key(e, x, c, head, items)
    elif p in (MEMBERS, DISTINCTMEMBERS):
        check_all_disjoint(e, c)


def _list_cell(e: RuleContext, cell: int, _: int, __: int) -> None:
    """A list cell changed: rerun the rules of every axiom whose list goes through it."""
    ix = e.index
    for head in ix.list_heads_through(cell):
        for pred in LIST_PREDICATES:
            for owner in list(ix.subjects(pred, head)):
                # in a full run an owner axiom at this level or deeper fires after this cell is indexed anyway
                if not (e.full and e.depth.get((owner, pred, head), 0) >= e.level):
                    _list_owner(e, owner, pred, head)


def _negative_assertion(e: RuleContext, n: int, _: int, __: int) -> None:
    ix = e.index  # prp-npa1, prp-npa2
    for s in ix.objects(n, SOURCE):
        for p in ix.objects(n, ASSERTPROP):
            prem = ((n, SOURCE, s), (n, ASSERTPROP, p))
            for o in ix.objects(s, p):
                if ix.has(n, TARGETIND, o):
                    e.violate("prp-npa1", prem + ((n, TARGETIND, o), (s, p, o)))
                if ix.has(n, TARGETVAL, o):
                    e.violate("prp-npa2", prem + ((n, TARGETVAL, o), (s, p, o)))


HANDLERS = {
    SCO: _sub_class, EQC: _equivalent_class, DW: _disjoint, COMPLEMENT: _disjoint, SPO: _sub_property,
    EQP: _equivalent_property, INV: _inverse, DOMAIN: _domain_range, RANGE: _domain_range, PDW: _property_disjoint,
    SAME: _same_as, DIFF: _different, FIRST: _list_cell, REST: _list_cell,
    SOURCE: _negative_assertion, ASSERTPROP: _negative_assertion, TARGETIND: _negative_assertion,
    TARGETVAL: _negative_assertion,
    **{p: _restriction for p in RESTRICTION_PREDICATES}, **{p: _list_owner for p in LIST_PREDICATES},
}
