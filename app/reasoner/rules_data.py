"""OWL 2 RL rules triggered by any triple (x p y): W3C tables 4 (eq-*), 5 (prp-*) and the cls-* rules keyed by a property."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.reasoner.terms import (
    ASSERTPROP, ASYMMETRIC, AVF, CHAIN, DOMAIN, EQP, FUNCTIONAL, HASKEY, HASVALUE, INV, INVFUNCTIONAL, IRREFLEXIVE,
    MAXC, MAXQC, MEMBERS, ONCLASS, ONPROP, PDW, RANGE, SAME, SOURCE, SPO, SVF, SYMMETRIC, TARGETIND, TARGETVAL, THING,
    TRANSITIVE, TYPE, ALLDISJOINTPROPS, Encoded,
)

if TYPE_CHECKING:
    from app.reasoner.engine import Engine


def fire_data(e: Engine, s: int, p: int, o: int) -> None:
    """Every rule with a premise (x p y) for an arbitrary p, joined with the triple t = (s p o)."""
    ix, emit = e.index, e.emit
    obj, subj, has = ix.objects, ix.subjects, ix.has
    t = (s, p, o)
    for c in obj(p, DOMAIN):  # prp-dom
        emit(s, TYPE, c, "prp-dom", ((p, DOMAIN, c), t))
    for c in obj(p, RANGE):  # prp-rng
        emit(o, TYPE, c, "prp-rng", ((p, RANGE, c), t))
    for q in obj(p, SPO):  # prp-spo1
        emit(s, q, o, "prp-spo1", ((p, SPO, q), t))
    for q in obj(p, EQP):  # prp-eqp1
        emit(s, q, o, "prp-eqp1", ((p, EQP, q), t))
    for q in subj(EQP, p):  # prp-eqp2
        emit(s, q, o, "prp-eqp2", ((q, EQP, p), t))
    for q in obj(p, INV):  # prp-inv1
        emit(o, q, s, "prp-inv1", ((p, INV, q), t))
    for q in subj(INV, p):  # prp-inv2
        emit(o, q, s, "prp-inv2", ((q, INV, p), t))
    kinds = obj(p, TYPE)
    if kinds:
        property_characteristics(e, s, p, o, kinds)
    for q in obj(p, PDW):  # prp-pdw
        if has(s, q, o):
            e.violate("prp-pdw", ((p, PDW, q), t, (s, q, o)))
    for q in subj(PDW, p):  # prp-pdw
        if has(s, q, o):
            e.violate("prp-pdw", ((q, PDW, p), (s, q, o), t))
    for x, head, props in ix.members_of(MEMBERS, p):  # prp-adp
        if has(x, TYPE, ALLDISJOINTPROPS):
            for q in props:
                if q != p and has(s, q, o):
                    e.violate("prp-adp", ((x, TYPE, ALLDISJOINTPROPS), (x, MEMBERS, head), t, (s, q, o)))
    for q, head, chain in ix.members_of(CHAIN, p):  # prp-spo2
        property_chain(e, s, p, o, q, head, chain, first_only=False)
    for c, head, props in ix.members_of(HASKEY, p):  # prp-key
        if has(s, TYPE, c):
            has_key(e, s, c, head, props)
    for n in subj(SOURCE, s):  # prp-npa1, prp-npa2
        if has(n, ASSERTPROP, p):
            prem = ((n, SOURCE, s), (n, ASSERTPROP, p))
            if has(n, TARGETIND, o):
                e.violate("prp-npa1", prem + ((n, TARGETIND, o), t))
            if has(n, TARGETVAL, o):
                e.violate("prp-npa2", prem + ((n, TARGETVAL, o), t))
    for s2 in obj(s, SAME):  # eq-rep-s
        if s2 != s:
            emit(s2, p, o, "eq-rep-s", ((s, SAME, s2), t))
    for p2 in obj(p, SAME):  # eq-rep-p
        if p2 != p:
            emit(s, p2, o, "eq-rep-p", ((p, SAME, p2), t))
    for o2 in obj(o, SAME):  # eq-rep-o
        if o2 != o:
            emit(s, p, o2, "eq-rep-o", ((o, SAME, o2), t))
    for x in subj(ONPROP, p):
        restriction_by_property(e, x, s, p, o)


def property_characteristics(e: Engine, s: int, p: int, o: int, kinds) -> None:
    """prp-fp, prp-ifp, prp-irp, prp-symp, prp-asyp, prp-trp for (s p o) given the types of p."""
    ix, emit = e.index, e.emit
    t = (s, p, o)
    if FUNCTIONAL in kinds:  # prp-fp
        for o2 in ix.objects(s, p):
            if o2 != o:
                emit(o, SAME, o2, "prp-fp", ((p, TYPE, FUNCTIONAL), t, (s, p, o2)))
    if INVFUNCTIONAL in kinds:  # prp-ifp
        for s2 in ix.subjects(p, o):
            if s2 != s:
                emit(s, SAME, s2, "prp-ifp", ((p, TYPE, INVFUNCTIONAL), t, (s2, p, o)))
    if IRREFLEXIVE in kinds and s == o:  # prp-irp
        e.violate("prp-irp", ((p, TYPE, IRREFLEXIVE), t))
    if SYMMETRIC in kinds:  # prp-symp
        emit(o, p, s, "prp-symp", ((p, TYPE, SYMMETRIC), t))
    if ASYMMETRIC in kinds and ix.has(o, p, s):  # prp-asyp
        e.violate("prp-asyp", ((p, TYPE, ASYMMETRIC), t, (o, p, s)))
    if TRANSITIVE in kinds:  # prp-trp
        pt = (p, TYPE, TRANSITIVE)
        for z in ix.objects(o, p):
            emit(s, p, z, "prp-trp", (pt, t, (o, p, z)))
        for w in ix.subjects(p, s):
            emit(w, p, o, "prp-trp", (pt, (w, p, s), t))


def property_chain(e: Engine, s: int, p: int, o: int, q: int, head: int, chain: tuple[int, ...],
                   first_only: bool) -> None:
    """prp-spo2: every chain path through (s p o) at a position where the chain has p."""
    ix = e.index
    for i, pi in enumerate(chain):
        if pi != p or (first_only and i):
            continue
        backs: list[tuple[int, tuple[Encoded, ...]]] = [(s, ())]
        for j in range(i - 1, -1, -1):
            backs = [(w, ((w, chain[j], x),) + path) for x, path in backs for w in ix.subjects(chain[j], x)]
        fwds: list[tuple[int, tuple[Encoded, ...]]] = [(o, ())]
        for j in range(i + 1, len(chain)):
            fwds = [(z, path + ((y, chain[j], z),)) for y, path in fwds for z in ix.objects(y, chain[j])]
        for start, bp in backs:
            for end, fp in fwds:
                e.emit(start, q, end, "prp-spo2", ((q, CHAIN, head),) + bp + ((s, p, o),) + fp)


def has_key(e: Engine, x: int, c: int, head: int, props: tuple[int, ...]) -> None:
    """prp-key: x and y of class c that share a value for every key property are the same."""
    ix = e.index
    if not props:
        return
    candidates: set[int] = set()
    for z in ix.objects(x, props[0]):
        candidates.update(ix.subjects(props[0], z))
    for y in candidates:
        if y == x or not ix.has(y, TYPE, c):
            continue
        prem: list[Encoded] = [(c, HASKEY, head), (x, TYPE, c), (y, TYPE, c)]
        for pi in props:
            common = ix.objects(x, pi) & ix.objects(y, pi)
            if not common:
                break
            z = min(common)
            prem += [(x, pi, z), (y, pi, z)]
        else:
            e.emit(x, SAME, y, "prp-key", tuple(prem))


def restriction_by_property(e: Engine, x: int, u: int, p: int, v: int) -> None:
    """Restriction x on property p, joined with (u p v): cls-svf1/2, cls-hv2, cls-avf, cls-maxc1/2, cls-maxqc1-4."""
    ix, emit = e.index, e.emit
    obj, has = ix.objects, ix.has
    t = (u, p, v)
    onp = (x, ONPROP, p)
    for y in obj(x, SVF):
        if y == THING:  # cls-svf2
            emit(u, TYPE, x, "cls-svf2", ((x, SVF, THING), onp, t))
        elif has(v, TYPE, y):  # cls-svf1
            emit(u, TYPE, x, "cls-svf1", ((x, SVF, y), onp, t, (v, TYPE, y)))
    if has(x, HASVALUE, v):  # cls-hv2
        emit(u, TYPE, x, "cls-hv2", ((x, HASVALUE, v), onp, t))
    if not has(u, TYPE, x):
        return
    ut = (u, TYPE, x)
    for y in obj(x, AVF):  # cls-avf
        emit(v, TYPE, y, "cls-avf", ((x, AVF, y), onp, ut, t))
    for m in obj(x, MAXC):
        n = e.terms.int_value(m)
        if n == 0:  # cls-maxc1
            e.violate("cls-maxc1", ((x, MAXC, m), onp, ut, t))
        elif n == 1:  # cls-maxc2
            for y2 in obj(u, p):
                if y2 != v:
                    emit(v, SAME, y2, "cls-maxc2", ((x, MAXC, m), onp, ut, t, (u, p, y2)))
    for m in obj(x, MAXQC):
        n = e.terms.int_value(m)
        for cc in obj(x, ONCLASS):
            qual = () if cc == THING else ((v, TYPE, cc),)
            if qual and not has(v, TYPE, cc):
                continue
            base = ((x, MAXQC, m), onp, (x, ONCLASS, cc), ut, t)
            if n == 0:  # cls-maxqc1 (qualified), cls-maxqc2 (owl:Thing)
                e.violate("cls-maxqc2" if cc == THING else "cls-maxqc1", base + qual)
            elif n == 1:  # cls-maxqc3, cls-maxqc4
                for y2 in obj(u, p):
                    if y2 != v and (cc == THING or has(y2, TYPE, cc)):
                        extra = () if cc == THING else (qual[0], (y2, TYPE, cc))
                        emit(v, SAME, y2, "cls-maxqc4" if cc == THING else "cls-maxqc3", base + ((u, p, y2),) + extra)
