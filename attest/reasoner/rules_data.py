"""OWL 2 RL rules triggered by any triple (x p y): W3C tables 4 (eq-*), 5 (prp-*) and the cls-* rules keyed by a property."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attest.reasoner.terms import (
    ALLDISJOINTPROPS, ASSERTPROP, ASYMMETRIC, AVF, CHAIN, DOMAIN, EQP, FUNCTIONAL, HASKEY, HASVALUE, INV,
    INVFUNCTIONAL, IRREFLEXIVE, MAXC, MAXQC, MEMBERS, ONCLASS, ONPROP, PDW, RANGE, SAME, SOURCE, SPO, SVF, SYMMETRIC,
    TARGETIND, TARGETVAL, THING, TRANSITIVE, TYPE, Encoded,
)

CHARACTERISTICS = frozenset({FUNCTIONAL, INVFUNCTIONAL, IRREFLEXIVE, SYMMETRIC, ASYMMETRIC, TRANSITIVE})

if TYPE_CHECKING:
    from attest.reasoner.context import RuleContext


def property_profile(e: RuleContext, p: int) -> tuple:
    """What the TBox says about property p, precomputed for fire_data (rebuilt after any schema change)."""
    ix = e.index
    obj, subj, has = ix.objects, ix.subjects, ix.has
    return (
        tuple((c, (p, DOMAIN, c)) for c in obj(p, DOMAIN)),
        tuple((c, (p, RANGE, c)) for c in obj(p, RANGE)),
        # (s p o) -> (s q o); the reflexive p subPropertyOf p only restates t
        tuple((q, "prp-spo1", (p, SPO, q)) for q in obj(p, SPO) if q != p)
        + tuple((q, "prp-eqp1", (p, EQP, q)) for q in obj(p, EQP) if q != p)
        + tuple((q, "prp-eqp2", (q, EQP, p)) for q in subj(EQP, p) if q != p),
        tuple((q, "prp-inv1", (p, INV, q)) for q in obj(p, INV))
        + tuple((q, "prp-inv2", (q, INV, p)) for q in subj(INV, p)),
        frozenset(obj(p, TYPE) & CHARACTERISTICS),
        tuple((q, (p, PDW, q), True) for q in obj(p, PDW)) + tuple((q, (q, PDW, p), False) for q in subj(PDW, p)),
        tuple(m for m in ix.members_of(MEMBERS, p) if has(m[0], TYPE, ALLDISJOINTPROPS)),
        tuple(ix.members_of(CHAIN, p)),
        tuple(ix.members_of(HASKEY, p)),
        tuple(subj(ONPROP, p)),
    )


def fire_data(e: RuleContext, s: int, p: int, o: int) -> None:
    """Every rule with a premise (x p y) for an arbitrary p, joined with the triple t = (s p o)."""
    ix, emit = e.index, e.emit
    cache = ix.profiles[0]
    prof = cache.get(p)
    if prof is None:
        prof = cache[p] = property_profile(e, p)
    dom, rng, copies, inverses, kinds, pdw, adp, chains, keys, restrictions = prof
    t = (s, p, o)
    known = e.settled  # skips the call for triples that cannot get a shallower derivation
    for c, sch in dom:  # prp-dom
        if (s, TYPE, c) not in known:
            emit(s, TYPE, c, "prp-dom", (sch, t))
    for c, sch in rng:  # prp-rng
        if (o, TYPE, c) not in known:
            emit(o, TYPE, c, "prp-rng", (sch, t))
    for q, rule, sch in copies:  # prp-spo1, prp-eqp1, prp-eqp2
        if (s, q, o) not in known:
            emit(s, q, o, rule, (sch, t))
    for q, rule, sch in inverses:  # prp-inv1, prp-inv2
        if (o, q, s) not in known:
            emit(o, q, s, rule, (sch, t))
    if kinds:
        property_characteristics(e, s, p, o, kinds)
    if o in e.terms.ill_typed:  # dt-not-type: the literal is not in its datatype's lexical space
        e.violate("dt-not-type", (t,))
    for q, sch, first in pdw:  # prp-pdw
        if ix.has(s, q, o):
            e.violate("prp-pdw", (sch, t, (s, q, o)) if first else (sch, (s, q, o), t))
    for x, head, props in adp:  # prp-adp
        for q in props:
            if q != p and ix.has(s, q, o):
                e.violate("prp-adp", ((x, TYPE, ALLDISJOINTPROPS), (x, MEMBERS, head), t, (s, q, o)))
    for q, head, chain in chains:  # prp-spo2
        property_chain(e, s, p, o, q, head, chain, first_only=False)
    for c, head, props in keys:  # prp-key
        if ix.has(s, TYPE, c):
            has_key(e, s, c, head, props)
    if SOURCE in ix.sp:
        for n in ix.subjects(SOURCE, s):  # prp-npa1, prp-npa2
            if ix.has(n, ASSERTPROP, p):
                prem = ((n, SOURCE, s), (n, ASSERTPROP, p))
                if ix.has(n, TARGETIND, o):
                    e.violate("prp-npa1", prem + ((n, TARGETIND, o), t))
                if ix.has(n, TARGETVAL, o):
                    e.violate("prp-npa2", prem + ((n, TARGETVAL, o), t))
    same = ix.sp.get(SAME)
    if same:
        for s2 in same.get(s, ()):  # eq-rep-s
            if s2 != s:
                emit(s2, p, o, "eq-rep-s", ((s, SAME, s2), t))
        for p2 in same.get(p, ()):  # eq-rep-p
            if p2 != p:
                emit(s, p2, o, "eq-rep-p", ((p, SAME, p2), t))
        for o2 in same.get(o, ()):  # eq-rep-o
            if o2 != o:
                emit(s, p, o2, "eq-rep-o", ((o, SAME, o2), t))
    for x in restrictions:
        restriction_by_property(e, x, s, p, o)


def property_characteristics(e: RuleContext, s: int, p: int, o: int, kinds) -> None:
    """prp-fp, prp-ifp, prp-irp, prp-symp, prp-asyp, prp-trp for (s p o) given the types of p."""
    ix, emit = e.index, e.emit
    t = (s, p, o)
    # t may stand for either premise of prp-fp / prp-ifp, so both bindings are emitted
    if FUNCTIONAL in kinds:  # prp-fp
        for o2 in ix.objects(s, p):
            if o2 != o:
                pt = (p, TYPE, FUNCTIONAL)
                emit(o, SAME, o2, "prp-fp", (pt, t, (s, p, o2)))
                emit(o2, SAME, o, "prp-fp", (pt, (s, p, o2), t))
    if INVFUNCTIONAL in kinds:  # prp-ifp
        for s2 in ix.subjects(p, o):
            if s2 != s:
                pt = (p, TYPE, INVFUNCTIONAL)
                emit(s, SAME, s2, "prp-ifp", (pt, t, (s2, p, o)))
                emit(s2, SAME, s, "prp-ifp", (pt, (s2, p, o), t))
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


def property_chain(e: RuleContext, s: int, p: int, o: int, q: int, head: int, chain: tuple[int, ...],
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


def has_key(e: RuleContext, x: int, c: int, head: int, props: tuple[int, ...]) -> None:
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
        else:  # x may stand for either individual of prp-key
            e.emit(x, SAME, y, "prp-key", tuple(prem))
            e.emit(y, SAME, x, "prp-key", tuple(prem))


def restriction_profile(e: RuleContext, x: int) -> tuple:
    """The fillers and cardinalities of restriction x (rebuilt after any schema change)."""
    ix = e.index
    obj, num = ix.objects, e.terms.int_value
    maxc = tuple((m, num(m)) for m in obj(x, MAXC))
    maxqc = tuple((m, num(m), cc) for m in obj(x, MAXQC) for cc in obj(x, ONCLASS))
    avf = tuple(obj(x, AVF))
    return tuple(obj(x, SVF)), frozenset(obj(x, HASVALUE)), avf, maxc, maxqc, bool(avf or maxc or maxqc)


def restriction_by_property(e: RuleContext, x: int, u: int, p: int, v: int) -> None:
    """Restriction x on property p, joined with (u p v): cls-svf1/2, cls-hv2, cls-avf, cls-maxc1/2, cls-maxqc1-4."""
    ix, emit = e.index, e.emit
    cache = ix.profiles[2]
    prof = cache.get(x)
    if prof is None:
        prof = cache[x] = restriction_profile(e, x)
    svf, hv, avf, maxc, maxqc, needs_type = prof
    obj, has = ix.objects, ix.has
    t = (u, p, v)
    onp = (x, ONPROP, p)
    for y in svf:
        if y == THING:  # cls-svf2
            emit(u, TYPE, x, "cls-svf2", ((x, SVF, THING), onp, t))
        elif has(v, TYPE, y):  # cls-svf1
            emit(u, TYPE, x, "cls-svf1", ((x, SVF, y), onp, t, (v, TYPE, y)))
    if v in hv:  # cls-hv2
        emit(u, TYPE, x, "cls-hv2", ((x, HASVALUE, v), onp, t))
    if not needs_type or not has(u, TYPE, x):
        return
    ut = (u, TYPE, x)
    for y in avf:  # cls-avf
        emit(v, TYPE, y, "cls-avf", ((x, AVF, y), onp, ut, t))
    for m, n in maxc:
        if n == 0:  # cls-maxc1
            e.violate("cls-maxc1", ((x, MAXC, m), onp, ut, t))
        elif n == 1:  # cls-maxc2, with t as either value premise
            for y2 in obj(u, p):
                if y2 != v:
                    emit(v, SAME, y2, "cls-maxc2", ((x, MAXC, m), onp, ut, t, (u, p, y2)))
                    emit(y2, SAME, v, "cls-maxc2", ((x, MAXC, m), onp, ut, (u, p, y2), t))
    for m, n, cc in maxqc:
        qual = () if cc == THING else ((v, TYPE, cc),)
        if qual and not has(v, TYPE, cc):
            continue
        base = ((x, MAXQC, m), onp, (x, ONCLASS, cc), ut, t)
        if n == 0:  # cls-maxqc1 (qualified), cls-maxqc2 (owl:Thing)
            e.violate("cls-maxqc2" if cc == THING else "cls-maxqc1", base + qual)
        elif n == 1:  # cls-maxqc3, cls-maxqc4
            rule = "cls-maxqc4" if cc == THING else "cls-maxqc3"
            for y2 in obj(u, p):
                if y2 != v and (cc == THING or has(y2, TYPE, cc)):
                    q2 = () if cc == THING else ((y2, TYPE, cc),)
                    emit(v, SAME, y2, rule, base[:4] + (t,) + qual + ((u, p, y2),) + q2)
                    emit(y2, SAME, v, rule, base[:4] + ((u, p, y2),) + q2 + (t,) + qual)
