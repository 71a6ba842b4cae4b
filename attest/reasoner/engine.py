"""Semi-naive OWL 2 RL materialization in depth order, with the shallowest derivation per triple and DRed retraction.

Why this design: LUBM-sized graphs fit in memory as ints, so the engine keeps per-predicate hash indexes
(index.py) and applies rules one new triple at a time against everything already indexed (semi-naive).
Rules read the TBox straight from the same indexes, which makes them "compiled against the TBox" for free:
a data triple (x p y) looks up p's domains, ranges, super-properties, characteristics and restrictions with
a handful of dict probes, and a new TBox axiom runs the join it opens once (rules_schema.py).
Triples are processed level by level (a level = a derivation depth) and a whole level is indexed before any
of its triples fires, so the first derivation found for a triple is a shallowest one: depth(t) = 1 + max
depth of its premises, asserted = 0. A later, shallower derivation (only possible in incremental runs)
replaces the record and re-fires the triple so the improvement propagates.
Retraction is delete-rederive (DRed): over-delete everything that has a derivation through a deleted triple,
then re-derive, in one step, those that still follow from what remains (each OWL 2 RL rule has a premise
that mentions the conclusion's subject, which bounds the triples to re-fire), then continue semi-naively.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from attest.reasoner.context import Premises
from attest.reasoner.index import TripleIndex
from attest.reasoner.rules_class import fire_type
from attest.reasoner.rules_data import fire_data
from attest.reasoner.rules_schema import HANDLERS, fire_schema
from attest.reasoner.terms import (
    ANNOTATION_PROPERTIES, ANNOTPROP, CLASS, DATATYPE, DATATYPES, NOTHING, ONEOF, THING, TYPE, UNION, Encoded, TermDict,
)
from pyoxigraph import NamedNode



@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: the closure allocates millions of acyclic tuples, and its generation-2 passes over them
    cost a large share of the run on big graphs (reference counting still frees everything)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class Violation:
    """An inconsistency: the rule whose conclusion is `false`, with the premises that fired it."""

    rule: str
    premises: Premises


@dataclass
class Delta:
    """What one run changed: triples whose inferred status or derivation changed, and run statistics."""

    touched: set[Encoded] = field(default_factory=set)
    fired: int = 0
    overdeleted: int = 0
    rederived: int = 0
    retracted: int = 0  # inferred triples that lost all support


class Engine:
    """In-memory closure: index of all triples, depth and derivation of each, asserted support counts."""

    def __init__(self, terms: TermDict | None = None, axioms: bool = True) -> None:
        self.terms = terms or TermDict()
        self.axioms = axioms
        self.on_level: Callable[[int, int], None] | None = None  # progress: (level, triples fired so far)
        self._lits, self._blanks = self.terms.literals, self.terms.blanks
        self._axiom_triples = self._make_axioms() if axioms else []
        self._reset()

    def _reset(self) -> None:
        self.index = TripleIndex()
        self.depth: dict[Encoded, int] = {}
        self.why: dict[Encoded, tuple[str, Premises]] = {}
        self.support: dict[Encoded, int] = {}  # asserted triple -> number of graphs asserting it
        self.violations: dict[tuple[str, Premises], None] = {}
        self.full = False
        self.settled: dict[Encoded, int] = {}  # = depth during a full run (nothing known can get shallower)
        self.level = 0
        self._buckets: dict[int, list[Encoded]] = {}
        self._delta = Delta()

    # --- derivation bookkeeping -------------------------------------------------------------------------------
    def emit(self, s: int, p: int, o: int, rule: str, premises: Premises) -> None:
        t = (s, p, o)
        old = self.depth.get(t)
        if old is not None and old <= self.level + 1:
            return
        lits = self._lits
        if s in lits or p in lits or p in self._blanks:
            return  # generalized RDF (literal subject, non-IRI predicate) cannot be stored; see README differences
        depth = self.depth
        d = 0
        for q in premises:
            dq = depth[q]
            if dq > d:
                d = dq
        d += 1
        if old is not None and old <= d:
            return
        depth[t] = d
        self.why[t] = (rule, premises)
        self._delta.touched.add(t)
        bucket = self._buckets.get(d)
        if bucket is None:
            self._buckets[d] = [t]
        else:
            bucket.append(t)

    def violate(self, rule: str, premises: Premises) -> None:
        # premises sorted: the same inconsistency found from either premise is one violation
        self.violations[(rule, tuple(sorted(premises)))] = None

    def fire(self, t: Encoded) -> None:
        s, p, o = t
        fire_data(self, s, p, o)
        if p == TYPE:
            fire_type(self, s, o)
        elif p in HANDLERS:
            fire_schema(self, s, p, o)

    def _run(self) -> None:
        buckets, depth, index, fire = self._buckets, self.depth, self.index, self.fire
        while buckets:
            level = min(buckets)
            batch = [t for t in buckets.pop(level) if depth.get(t) == level]
            self.level = level
            for t in batch:
                index.add(t)
            for t in batch:
                fire(t)
            self._delta.fired += len(batch)
            if self.on_level is not None:
                self.on_level(level, self._delta.fired)
        self.level = 0

    # --- public operations ------------------------------------------------------------------------------------
    def materialize(self, asserted: Iterable[Encoded]) -> Delta:
        """Full closure from scratch over `asserted` (each counted as asserted once)."""
        self._reset()
        self.full, self.settled = True, self.depth
        try:
            return self.add(asserted)
        finally:
            self.full, self.settled = False, {}

    def add(self, triples: Iterable[Encoded]) -> Delta:
        """Assert triples (once more each) and derive their consequences semi-naively."""
        with gc_paused():
            return self._add(triples)

    def _add(self, triples: Iterable[Encoded]) -> Delta:
        self._delta = delta = Delta()
        bucket0 = self._buckets.setdefault(0, [])
        for t in triples:
            n = self.support.get(t, 0)
            self.support[t] = n + 1
            if n == 0 and t[0] not in self._lits:
                if self.depth.get(t, 1) > 0:
                    if t in self.why:
                        del self.why[t]
                        delta.touched.add(t)
                    self.depth[t] = 0
                    bucket0.append(t)
        for t in self._axiom_triples:
            if t not in self.depth:
                self.emit(*t, rule=axiom_rule(t), premises=())
        self._run()
        return delta

    def retract(self, triples: Iterable[Encoded]) -> Delta:
        """Withdraw one assertion of each triple; what loses all support is removed with its consequences (DRed)."""
        with gc_paused():
            return self._retract(triples)

    def _retract(self, triples: Iterable[Encoded]) -> Delta:
        self._delta = delta = Delta()
        dead: list[Encoded] = []
        for t in triples:
            n = self.support.get(t, 0)
            if n > 1:
                self.support[t] = n - 1
            elif n == 1:
                del self.support[t]
                dead.append(t)
        if not dead:
            return delta
        over = self._overdelete(dead)
        delta.overdeleted = len(over)
        was_inferred = [t for t in over if self.depth[t] > 0]
        for t in over:
            self.index.remove(t)
            del self.depth[t]
            self.why.pop(t, None)
        self.violations = {k: None for k in self.violations if not any(q in over for q in k[1])}
        self._delta = delta
        delta.touched |= over
        self._rederive(over)
        self._run()
        delta.rederived = sum(1 for t in over if t in self.depth)
        delta.retracted = sum(1 for t in was_inferred if t not in self.depth)
        return delta

    def _overdelete(self, dead: list[Encoded]) -> set[Encoded]:
        over = set(dead)
        stack = list(dead)
        depth, support = self.depth, self.support

        def mark(s: int, p: int, o: int, rule: str, premises: Premises) -> None:
            t = (s, p, o)
            if t not in over and t in depth and t not in support:
                over.add(t)
                stack.append(t)

        self.emit, self.violate = mark, lambda rule, premises: None  # type: ignore[method-assign]
        try:
            while stack:
                self.fire(stack.pop())
        finally:
            del self.emit, self.violate
        return over

    def _rederive(self, over: set[Encoded]) -> None:
        """One-step re-derivation of over-deleted triples from the remaining ones (W3C rules fired forward)."""
        terms_hit = {t[0] for t in over}
        candidates: set[Encoded] = set()
        for p, by_s in self.index.sp.items():
            for s in terms_hit:
                if s in by_s:
                    candidates.update((s, p, o) for o in by_s[s])
        for p, by_o in self.index.op.items():
            for o in terms_hit:
                if o in by_o:
                    candidates.update((s, p, o) for s in by_o[o])
        for p in (UNION, ONEOF):  # scm-uni, cls-oneof: the conclusion's subject sits only in the list
            candidates.update((s, p, o) for s, o in self.index.pairs(p))
        if NOTHING in terms_hit:  # scm-cls: (owl:Nothing subClassOf c) follows from (c type owl:Class)
            candidates.update((c, TYPE, CLASS) for c in self.index.subjects(TYPE, CLASS))
        self.level = 0
        for t in candidates:
            self.fire(t)
        for t in self._axiom_triples:
            if t not in self.depth:
                self.emit(*t, rule=axiom_rule(t), premises=())

    def _make_axioms(self) -> list[Encoded]:
        enc = self.terms.encode
        out = [(THING, TYPE, CLASS), (NOTHING, TYPE, CLASS)]  # cls-thing, cls-nothing1
        out += [(enc(NamedNode(iri)), TYPE, ANNOTPROP) for iri in ANNOTATION_PROPERTIES]  # prp-ap
        out += [(enc(NamedNode(iri)), TYPE, DATATYPE) for iri in DATATYPES]  # dt-type1
        return out

    # --- reading ----------------------------------------------------------------------------------------------
    def inferred(self) -> Iterable[Encoded]:
        return (t for t, d in self.depth.items() if d > 0)

    def inferred_count(self) -> int:
        return len(self.why)  # each inferred triple has its derivation; an asserted one none (add drops it)

    def list_violations(self) -> list[Violation]:
        return [Violation(rule, prem) for rule, prem in self.violations]


def axiom_rule(t: Encoded) -> str:
    """The zero-premise rule that states axiom t: cls-thing, cls-nothing1, prp-ap or dt-type1."""
    if t[2] == CLASS:
        return "cls-thing" if t[0] == THING else "cls-nothing1"
    return "prp-ap" if t[2] == ANNOTPROP else "dt-type1"
