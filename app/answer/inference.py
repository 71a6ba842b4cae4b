"""How answers learn the depth and trace of inferred triples: a small protocol over the reasoner's derivation records."""

from __future__ import annotations

from typing import Protocol

from app.answer.lookup import Triple
from app.answer.models import TraceStep


class Inference(Protocol):
    """Depths (batched) and bounded traces of inferred triples."""

    def depths(self, triples: list[Triple]) -> dict[Triple, int]:
        """Shallowest derivation depth of each triple that has a derivation record (others absent)."""

    def trace(self, triple: Triple, max_depth: int) -> list[TraceStep]:
        """Derivation steps from the triple down to asserted premises, at most `max_depth` levels, never looping."""


class ReasonerInference:
    """Inference backed by app.reasoner's derivation records (graph/derivations)."""

    def __init__(self, reasoner) -> None:
        self.reasoner = reasoner

    def depths(self, triples: list[Triple]) -> dict[Triple, int]:
        return self.reasoner.depth_of(triples)

    def trace(self, triple: Triple, max_depth: int) -> list[TraceStep]:
        return [TraceStep(conclusion=list(step.conclusion), rule=step.rule, depth=step.depth,
                          premises=[list(p) for p in step.premises])
                for step in self.reasoner.explain(*triple, max_depth=max_depth)]


def reasoner_inference(store, iris, settings) -> Inference:
    from app.reasoner import Reasoner  # noqa: PLC0415 — the reasoner package is heavy; only answers need it here

    return ReasonerInference(Reasoner(store, iris, settings))
