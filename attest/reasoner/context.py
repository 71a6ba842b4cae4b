"""What the OWL 2 RL rule tables need of the engine that fires them: a Protocol, so the rules do not import the engine."""

from __future__ import annotations

from typing import Protocol

from attest.reasoner.index import TripleIndex
from attest.reasoner.terms import Encoded, TermDict

Premises = tuple[Encoded, ...]


class RuleContext(Protocol):
    """The closure being computed: its triples, terms and depths, and the two ways a rule concludes."""

    index: TripleIndex
    terms: TermDict
    depth: dict[Encoded, int]
    settled: dict[Encoded, int]  # = depth during a full run (nothing known can get shallower)
    level: int
    full: bool

    def emit(self, s: int, p: int, o: int, rule: str, premises: Premises) -> None:
        """Infer (s, p, o) by `rule` from `premises`, at one level deeper than the current."""

    def violate(self, rule: str, premises: Premises) -> None:
        """Record an inconsistency: `rule` concludes false from `premises`."""
