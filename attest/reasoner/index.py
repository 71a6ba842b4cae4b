"""Per-predicate triple indexes over encoded terms (p -> s -> {o} and p -> o -> {s}) plus RDF-list lookups."""

from __future__ import annotations

from collections import defaultdict

from attest.reasoner.terms import (
    ALLDISJOINTCLASSES, ALLDISJOINTPROPS, ASYMMETRIC, AVF, CHAIN, COMPLEMENT, DISTINCTMEMBERS, DOMAIN, DW, EQC, EQP,
    FIRST, FUNCTIONAL, HASKEY, HASVALUE, INTERSECTION, INV, INVFUNCTIONAL, IRREFLEXIVE, MAXC, MAXQC, MEMBERS, NIL,
    ONCLASS, ONEOF, ONPROP, PDW, RANGE, REST, SCO, SPO, SVF, SYMMETRIC, TRANSITIVE, TYPE, UNION, Encoded,
)

EMPTY: frozenset[int] = frozenset()
# predicates whose object is the head of an RDF list the rules read (owner --pred--> list)
LIST_PREDICATES = (INTERSECTION, UNION, ONEOF, CHAIN, HASKEY, MEMBERS, DISTINCTMEMBERS)
MAX_LIST = 10_000  # a longer or cyclic rdf:rest chain is treated as malformed


class TripleIndex:
    """The triples known so far; `sp[p][s]` are the objects, `op[p][o]` the subjects."""

    def __init__(self) -> None:
        self.sp: defaultdict[int, dict[int, set[int]]] = defaultdict(dict)
        self.op: defaultdict[int, dict[int, set[int]]] = defaultdict(dict)
        self.size = 0
        self._members: dict[int, dict[int, list[tuple[int, int, tuple[int, ...]]]]] | None = None
        # TBox-derived lookup tables of the rules (per property, class, restriction); dropped on any schema change
        self.profiles: dict[int, dict] = {0: {}, 1: {}, 2: {}}

    def __contains__(self, t: Encoded) -> bool:
        d = self.sp.get(t[1])
        if d is None:
            return False
        os = d.get(t[0])
        return os is not None and t[2] in os

    def add(self, t: Encoded) -> bool:
        s, p, o = t
        d = self.sp[p]
        os = d.get(s)
        if os is None:
            d[s] = {o}
        elif o in os:
            return False
        else:
            os.add(o)
        ss = self.op[p].get(o)
        if ss is None:
            self.op[p][o] = {s}
        else:
            ss.add(s)
        self.size += 1
        if p in SCHEMA_PREDICATES or (p == TYPE and o in SCHEMA_TYPES):
            self._schema_changed(p)
        return True

    def remove(self, t: Encoded) -> bool:
        s, p, o = t
        os = self.sp.get(p, {}).get(s)
        if not os or o not in os:
            return False
        os.discard(o)
        if not os:
            del self.sp[p][s]
        ss = self.op[p][o]
        ss.discard(s)
        if not ss:
            del self.op[p][o]
        self.size -= 1
        if p in SCHEMA_PREDICATES or (p == TYPE and o in SCHEMA_TYPES):
            self._schema_changed(p)
        return True

    def _schema_changed(self, p: int) -> None:
        for cache in self.profiles.values():
            cache.clear()
        if p in _STRUCTURAL:
            self._members = None

    def objects(self, s: int, p: int) -> set[int] | frozenset[int]:
        d = self.sp.get(p)
        return d.get(s, EMPTY) if d else EMPTY

    def subjects(self, p: int, o: int) -> set[int] | frozenset[int]:
        d = self.op.get(p)
        return d.get(o, EMPTY) if d else EMPTY

    def has(self, s: int, p: int, o: int) -> bool:
        d = self.sp.get(p)
        if d is None:
            return False
        os = d.get(s)
        return os is not None and o in os

    def pairs(self, p: int):
        """All (s, o) with (s p o); rules only emit into the engine's agenda, so iterating lazily is safe."""
        d = self.sp.get(p)
        return ((s, o) for s, os in d.items() for o in os) if d else ()

    def triples(self):
        for p, d in self.sp.items():
            for s, os in d.items():
                for o in os:
                    yield (s, p, o)

    def rdf_list(self, head: int) -> tuple[int, ...] | None:
        """Members of the well-formed RDF list at `head`, or None (missing or branching cells, cycles)."""
        items: list[int] = []
        node = head
        while node != NIL:
            firsts = self.objects(node, FIRST)
            rests = self.objects(node, REST)
            if len(firsts) != 1 or len(rests) != 1 or len(items) > MAX_LIST:
                return None
            items.append(next(iter(firsts)))
            node = next(iter(rests))
        return tuple(items)

    def list_heads_through(self, cell: int) -> set[int]:
        """Heads of the lists that contain `cell` (walking rdf:rest backwards)."""
        seen, todo = {cell}, [cell]
        while todo:
            for prev in self.subjects(REST, todo.pop()):
                if prev not in seen:
                    seen.add(prev)
                    todo.append(prev)
        return seen

    def members_of(self, pred: int, member: int) -> list[tuple[int, int, tuple[int, ...]]]:
        """(owner, head, members) for each `owner pred head` whose list contains `member` (cached)."""
        if self._members is None:
            self._members = self._build_members()
        return self._members.get(pred, {}).get(member, [])

    def _build_members(self) -> dict[int, dict[int, list[tuple[int, int, tuple[int, ...]]]]]:
        out: dict[int, dict[int, list[tuple[int, int, tuple[int, ...]]]]] = {}
        for pred in LIST_PREDICATES:
            by_member: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
            for owner, head in self.pairs(pred):
                items = self.rdf_list(head)
                for m in set(items or ()):
                    by_member.setdefault(m, []).append((owner, head, items or ()))
            out[pred] = by_member
        return out


_STRUCTURAL = frozenset(LIST_PREDICATES) | {FIRST, REST}
# triples with these predicates (or typing a node with SCHEMA_TYPES) are read by the rules as TBox
SCHEMA_PREDICATES = _STRUCTURAL | {
    SCO, SPO, DOMAIN, RANGE, EQC, EQP, INV, DW, PDW, COMPLEMENT, ONPROP, SVF, AVF, HASVALUE, MAXC, MAXQC, ONCLASS}
SCHEMA_TYPES = frozenset({FUNCTIONAL, INVFUNCTIONAL, IRREFLEXIVE, SYMMETRIC, ASYMMETRIC, TRANSITIVE,
                          ALLDISJOINTCLASSES, ALLDISJOINTPROPS})
