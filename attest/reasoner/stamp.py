"""The closure stamp: which rules and which asserted triples the stored derivation records were derived from.

A new process rebuilds the closure in memory on first use; when the stamp stored with the records matches, the
records already say what it would write, and the write (most of a full run's time) is skipped. The stamp is an
order-free digest of the union of asserted triples, kept up to date as triples come and go, and the digest of
the reasoner's own source, so records from other rules never count as current.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from pyoxigraph import Literal, NamedNode, Quad

from attest.reasoner.terms import Encoded, TermDict
from attest.vocab import ATT, Iris

RULES_VERSION = hashlib.blake2b(b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py"))),
                                digest_size=6).hexdigest()
CLOSURE_STAMP = NamedNode(ATT + "closureStamp")
_MASK = (1 << 64) - 1


class ClosureStamp:
    """Count and sum (mod 2^64) of a 64-bit digest of each asserted triple in N-Triples form."""

    def __init__(self, terms: TermDict) -> None:
        self.terms = terms
        self.count = 0
        self.total = 0

    def _digest(self, t: Encoded) -> int:
        nt = self.terms.nt
        text = f"{nt(t[0])} {nt(t[1])} {nt(t[2])}".encode()
        return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")

    def add(self, t: Encoded) -> None:
        self.count += 1
        self.total = (self.total + self._digest(t)) & _MASK

    def add_all(self, triples: Iterable[Encoded]) -> None:
        """add() for each of `triples` (a full run's whole input), summed once."""
        digests = [self._digest(t) for t in triples]
        self.count += len(digests)
        self.total = (self.total + sum(digests)) & _MASK

    def remove(self, t: Encoded) -> None:
        self.count -= 1
        self.total = (self.total - self._digest(t)) & _MASK

    def value(self) -> str:
        return f"{RULES_VERSION}/{self.count}/{self.total:016x}"

    def quad(self, iris: Iris) -> Quad:
        """The stamp as stored: in the derivations graph, so that emptying that graph drops it too."""
        return Quad(NamedNode(iris.base + "reasoner"), CLOSURE_STAMP, Literal(self.value()),
                    NamedNode(iris.derivations_graph))

    @staticmethod
    def quad_pattern(iris: Iris) -> Quad:
        """Where the stamp is stored (its object a placeholder)."""
        return Quad(NamedNode(iris.base + "reasoner"), CLOSURE_STAMP, Literal(""), NamedNode(iris.derivations_graph))
