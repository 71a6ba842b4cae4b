"""OWL 2 RL rules triggered by a type triple (x rdf:type c): W3C tables 6 (cls-*), 7 (cax-*) and scm-cls/op/dp."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attest.reasoner.rules_data import CHARACTERISTICS, has_key, property_characteristics
from attest.reasoner.rules_literal import typed_as_datatype
from attest.reasoner.terms import (
    ALLDIFFERENT, ALLDISJOINTCLASSES, ALLDISJOINTPROPS, AVF, CLASS, COMPLEMENT, DATAPROP, DISTINCTMEMBERS, DW, EQC,
    EQP, HASKEY, HASVALUE, INTERSECTION, MAXC, MAXQC, MEMBERS, NOTHING, OBJPROP, ONCLASS, ONPROP, SAME, SCO, SPO, SVF,
    THING, TYPE, UNION,
)

if TYPE_CHECKING:
    from attest.reasoner.context import RuleContext


def class_profile(e: RuleContext, c: int) -> tuple:
    """What the TBox says about class c, precomputed for fire_type (rebuilt after any schema change)."""
    ix = e.index
    obj, subj, has = ix.objects, ix.subjects, ix.has
    return (
        # (x type c) -> (x type c2); the reflexive c subClassOf c only restates t
        tuple((c2, "cax-sco", (c, SCO, c2)) for c2 in obj(c, SCO) if c2 != c)
        + tuple((c2, "cax-eqc1", (c, EQC, c2)) for c2 in obj(c, EQC) if c2 != c)
        + tuple((c2, "cax-eqc2", (c2, EQC, c)) for c2 in subj(EQC, c) if c2 != c),
        tuple((c2, "cax-dw", (c, DW, c2), True) for c2 in obj(c, DW))
        + tuple((c2, "cax-dw", (c2, DW, c), False) for c2 in subj(DW, c))
        + tuple((c2, "cls-com", (c, COMPLEMENT, c2), True) for c2 in obj(c, COMPLEMENT))
        + tuple((c2, "cls-com", (c2, COMPLEMENT, c), False) for c2 in subj(COMPLEMENT, c)),
        tuple(m for m in ix.members_of(MEMBERS, c) if has(m[0], TYPE, ALLDISJOINTCLASSES)),
        tuple(ix.members_of(INTERSECTION, c)),
        tuple((head, items) for head in obj(c, INTERSECTION) if (items := ix.rdf_list(head))),
        tuple((k, head) for k, head, _ in ix.members_of(UNION, c)),
        tuple(obj(c, ONPROP)),
        tuple((x, p) for x in subj(SVF, c) for p in obj(x, ONPROP)),
        tuple(subj(ONCLASS, c)),
        tuple((head, ix.rdf_list(head) or ()) for head in obj(c, HASKEY)),
    )


def fire_type(e: RuleContext, s: int, c: int) -> None:
    """Every rule with a premise (x rdf:type c), joined with t = (s rdf:type c)."""
    ix, emit = e.index, e.emit
    cache = ix.profiles[1]
    prof = cache.get(c)
    if prof is None:
        prof = cache[c] = class_profile(e, c)
    copies, disjoint, adc, int1, int2, uni, props, svf_rev, onclass_rev, keys = prof
    has = ix.has
    t = (s, TYPE, c)
    known = e.settled  # skips the call for triples that cannot get a shallower derivation
    for c2, rule, sch in copies:  # cax-sco, cax-eqc1, cax-eqc2
        if (s, TYPE, c2) not in known:
            emit(s, TYPE, c2, rule, (sch, t))
    for c2, rule, sch, first in disjoint:  # cax-dw, cls-com
        if has(s, TYPE, c2):
            e.violate(rule, (sch, t, (s, TYPE, c2)) if first else (sch, (s, TYPE, c2), t))
    if c == NOTHING:  # cls-nothing2
        e.violate("cls-nothing2", (t,))
    for x, head, members in adc:  # cax-adc
        for c2 in members:
            if c2 != c and has(s, TYPE, c2):
                e.violate("cax-adc", ((x, TYPE, ALLDISJOINTCLASSES), (x, MEMBERS, head), t, (s, TYPE, c2)))
    for k, head, members in int1:  # cls-int1
        if all(has(s, TYPE, m) for m in members):
            emit(s, TYPE, k, "cls-int1", ((k, INTERSECTION, head),) + tuple((s, TYPE, m) for m in members))
    for head, items in int2:  # cls-int2
        for m in items:
            emit(s, TYPE, m, "cls-int2", ((c, INTERSECTION, head), t))
    for k, head in uni:  # cls-uni
        emit(s, TYPE, k, "cls-uni", ((k, UNION, head), t))
    if props:
        restriction_by_type(e, s, c, props)
    for x, p in svf_rev:  # cls-svf1 with (v type y) as the new premise
        for u in ix.subjects(p, s):
            emit(u, TYPE, x, "cls-svf1", ((x, SVF, c), (x, ONPROP, p), (u, p, s), t))
    for x in onclass_rev:  # cls-maxqc1 / cls-maxqc3 with (y type c) as the new premise
        qualified_filler(e, s, c, x)
    for head, items in keys:  # prp-key
        has_key(e, s, c, head, items)
    if c == CLASS:  # scm-cls
        emit(s, SCO, s, "scm-cls", (t,))
        emit(s, EQC, s, "scm-cls", (t,))
        emit(s, SCO, THING, "scm-cls", (t,))
        emit(NOTHING, SCO, s, "scm-cls", (t,))
    elif c == OBJPROP or c == DATAPROP:  # scm-op, scm-dp
        rule = "scm-op" if c == OBJPROP else "scm-dp"
        emit(s, SPO, s, rule, (t,))
        emit(s, EQP, s, rule, (t,))
    elif c in CHARACTERISTICS:
        for x, y in ix.pairs(s):
            property_characteristics(e, x, s, y, (c,))
    elif c in (ALLDIFFERENT, ALLDISJOINTCLASSES, ALLDISJOINTPROPS):
        check_all_disjoint(e, s)
    same = ix.sp.get(SAME)
    if same is not None and s in same:  # s may be owl:sameAs a literal
        typed_as_datatype(e, s, c)


def restriction_by_type(e: RuleContext, u: int, x: int, props) -> None:
    """(u type x) for a restriction x: cls-hv1, cls-avf, cls-maxc1/2, cls-maxqc1-4."""
    ix, emit = e.index, e.emit
    obj, has = ix.objects, ix.has
    t = (u, TYPE, x)
    for p in props:
        onp = (x, ONPROP, p)
        vals = obj(u, p)
        for y in obj(x, HASVALUE):  # cls-hv1
            emit(u, p, y, "cls-hv1", ((x, HASVALUE, y), onp, t))
        for y in obj(x, AVF):  # cls-avf
            for v in vals:
                emit(v, TYPE, y, "cls-avf", ((x, AVF, y), onp, t, (u, p, v)))
        for m in obj(x, MAXC):
            n = e.terms.int_value(m)
            for y1 in vals:
                if n == 0:  # cls-maxc1
                    e.violate("cls-maxc1", ((x, MAXC, m), onp, t, (u, p, y1)))
                elif n == 1:  # cls-maxc2
                    for y2 in vals:
                        if y1 != y2:
                            emit(y1, SAME, y2, "cls-maxc2", ((x, MAXC, m), onp, t, (u, p, y1), (u, p, y2)))
        for m in obj(x, MAXQC):
            n = e.terms.int_value(m)
            for cc in obj(x, ONCLASS):
                base = ((x, MAXQC, m), onp, (x, ONCLASS, cc), t)
                fit = [v for v in vals if cc == THING or has(v, TYPE, cc)]
                for y1 in fit:
                    q1 = () if cc == THING else ((y1, TYPE, cc),)
                    if n == 0:  # cls-maxqc1, cls-maxqc2
                        e.violate("cls-maxqc2" if cc == THING else "cls-maxqc1", base + ((u, p, y1),) + q1)
                    elif n == 1:  # cls-maxqc3, cls-maxqc4
                        for y2 in fit:
                            if y1 != y2:
                                q2 = () if cc == THING else ((y2, TYPE, cc),)
                                emit(y1, SAME, y2, "cls-maxqc4" if cc == THING else "cls-maxqc3",
                                     base + ((u, p, y1),) + q1 + ((u, p, y2),) + q2)


def qualified_filler(e: RuleContext, y: int, cc: int, x: int) -> None:
    """(y type cc) where cc is the onClass of restriction x: cls-maxqc1 and cls-maxqc3 from the filler side."""
    ix = e.index
    for m in ix.objects(x, MAXQC):
        n = e.terms.int_value(m)
        for p in ix.objects(x, ONPROP):
            for u in ix.subjects(p, y):
                if n in (0, 1) and ix.has(u, TYPE, x):
                    restriction_by_type(e, u, x, (p,))


def check_all_disjoint(e: RuleContext, x: int) -> None:
    """eq-diff2/3, cax-adc, prp-adp for the AllDifferent / AllDisjointClasses / AllDisjointProperties node x."""
    ix = e.index
    for pred in (MEMBERS, DISTINCTMEMBERS):
        for head in ix.objects(x, pred):
            items = ix.rdf_list(head) or ()
            owner = ((x, pred, head),)
            for i, a in enumerate(items):
                for b in items[i + 1:]:
                    if a == b:
                        continue
                    if ix.has(x, TYPE, ALLDIFFERENT) and ix.has(a, SAME, b):  # eq-diff2 / eq-diff3
                        e.violate("eq-diff2" if pred == MEMBERS else "eq-diff3",
                                  ((x, TYPE, ALLDIFFERENT),) + owner + ((a, SAME, b),))
                    if pred != MEMBERS:
                        continue
                    if ix.has(x, TYPE, ALLDISJOINTCLASSES):  # cax-adc
                        for u in ix.subjects(TYPE, a) & ix.subjects(TYPE, b):
                            e.violate("cax-adc", ((x, TYPE, ALLDISJOINTCLASSES),) + owner + ((u, TYPE, a), (u, TYPE, b)))
                    if ix.has(x, TYPE, ALLDISJOINTPROPS):  # prp-adp
                        for u, v in ix.pairs(a):
                            if ix.has(u, b, v):
                                e.violate("prp-adp", ((x, TYPE, ALLDISJOINTPROPS),) + owner + ((u, a, v), (u, b, v)))
