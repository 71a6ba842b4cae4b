"""OWL 2 RL reasoning with per-triple provenance: materialize, maintain incrementally, explain, check consistency.

Entry points (all on `Reasoner(store, iris, settings)`):
- `materialize(full=False) -> ReasoningReport`: bring Iris.inferred_graph (+ derivation records in
  Iris.derivations_graph) up to date; `full=True` recomputes from scratch.
- `on_graph_replaced(graph_iri)`, `on_graph_removed(graph_iri)`, `refresh(changed_graphs)`: incremental
  maintenance after a document graph (or the ontology graph) changed: semi-naive for additions, DRed for removals.
- `explain(s, p, o, max_depth=5) -> dict`: proof tree down to asserted triples, their graphs, documents, chunks.
- `depth_of(triples) -> {Triple: depth | None}`: 0 asserted, d inferred (shallowest derivation), None unknown.
- `consistency() -> list[dict]`: inconsistencies (rule + premises) found by the last materialization.
The engine itself (`engine.Engine`) works on int-encoded triples and is usable without a store.
"""

from attest.reasoner.engine import Engine, Violation
from attest.reasoner.reasoner import Reasoner, ReasoningReport

__all__ = ["Engine", "Reasoner", "ReasoningReport", "Violation"]
