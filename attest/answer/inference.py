"""Depths and traces of inferred triples, read in batches from the reasoner's derivation records (attest/reasoner/records.py)."""

from __future__ import annotations

from typing import Iterator, Protocol

from pyoxigraph import NamedNode, Triple as RdfTriple

from attest.answer import queries as q
from attest.answer.lookup import Triple
from attest.answer.models import TraceStep
from attest.store.results import solutions
from attest.reasoner.records import derivation_iri
from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import Iris

MAX_TRACE_STEPS = 200  # a trace is also bounded in width: wide premise fans are cut here


class Inference(Protocol):
    """Depths (batched) and bounded traces of inferred triples."""

    def depths(self, triples: list[Triple]) -> dict[Triple, int]:
        """Shallowest derivation depth of each triple that has a derivation record (others absent)."""

    def traces(self, triples: list[Triple], max_depth: int) -> dict[Triple, list[TraceStep]]:
        """Derivation steps from each triple down towards asserted premises, at most `max_depth` levels, never looping."""


class DerivationRecords:
    """Inference over the derivations graph: a record's IRI is a hash of its triple, so lookups are VALUES of IRIs."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store, self.iris = store, iris

    def depths(self, triples: list[Triple]) -> dict[Triple, int]:
        keys = {derivation_iri(self.iris, _rdf(t)): t for t in triples}
        out: dict[Triple, int] = {}
        for batch in _batches(list(keys)):
            query = q.with_values(q.DERIVATION_DEPTHS, derivations=[(d,) for d in batch])
            for row in solutions(self.store.query(query)):
                if row["g"].value == self.iris.derivations_graph:
                    t = keys[row["d"]]
                    out[t] = min(out.get(t, 1 << 30), int(row["depth"].value))
        return out

    def traces(self, triples: list[Triple], max_depth: int) -> dict[Triple, list[TraceStep]]:
        """All roots' proofs in one query (property path over the records), cut to `max_depth` levels here."""
        roots = {derivation_iri(self.iris, _rdf(t)): t for t in triples}
        steps: dict[RdfTriple, TraceStep] = {}
        premises_of: dict[RdfTriple, list[RdfTriple]] = {}
        for batch in _batches(list(roots)):
            rows = list(solutions(self.store.query(q.with_values(q.DERIVATION_TREES,
                                                                 derivations=[(d,) for d in batch]))))
            found = {row["d"] for row in rows}
            missing = [d for d in batch if d not in found]
            if missing:  # a store whose `*` path left out the zero-length step (Virtuoso): the roots' own records
                rows += solutions(self.store.query(q.with_values(q.DERIVATION_ROOTS,
                                                                 derivations=[(d,) for d in missing])))
            for row in rows:
                if row["g"].value != self.iris.derivations_graph:
                    continue
                conclusion, premise = row["conclusion"], row["premise"]
                if conclusion not in steps:
                    steps[conclusion] = TraceStep(conclusion=_strs(conclusion), rule=row["rule"].value,
                                                  depth=int(row["depth"].value), premises=[])
                    premises_of[conclusion] = []
                if premise not in premises_of[conclusion]:
                    premises_of[conclusion].append(premise)
                    steps[conclusion].premises.append(_strs(premise))
        return {t: _walk(_rdf(t), steps, premises_of, max_depth) for t in triples}


def _walk(root: RdfTriple, steps: dict[RdfTriple, TraceStep], premises_of: dict[RdfTriple, list[RdfTriple]],
          max_depth: int) -> list[TraceStep]:
    """The root's step, then its derived premises' steps, depth-first, at most `max_depth` levels; each step once."""
    out: list[TraceStep] = []
    seen: set[RdfTriple] = set()
    todo = [(root, 1)]
    while todo and len(out) < MAX_TRACE_STEPS:
        t, level = todo.pop()
        if t in seen or t not in steps or level > max_depth:
            continue
        seen.add(t)
        out.append(steps[t])
        todo.extend((p, level + 1) for p in reversed(premises_of[t]))
    return out


def _rdf(t: Triple) -> RdfTriple:
    return RdfTriple(NamedNode(t[0]), NamedNode(t[1]), NamedNode(t[2]))


def _strs(t: RdfTriple) -> list[str]:
    return [x.value if isinstance(x, NamedNode) else str(x) for x in (t.subject, t.predicate, t.object)]


def _batches(items: list[NamedNode], size: int = 500) -> Iterator[list[NamedNode]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def reasoner_inference(store: GraphStore, iris: Iris, settings: Settings | None = None) -> Inference:
    return DerivationRecords(store, iris)
